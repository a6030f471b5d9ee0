"""LOTR Risk built-in players inside numba: ``random`` (uniform over the legal actions, drawing
from the game's stream) and the heuristic behind ``greedy`` / ``aggressive`` / ``cautious``

(one scoring rule, a policy vector per seat, row ``st[S_CUR]`` of ``pol``: attack threshold on the exact odds, how much it
concentrates reinforcements, the weight of missions, of fortifying and of playing powers).

The heuristic scores every legal action (``score_nb``) and takes the best (the first of equal
scores); the pass action (end the combat / fortify step) scores 0, so it attacks only at a
positive score: exact P(taking the territory) from ``wp`` (lotr_sim.exact.battle, computed in
Python at compile time) minus the threshold, plus what the territory brings (a region
completed, a stronghold, a site where its Leader completes a mission). It reinforces its
most threatened front (strongholds count extra), completes regions, sends Leaders to the
sites of its mission cards, and fortifies from the interior to the fronts. It plays You Shall
Not Pass! at once on the bridge an enemy is likeliest to take an own territory across (any
bridge when none is threatened: a played power scores), and Strategic Withdrawal when the
attack takes the territory with P >= 0.8, into the own neighbour under most pressure. As a
defender it rolls the most dice (LR-5.2); it plays Courage Alone Will Not Save You when the
attack, fought to the end, takes the territory with P >= ``cour``, Smeagol when it leads on
points by at least ``smea`` and A Balrog is Come when it leads by less than ``balr`` (LR-9.3,
LR-10.4; greedy's 0.5, 0 and 0: Courage against an attack at even odds or better, and the
game nears its end when the Ring moves on, so the leader pushes it and the others hold it).
Those decisions score without the per-decision preparation (``prep_nb``), which
``choose_nb`` skips for them.

Six weights are 0 in the presets (so greedy, aggressive and cautious play as if they were
absent) and tuned in ``tuned``: an attack gains ``gene`` when its target belongs to a player
of the other side, not to the neutral army or to a player of its own side (taking it moves
both sides' points, LR-11.2), ``rbrk`` when that player holds the target's whole region (its
bonus, LR-4.2, and its points), ``glead`` when that player's Leader stands there (LR-5.7),
``card`` while the turn has no conquest yet (its territory card, LR-8.1) and ``end`` times the
chance that the seat does not play again (``last_turn_p_nb``, from the Ring's public place on
its path, LR-10: battalions score nothing at the end); a battalion placed on a front gets
``poff`` times how far it would outnumber the front's weakest enemy neighbour
(``_offense_nb``). What they gained the tuned players is in docs/players.md.

The learned player (``lotr-sim learn``) adds a linear term to the score of each row at the
turn's own decisions (reinforce, attack, move in, fortify; ``learned_on_nb``): the row's
features (``row_features_nb``: ending the combat step and when, an attack's odds, dice,
target and what it leaves behind, a reinforcement's front, a move-in's share, a fortify move's
pull to the front, a Leader onto its mission's site, a power card) weighted by the seat's
``PL_LF0..`` slots, 0 in every preset (so they play as before).

What it reads (only what its seat may know; checked by
tests/games/lotr_risk/test_lr_hidden.py, which deals the unseen cards again): the board (owners,
battalions, Leaders, storms, closed bridges, the Ring), the points (``leading_nb``: adventure
points come from completed missions and played powers, both shown), the seat's OWN hands
(``has_mission_nb`` and the power and discard rows are always called with the seat to move,
``st[S_CUR]``; a trade row names the seat's own cards) and its own hand counts. It never reads
another player's territory or adventure hand (missions, LR-9.1), the decks or their order;
``random`` reads only the number of legal actions.
"""
from __future__ import annotations


