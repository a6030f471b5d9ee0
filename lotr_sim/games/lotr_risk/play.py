"""LOTR Risk step machine in numba: set-up (LR-2), turns (LR-3), reinforcement and card sets
(LR-4), combat and conquest (LR-5), fortify (LR-6), Leaders (LR-7), card draws (LR-8), the
adventure deck (LR-9), the Fellowship (LR-10) and the end of the game (LR-11); whole games
(``simulate_nb``: a GIL-free range of games, game i on stream (seed, i)), one traced game and
the search player's playouts.

Decisions (``legal_nb`` lists them as rows (kind, a, b, c); ``apply_nb`` applies one and
resolves everything up to the next decision):

* PH_CLAIM   set-up, claim an empty territory with 1 battalion (LR-2.2/2.3);
* PH_SPLACE  set-up, put 1 battalion on an own territory (LR-2.2/2.3);
* PH_LEADER  put a Leader on an own territory without one (set-up LR-2.4, no Leader at the
             end of a turn LR-7.1, the event "Appoint a Second Leader" LR-9.2);
* PH_TRADE   trade one set of territory cards or not (LR-4.3; no pass with 5 cards): a row
             (A_TRADE, cards, value, t) per set and per held territory t among its cards, which
             gets the +2 (once per trade; t = -1 when none is held);
* PH_REINF   place reinforcements: (territory, amount), amounts from ``reinforce_sizes``
             (default 1, half or all of those left; narrowed from any amount, LR-4.4);
* PH_ATTACK  attack (from, to, dice 1..3), a power card (LR-9.3), or end the combat step;
             asked again after every roll, so the attacker decides after each roll whether to
             go on (LR-5.5);
* PH_MOVEIN  after a conquest, move in an amount from ``movein_sizes`` (default the dice of
             the last roll, half the battalions or all but one; narrowed from any number in
             between, LR-5.6);
* PH_FORT    one battalion move through own territories, amounts from ``fortify_sizes``
             (default all but one or half; narrowed from any number, LR-6.1); LR-6.2 [R]
             (leader_extra_move false): the same move with the Leader of its territory
             (A_FORTL) or a Leader alone (A_LMOVE) is the turn's one move; with
             leader_extra_move each Leader moves alone besides it; "Move by Night" (3 more
             moves), or end the turn;
* PH_ADISC   a fourth adventure card (LR-8.2): the player discards one of the four (A_ADISC,
             hand index, card);
* PH_BLOCK   start of a turn, the holder of "You Shall Not Pass!" (LR-9.3): close one bridge
             (a row per bridge of the board) or not. Until the holder's next turn starts no
             attack crosses it unless the attacking territory holds the attacker's Leader,
             and no fortify battalion move crosses it (Leaders move on their own, LR-6.2, and
             may cross; a Strategic Withdrawal does not cross it either). It closes the bridge
             for every army, the holder's too (the card names no exception);
* PH_WITHDRAW an attack is declared on a player holding "Strategic Withdrawal" (LR-9.3) whose
             territory has 2+ battalions and an adjacent own territory: the DEFENDER decides
             (S_CUR is the defender's seat until it does; S_TSEAT keeps the turn's): move all
             but 1 battalion to one adjacent own territory, or not; then the roll.
* PH_COURAGE a roll is about to be made against a player holding "Courage Alone Will Not Save
             You" (LR-9.3: a power card that "kan spilles under en anden spillers tur"): the
             DEFENDER keeps it (A_PASS) or plays it (A_POWER, hand index, the attacked
             territory: +4 battalions there), before each roll against it while it holds one
             (not right after it withdrew against the attack: one "when attacked" card per
             declaration);
* PH_DDICE   then, when the defender may roll 2 dice (2+ battalions, 2+ red dice), the DEFENDER
             rolls 1 or 2 (A_DDICE, dice; LR-5.2 "Kast lige så mange terninger som det antal
             bataljoner, du forsvarer med (1 eller 2)"); the neutral army never decides and
             rolls the most (LR-5.8);
* PH_SMEAGOL the Fellowship's die at the end of a turn fails and +2 would move the Ring
             (LR-10.2): each holder of "Smeagol" in seat order (not the player whose turn ends if
             it drew an adventure card this turn, LR-8.2) keeps it or plays it (+2), until one
             plays;
* PH_BALROG  the Ring would leave Moria: each holder of "A Balrog is Come" in seat order (the
             same exception) keeps it or plays it, until one plays ("BRUG KORTET, NÅR
             BRODERSKABET FORSØGER AT FORLADE MORIA"; then one die must beat
             balrog_roll_above to hold the Ring, LR-10.4 [R]).

Each decision is taken by the seat that holds the choice, which need not be the seat whose turn
it is (S_CUR is the deciding seat, S_TSEAT the turn's while the defender or a card holder
decides); the trace's decision events name it.

The three menus of amounts are the engine's narrowings of a free choice; each is a parameter
(``_sized_rows`` writes them) with a wider setting: reinforce_sizes "1,2,3,half,all" or "any"
(every count), movein_sizes "any", fortify_sizes "1,2,3,half,all" ("any" is refused: every
connected pair times every count overflows the legal-action table). Measured before the
deck had its 40 cards (paired ``lotr-sim compare``, seed 1): greedy v greedy, 20,000 games, all three menus widened at once:
Good 34.41% under both, 0 discordant games (greedy scores an amount by its size, so it takes
all, or the nearest to half on a move-in, which the default menus already hold; the wider
menus never change its pick). Search (Good; then flat, budget 96, width 6) v greedy, 27 paired games
per menu (game i under the default and under the wider menu; -j 1), Good's win rate 85.2%
with the default menus: reinforce_sizes "1,2,3,half,all" -7.4 pp (2 games lost only under
it, 0 won only under it; 95% paired interval [-20.2, +6.4]), movein_sizes "any" +0.0 pp
(1 and 1; [-13.5, +13.5]), fortify_sizes "1,2,3,half,all" +0.0 pp (0 and 0; [-9.6, +9.6]).
No measured cost of the narrowing; the search sample is small (about 25 s a game).

The search player's playouts (``playouts_nb``) see only what the searching seat can know:
each copy is determinized from that seat's view first (``determinize_nb``: the decks' order and
the other players' territory-card and adventure hands, secret missions among them, LR-9.1,
dealt again with every count kept), from the playout's own stream (key, j).

Narrowed or automatic (documented simplifications): one "You Shall Not Pass!" per turn (a
second copy waits for the next turn); the Leader of a withdrawing territory stays (LR-7.2
would forbid some destinations); a defender that withdrew against an attack does not also play
Courage against it; Grima Wormtongue and Ambush are played as a row (from, to) and the attack
from ``from`` on ``to`` follows at once with the most dice (the card data: "before an
attack"; the number of dice is narrowed); The Enemy is at Hand lasts the turn for its
stronghold; one Smeagol and one A Balrog is Come per move of the Ring (once a holder plays
one, nobody else is asked); the neutral army rolls the most defence dice; a Local Uprising
territory is checked at the start of its holder's turns; an
eliminated player's cards are discarded; Raiders / Winter Storms / Mustering turn up
territory cards that go to the discard pile (each traced as it is turned up, as is the deck's
order after the set-up's shuffle and after every reshuffle, so a trace follows every
territory card); a Leader moves into a conquered territory with the battalions that move in. Attacks may target
any other player (LR-5.1 "another player"; with 4 players, allies too).
"""
from __future__ import annotations

import numpy as np