from lotr_sim._numba.dispatch import no_literal_dispatch
from lotr_sim.games.lotr_risk.fellowship.kernel import fellowship_moves_nb
from lotr_sim._numba.jit import njit
from lotr_sim.kernels.learned import weighted_nb, weights_on_nb
from lotr_sim.kernels.rng import randint_nb
from lotr_sim.games.lotr_risk.board import (
    adj_nb, enemy_adj_nb, leader_slot_at_nb, points_nb, region_held_nb, ring_territory_nb,
)
from lotr_sim.games.lotr_risk.config import (
    C_NP, C_NPATH, MAXR, MAXT, MAXW, NEUTRAL, O_ADJN, O_AARG, O_AKIND, O_MARK, O_REG, O_RSIZE, O_SITE, O_SSIDE,
    O_STRONG, P_LEADB, P_ROLL, P_STRB, C_NT, K_AMBUSH, K_ENEMY, K_GRIMA, K_HUNT, K_MISSION, K_NIGHT, K_WAY, K_WITHDRAW, K_YSNP, O_BRG,
    K_BALROG, K_COURAGE, K_SMEAGOL,
)
from lotr_sim.games.lotr_risk.layout import (
    AHMAX, A_ADISC, A_FORTL, A_ATTACK, A_CLAIM, A_FORT, A_LEADER, A_LMOVE, A_MOVEIN, A_PASS, A_PLACE, A_POWER, A_TRADE,
    O_AHAND, O_AHN, O_ALIVE, O_LEAD, O_OWNER, O_PTS, O_TROOPS, PH_REINF, PL_CADJ, PL_CENE, PL_CONC, PL_CREG, PL_CSITE,
    PL_CARD, PL_END, PL_FORT, PL_GENE, PL_GLEAD, PL_MISS, PL_POW, PL_POFF, PL_PREG, PL_PSTR, PL_RBRK, PL_RGAIN, PL_THR, PL_TYPE, PH_TRADE, S_CONQ, S_CUR, S_DST, S_NOSTR, S_PHASE, S_REINF,
    S_RING, S_SRC, A_DDICE, PH_COURAGE, PL_BALR, PL_COUR, PL_SMEA, NLF, PL_LF0, PH_ATTACK, PH_FORT,
)


@njit(cache=True, _nrt=False)
def has_mission_nb(cf, st, seat, t):
    """The player holds the mission card of site ``t`` (LR-9.1). Secret to the others: the
    heuristic calls it for the seat to move only."""
    b = O_AHAND + seat * AHMAX
    for i in range(st[O_AHN + seat]):
        c = st[b + i]
        if cf[O_AKIND + c] == K_MISSION and cf[O_AARG + c] == t:
            return True
    return False


@njit(cache=True, _nrt=False)
def odds_nb(cf, st, wp, src, dst, extra_a, extra_d, nostr):
    """Exact P(an attack from ``src`` fought to the end takes ``dst``) with the LR-5.4 bonuses."""
    seat = st[O_OWNER + src]
    ab = cf[P_LEADB] if leader_slot_at_nb(st, seat, src) >= 0 else 0
    d = st[O_OWNER + dst]
    db = 0
    if d < NEUTRAL and leader_slot_at_nb(st, d, dst) >= 0:
        db += cf[P_LEADB]
    if cf[O_STRONG + dst] != 0 and not nostr and st[S_NOSTR] != dst:
        db += cf[P_STRB]
    a = st[O_TROOPS + src] + extra_a
    dd = st[O_TROOPS + dst] + extra_d
    if dd < 1:
        return 1.0
    if a > MAXW:
        a = MAXW
    if dd > MAXW:
        dd = MAXW
    if ab > 3:
        ab = 3
    if db > 3:
        db = 3
    return wp[ab, db, a, dd]


C_LAST = MAXT + MAXR      # ctx slot: P(this is the seat's last turn), last_turn_p_nb
NCTX = MAXT + MAXR + 8    # ... and 6 slots of its scratch after it


@njit(cache=True, _nrt=False)
def last_turn_p_nb(cf, st, ctx):
    """P(the game ends before the seat to move plays again): the Ring leaves the path within
    the next k moves, k the players alive (it moves at the end of every player's turn,
    LR-10.1; from a marked territory only with a die above the threshold, LR-10.2; leaving the
    last one ends the game, LR-10.3). Public facts only; the cards that hold or push the Ring
    (LR-10.4) are left out. Uses ``ctx[C_LAST + 1:C_LAST + 7]`` as scratch."""
    k = 0
    for p in range(cf[C_NP]):
        if st[O_ALIVE + p] != 0:
            k += 1
    n = cf[C_NPATH]
    r = st[S_RING]
    marked = cf[O_MARK:O_MARK + n]
    m = C_LAST + 1
    for j in range(6):
        ctx[m + j] = 0.0
    ctx[m] = 1.0
    end = 0.0
    for step in range(k):
        for j in range(min(step, 4), -1, -1):     # the Ring r + j steps on; high to low
            w = ctx[m + j]
            if w == 0.0:
                continue
            faces = 0                                # P(it moves on): the d6 faces that move it
            for die in range(1, 7):
                if fellowship_moves_nb(r + j, marked, cf[P_ROLL], die, 0):
                    faces += 1
            g = faces / 6.0
            if r + j + 1 >= n:
                end += w * g
            else:
                ctx[m + j + 1] += w * g
            ctx[m + j] = w * (1.0 - g)
    return end


@njit(cache=True, _nrt=False)
def prep_nb(cf, st, pol, ctx):
    """Per-decision cache of the heuristic: ``ctx[MAXT + r]`` territories of region r the
    seat to move lacks, ``ctx[t]`` the pressure on territory t (``pressure_nb``),
    ``ctx[C_LAST]`` P(this is its last turn) (``last_turn_p_nb``)."""
    seat = st[S_CUR]
    nt = cf[C_NT]
    ctx[C_LAST] = last_turn_p_nb(cf, st, ctx)
    for r in range(MAXR):
        ctx[MAXT + r] = 0.0
    for t in range(nt):
        if st[O_OWNER + t] != seat:
            ctx[MAXT + cf[O_REG + t]] += 1.0
    for t in range(nt):
        ctx[t] = pressure_nb(cf, st, pol, t, ctx) if st[O_OWNER + t] == seat else -1.0


@njit(cache=True, _nrt=False)
def pressure_nb(cf, st, pol, t, ctx):
    """How much a front territory needs battalions: enemy battalions around per own one,
    plus enemy neighbours in nearly-held regions (PL_PREG) and a stronghold (PL_PSTR); -1 for
    an interior one."""
    tot, cnt = enemy_adj_nb(cf, st, t)
    if cnt == 0:
        return -1.0
    v = (tot + 1.0) / (st[O_TROOPS + t] + 1.0)
    seat = st[O_OWNER + t]
    for k in range(cf[O_ADJN + t]):
        u = adj_nb(cf, t, k)
        if st[O_OWNER + u] != seat:
            m = ctx[MAXT + cf[O_REG + u]]
            if 0.0 < m <= 2.0:
                v += pol[seat, PL_PREG] / m
    return v + pol[seat, PL_PSTR] * cf[O_STRONG + t]


@njit(cache=True, _nrt=False)
def bridge_threat_nb(cf, st, wp, seat, k):
    """How likely an enemy takes an own territory across bridge ``k`` (the exact odds of an
    attack fought to the end, LR-5): 0 where no enemy army faces ``seat`` there, or the enemy
    has a Leader at its end (a force with a Leader crosses anyway, LR-9.3)."""
    best = 0.0
    for e in range(2):
        mine = cf[O_BRG + 2 * k + e]
        them = cf[O_BRG + 2 * k + 1 - e]
        o = st[O_OWNER + them]
        if st[O_OWNER + mine] != seat or o == seat or o < 0 or o >= NEUTRAL or st[O_TROOPS + them] < 2:
            continue
        if leader_slot_at_nb(st, o, them) >= 0:
            continue
        p = odds_nb(cf, st, wp, them, mine, 0, 0, False)
        if p > best:
            best = p
    return best


@njit(cache=True, _nrt=False)
def leading_nb(cf, st, seat):
    """The player has the most points now (ties count as leading)."""
    return lead_nb(cf, st, seat) >= 0


@njit(cache=True, _nrt=False)
def lead_nb(cf, st, seat):
    """The player's points now minus the most any other player has (LR-11.2; public)."""
    points_nb(cf, st)
    me = st[O_PTS + 5 * seat + 4]
    best = -(1 << 30)
    for p in range(cf[C_NP]):
        if p != seat and st[O_PTS + 5 * p + 4] > best:
            best = st[O_PTS + 5 * p + 4]
    return me - best


@njit(cache=True, _nrt=False)
def _offense_nb(cf, st, a, extra):
    """How well an attack from own territory ``a`` with ``extra`` more battalions would go:
    its battalions per defender of its weakest enemy neighbour, capped at 3."""
    me = st[O_OWNER + a]
    weak = 1 << 30
    for k in range(cf[O_ADJN + a]):
        u = adj_nb(cf, a, k)
        if st[O_OWNER + u] != me and st[O_OWNER + u] >= 0 and st[O_TROOPS + u] < weak:
            weak = st[O_TROOPS + u]
    if weak == 1 << 30:
        return 0.0
    r = (st[O_TROOPS + a] + extra - 1.0) / (weak + 1.0)
    return 3.0 if r > 3.0 else r