from lotr_sim.kernels.combat import assault_faces_nb, assault_losses_nb
from lotr_sim._numba.dispatch import no_literal_dispatch
from lotr_sim.games.lotr_risk.fellowship.kernel import fellowship_die_nb, fellowship_moves_nb
from lotr_sim.kernels.graph import reachable_nb
from lotr_sim._numba.jit import njit
from lotr_sim.kernels.piles import redeal_range_nb, shuffle_range_nb, sort_range_nb
from lotr_sim.kernels.rng import STATE_SIZE, d6_nb, randint_nb, stream_init_nb
from lotr_sim.games.lotr_risk.board import (
    add_troops_nb, adiscard_nb, adj_nb, adraw_nb, arefill_nb, ahand_remove_nb, blk_nb, count_terr_nb, ev_nb,
    hand_remove_nb, ring_advance_nb, invariant_ok_nb, leader_ok_at_nb, leader_slot_at_nb, n_leaders_nb,
    points_nb, put_leader_nb, reinforcements_nb, ring_territory_nb, set_value_nb, side_of_nb, snapshot_nb,
    take_troops_nb, tdeck_event_nb, tdiscard_nb, tdraw_nb, winner_nb, enemy_adj_nb,
)
from lotr_sim.games.lotr_risk.config import (
    C_FANGORN, C_MORIA, C_NADV, C_NBRG, C_NP, C_NT, C_NTC, EVENT_KINDS_ARR, K_WITHDRAW, K_YSNP, MAXP, O_BRG, K_AMBUSH, K_BALROG, K_COURAGE, K_ENEMY,
    K_ENTMOOT, K_GRIMA, K_HUNT, K_MISSION, K_MUSTER, K_NIGHT, K_RAIDERS, K_SECOND, K_SMEAGOL, K_TROLL,
    K_UPRISING, K_WAY, K_WINTER, MAXADV, MAXT, MAXW, NEUTRAL, O_ADJN, O_AARG, O_AKIND, O_BLKN, O_CSIDE, O_CSR_I, O_CSR_P,
    O_DEALE, O_DEALG, O_DEALN, O_MARK, C_NPATH, O_REG, O_SSIDE, O_REWE, O_REWG, O_SITE, O_STRONG, P_AHAND, P_CARDB,
    P_BALROG, P_FIRSTP, P_FMENU, P_LXMOVE, P_FORCED, P_LEADB, P_MMENU, P_MPTS, P_NEUTRAL, P_RMENU, P_PPTS, P_REWREG, P_ROLL, P_START, P_STRB,
)
from lotr_sim.games.lotr_risk.layout import (
    A_ADISC, A_FORTL, EV_BALROG, EV_DECISION, EV_SETUP, PH_ADISC, S_NLEGAL,
    A_DDICE, EV_ASIDE, EV_TURNUP, PH_BALROG, PH_COURAGE, PH_DDICE, PH_SMEAGOL, S_FASK, S_FDIE, S_FMOD,
    S_FSTEP, S_RSTEP,
    EV_BLOCK, EV_WITHDRAW, O_BLOCK, O_COMP, PH_BLOCK, PH_WITHDRAW, S_NBLOCK, S_TSEAT, S_WDONE,
    AHMAX, A_ATTACK, A_CLAIM, A_FORT, A_LEADER, A_LMOVE, A_MOVEIN, A_PASS, A_PLACE, A_POWER, A_TRADE, EV_ADV,
    EV_CONQ, EV_ELIM, EV_END, EV_FORT, EV_RING, EV_ROLL, EV_TDRAW, EV_TRADE, EV_TURN, HMAX, MAXA, MAX_TURNS, O_ACOUNT,
    O_ADECK, O_AHAND, O_AHN, O_ALIVE, O_ASCORE, O_HAND, O_HN, O_LDONE, O_LEAD, O_LEFT, O_MASK, O_OWNER, O_PTS,
    O_STORM, O_TDECK, O_TROOPS, O_UPR, PH_ATTACK, PH_CLAIM, PH_FORT, PH_LEADER, PH_MOVEIN, PH_OVER, PH_REINF,
    PH_SPLACE, PH_TRADE, R_CAP, R_CONQUEST, R_FELLOWSHIP, ST_SIZE, S_ADD, S_ADN, S_ADVLOCK, S_BAD, S_CONQ,
    S_CONQWIN, S_CUR, S_DEBUG, S_DICE, S_DST, S_FIRST, S_FORT, S_LCTX, S_NOSTR, S_OVER, S_PHASE, S_PICKS,
    S_ADRAWS, S_REASON, S_REINF, S_REMOVED, S_RING, S_RINGT, S_SETUP, S_SITE, S_SRC, S_STAGE, S_TDD, S_TDN, S_TRADED, S_TURN,
    S_WAYA, S_WAYB, S_WSEAT, NLF,
)
from lotr_sim.games.lotr_risk.policies import (
    NCTX, base_scores_nb, choose_nb, row_features_nb, scores_nb,
)

NOUT = 32   # outcome matrix columns (game.py names them)


# ---- small helpers -------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def _row(act, n, k, a, b, c):
    if n < MAXA:
        act[n, 0] = k
        act[n, 1] = a
        act[n, 2] = b
        act[n, 3] = c
    return n + 1 if n < MAXA else n


@njit(cache=True, _nrt=False)
def _is_event(k):
    for e in EVENT_KINDS_ARR:
        if e == k:
            return True
    return False


@njit(cache=True, _nrt=False)
def _next_seat(cf, st, seat):
    np_ = cf[C_NP]
    for k in range(1, np_ + 1):
        q = (seat + k) % np_
        if st[O_ALIVE + q] != 0:
            return q
    return seat


@njit(cache=True, _nrt=False)
def _find_power(cf, st, seat, kind):
    b = O_AHAND + seat * AHMAX
    for i in range(st[O_AHN + seat]):
        if cf[O_AKIND + st[b + i]] == kind:
            return i
    return -1


@njit(cache=True, _nrt=False)
def _play_power(cf, st, tr, seat, i, a, b):
    """Play power card ``i`` of the hand: it scores its points (LR-9.3)."""
    c = ahand_remove_nb(st, seat, i)
    st[O_ACOUNT + seat] += 1
    st[O_ASCORE + seat] += cf[P_PPTS]
    ev_nb(tr, EV_ADV, 5, seat, c, 3, a, b, 0, 0, 0)
    return c


@njit(cache=True, _nrt=False)
def _closed_nb(cf, st, a, b):
    """You Shall Not Pass! (LR-9.3): the border a-b is a bridge a player closed."""
    if st[S_NBLOCK] == 0:
        return False
    for p in range(MAXP):
        k = st[O_BLOCK + p]
        if k >= 0:
            x = cf[O_BRG + 2 * k]
            y = cf[O_BRG + 2 * k + 1]
            if (x == a and y == b) or (x == b and y == a):
                return True
    return False


@njit(cache=True, _nrt=False)
def _may_attack(cf, st, src, dst):
    """LR-5.1 + Winter Storms (LR-9.2): no attack into or out of a stormed territory; You Shall
    Not Pass! (LR-9.3): none across a closed bridge unless a Leader attacks with the force."""
    if st[O_STORM + src] != 0 or st[O_STORM + dst] != 0:
        return False
    return not _closed_nb(cf, st, src, dst) or leader_slot_at_nb(st, st[O_OWNER + src], src) >= 0


@njit(cache=True, _nrt=False)
def _reopen_nb(st, tr, p):
    """The bridge player ``p`` closed opens again (its next turn, or it is out)."""
    if st[O_BLOCK + p] >= 0:
        ev_nb(tr, EV_BLOCK, 3, p, st[O_BLOCK + p], 0, 0, 0, 0, 0, 0)
        st[O_BLOCK + p] = -1
        st[S_NBLOCK] -= 1


# ---- set-up (LR-2) ------------------------------------------------------------------------------------
@njit(cache=True)
def new_game_nb(cf, st, tr, act, s, seed, index, debug):
    """Game ``index`` on stream (seed, index): deal the territories, put the dealt and neutral
    battalions, deal adventure cards, and rest at the first claim decision (``act`` unused:
    the common signature, lotr_sim.games.adapter)."""
    stream_init_nb(seed, index, s)
    nt = cf[C_NT]
    np_ = cf[C_NP]
    st[:] = 0
    for t in range(nt):
        st[O_OWNER + t] = -1
    for k in range(8):
        st[O_LEAD + k] = -1
    for p in range(4):
        st[O_UPR + p] = -1
        st[O_BLOCK + p] = -1
    st[S_NOSTR] = -1
    st[S_WAYA] = -1
    st[S_WAYB] = -1
    # LR-2.2/2.3: deal the territory cards by side (good, evil, neutral groups, each shuffled)
    n = 0
    starts = np.zeros(4, dtype=np.int64)
    for side in range(3):
        starts[side] = n
        for t in range(nt):
            if cf[O_CSIDE + t] == side:
                st[O_TDECK + n] = t
                n += 1
        shuffle_range_nb(s, st, O_TDECK + starts[side], n - starts[side])
    starts[3] = n
    pos = np.zeros(3, dtype=np.int64)
    for p in range(np_):
        st[O_ALIVE + p] = 1
        st[O_LEFT + p] = cf[P_START]
        for side in range(3):
            k = cf[O_DEALG + p] if side == 0 else cf[O_DEALE + p] if side == 1 else cf[O_DEALN + p]
            for _ in range(k):
                t = st[O_TDECK + starts[side] + pos[side]]
                pos[side] += 1
                add_troops_nb(st, tr, t, 1, p, 8)
                st[O_LEFT + p] -= 1
    if np_ == 2:
        # LR-2.2: the neutral army gets 14 of the neutral cards, 2 battalions each
        for _ in range(14):
            if pos[2] < starts[3] - starts[2]:
                t = st[O_TDECK + starts[2] + pos[2]]
                pos[2] += 1
                add_troops_nb(st, tr, t, cf[P_NEUTRAL], NEUTRAL, 7)
    # LR-2.5: every territory card and the 2 jokers, shuffled into one deck
    for c in range(cf[C_NTC]):
        st[O_TDECK + c] = c
    shuffle_range_nb(s, st, O_TDECK, cf[C_NTC])
    st[S_TDN] = cf[C_NTC]
    tdeck_event_nb(st, tr, 0)
    # LR-2.6: events out, 3 adventure cards each, events back, shuffle
    na = cf[C_NADV]
    m = 0
    for c in range(na):
        if not _is_event(cf[O_AKIND + c]):
            st[O_ADECK + m] = c
            m += 1
    shuffle_range_nb(s, st, O_ADECK, m)
    for p in range(np_):
        for _ in range(3):
            if m > 0 and st[O_AHN + p] < cf[P_AHAND] and st[O_AHN + p] < AHMAX:
                m -= 1
                st[O_AHAND + p * AHMAX + st[O_AHN + p]] = st[O_ADECK + m]
                st[O_AHN + p] += 1
                ev_nb(tr, EV_ADV, 3, p, st[O_ADECK + m], 5, 0, 0, 0, 0, 0)
    for c in range(na):
        if _is_event(cf[O_AKIND + c]):
            st[O_ADECK + m] = c
            m += 1
    shuffle_range_nb(s, st, O_ADECK, m)
    st[S_ADN] = m
    # LR-2.2: with 2 players a die decides who starts; LR-2.3: with 3-4 the die only decides who
    # sits in seat 1 (the deal goes by seat), and seat p1 starts (the die stays drawn all the same)
    die = randint_nb(s, np_)
    st[S_FIRST] = die if np_ == 2 else 0
    if cf[P_FIRSTP] > 0:  # first_player good / evil: the first seat of that side (the die above stays drawn)
        for q in range(np_):
            if cf[O_SSIDE + q] == cf[P_FIRSTP] - 1:
                st[S_FIRST] = q
                break
    ev_nb(tr, EV_SETUP, 2, die, st[S_FIRST], 0, 0, 0, 0, 0, 0)
    st[S_CUR] = st[S_FIRST]
    st[S_SETUP] = 0
    st[S_PHASE] = PH_CLAIM
    _setup_next_nb(cf, st, s, tr, False)
    st[S_DEBUG] = debug


@njit(cache=True, _nrt=False)
def _setup_next_nb(cf, st, s, tr, advance_seat):
    """Next set-up decision: claims while territories are empty (LR-2.2/2.3), then one battalion
    at a time, then Leaders (LR-2.4), then the first turn."""
    nt = cf[C_NT]
    np_ = cf[C_NP]
    if st[S_SETUP] == 0:
        empty = 0
        for t in range(nt):
            if st[O_OWNER + t] < 0:
                empty += 1
        if empty > 0:
            for k in range(np_):
                q = (st[S_CUR] + (1 if advance_seat else 0) + k) % np_
                if st[O_LEFT + q] > 0:
                    st[S_CUR] = q
                    st[S_PHASE] = PH_CLAIM
                    return
            # nobody has battalions left: the rest stay neutral-free; give them to the neutral
            for t in range(nt):
                if st[O_OWNER + t] < 0:
                    add_troops_nb(st, tr, t, 1, NEUTRAL, 7)
        st[S_SETUP] = 1
        st[S_CUR] = (st[S_FIRST] + np_ - 1) % np_
        advance_seat = True
    if st[S_SETUP] == 1:
        for k in range(np_):
            q = (st[S_CUR] + (1 if advance_seat else 0) + k) % np_
            if st[O_LEFT + q] > 0 and count_terr_nb(cf, st, q) > 0:
                st[S_CUR] = q
                st[S_PHASE] = PH_SPLACE
                return
        st[S_SETUP] = 2
        st[S_PICKS] = 0
    if st[S_SETUP] == 2:
        while st[S_PICKS] < np_:
            q = (st[S_FIRST] + st[S_PICKS]) % np_
            st[S_PICKS] += 1
            if count_terr_nb(cf, st, q) > 0:
                st[S_CUR] = q
                st[S_LCTX] = 0
                st[S_PHASE] = PH_LEADER
                return
        st[S_SETUP] = 3
        for p in range(np_):
            if count_terr_nb(cf, st, p) == 0:
                st[O_ALIVE + p] = 0
        st[S_CUR] = st[S_FIRST]
        if st[O_ALIVE + st[S_CUR]] == 0:
            st[S_CUR] = _next_seat(cf, st, st[S_CUR])
        begin_turn_nb(cf, st, s, tr)


# ---- turns ------------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def _has_set(cf, st, seat):
    n = st[O_HN + seat]
    b = O_HAND + seat * HMAX
    for i in range(n):
        for j in range(i + 1, n):
            for k in range(j + 1, n):
                if set_value_nb(cf, st[b + i], st[b + j], st[b + k]) >= 0:
                    return True
    return False


@njit(cache=True, _nrt=False)
def begin_turn_nb(cf, st, s, tr):
    """LR-3: a player's turn starts; Winter Storms of its last turn lift; its Local Uprising
    territory is checked; reinforcements are counted (LR-4.1/4.2)."""
    seat = st[S_CUR]
    nt = cf[C_NT]
    arefill_nb(st, s)                        # LR-9.2 [R]: the adventure discards, between turns only
    snapshot_nb(cf, st, tr)
    ev_nb(tr, EV_TURN, 2, st[S_TURN], seat, 0, 0, 0, 0, 0, 0)
    for t in range(nt):
        if st[O_STORM + t] == seat + 1:
            st[O_STORM + t] = 0
    _reopen_nb(st, tr, seat)                 # LR-9.3: closed until the holder's next turn
    u = st[O_UPR + seat]
    if u >= 0 and st[O_OWNER + u] == seat:
        ev_nb(tr, EV_ASIDE, 3, seat, u, 1, 0, 0, 0, 0, 0)
        add_troops_nb(st, tr, u, 4, seat, 5)
        tdiscard_nb(st, u)
        st[O_UPR + seat] = -1
    st[S_CONQ] = 0
    st[S_SITE] = 0
    st[S_ADVLOCK] = 0
    st[S_NOSTR] = -1
    st[S_WAYA] = -1
    st[S_WAYB] = -1
    st[S_TRADED] = 0
    st[S_ADRAWS] = 0
    st[O_LDONE + 2 * seat] = 0
    st[O_LDONE + 2 * seat + 1] = 0
    st[S_REINF] = reinforcements_nb(cf, st, seat)
    if cf[C_NBRG] > 0 and _find_power(cf, st, seat, K_YSNP) >= 0:
        st[S_PHASE] = PH_BLOCK               # LR-9.3: You Shall Not Pass! at the start of the turn
    else:
        _turn_phase_nb(cf, st, seat)


@njit(cache=True, _nrt=False)
def _turn_phase_nb(cf, st, seat):
    """The turn's first step after its start: a card trade (LR-4.3), reinforcements (LR-4.1) or
    combat."""
    if _has_set(cf, st, seat):
        st[S_PHASE] = PH_TRADE
    elif st[S_REINF] > 0:
        st[S_PHASE] = PH_REINF
    else:
        st[S_PHASE] = PH_ATTACK


@njit(cache=True, _nrt=False)
def end_game_nb(cf, st, s, tr, reason, seat):
    """LR-11: points; a conquest (LR-11.1) wins outright, otherwise most points with ties broken
    (LR-11.3)."""
    points_nb(cf, st)
    st[S_REASON] = reason
    if reason == R_CONQUEST:
        st[S_WSEAT] = seat
        st[S_CONQWIN] = 1
    else:
        st[S_WSEAT] = winner_nb(cf, st, s)
    st[S_OVER] = 1
    st[S_PHASE] = PH_OVER
    w = st[S_WSEAT]
    ev_nb(tr, EV_END, 6, w, reason, st[O_PTS + 4], st[O_PTS + 9], st[O_PTS + 14], st[O_PTS + 19], 0, 0)