@njit(cache=True, _nrt=False)
def _fort_score_nb(pol, seat, a, b, c, ctx):
    """A battalion move from ``a`` to ``b``: from the interior to the neediest front."""
    if ctx[a] >= 0.0:          # the source is a front itself
        return -1.0
    pd = ctx[b]
    if pd < 0:
        return -1.0
    return pol[seat, PL_FORT] * (0.5 + 0.1 * pd) + 0.001 * c


@njit(cache=True, _nrt=False)
def _lmove_score_nb(cf, st, pol, seat, frm, b, moved):
    """A Leader's move from ``frm`` to ``b`` (with ``moved`` battalions): to a mission's site,
    a site, or a stronger front."""
    if has_mission_nb(cf, st, seat, b):
        return 2.0 * pol[seat, PL_MISS]
    if cf[O_SITE + b] != 0 and st[O_AHN + seat] < 3:
        return 0.4 * pol[seat, PL_MISS]
    _, ed = enemy_adj_nb(cf, st, b)
    if ed > 0:
        return 0.02 * (st[O_TROOPS + b] + moved - st[O_TROOPS + frm] + moved)
    return -1.0


@njit(cache=True, _nrt=False)
def score_nb(cf, st, wp, pol, act, i, ctx):
    """The heuristic's score of legal action ``i`` (higher is better; pass scores 0)."""
    seat = st[S_CUR]
    kind = act[i, 0]
    a = act[i, 1]
    b = act[i, 2]
    c = act[i, 3]
    if kind == A_PASS:
        return 0.0 if st[S_PHASE] != PH_TRADE else -1.0   # the heuristic always trades
    if kind == A_DDICE:
        return float(a)            # LR-5.2: the defender rolls the most dice
    if kind == A_CLAIM:
        own = 0
        for t in range(cf[C_NT]):
            if cf[O_REG + t] == cf[O_REG + a] and st[O_OWNER + t] == seat:
                own += 1
        v = 1.0 + pol[seat, PL_CREG] * own / cf[O_RSIZE + cf[O_REG + a]]
        for k in range(cf[O_ADJN + a]):
            u = adj_nb(cf, a, k)
            if st[O_OWNER + u] == seat:
                v += pol[seat, PL_CADJ]
            elif st[O_OWNER + u] >= 0:
                v -= pol[seat, PL_CENE]
        # (no tunable weight for a stronghold: it changed none of the 2-player games, where
        # the empty territories claimed at the set-up, LR-2.2, hold none; tests/experiments/test_tune.py
        # finds such dead weights)
        return v + 0.3 * cf[O_STRONG + a] + pol[seat, PL_CSITE] * cf[O_SITE + a]
    if kind == A_PLACE:
        v = ctx[a]
        if pol[seat, PL_POFF] != 0.0 and v >= 0.0:
            v += pol[seat, PL_POFF] * _offense_nb(cf, st, a, st[S_REINF])
        if st[S_PHASE] == PH_REINF:
            v += 0.001 * b * (1.0 if pol[seat, PL_CONC] > 0 else -1.0)
        return v
    if kind == A_LEADER:
        v = 0.1 * st[O_TROOPS + a]
        if has_mission_nb(cf, st, seat, a):
            v += 3.0 * pol[seat, PL_MISS]
        tot, cnt = enemy_adj_nb(cf, st, a)
        if cnt > 0:
            v += 1.0
        return v
    if kind == A_TRADE:
        # row: (A_TRADE, cards, set value, the held card territory that gets +2 or -1, LR-4.3):
        # the set's value, the bonus, and the bonus on the most pressed front
        return float(b) + (2.0 + 0.001 * ctx[c] if c >= 0 else 0.0)
    if kind == A_ATTACK:
        if c < 3 and c < st[O_TROOPS + a] - 1:
            return -0.5
        p = odds_nb(cf, st, wp, a, b, 0, 0, False)
        gain = 0.05 + 0.05 * cf[O_STRONG + b]
        if ctx[MAXT + cf[O_REG + b]] == 1.0:
            gain += pol[seat, PL_RGAIN]
        o = st[O_OWNER + b]
        if o < NEUTRAL and cf[O_SSIDE + o] != cf[O_SSIDE + seat]:   # the other side's player
            gain += pol[seat, PL_GENE]
            if leader_slot_at_nb(st, o, b) >= 0:
                gain += pol[seat, PL_GLEAD]
            if pol[seat, PL_RBRK] != 0.0 and region_held_nb(cf, st, o, cf[O_REG + b]):
                gain += pol[seat, PL_RBRK]
        if st[S_CONQ] == 0:          # the turn's first conquest draws a territory card (LR-8.1)
            gain += pol[seat, PL_CARD]
        gain += pol[seat, PL_END] * ctx[C_LAST]
        if leader_slot_at_nb(st, seat, a) >= 0 and cf[O_SITE + b] != 0:
            gain += 0.05 * pol[seat, PL_MISS]
            if has_mission_nb(cf, st, seat, b):
                gain += 0.3 * pol[seat, PL_MISS]
        return p - pol[seat, PL_THR] + gain
    if kind == A_MOVEIN:
        src = st[S_SRC]
        dst = st[S_DST]
        _, es = enemy_adj_nb(cf, st, src)
        _, ed = enemy_adj_nb(cf, st, dst)
        if es == 0:
            return float(a)
        if ed == 0:
            return -float(a)
        return -abs(a - 0.5 * st[O_TROOPS + src])
    if kind == A_FORT:
        return _fort_score_nb(pol, seat, a, b, c, ctx)
    if kind == A_FORTL:         # the move with its Leader (LR-6.2): both parts' scores
        return _fort_score_nb(pol, seat, a, b, c, ctx) + _lmove_score_nb(cf, st, pol, seat, a, b, c)
    if kind == A_LMOVE:
        return _lmove_score_nb(cf, st, pol, seat, st[O_LEAD + a], b, 0)
    if kind == A_ADISC:
        # LR-8.2: discard the card worth least: a power scores when played; a mission whose
        # site the player holds is a Leader's move from done, one held by others is a fight
        card = st[O_AHAND + seat * AHMAX + a]
        if cf[O_AKIND + card] != K_MISSION:
            return -1.2
        t = cf[O_AARG + card]
        return -1.5 if st[O_OWNER + t] == seat else -1.0 + 0.01 * st[O_TROOPS + t]
    if kind == A_POWER:
        card = st[O_AHAND + seat * AHMAX + a]
        k = cf[O_AKIND + card]
        w = pol[seat, PL_POW]
        if k == K_GRIMA:
            p0 = odds_nb(cf, st, wp, b, c, 0, 0, False)
            mv = min(2, st[O_TROOPS + c] - 1)
            p1 = odds_nb(cf, st, wp, b, c, mv, -mv, False)
            return w * (0.05 + p1 - p0) if p1 >= pol[seat, PL_THR] else -1.0
        if k == K_AMBUSH:          # +3 in b, then the attack from b on c
            p1 = odds_nb(cf, st, wp, b, c, 3, 0, False)
            g = p1 - odds_nb(cf, st, wp, b, c, 0, 0, False)
            return w * (0.05 + g) if p1 >= pol[seat, PL_THR] and g > 0 else -1.0
        if k == K_ENEMY:
            best = -1.0
            for q in range(cf[O_ADJN + b]):
                u = adj_nb(cf, b, q)
                if st[O_OWNER + u] == seat and st[O_TROOPS + u] >= 2:
                    g = odds_nb(cf, st, wp, u, b, 0, 0, True) - odds_nb(cf, st, wp, u, b, 0, 0, False)
                    if odds_nb(cf, st, wp, u, b, 0, 0, True) >= pol[seat, PL_THR] and g > best:
                        best = g
            return w * (0.05 + best) if best > 0 else -1.0
        if k == K_WAY:
            return w * (odds_nb(cf, st, wp, b, c, 0, 0, False) - pol[seat, PL_THR] + 0.05)
        if k == K_HUNT:
            if ring_territory_nb(cf, st) >= 0 and st[O_OWNER + ring_territory_nb(cf, st)] == seat:
                return 0.3 * w
            return 0.3 * w if leading_nb(cf, st, seat) else -1.0
        if k == K_NIGHT:
            return 0.05 * w
        if k == K_YSNP:
            return w * (0.05 + bridge_threat_nb(cf, st, wp, seat, b))
        if k == K_WITHDRAW:
            # the defence is hopeless: save all but one into the neediest own neighbour
            p = odds_nb(cf, st, wp, st[S_SRC], st[S_DST], 0, 0, False)
            return 1.0 + 0.01 * max(ctx[b], 0.0) if p >= 0.8 else -1.0
        if k == K_COURAGE:
            # +4 against an attack likely to take the territory (the attacker's P at least cour)
            p = odds_nb(cf, st, wp, st[S_SRC], st[S_DST], 0, 0, False)
            return 1.0 if p >= pol[seat, PL_COUR] else -1.0
        if k == K_SMEAGOL:
            # the Ring moves on, the game nears its end: when ahead by at least smea points
            return 1.0 if lead_nb(cf, st, seat) >= pol[seat, PL_SMEA] else -1.0
        if k == K_BALROG:
            # the Ring may stay in Moria, the game lasts longer: when ahead by less than balr
            return 1.0 if lead_nb(cf, st, seat) < pol[seat, PL_BALR] else -1.0
        return 0.01
    return 0.0


@njit(cache=True, _nrt=False)
def learned_on_nb(pol, st, seat):
    """Does the learned term score this decision: one of the turn's own decisions
    (reinforce, attack, move in, fortify; ``row_features_nb``) with learned weights in
    ``seat``'s row?"""
    ph = st[S_PHASE]
    return PH_REINF <= ph <= PH_FORT and weights_on_nb(pol, seat, PL_LF0, NLF)


@njit(cache=True, _nrt=False)
def row_features_nb(cf, st, wp, seat, act, i, ctx):
    """The ``NLF`` features of legal row ``i`` for ``seat`` (layout ``LF_*``), what the learned
    term weighs, at a reinforce, attack, move-in or fortify decision (``ctx`` prepared by
    ``prep_nb``). Only what the seat may know is read (the board, the points, the Ring's place,
    its own mission cards):

    * ending the combat step (LR-5): plain, before the turn's first conquest (its territory
      card, LR-8.1), times the points lead (/10, capped at 2, LR-11.2);
    * an attack (LR-5): plain, the exact P(it takes the territory), dice short of the most it
      may roll, against the other side's player (not the neutral army), the other enemy
      battalions around its source per own one there (capped at 3), times P(the seat does not
      play again), completing a region and breaking one the other side holds (LR-4.2);
    * a reinforcement (LR-4.4): the front's pressure (``pressure_nb``, 0 inland, capped at 5),
      a stronghold front, the share of those left it places, how far the front would then
      outnumber its weakest enemy neighbour (``_offense_nb``), and the nearest region it
      borders that the seat lacks one or two territories of (1 or 1/2, LR-4.2);
    * a move-in (LR-5.6): the share of the source's battalions moved;
    * a fortify move (LR-6): plain, the destination's pressure minus the source's (capped at
      ±5); ending the turn; a Leader moved onto the site of its own mission (LR-9.1);
    * a power card played in the own turn (LR-9.3)."""
    f0 = 0.0; f1 = 0.0; f2 = 0.0; f3 = 0.0; f4 = 0.0; f5 = 0.0; f6 = 0.0; f7 = 0.0; f8 = 0.0; f9 = 0.0
    f10 = 0.0; f11 = 0.0; f12 = 0.0; f13 = 0.0; f14 = 0.0; f15 = 0.0; f16 = 0.0; f17 = 0.0; f18 = 0.0
    f19 = 0.0; f20 = 0.0; f21 = 0.0
    kind = act[i, 0]
    a = act[i, 1]
    b = act[i, 2]
    c = act[i, 3]
    ph = st[S_PHASE]
    if kind == A_PASS:
        if ph == PH_ATTACK:
            f0 = 1.0
            if st[S_CONQ] == 0:
                f1 = 1.0
            f2 = min(2.0, max(-2.0, lead_nb(cf, st, seat) / 10.0))
        elif ph == PH_FORT:
            f17 = 1.0
    elif kind == A_ATTACK:
        f3 = 1.0
        f4 = odds_nb(cf, st, wp, a, b, 0, 0, False)
        f5 = float(min(3, st[O_TROOPS + a] - 1) - c)
        o = st[O_OWNER + b]
        if o < NEUTRAL and cf[O_SSIDE + o] != cf[O_SSIDE + seat]:
            f6 = 1.0
            if region_held_nb(cf, st, o, cf[O_REG + b]):
                f10 = 1.0
        around = 0          # enemy battalions around the source but the target's (which may
        for k in range(cf[O_ADJN + a]):       # lie across the Way under the Mountains, LR-9.3)
            u = adj_nb(cf, a, k)
            if u != b and st[O_OWNER + u] != seat:
                around += st[O_TROOPS + u]
        f7 = min(3.0, around / max(1.0, float(st[O_TROOPS + a])))
        f8 = ctx[C_LAST]
        if ctx[MAXT + cf[O_REG + b]] == 1.0:
            f9 = 1.0
    elif kind == A_PLACE:
        f11 = min(5.0, max(0.0, ctx[a]))
        if ctx[a] >= 0.0 and cf[O_STRONG + a] != 0:
            f12 = 1.0
        if st[S_REINF] > 0:
            f13 = b / float(st[S_REINF])
        if ctx[a] >= 0.0:
            f20 = _offense_nb(cf, st, a, b)
            for k in range(cf[O_ADJN + a]):
                u = adj_nb(cf, a, k)
                m = ctx[MAXT + cf[O_REG + u]]
                if st[O_OWNER + u] != seat and 0.0 < m <= 2.0 and 1.0 / m > f21:
                    f21 = 1.0 / m
    elif kind == A_MOVEIN:
        f14 = a / max(1.0, float(st[O_TROOPS + st[S_SRC]]))
    elif kind == A_FORT or kind == A_FORTL:
        f15 = 1.0
        f16 = min(5.0, max(-5.0, ctx[b] - ctx[a]))
        if kind == A_FORTL and has_mission_nb(cf, st, seat, b):
            f18 = 1.0
    elif kind == A_LMOVE:
        if has_mission_nb(cf, st, seat, b):
            f18 = 1.0
    elif kind == A_POWER:
        f19 = 1.0
    return (f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16, f17, f18, f19, f20, f21)