@njit(cache=True, _nrt=False)
def _resolve_event_nb(cf, st, s, tr, seat, c):
    """An event card, at once (LR-9.2). Returns 1 when it needs a decision (a second Leader)."""
    k = cf[O_AKIND + c]
    nt = cf[C_NT]
    ev_nb(tr, EV_ADV, 3, seat, c, 2, 0, 0, 0, 0, 0)
    if k == K_SECOND:
        if n_leaders_nb(st, seat) < 2 and count_terr_nb(cf, st, seat) > 1:
            adiscard_nb(st, c)
            st[S_LCTX] = 2
            st[S_PHASE] = PH_LEADER
            return 1
    elif k == K_WINTER or k == K_RAIDERS or k == K_MUSTER:
        for _ in range(3):
            tc = tdraw_nb(st, s, tr)
            if tc < 0:
                break
            ev_nb(tr, EV_TURNUP, 4, seat, c, tc, 0, 0, 0, 0, 0)
            if tc < nt:
                if k == K_WINTER:
                    st[O_STORM + tc] = seat + 1
                elif k == K_RAIDERS:
                    take_troops_nb(st, tr, tc, st[O_TROOPS + tc] // 2, 5)
                else:
                    add_troops_nb(st, tr, tc, 3, st[O_OWNER + tc], 5)
            tdiscard_nb(st, tc)
    elif k == K_UPRISING:
        tc = tdraw_nb(st, s, tr)
        if tc >= 0:
            aside = tc < nt and st[O_UPR + seat] < 0 and st[O_OWNER + tc] != seat
            ev_nb(tr, EV_TURNUP, 4, seat, c, tc, 1 if aside else 0, 0, 0, 0, 0)
            if tc >= nt or st[O_UPR + seat] >= 0:
                tdiscard_nb(st, tc)
            elif st[O_OWNER + tc] == seat:
                add_troops_nb(st, tr, tc, 4, seat, 5)
                tdiscard_nb(st, tc)
            else:
                st[O_UPR + seat] = tc
    elif k == K_TROLL or k == K_ENTMOOT:
        t = cf[C_MORIA] if k == K_TROLL else cf[C_FANGORN]
        want = 1 if k == K_TROLL else 0
        if t >= 0:
            if side_of_nb(cf, st[O_OWNER + t]) == want:
                add_troops_nb(st, tr, t, 2, st[O_OWNER + t], 5)
            else:
                take_troops_nb(st, tr, t, 2, 5)
    adiscard_nb(st, c)
    return 0


@njit(cache=True, _nrt=False)
def _mission_check_nb(cf, st, tr, seat, slot, t):
    """LR-9.1: a Leader reached site ``t``: a mission card for it is completed."""
    b = O_AHAND + seat * AHMAX
    for i in range(st[O_AHN + seat]):
        c = st[b + i]
        if cf[O_AKIND + c] == K_MISSION and cf[O_AARG + c] == t:
            ahand_remove_nb(st, seat, i)
            st[O_ACOUNT + seat] += 1
            st[O_ASCORE + seat] += cf[P_MPTS]
            ev_nb(tr, EV_ADV, 4, seat, c, 4, t, 0, 0, 0, 0)
            n = cf[O_REWG + t] if side_of_nb(cf, seat) == 0 else cf[O_REWE + t]
            dest = t
            if cf[P_REWREG] != 0:     # mission_reward_to = region: the most exposed own territory there
                best = -1.0
                for u in range(cf[C_NT]):
                    if cf[O_REG + u] == cf[O_REG + t] and st[O_OWNER + u] == seat:
                        tot, cnt = enemy_adj_nb(cf, st, u)
                        v = tot / (st[O_TROOPS + u] + 1.0) + 0.001 * cnt
                        if v > best:
                            best = v
                            dest = u
            add_troops_nb(st, tr, dest, n, seat, 4)
            st[O_LDONE + slot] = 1    # LR-6.2: it stays this turn
            return


@njit(cache=True, _nrt=False)
def _leader_arrives_nb(cf, st, tr, seat, slot, t):
    """A Leader conquered or moved into ``t``: LR-8.2 (a site gives an adventure card at the end
    of the turn) and LR-9.1 (missions)."""
    if cf[O_SITE + t] != 0:
        st[S_SITE] = 1
        _mission_check_nb(cf, st, tr, seat, slot, t)


@njit(cache=True, _nrt=False)
def _eliminate_nb(cf, st, tr, p):
    """A player without territories is out: its cards are discarded (narrowed, see module)."""
    if p >= NEUTRAL or st[O_ALIVE + p] == 0 or count_terr_nb(cf, st, p) > 0:
        return
    st[O_ALIVE + p] = 0
    for k in range(2):
        if st[O_LEAD + 2 * p + k] >= 0:
            put_leader_nb(st, tr, 2 * p + k, -1)
    while st[O_HN + p] > 0:
        tdiscard_nb(st, hand_remove_nb(st, p, 0))
    if st[O_UPR + p] >= 0:
        ev_nb(tr, EV_ASIDE, 3, p, st[O_UPR + p], 0, 0, 0, 0, 0, 0)
        tdiscard_nb(st, st[O_UPR + p])
        st[O_UPR + p] = -1
    while st[O_AHN + p] > 0:
        adiscard_nb(st, ahand_remove_nb(st, p, 0))
    _reopen_nb(st, tr, p)
    ev_nb(tr, EV_ELIM, 1, p, 0, 0, 0, 0, 0, 0, 0)


@njit(cache=True, _nrt=False)
def _finish_conquest_nb(cf, st, s, tr, n):
    """LR-5.6: ``n`` battalions move in; a Leader of the attacking territory goes with them."""
    seat = st[S_CUR]
    src = st[S_SRC]
    dst = st[S_DST]
    prev = st[O_OWNER + dst]
    st[O_TROOPS + src] -= n
    st[O_TROOPS + dst] = n
    st[O_OWNER + dst] = seat
    ev_nb(tr, EV_CONQ, 5, seat, src, dst, n, prev, 0, 0, 0)
    slot = leader_slot_at_nb(st, seat, src)
    if slot >= 0:
        put_leader_nb(st, tr, slot, dst)
        _leader_arrives_nb(cf, st, tr, seat, slot, dst)
    _eliminate_nb(cf, st, tr, prev)
    st[S_PHASE] = PH_ATTACK
    if count_terr_nb(cf, st, seat) == cf[C_NT]:
        end_game_nb(cf, st, s, tr, R_CONQUEST, seat)


@njit(cache=True, _nrt=False)
def _withdraw_ok_nb(cf, st, d, dst, u):
    """Strategic Withdrawal (LR-9.3) may go from ``dst`` to ``u``: a border (not a closed
    bridge: the battalions go without a Leader) to a territory the defender ``d`` holds."""
    return st[O_OWNER + u] == d and not _closed_nb(cf, st, dst, u)


@njit(cache=True, _nrt=False)
def _attack_nb(cf, st, s, tr, wp, src, dst, dice):
    """An attack is declared (LR-5.1): a defender holding Strategic Withdrawal (LR-9.3) with
    battalions to move and a territory to move them to decides first (PH_WITHDRAW: the seat to
    move becomes the defender's until it decides); then the roll."""
    d = st[O_OWNER + dst]
    if d < NEUTRAL and st[O_TROOPS + dst] >= 2 and _find_power(cf, st, d, K_WITHDRAW) >= 0:
        for k in range(cf[O_ADJN + dst]):
            if _withdraw_ok_nb(cf, st, d, dst, adj_nb(cf, dst, k)):
                st[S_SRC] = src
                st[S_DST] = dst
                st[S_DICE] = dice
                st[S_TSEAT] = st[S_CUR]
                st[S_CUR] = d
                st[S_PHASE] = PH_WITHDRAW
                return
    _roll_nb(cf, st, s, tr, wp, src, dst, dice)


@njit(cache=True, _nrt=False)
def _roll_nb(cf, st, s, tr, wp, src, dst, dice):
    """A roll from ``src`` on ``dst`` with ``dice`` red dice is declared (LR-5.2): the
    defender's decisions first (``_roll_on_nb``), then the roll."""
    st[S_SRC] = src
    st[S_DST] = dst
    st[S_DICE] = dice
    st[S_RSTEP] = 0
    _roll_on_nb(cf, st, s, tr, wp)


@njit(cache=True, _nrt=False)
def _defender_decides_nb(st, d, ph):
    """The defender ``d`` takes decision ``ph`` before the roll: the seat to move becomes its
    own until it decides (S_TSEAT keeps the attacker's)."""
    st[S_TSEAT] = st[S_CUR]
    st[S_CUR] = d
    st[S_PHASE] = ph


@njit(cache=True, _nrt=False)
def _roll_on_nb(cf, st, s, tr, wp):
    """The declared roll (S_SRC, S_DST, S_DICE) goes on from step S_RSTEP: a defender holding
    Courage decides whether to play it (PH_COURAGE, LR-9.3; not when it has just withdrawn
    against this attack: one "when attacked" card per declaration); a defender that may roll 2
    dice chooses 1 or 2 (PH_DDICE, LR-5.2; the neutral army rolls the most, LR-5.8); then the
    roll."""
    src = st[S_SRC]
    dst = st[S_DST]
    dice = st[S_DICE]
    d = st[O_OWNER + dst]
    if st[S_RSTEP] == 0:
        st[S_RSTEP] = 1
        wd = st[S_WDONE]
        st[S_WDONE] = 0
        if d < NEUTRAL and wd == 0 and _find_power(cf, st, d, K_COURAGE) >= 0:
            _defender_decides_nb(st, d, PH_COURAGE)
            return
    dd = min(2, st[O_TROOPS + dst], dice)
    if st[S_RSTEP] == 1:
        st[S_RSTEP] = 2
        if d < NEUTRAL and dd == 2:
            _defender_decides_nb(st, d, PH_DDICE)
            return
    _fight_nb(cf, st, s, tr, src, dst, dice, dd)


@njit(cache=True, _nrt=False)
def _fight_nb(cf, st, s, tr, src, dst, dice, dd):
    """One roll, ``dice`` red against ``dd`` black (LR-5.2-5.4), then a conquest if the
    defender is wiped out (LR-5.6/5.7)."""
    seat = st[S_CUR]
    d = st[O_OWNER + dst]
    ab = cf[P_LEADB] if leader_slot_at_nb(st, seat, src) >= 0 else 0
    db = 0
    if d < NEUTRAL and leader_slot_at_nb(st, d, dst) >= 0:
        db += cf[P_LEADB]
    if cf[O_STRONG + dst] != 0 and st[S_NOSTR] != dst:
        db += cf[P_STRB]
    # LR-5.2-5.4: the shared roll (kernels.combat, rule set lotr-risk): faces, then losses
    a1, a2, a3, d1, d2 = assault_faces_nb(s, dice, dd)
    la, ld = assault_losses_nb(a1, a2, a3, d1, d2, dice, dd, ab, db)
    st[O_TROOPS + src] -= la
    st[O_TROOPS + dst] -= ld
    st[S_REMOVED] += la + ld
    ev_nb(tr, EV_ROLL, 8, seat, src, dst, d * 100 + dice * 10 + dd, ab * 10 + db,
          a1 * 10000 + a2 * 1000 + a3 * 100 + d1 * 10 + d2, la, ld)
    if st[O_TROOPS + dst] == 0:
        st[S_CONQ] = 1
        if d < NEUTRAL:
            sl = leader_slot_at_nb(st, d, dst)
            if sl >= 0:
                put_leader_nb(st, tr, sl, -1)     # LR-5.7
        mx = st[O_TROOPS + src] - 1
        if mx <= dice:
            _finish_conquest_nb(cf, st, s, tr, mx)
        else:
            st[S_PHASE] = PH_MOVEIN


# menus of amounts (reinforce_sizes / movein_sizes / fortify_sizes): the codes _sized_rows takes
MENU_1HA, MENU_123HA, MENU_ANY, MENU_LHA, MENU_AH = 0, 1, 2, 3, 4


@njit(cache=True, _nrt=False)
def _amount_row(act, n, k, a, b, col, v):
    """One row of kind k with amount ``v`` in column ``col``: (k, v, a, b), (k, a, v, 0) or
    (k, a, b, v)."""
    if col == 1:
        return _row(act, n, k, v, a, b)
    if col == 2:
        return _row(act, n, k, a, v, 0)
    return _row(act, n, k, a, b, v)


@njit(cache=True, _nrt=False)
def _sized_row(act, n, n0, k, a, b, col, v, lo, hi):
    """One row (k, a, b) with amount ``v`` in column ``col``, unless ``v`` is outside [lo, hi]
    or rows n0..n-1 (the same group) already offer it."""
    if v < lo or v > hi:
        return n
    for j in range(n0, min(n, MAXA)):
        if act[j, col] == v:
            return n
    return _amount_row(act, n, k, a, b, col, v)


@njit(cache=True, _nrt=False)
def _sized_rows(act, n, k, a, b, col, menu, lo, half, hi):
    """The amounts of one menu for one (k, a, b) as rows, amount in column ``col``, each in
    [lo, hi] once, in the menu's order: MENU_1HA 1, half, all (reinforce, LR-4.4);
    MENU_123HA 1, 2, 3, half, all (reinforce LR-4.4, fortify LR-6.1); MENU_ANY lo..hi;
    MENU_LHA lo, half, hi (move in: the dice, half, all but one, LR-5.6); MENU_AH hi, half
    (fortify: all but one, half, LR-6.1). The default menus give the rows (and their order)
    the engine always gave."""
    n0 = n
    if menu == MENU_ANY:
        for v in range(lo, hi + 1):
            n = _amount_row(act, n, k, a, b, col, v)
    elif menu == MENU_AH:
        n = _sized_row(act, n, n0, k, a, b, col, hi, lo, hi)
        n = _sized_row(act, n, n0, k, a, b, col, half, lo, hi)
    else:
        n = _sized_row(act, n, n0, k, a, b, col, lo if menu == MENU_LHA else 1, lo, hi)
        if menu == MENU_123HA:
            n = _sized_row(act, n, n0, k, a, b, col, 2, lo, hi)
            n = _sized_row(act, n, n0, k, a, b, col, 3, lo, hi)
        n = _sized_row(act, n, n0, k, a, b, col, half, lo, hi)
        n = _sized_row(act, n, n0, k, a, b, col, hi, lo, hi)
    return n


@njit(cache=True, _nrt=False)
def _move_options(st):
    lo = st[S_DICE]
    hi = st[O_TROOPS + st[S_SRC]] - 1
    half = st[O_TROOPS + st[S_SRC]] // 2
    if half < lo:
        half = lo
    if half > hi:
        half = hi
    return lo, half, hi


@njit(cache=True, _nrt=False)
def end_turn_nb(cf, st, s, tr):
    """End of a player's turn, stage by stage (LR-7.1 Leader, LR-8 draws, LR-10 Fellowship);
    stops at a decision (a Leader to place) and resumes from its stage."""
    seat = st[S_CUR]
    nt = cf[C_NT]
    while True:
        stg = st[S_STAGE]
        if stg == 0:
            st[S_STAGE] = 1
            if n_leaders_nb(st, seat) == 0 and count_terr_nb(cf, st, seat) > 0:
                st[S_LCTX] = 1
                st[S_PHASE] = PH_LEADER      # LR-7.1
                return
        elif stg == 1:
            st[S_STAGE] = 2
            if st[S_CONQ] != 0:              # LR-8.1
                c = tdraw_nb(st, s, tr)
                if c >= 0:
                    if st[O_HN + seat] < HMAX:
                        st[O_HAND + seat * HMAX + st[O_HN + seat]] = c
                        st[O_HN + seat] += 1
                    else:
                        tdiscard_nb(st, c)
                    ev_nb(tr, EV_TDRAW, 2, seat, c, 0, 0, 0, 0, 0, 0)
        elif stg == 2:
            if st[S_SITE] != 0:              # LR-8.2: one adventure card; events at once (LR-9.2)
                # an empty deck draws nothing (LR-9.2 [R]: no reshuffle within a turn), so an
                # event chain ends
                c = adraw_nb(st, s)
                st[S_ADRAWS] += 1
                if c < 0:
                    st[S_SITE] = 0
                    continue
                ev_nb(tr, EV_ADV, 3, seat, c, 0, 0, 0, 0, 0, 0)
                if _is_event(cf[O_AKIND + c]):
                    if _resolve_event_nb(cf, st, s, tr, seat, c) != 0:
                        return
                    continue
                st[S_SITE] = 0
                st[S_ADVLOCK] = 1
                if st[O_AHN + seat] < AHMAX:
                    st[O_AHAND + seat * AHMAX + st[O_AHN + seat]] = c
                    st[O_AHN + seat] += 1
                    if st[O_AHN + seat] > cf[P_AHAND]:
                        st[S_PHASE] = PH_ADISC   # LR-8.2: over the limit, the player discards one
                        return
                else:
                    adiscard_nb(st, c)
                    ev_nb(tr, EV_ADV, 3, seat, c, 1, 0, 0, 0, 0, 0)
            st[S_STAGE] = 3
        elif stg == 3:                       # LR-10: the Fellowship's die, then its cards
            st[S_STAGE] = 5
            st[S_FDIE] = fellowship_die_nb(st[S_RING], cf[O_MARK:O_MARK + cf[C_NPATH]], 6, s)
            st[S_FMOD] = 0
            st[S_FSTEP] = 0
            st[S_FASK] = 0
        elif stg == 5:
            left = _fellowship_nb(cf, st, tr, seat)
            if left < 0:
                return                       # a holder of Smeagol or A Balrog is Come decides
            st[S_STAGE] = 4
            st[S_TURN] += 1
            if left == 1:
                st[S_RINGT] = st[S_TURN]
                end_game_nb(cf, st, s, tr, R_FELLOWSHIP, -1)
                return
        else:
            st[S_STAGE] = 0
            if st[S_TURN] >= MAX_TURNS:
                end_game_nb(cf, st, s, tr, R_CAP, -1)
                return
            st[S_CUR] = _next_seat(cf, st, seat)
            begin_turn_nb(cf, st, s, tr)
            return
        _ = nt


@njit(cache=True, _nrt=False)
def _ring_card_holder_nb(cf, st, seat, kind):
    """The next seat from S_FASK on (in seat order) that may play a card of ``kind`` now: alive,
    holding one, and not the player whose turn ends if it drew an adventure card this turn
    (LR-8.2: then only events). Asks it (S_CUR its seat, S_TSEAT the turn's) and returns it,
    or -1 when nobody is left to ask."""
    while st[S_FASK] < cf[C_NP]:
        p = st[S_FASK]
        st[S_FASK] += 1
        if st[O_ALIVE + p] == 0 or (p == seat and st[S_ADVLOCK] != 0):
            continue
        if _find_power(cf, st, p, kind) >= 0:
            st[S_TSEAT] = seat
            st[S_CUR] = p
            return p
    return -1


@njit(cache=True, _nrt=False)
def _fellowship_nb(cf, st, tr, seat):
    """LR-10: the Ring's move at the end of ``seat``'s turn, its die (S_FDIE) rolled (the shared
    fellowship.kernel roll and move; on a marked territory the die must beat the threshold).
    Its cards are their holders' decisions, asked in seat order until one plays: when the die
    fails and +2 would move the Ring, Smeagol (PH_SMEAGOL, LR-9.3); when the Ring would leave
    Moria, A Balrog is Come (PH_BALROG, LR-10.4). Returns -1 while a holder decides (call again
    once it has), 1 when the Ring leaves the last territory (LR-10.3), else 0."""
    r = st[S_RING]
    marked = cf[O_MARK:O_MARK + cf[C_NPATH]]
    roll = cf[P_ROLL]
    die = st[S_FDIE]
    if st[S_FSTEP] == 0:
        if die != 0 and not fellowship_moves_nb(r, marked, roll, die, 0) \
                and fellowship_moves_nb(r, marked, roll, die, 2):
            if _ring_card_holder_nb(cf, st, seat, K_SMEAGOL) >= 0:
                st[S_PHASE] = PH_SMEAGOL
                return -1
        st[S_FSTEP] = 1
        st[S_FASK] = 0
    go = fellowship_moves_nb(r, marked, roll, die, st[S_FMOD])
    if st[S_FSTEP] == 1:
        if go and ring_territory_nb(cf, st) == cf[C_MORIA]:
            if _ring_card_holder_nb(cf, st, seat, K_BALROG) >= 0:
                st[S_PHASE] = PH_BALROG
                return -1
        st[S_FSTEP] = 2
    if st[S_FSTEP] == 3:
        ev_nb(tr, EV_RING, 4, r, r, die, st[S_FMOD], 0, 0, 0, 0)   # held in Moria
        return 0
    nxt = r + 1 if go else r
    ev_nb(tr, EV_RING, 4, r, nxt, die, st[S_FMOD], 0, 0, 0, 0)
    if not go:
        return 0
    if nxt >= cf[C_NPATH]:
        return 1
    st[S_RING] = nxt
    return 0


# ---- the step machine ----------------------------------------------------------------------------
@njit(cache=True)
def legal_nb(cf, st, act):
    """Every action of the current decision as rows (kind, a, b, c); 0 once over."""
    ph = st[S_PHASE]
    seat = st[S_CUR]
    nt = cf[C_NT]
    n = 0
    if st[S_OVER] != 0:
        return 0
    if ph == PH_CLAIM:
        for t in range(nt):
            if st[O_OWNER + t] < 0:
                n = _row(act, n, A_CLAIM, t, 1, 0)
    elif ph == PH_SPLACE:
        for t in range(nt):
            if st[O_OWNER + t] == seat:
                n = _row(act, n, A_PLACE, t, 1, 0)
    elif ph == PH_LEADER:
        for t in range(nt):
            if leader_ok_at_nb(st, seat, t):
                n = _row(act, n, A_LEADER, t, 0, 0)
    elif ph == PH_TRADE:
        if st[O_HN + seat] < cf[P_FORCED]:
            n = _row(act, n, A_PASS, 0, 0, 0)
        b = O_HAND + seat * HMAX
        h = st[O_HN + seat]
        for i in range(h):
            for j in range(i + 1, h):
                for k in range(j + 1, h):
                    v = set_value_nb(cf, st[b + i], st[b + j], st[b + k])
                    if v >= 0:
                        # LR-4.3: +2 on one held card territory per trade, the player's choice:
                        # a row per held territory among the three cards (-1: none held)
                        n0 = n
                        if cf[P_CARDB] > 0:
                            for q in (st[b + i], st[b + j], st[b + k]):
                                if q < nt and st[O_OWNER + q] == seat:
                                    n = _row(act, n, A_TRADE, i * 100 + j * 10 + k, v, q)
                        if n == n0:
                            n = _row(act, n, A_TRADE, i * 100 + j * 10 + k, v, -1)
        if n == 0:
            n = _row(act, n, A_PASS, 0, 0, 0)
    elif ph == PH_REINF:
        r = st[S_REINF]
        for t in range(nt):
            if st[O_OWNER + t] == seat:
                n = _sized_rows(act, n, A_PLACE, t, 0, 2, cf[P_RMENU], 1, r // 2, r)
    elif ph == PH_ATTACK:
        n = _row(act, n, A_PASS, 0, 0, 0)
        for t in range(nt):
            if st[O_OWNER + t] != seat or st[O_TROOPS + t] < 2:
                continue
            md = min(3, st[O_TROOPS + t] - 1)
            for k in range(cf[O_ADJN + t] + 1):
                if k < cf[O_ADJN + t]:
                    u = adj_nb(cf, t, k)
                elif st[S_WAYA] == t:
                    u = st[S_WAYB]
                else:
                    continue
                if st[O_OWNER + u] == seat or not _may_attack(cf, st, t, u):
                    continue
                for dc in range(1, md + 1):
                    n = _row(act, n, A_ATTACK, t, u, dc)
        if st[S_ADVLOCK] == 0:
            n = _power_rows(cf, st, act, n, seat, False)
    elif ph == PH_BLOCK:
        n = _row(act, n, A_PASS, 0, 0, 0)
        i = _find_power(cf, st, seat, K_YSNP)
        for k in range(cf[C_NBRG]):
            n = _row(act, n, A_POWER, i, k, 0)
    elif ph == PH_WITHDRAW:
        n = _row(act, n, A_PASS, 0, 0, 0)
        i = _find_power(cf, st, seat, K_WITHDRAW)
        dst = st[S_DST]
        for k in range(cf[O_ADJN + dst]):
            u = adj_nb(cf, dst, k)
            if _withdraw_ok_nb(cf, st, seat, dst, u):
                n = _row(act, n, A_POWER, i, u, 0)
    elif ph == PH_MOVEIN:
        lo, half, hi = _move_options(st)
        n = _sized_rows(act, n, A_MOVEIN, 0, 0, 1, MENU_ANY if cf[P_MMENU] != 0 else MENU_LHA, lo, half, hi)
    elif ph == PH_FORT:
        n = _row(act, n, A_PASS, 0, 0, 0)
        mask = st[O_MASK:O_MASK + nt]
        ip = cf[O_CSR_P:O_CSR_P + nt + 1]
        ix = cf[O_CSR_I:O_CSR_I + ip[nt]]
        own = st[O_OWNER:O_OWNER + nt]
        closed = st[S_NBLOCK] > 0
        if st[S_FORT] > 0:
            if closed:
                _fort_comp_nb(cf, st, seat)
            for t in range(nt):
                if own[t] != seat or st[O_TROOPS + t] < 2:
                    continue
                if closed:          # LR-9.3: battalions do not cross a closed bridge
                    for u in range(nt):
                        mask[u] = 1 if st[O_COMP + u] >= 0 and st[O_COMP + u] == st[O_COMP + t] else 0
                else:
                    reachable_nb(ip, ix, own, seat, t, mask)
                full = st[O_TROOPS + t] - 1
                half = st[O_TROOPS + t] // 2
                fm = MENU_123HA if cf[P_FMENU] != 0 else MENU_AH
                # LR-6.2: the Leader of t may go with the move (not a second move)
                sl = leader_slot_at_nb(st, seat, t) if cf[P_LXMOVE] == 0 else -1
                if sl >= 0 and st[O_LDONE + sl] != 0:
                    sl = -1
                for u in range(nt):
                    if u != t and mask[u] != 0:
                        n = _sized_rows(act, n, A_FORT, t, u, 3, fm, 1, half, full)
                        if sl >= 0 and leader_slot_at_nb(st, seat, u) < 0:
                            n = _sized_rows(act, n, A_FORTL, t, u, 3, fm, 1, half, full)
        for k in range(2):
            sl = 2 * seat + k
            f = st[O_LEAD + sl]
            if f < 0 or st[O_LDONE + sl] != 0 or (cf[P_LXMOVE] == 0 and st[S_FORT] <= 0):
                continue
            reachable_nb(ip, ix, own, seat, f, mask)
            for u in range(nt):
                if u != f and mask[u] != 0 and leader_slot_at_nb(st, seat, u) < 0:
                    n = _row(act, n, A_LMOVE, sl, u, 0)
        if st[S_ADVLOCK] == 0:
            n = _power_rows(cf, st, act, n, seat, True)
    elif ph == PH_ADISC:
        b = O_AHAND + seat * AHMAX
        for i in range(st[O_AHN + seat]):
            n = _row(act, n, A_ADISC, i, st[b + i], 0)
    elif ph == PH_DDICE:                      # LR-5.2: the defender rolls 1 or 2 dice
        n = _row(act, n, A_DDICE, 1, 0, 0)
        n = _row(act, n, A_DDICE, 2, 0, 0)
    elif ph == PH_COURAGE or ph == PH_SMEAGOL or ph == PH_BALROG:
        # keep the card, or play it (Courage names the attacked territory, LR-9.3)
        k = K_COURAGE if ph == PH_COURAGE else K_SMEAGOL if ph == PH_SMEAGOL else K_BALROG
        n = _row(act, n, A_PASS, 0, 0, 0)
        n = _row(act, n, A_POWER, _find_power(cf, st, seat, k), st[S_DST] if ph == PH_COURAGE else 0, 0)
    st[S_NLEGAL] = n
    return n


@njit(cache=True, _nrt=False)
def _fort_comp_nb(cf, st, seat):
    """Label each own territory (O_COMP; -1 for the rest) with the least territory it is
    connected to through own territories without crossing a closed bridge (LR-6.1, LR-9.3)."""
    nt = cf[C_NT]
    for t in range(nt):
        st[O_COMP + t] = t if st[O_OWNER + t] == seat else -1
    changed = True
    while changed:
        changed = False
        for t in range(nt):
            if st[O_COMP + t] < 0:
                continue
            for k in range(cf[O_ADJN + t]):
                u = adj_nb(cf, t, k)
                if 0 <= st[O_COMP + u] < st[O_COMP + t] and not _closed_nb(cf, st, t, u):
                    st[O_COMP + t] = st[O_COMP + u]
                    changed = True


@njit(cache=True, _nrt=False)
def _power_rows(cf, st, act, n, seat, fortify):
    """Power cards playable now (LR-9.3): in the combat step Grima, Ambush, The Enemy is at
    Hand, The Way is Under the Mountains, Hunt for the Ringbearer; in the fortify step Move
    by Night. One row per card kind and target."""
    nt = cf[C_NT]
    seen = 0
    b = O_AHAND + seat * AHMAX
    for i in range(st[O_AHN + seat]):
        k = cf[O_AKIND + st[b + i]]
        if (seen >> k) & 1:
            continue
        seen |= 1 << k
        if fortify:
            if k == K_NIGHT:
                n = _row(act, n, A_POWER, i, 0, 0)
            continue
        if k == K_HUNT:
            n = _row(act, n, A_POWER, i, 0, 0)
        elif k == K_GRIMA or k == K_ENEMY or k == K_WAY or k == K_AMBUSH:
            for t in range(nt):
                if st[O_OWNER + t] != seat or (st[O_TROOPS + t] < 2 and k != K_AMBUSH):
                    continue
                m = cf[O_BLKN + t] if k == K_WAY else cf[O_ADJN + t]
                for q in range(m):
                    u = blk_nb(cf, t, q) if k == K_WAY else adj_nb(cf, t, q)
                    if st[O_OWNER + u] == seat or not _may_attack(cf, st, t, u):
                        continue
                    if k == K_GRIMA and st[O_TROOPS + u] >= 2:
                        n = _row(act, n, A_POWER, i, t, u)
                    elif k == K_WAY or k == K_AMBUSH:
                        n = _row(act, n, A_POWER, i, t, u)
                    elif k == K_ENEMY and cf[O_STRONG + u] != 0 and st[S_NOSTR] != u:
                        n = _row(act, n, A_POWER, i, u, 0)
    return n


@njit(cache=True, _nrt=False)
def _do_power_nb(cf, st, s, tr, wp, seat, i, a, b):
    """Play power card ``i`` with its row's arguments (LR-9.3). Grima and Ambush go with one
    attack from ``a`` on ``b``, declared at once with the most dice (narrowed, see module)."""
    c = st[O_AHAND + seat * AHMAX + i]
    k = cf[O_AKIND + c]
    _play_power(cf, st, tr, seat, i, a, b)
    if k == K_HUNT:
        t = ring_territory_nb(cf, st)
        if st[O_OWNER + t] == seat:
            add_troops_nb(st, tr, t, 4, seat, 6)
        elif ring_advance_nb(cf, st, tr) != 0:
            st[S_RINGT] = st[S_TURN] + 1
            end_game_nb(cf, st, s, tr, R_FELLOWSHIP, -1)
    elif k == K_AMBUSH or k == K_GRIMA:
        if k == K_AMBUSH:
            add_troops_nb(st, tr, a, 3, seat, 6)       # +3 in the attacking territory
        else:
            m = take_troops_nb(st, tr, b, 2, 6)        # up to 2 from the attacked territory
            if m > 0:
                add_troops_nb(st, tr, a, m, seat, 6)   # to the attacking one
        _attack_nb(cf, st, s, tr, wp, a, b, min(3, st[O_TROOPS + a] - 1))
    elif k == K_ENEMY:
        st[S_NOSTR] = a
    elif k == K_WAY:
        st[S_WAYA] = a
        st[S_WAYB] = b
    elif k == K_NIGHT:
        st[S_FORT] += 3


@njit(cache=True, _nrt=False)
def apply_nb(cf, wp, pol, st, tr, act, scr, s, i):
    """Apply legal action ``i`` (of the rows ``legal_nb`` just wrote) and resolve everything up
    to the next decision."""
    seat = st[S_CUR]
    kind = act[i, 0]
    a = act[i, 1]
    b = act[i, 2]
    c = act[i, 3]
    ph = st[S_PHASE]
    ev_nb(tr, EV_DECISION, 8, seat, ph, i, st[S_NLEGAL], kind, a, b, c)
    if ph == PH_CLAIM:
        add_troops_nb(st, tr, a, 1, seat, 0)
        st[O_LEFT + seat] -= 1
        _setup_next_nb(cf, st, s, tr, True)
    elif ph == PH_SPLACE:
        add_troops_nb(st, tr, a, 1, seat, 1)
        st[O_LEFT + seat] -= 1
        _setup_next_nb(cf, st, s, tr, True)
    elif ph == PH_LEADER:
        sl = 2 * seat if st[O_LEAD + 2 * seat] < 0 else 2 * seat + 1
        put_leader_nb(st, tr, sl, a)
        st[O_LDONE + sl] = 0
        ctx = st[S_LCTX]
        if ctx == 0:
            _setup_next_nb(cf, st, s, tr, True)
        else:
            end_turn_nb(cf, st, s, tr)
    elif ph == PH_TRADE:
        if kind == A_TRADE:
            hb = O_HAND + seat * HMAX
            x, y, z = a // 100, (a // 10) % 10, a % 10
            cx, cy, cz = st[hb + x], st[hb + y], st[hb + z]
            hand_remove_nb(st, seat, z)
            hand_remove_nb(st, seat, y)
            hand_remove_nb(st, seat, x)
            st[S_REINF] += b
            st[S_TRADED] = b
            ev_nb(tr, EV_TRADE, 6, seat, cx, cy, cz, b, c, 0, 0)
            if c >= 0:
                add_troops_nb(st, tr, c, cf[P_CARDB], seat, 3)   # LR-4.3: once per trade, on c
            for q in (cx, cy, cz):
                tdiscard_nb(st, q)
        st[S_PHASE] = PH_REINF if st[S_REINF] > 0 else PH_ATTACK
    elif ph == PH_REINF:
        add_troops_nb(st, tr, a, b, seat, 2)
        st[S_REINF] -= b
        if st[S_REINF] <= 0:
            st[S_PHASE] = PH_ATTACK
    elif ph == PH_ATTACK:
        if kind == A_PASS:
            st[S_PHASE] = PH_FORT
            st[S_FORT] = 1
        elif kind == A_ATTACK:
            _attack_nb(cf, st, s, tr, wp, a, b, c)
        else:
            _do_power_nb(cf, st, s, tr, wp, seat, a, b, c)
    elif ph == PH_BLOCK:
        if kind == A_POWER:                  # LR-9.3 You Shall Not Pass!: bridge b closes
            _play_power(cf, st, tr, seat, a, cf[O_BRG + 2 * b], cf[O_BRG + 2 * b + 1])
            st[O_BLOCK + seat] = b
            st[S_NBLOCK] += 1
            ev_nb(tr, EV_BLOCK, 3, seat, b, 1, 0, 0, 0, 0, 0)
        _turn_phase_nb(cf, st, seat)
    elif ph == PH_WITHDRAW:
        dst = st[S_DST]
        if kind == A_POWER:                  # LR-9.3 Strategic Withdrawal: all but 1 go to b
            _play_power(cf, st, tr, seat, a, dst, b)
            m = st[O_TROOPS + dst] - 1
            st[O_TROOPS + dst] -= m
            st[O_TROOPS + b] += m
            st[S_WDONE] = 1
            ev_nb(tr, EV_WITHDRAW, 4, seat, dst, b, m, 0, 0, 0, 0)
        st[S_CUR] = st[S_TSEAT]
        st[S_PHASE] = PH_ATTACK
        _roll_nb(cf, st, s, tr, wp, st[S_SRC], dst, st[S_DICE])
    elif ph == PH_COURAGE or ph == PH_DDICE:
        dst = st[S_DST]
        st[S_CUR] = st[S_TSEAT]
        st[S_PHASE] = PH_ATTACK
        if ph == PH_DDICE:                   # LR-5.2: the defender's a dice
            _fight_nb(cf, st, s, tr, st[S_SRC], dst, st[S_DICE], a)
        else:
            if kind == A_POWER:              # LR-9.3 Courage Alone Will Not Save You: +4 there
                _play_power(cf, st, tr, seat, a, dst, 0)
                add_troops_nb(st, tr, dst, 4, seat, 6)
            _roll_on_nb(cf, st, s, tr, wp)
    elif ph == PH_SMEAGOL or ph == PH_BALROG:
        if kind == A_POWER:
            _play_power(cf, st, tr, seat, a, 0, 0)
            st[S_FASK] = cf[C_NP]            # one card of a kind per move of the Ring
            if ph == PH_SMEAGOL:
                st[S_FMOD] = 2               # LR-9.3 Smeagol: +2 on the Fellowship's die
            else:
                # LR-10.4 [R]: "med et vellykket terningkast": one die above balrog_roll_above
                bd = d6_nb(s)
                held = bd > cf[P_BALROG]
                ev_nb(tr, EV_BALROG, 3, seat, bd, 1 if held else 0, 0, 0, 0, 0, 0)
                if held:
                    st[S_FSTEP] = 3
        st[S_CUR] = st[S_TSEAT]
        end_turn_nb(cf, st, s, tr)
    elif ph == PH_MOVEIN:
        _finish_conquest_nb(cf, st, s, tr, a)
    elif ph == PH_ADISC:                     # LR-8.2: the chosen card goes to the discards
        adiscard_nb(st, ahand_remove_nb(st, seat, a))
        ev_nb(tr, EV_ADV, 3, seat, b, 1, 0, 0, 0, 0, 0)
        end_turn_nb(cf, st, s, tr)
    elif ph == PH_FORT:
        if kind == A_PASS:
            st[S_STAGE] = 0
            end_turn_nb(cf, st, s, tr)
        elif kind == A_FORT or kind == A_FORTL:
            sl = leader_slot_at_nb(st, seat, a)
            st[O_TROOPS + a] -= c
            st[O_TROOPS + b] += c
            st[S_FORT] -= 1
            ev_nb(tr, EV_FORT, 4, seat, a, b, c, 0, 0, 0, 0)
            if kind == A_FORTL:                # LR-6.2: its Leader goes with the move
                put_leader_nb(st, tr, sl, b)
                st[O_LDONE + sl] = 1
                _leader_arrives_nb(cf, st, tr, seat, sl, b)
        elif kind == A_LMOVE:
            put_leader_nb(st, tr, a, b)
            st[O_LDONE + a] = 1
            if cf[P_LXMOVE] == 0:
                st[S_FORT] -= 1                # LR-6.2: the Leader's move is the turn's move
            _leader_arrives_nb(cf, st, tr, seat, a, b)
        else:
            _do_power_nb(cf, st, s, tr, wp, seat, a, b, c)
    if st[S_DEBUG] != 0 and not invariant_ok_nb(cf, st):
        st[S_BAD] += 1


@njit(cache=True, _nrt=False)
def to_move_nb(st):
    """The seat to move (its side is ``side_of_nb``); -1 once over."""
    if st[S_OVER] != 0:
        return -1
    return st[S_CUR]


@njit(cache=True)
def run_until_nb(cf, wp, pol, st, tr, act, scr, s, mask):
    """Built-in policies (``pol`` row = seat) play until a seat in ``mask`` is to move
    (returns the seat) or the end (-1). ``scr`` is the heuristic's float scratch (``NCTX``)."""
    while st[S_OVER] == 0:
        seat = st[S_CUR]
        if (mask >> seat) & 1:
            return seat
        n = legal_nb(cf, st, act)
        i = choose_nb(cf, wp, pol, st, act, scr, s, n)
        apply_nb(cf, wp, pol, st, tr, act, scr, s, i)
    return -1


@njit(cache=True, _nrt=False)
def record_nb(cf, st, row, out):
    """One finished game's outcome row (game.py names the columns)."""
    w = st[S_WSEAT]
    out[row, 0] = side_of_nb(cf, w) if w >= 0 else 0
    out[row, 1] = st[S_REASON]
    # player turns played: S_TURN counts finished turns; a conquest (LR-11.1) ends the game
    # inside a turn, which counts too. Rounds are the rounds begun, ceil(turns / players), so
    # a game the Ring ends after 14 turns lasts 7 rounds with 2 players and 5 with 3 (LR-10).
    played = st[S_TURN] + (1 if st[S_REASON] == R_CONQUEST else 0)
    out[row, 2] = (played + cf[C_NP] - 1) // cf[C_NP]
    out[row, 3] = played
    out[row, 4] = w
    out[row, 5] = st[S_CONQWIN]
    out[row, 6] = st[S_RINGT]
    out[row, 7] = st[S_BAD]
    for p in range(4):
        out[row, 8 + p] = st[O_PTS + 5 * p + 4] if p < cf[C_NP] else 0
    for p in range(cf[C_NP]):
        sd = side_of_nb(cf, p)
        for k in range(5):
            out[row, 12 + 5 * sd + k] += st[O_PTS + 5 * p + k]


@njit(cache=True, nogil=True)
def simulate_nb(cf, wp, pol, seed, first, debug, lo, hi, out):
    """Games ``first+lo .. first+hi-1``, game i on stream (seed, i), built-in policies."""
    st = np.zeros(ST_SIZE, dtype=np.int64)
    s = np.zeros(STATE_SIZE, dtype=np.uint64)
    act = np.zeros((MAXA, 4), dtype=np.int64)
    tr = np.zeros(0, dtype=np.int64)
    ctx = np.zeros(NCTX)
    for row in range(lo, hi):
        new_game_nb(cf, st, tr, act, s, seed, first + row, debug)
        # run_until_nb's loop (stop_mask 0) written out: every jitted level re-optimises the
        # whole engine below it when compiled (see minas_tirith/game.py, first-run compile)
        ctx[:] = 0.0
        while st[S_OVER] == 0:
            n = legal_nb(cf, st, act)
            apply_nb(cf, wp, pol, st, tr, act, ctx, s, choose_nb(cf, wp, pol, st, act, ctx, s, n))
        record_nb(cf, st, row, out)


DET_TMP = 2 * (MAXT + 2 + MAXADV)     # determinize_nb's scratch (int64)


@njit(cache=True, _nrt=False)
def _unseen_nb(st, tmp, np_, seat, o_hand, o_hn, hmax, o_deck, s_deckn, back):
    """The cards ``seat`` cannot see of one kind: the other players' hands (``o_hand``,
    counts at ``o_hn``, ``hmax`` slots each) then the deck (``o_deck``, size at ``s_deckn``),
    copied to ``tmp[0:k]`` (``back`` false) or from it back into those places (``back`` true),
    in that order; returns k."""
    k = 0
    for p in range(np_):
        if p != seat:
            for i in range(st[o_hn + p]):
                if back:
                    st[o_hand + p * hmax + i] = tmp[k]
                else:
                    tmp[k] = st[o_hand + p * hmax + i]
                k += 1
    for i in range(st[s_deckn]):
        if back:
            st[o_deck + i] = tmp[k]
        else:
            tmp[k] = st[o_deck + i]
        k += 1
    return k


@njit(cache=True, _nrt=False)
def determinize_nb(cf, st, s, seat, tmp):
    """Deal again, from stream ``s``, what ``seat`` cannot know (in place on ``st``; the
    search's playouts call it on their copy). What a seat cannot know:

    * the order of the territory-card deck and of the adventure deck (LR-4.3, LR-8);
    * the other players' territory-card hands (the rulebook does not say whether they are
      open: kept hidden) and adventure-card hands, missions among them (LR-9.1: secret until
      completed, when the card is shown and kept for points); their counts stay public.

    Public and left alone: the seat's own hands, both discard piles (traded territory cards
    lie face up, LR-4.3; played events, powers and discarded adventure cards are shown), a
    Local Uprising territory card held aside (turned up when the event is played, LR-9.2),
    completed missions and played powers (counted in ``O_ACOUNT``/``O_ASCORE``).

    The unseen territory cards (the other players' hands and the deck) are one pool: sorted,
    shuffled and dealt back, every hand keeping its count and the deck its size. The unseen
    adventure cards likewise, with the one card-kind constraint the rules make public: an
    event card is played at once when drawn (LR-9.2), so no hand holds one - the non-event
    cards of the pool are shuffled and fill the other players' hands first, the rest of them
    and every unseen event card make the deck, shuffled. Narrowed: nothing the seat could
    remember or infer from the game's history is used (which cards went back into a deck at a
    reshuffle, a mission not completed when a Leader stood on its site, a power not played
    when the holder's heuristic would have): the pools are treated as wholly unknown.

    Each pool is sorted before it is shuffled and the number of draws depends on the pool
    sizes (public), so the deal depends on what the seat knows and the stream only, never on
    the hidden order or identities. ``tmp`` is int64 scratch of ``DET_TMP``."""
    np_ = cf[C_NP]
    # territory cards: the other players' hands and the deck, one pool dealt back in place
    k = _unseen_nb(st, tmp, np_, seat, O_HAND, O_HN, HMAX, O_TDECK, S_TDN, False)
    redeal_range_nb(s, tmp, 0, k)
    _unseen_nb(st, tmp, np_, seat, O_HAND, O_HN, HMAX, O_TDECK, S_TDN, True)
    # adventure cards: the other players' hands and the deck; tmp[0:k] the pool, sorted, then
    # its non-event cards from P0 and its event cards after them
    k = _unseen_nb(st, tmp, np_, seat, O_AHAND, O_AHN, AHMAX, O_ADECK, S_ADN, False)
    sort_range_nb(tmp, 0, k)
    P0 = MAXT + 2 + MAXADV
    nn = 0
    for i in range(k):
        if not _is_event(cf[O_AKIND + tmp[i]]):
            tmp[P0 + nn] = tmp[i]
            nn += 1
    ne = nn
    for i in range(k):
        if _is_event(cf[O_AKIND + tmp[i]]):
            tmp[P0 + ne] = tmp[i]
            ne += 1
    shuffle_range_nb(s, tmp, P0, nn)
    q = P0
    for p in range(np_):
        if p != seat:
            for i in range(st[O_AHN + p]):
                st[O_AHAND + p * AHMAX + i] = tmp[q]
                q += 1
    shuffle_range_nb(s, tmp, q, P0 + k - q)
    for i in range(st[S_ADN]):
        st[O_ADECK + i] = tmp[q]
        q += 1


@njit(cache=True, nogil=True)
def features_nb(cf, wp, pol, st, act, scr, s, n, out):
    """What the learned player learns from, at a reinforce, attack, move-in or fortify decision
    of more than one row (where ``policies.learned_on_nb`` lets the learned term score): per
    legal row, the heuristic's own score (``pol`` row of the seat to move, its learned term
    left out) in column 0 and the row's features (policies.row_features_nb, ``NLF`` of them)
    after it. Returns 1, or 0 at any other decision (nothing written)."""
    ph = st[S_PHASE]
    if n < 2 or ph < PH_REINF or ph > PH_FORT:
        return 0
    seat = st[S_CUR]
    tmp = np.zeros(n)
    base_scores_nb(cf, wp, pol, st, act, scr, n, tmp)
    for i in range(n):
        out[i, 0] = tmp[i]
        f = row_features_nb(cf, st, wp, seat, act, i, scr)
        for k in range(NLF):
            out[i, 1 + k] = f[k]
    return 1


@njit(cache=True, nogil=True)
def playouts_nb(cf, wp, pol, st, act, cands, m, key, hz, out):
    """For each candidate and j < m: a copy determinized from the searching seat's point of
    view (``determinize_nb``: the decks' order and the other players' hands, missions among
    them, dealt again from stream (key, j), the same for every candidate: common random
    numbers), the candidate applied, then the heuristics to the end on the same stream;
    ``out[c, j]`` = the winner's side.

    ``hz`` > 0: the heuristics play only until ``hz`` rounds more (``hz`` times the number of
    players' turns, counted from the turn the decision is in) have ended, and the playout is
    scored as if the game ended there: the winner by LR-11.2/11.3 (``winner_nb``: most points,
    then territories, strongholds, adventure points, then the red dice on this playout's
    stream). A playout that ends sooner (the Ring's end, a conquest) keeps its real winner.

    The hidden part is dealt again in every playout, so the search player cannot see through
    hidden cards; docs/players.md gives what that costs it against greedy."""
    st2 = np.empty_like(st)
    s = np.zeros(STATE_SIZE, dtype=np.uint64)
    act2 = np.zeros((MAXA, 4), dtype=np.int64)
    tr = np.zeros(0, dtype=np.int64)
    tmp = np.zeros(DET_TMP, dtype=np.int64)
    ctx = np.zeros(NCTX)
    seat = st[S_CUR]
    lim = st[S_TURN] + hz * cf[C_NP] if hz > 0 else MAX_TURNS + 1
    for j in range(m):
        for c in range(cands.shape[0]):
            st2[:] = st
            stream_init_nb(key, j, s)
            determinize_nb(cf, st2, s, seat, tmp)
            act2[:, :] = act
            apply_nb(cf, wp, pol, st2, tr, act2, ctx, s, cands[c])
            while st2[S_OVER] == 0 and st2[S_TURN] < lim:
                n = legal_nb(cf, st2, act2)
                apply_nb(cf, wp, pol, st2, tr, act2, ctx, s, choose_nb(cf, wp, pol, st2, act2, ctx, s, n))
            if st2[S_OVER] == 0:   # the horizon: the game ends here by points (LR-11.2/11.3), as at the cap
                end_game_nb(cf, st2, s, tr, R_CAP, -1)
            out[c, j] = side_of_nb(cf, st2[S_WSEAT]) if st2[S_WSEAT] >= 0 else 0


invariant_nb = invariant_ok_nb   # the common kernels' name (lotr_sim.games.adapter)

no_literal_dispatch(globals())
_ = (scores_nb, EV_ADV, O_DEALN, S_ADD, S_TDD, K_MUSTER, P_LEADB, MAXW, A_LEADER, A_PLACE, A_CLAIM, A_MOVEIN, A_ATTACK)