@njit(cache=True, _nrt=False)
def learned_bonus_nb(cf, st, wp, pol, seat, act, i, ctx):
    """The learned term of row ``i``'s score: its features weighted by ``seat``'s ``PL_LF0..``."""
    return weighted_nb(pol, seat, PL_LF0, row_features_nb(cf, st, wp, seat, act, i, ctx))


@njit(cache=True, _nrt=False)
def choose_nb(cf, wp, pol, st, act, scr, s, n):
    """The built-in policy's pick among ``n`` legal actions: random uniform (from the game's
    stream), else the heuristic's best (the first of equal scores), its learned term added
    where it scores (``learned_on_nb``)."""
    seat = st[S_CUR]
    if n <= 1:
        return 0
    if pol[seat, PL_TYPE] == 0.0:
        return randint_nb(s, n)
    if st[S_PHASE] < PH_COURAGE:   # the decisions before the roll and the Ring's cards score without it
        prep_nb(cf, st, pol, scr)
    lw = learned_on_nb(pol, st, seat)
    best = 0
    bv = score_nb(cf, st, wp, pol, act, 0, scr)
    if lw:
        bv += learned_bonus_nb(cf, st, wp, pol, seat, act, 0, scr)
    for i in range(1, n):
        v = score_nb(cf, st, wp, pol, act, i, scr)
        if lw:
            v += learned_bonus_nb(cf, st, wp, pol, seat, act, i, scr)
        if v > bv:
            bv = v
            best = i
    return best


@njit(cache=True, _nrt=False)
def base_scores_nb(cf, wp, pol, st, act, scr, n, out):
    """The heuristic's own score of each of the ``n`` legal actions (its learned term left
    out); ``scr`` is float scratch of ``NCTX`` that ``prep_nb`` fills."""
    prep_nb(cf, st, pol, scr)
    for i in range(n):
        out[i] = score_nb(cf, st, wp, pol, act, i, scr)


@njit(cache=True)
def scores_nb(cf, wp, pol, st, act, scr, s, n, out):
    """The heuristic's score of each of the ``n`` legal actions (Game.action_scores), its
    learned term added where it scores; ``scr`` is float scratch of ``NCTX`` (``prep_nb``
    fills it; ``s`` unused: the common signature)."""
    base_scores_nb(cf, wp, pol, st, act, scr, n, out)
    seat = st[S_CUR]
    if learned_on_nb(pol, st, seat):
        for i in range(n):
            out[i] += learned_bonus_nb(cf, st, wp, pol, seat, act, i, scr)


no_literal_dispatch(globals())
