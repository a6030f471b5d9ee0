"""Minas Tirith players: the random player and the heuristic (per-level weights ``PL_*``).

Rules: none of their own; they choose among what the rules allow. ``choose_die_nb`` picks a
mission die (MT-4.2/4.5); ``score_action_nb`` / ``choose_action_nb`` pick a mission from
the menu of actions.enum_actions_nb (MT-6, MT-7; inlined into ``choose_action_nb``);
``best_unit_territory_nb`` places pool units (muster MT-9.7, bonus trade MT-5.4); where a
catapult (MT-9.4) and a leader card's leader (MT-9.6) go is weighted by ``PL_CATN``/``PL_CATF``
and ``PL_LCN``/``PL_LCW`` (greedy's: the most enemy units in range, the largest own force); whether
a Good leader flees a threatened territory alone (MT-6.2 d) by ``PL_FLEE``/``PL_FLEER``; how
much more Good wants units where its own leader stands by ``PL_GUARD`` (greedy: 0), and how
much more a cavalry move of two territories (MT-6.2 c) is worth than a plain move by
``PL_CAV2`` (greedy: 0); the
helpers value territories (``importance_nb``: the city, walls, banner territories MT-2.3;
``threat_nb``, ``good_want_nb``) and assaults (``winp_nb`` from the battle table ``wp`` and
the MT-8.2 modifiers). A policy row with ``PL_TYPE == 0`` is the random player: uniform over
the menu (PASS included) and over the dice.

The learned player (``tuned`` once ``lotr-sim learn`` has shipped its weights) is the heuristic
plus a linear term: each action row's features (``row_features_nb``, the ``LF_*`` of layout.py:
what a move does to the exposure of the moving units and of the seat's leaders to enemy archers
within bombardment range (MT-7.2; a leader is captured when its territory's last unit falls,
MT-8.4), to the enemy units next to them, to importance and distance from the city; an
assault's P(take), dice and enemy leaders; a bombardment's dice and its chance to take a
leader; a bias per action kind) weighted by the row's ``PL_LF0..`` entries and added to
``score_action_nb``'s score (``learned_bonus_nb``). With every such weight 0 (the presets) the
heuristic plays exactly as without them. The mission die (MT-4.2/4.5) has its own features
(``die_features_nb``: the die's value, what it leaves the opponent and the seat for later, and
the value times the deck left, the hand, the points lead and what missions can do now: archers
within range of an enemy, units next to one), weighted by the ``PL_LF0 + LF_DIE..`` entries and
added to the heuristic's worth of the die (``choose_die_nb``). The mission-phase actions and the
dice are scored this way; losses, retreats and cards stay the heuristic's.
"""
from __future__ import annotations


from lotr_sim._numba.jit import njit
from lotr_sim.kernels.learned import weighted_nb, weights_on_nb
from lotr_sim.kernels.rng import randint_nb
from lotr_sim.games.minas_tirith.config import (
    C_CITY, C_ND, C_NU, C_T, MAXDEG, MAXT, MAXU, N_AB, N_DB, O_BANNER, O_DCITY, O_DIST, O_LORD, O_NB, O_NBN,
    O_NTS, O_TKIND, O_UARCH, O_UCLS, P_HOLDER_CAP, P_MISSION_BASE, WMAX,
)
from lotr_sim.games.minas_tirith.layout import (
    A_ASSAULT, A_BOMBARD, A_CATAPULT, A_CAV2, A_EXCHANGE, A_HOLDER, A_LCARD, A_LMOVE, A_MOVE, A_PASS, EVIL,
    GOOD, K_GROND, K_SIEGE, O_HOLD, O_LAT, O_LLOC, O_POOL, O_THR, O_TOT, PL_ADV, PL_CW, PL_DEF, PL_GMIN, PL_MW,
    PL_PASS, PL_THR, PL_TW, PL_TYPE, PL_CATN, PL_CATF, PL_LCN, PL_LCW, PL_FLEE, PL_FLEER, PL_GUARD, PL_CAV2, S_DICE, S_DTOP,
    NLF, NLF_DIE, O_ADJ, O_EXP, O_UNITS, PL_LF0, S_HN, S_MISS, S_ROUND,
    LF_AS, LF_BB, LF_CARD, LF_DIE, LF_LM, LF_MV, LF_PASS,
)
from lotr_sim.games.minas_tirith.board import holds_nb, may_stand_nb, points_nb, refresh_tot_nb
from lotr_sim.games.minas_tirith.combat import bonus_fast_nb


@njit(cache=True, _nrt=False)
def importance_nb(cf, t):
    k = cf[O_TKIND + t]
    if k == 3:
        return 6.0
    if k == 2:
        return 4.0
    if cf[O_BANNER + t] == 1:
        return 2.0
    return 1.0


@njit(cache=True, _nrt=False)
def threat_nb(cf, st, t, side):
    """Enemy units next to t (from the per-decision cache, see refresh_tot_nb)."""
    return st[O_THR + side * MAXT + t]


@njit(cache=True, _nrt=False)
def good_want_nb(cf, st, t, extra, tw, guard):
    """How much Good wants one more unit in t: its importance (plus ``guard``, PL_GUARD, while
    an own leader stands there, whose +1 its units then fight with, MT-8.2), raised by the
    enemy next to it (weighted by ``tw``, PL_TW), shared among the units already there (plus
    ``extra``)."""
    own = st[O_TOT + (GOOD) * MAXT + t] + extra
    imp = importance_nb(cf, t)
    if st[O_LAT + GOOD * MAXT + t] > 0:
        imp += guard
    return imp * (1.0 + tw * threat_nb(cf, st, t, GOOD)) / (1.0 + own)


@njit(cache=True, _nrt=False)
def winp_nb(cf, st, wp, side, a, b, natt):
    """P(the attacker takes b) from the exact tables, with the MT-8.2 modifiers of
    assault_bonus_nb read from the per-decision cache (bonus_fast_nb; checked against it in
    debug games by check_caches_nb)."""
    ab, db, wk = bonus_fast_nb(cf, st, side, a, b)
    if ab > N_AB - 1:
        ab = N_AB - 1
    if db > N_DB - 1:
        db = N_DB - 1
    A = natt if natt < WMAX else WMAX
    D = st[O_TOT + (1 - side) * MAXT + b]
    if D > WMAX:
        D = WMAX
    return wp[side, wk, ab, db, A, D]


@njit(cache=True, _nrt=False, inline="always")
def score_action_nb(cf, st, wp, pol, side, act, i):
    kind = act[i, 0]
    a = act[i, 1]
    b = act[i, 2]
    E = 1 - side
    if kind == A_PASS:
        return 0.0
    if kind == A_BOMBARD:
        # bombard with every archer that has a target; prefer valuable or leader-held targets
        v = 5.0 + 2.0 * act[i, 4] + 0.1 * importance_nb(cf, b)
        if st[O_LAT + E * MAXT + b] > 0 and st[O_TOT + (E) * MAXT + b] <= 2:
            v += 3.0
        return v
    if kind == A_ASSAULT:
        if act[i, 4] == 0:
            return -1.0  # heuristic players always roll the most dice
        p = winp_nb(cf, st, wp, side, a, b, act[i, 5])
        if p < pol[side, PL_THR]:
            return -1.0
        v = 10.0 + 10.0 * p + 4.0 * st[O_LAT + E * MAXT + b] + importance_nb(cf, b)
        return v
    if kind == A_MOVE or kind == A_CAV2:
        k = act[i, 3]
        full = act[i, 4]
        to = act[i, 5] if kind == A_CAV2 else b
        if side == EVIL:
            if to == cf[C_CITY]:
                return 1000.0
            gain = cf[O_DCITY + a] - cf[O_DCITY + to]
            if gain <= 0:
                return -1.0
            v = pol[side, PL_ADV] * gain * (1.0 + 0.3 * k)
            if full == 0:
                v *= 0.5
            if cf[O_TKIND + to] == 2:
                v += 2.0
            return v
        # Good moves only to fortified/important places or to join an own stack
        if importance_nb(cf, to) < 2.0 and st[O_TOT + (GOOD) * MAXT + to] == 0:
            return -1.0
        tw = pol[side, PL_TW]
        gd = pol[side, PL_GUARD]
        g = good_want_nb(cf, st, to, k, tw, gd) - good_want_nb(cf, st, a, -k, tw, gd)
        if cf[O_TKIND + a] == 2 or cf[O_TKIND + a] == 3:
            if threat_nb(cf, st, a, GOOD) > 0:
                g -= 2.0
        if g <= pol[side, PL_GMIN]:
            return -1.0
        if kind == A_CAV2:
            return pol[side, PL_DEF] * g + pol[side, PL_CAV2]
        return pol[side, PL_DEF] * g
    if kind == A_LMOVE:
        l = a
        src = st[O_LLOC + l]
        if st[O_LAT + side * MAXT + b] > 0:
            return -1.0
        if side == EVIL:
            d = st[O_TOT + (side) * MAXT + b] - st[O_TOT + (side) * MAXT + src]
            if d > 2 and cf[O_DCITY + b] <= cf[O_DCITY + src]:
                return 1.0 + 0.1 * d
            return -1.0
        # a leader flees a territory the adjacent enemy outnumbers (PL_FLEER x its units) for
        # one it does not: worth PL_FLEE (greedy: 2, below every bombardment and assault)
        if threat_nb(cf, st, src, GOOD) > pol[side, PL_FLEER] * st[O_TOT + (GOOD) * MAXT + src] and \
                threat_nb(cf, st, b, GOOD) < st[O_TOT + (GOOD) * MAXT + b]:
            return pol[side, PL_FLEE]
        return -1.0
    if kind == A_HOLDER:
        c = a
        n = 0
        for u in range(cf[C_NU]):
            n += st[O_HOLD + c * MAXU + u]
        if n >= 3 or n >= cf[P_HOLDER_CAP] or cf[C_ND] - st[S_DTOP] < 8:
            if n == 0:
                return -1.0
            return 3.0 + 0.1 * st[O_TOT + (side) * MAXT + b]
        return -1.0
    if kind == A_LCARD:
        # MT-9.6: the leader joins the force at b
        v = 3.0 + pol[side, PL_LCN] * st[O_TOT + (side) * MAXT + b]
        if cf[O_TKIND + b] >= 2:
            v += pol[side, PL_LCW]
        return v
    if kind == A_CATAPULT:
        n = 0
        for t in range(cf[C_T]):
            if cf[O_DIST + b * MAXT + t] <= 3:
                n += st[O_TOT + (E) * MAXT + t]
        if n == 0:
            return -1.0
        # MT-9.4: the catapult stays at b while own units hold it
        v = 4.0 + pol[side, PL_CATN] * n
        if cf[O_TKIND + b] == 1:
            v += pol[side, PL_CATF]
        return v
    if kind == A_EXCHANGE:
        # worth it only when the pool still holds the 3 infantry
        for j in range(cf[O_NTS + EVIL]):
            u = cf[O_LORD + EVIL * MAXU + j]
            if cf[O_UCLS + u] == 0 and cf[O_UARCH + u] == 0:
                return 2.0 if st[O_POOL + u] >= 3 else -1.0
        return -1.0
    return -1.0


@njit(cache=True, _nrt=False)
def learned_on_nb(pol, side):
    """Does ``side``'s row carry learned weights (any ``PL_LF0..`` entry not 0)?"""
    return weights_on_nb(pol, side, PL_LF0, NLF)


@njit(cache=True, _nrt=False)
def archers_at_nb(cf, st, a, side):
    """``side``'s archers (crossbowmen, mounted archers: O_UARCH, MT-7.2) in territory ``a``."""
    arch = 0
    for jj in range(cf[O_NTS + side]):
        u = cf[O_LORD + side * MAXU + jj]
        if cf[O_UARCH + u] == 1:
            arch += st[O_UNITS + a * MAXU + u]
    return arch


@njit(cache=True, _nrt=False)
def refresh_learned_nb(cf, st, side):
    """The learned player's per-decision caches (after refresh_tot_nb) for ``side``, the only
    ones its features read: per territory, the enemy archers within 2 territories (O_EXP:
    MT-7.2's archer range) and the enemy units next to it (O_ADJ)."""
    T = cf[C_T]
    E = 1 - side
    for t in range(T):
        st[O_EXP + side * MAXT + t] = 0
        m = 0
        for j in range(cf[O_NBN + t]):
            m += st[O_TOT + E * MAXT + cf[O_NB + t * MAXDEG + j]]
        st[O_ADJ + side * MAXT + t] = m
    for a in range(T):
        arch = archers_at_nb(cf, st, a, E)
        if arch == 0:
            continue
        for t in range(T):
            if cf[O_DIST + a * MAXT + t] <= 2:
                st[O_EXP + side * MAXT + t] += arch


@njit(cache=True, _nrt=False)
def leader_risk_nb(nl, exposure, own):
    """How exposed ``nl`` leaders are in a territory with ``own`` units under ``exposure`` enemy
    archers in range: a leader is captured when the last unit falls (MT-8.4)."""
    if nl <= 0:
        return 0.0
    e = exposure if exposure < 6 else 6
    return nl * e / (1.0 + (own if own > 0 else 0))


@njit(cache=True, _nrt=False, inline="always")
def _move_features_nb(cf, st, side, act, i):
    """Features 2..9 (LF_MV..LF_MV_EARLY) of a move row (A_MOVE, A_CAV2)."""
    kind = act[i, 0]
    a = act[i, 1]
    tot = O_TOT + side * MAXT
    ex = O_EXP + side * MAXT
    adj = O_ADJ + side * MAXT
    lat = O_LAT + side * MAXT
    k = act[i, 3]
    to = act[i, 5] if kind == A_CAV2 else act[i, 2]
    oa = st[tot + a]
    ot = st[tot + to]
    la = st[lat + a]
    lt = st[lat + to]
    f3 = k * (st[ex + to] - st[ex + a]) / 6.0
    before = leader_risk_nb(la, st[ex + a], oa) + leader_risk_nb(lt, st[ex + to], ot)
    if oa - k <= 0:      # the leaders go with the last units
        after = leader_risk_nb(lt + la, st[ex + to], ot + k)
    else:
        after = leader_risk_nb(la, st[ex + a], oa - k) + leader_risk_nb(lt, st[ex + to], ot + k)
    f4 = after - before
    f5 = k * (st[adj + to] - st[adj + a]) / 10.0
    f6 = importance_nb(cf, to) - importance_nb(cf, a)
    f7 = float(cf[O_DCITY + a] - cf[O_DCITY + to])
    f8 = k / (oa if oa > 0 else 1.0)
    f9 = 0.0
    early = 3 - st[S_ROUND]
    if early > 0:
        f9 = f7 * early / 3.0
    return (1.0, f3, f4, f5, f6, f7, f8, f9)


@njit(cache=True, _nrt=False, inline="always")
def _lmove_features_nb(st, side, act, i):
    """Features 10..11 (LF_LM, LF_LM_RISK) of a leader's move alone (A_LMOVE)."""
    src = st[O_LLOC + act[i, 1]]
    b = act[i, 2]
    if src < 0:
        return (1.0, 0.0)
    ex = O_EXP + side * MAXT
    tot = O_TOT + side * MAXT
    return (1.0, leader_risk_nb(1, st[ex + b], st[tot + b]) - leader_risk_nb(1, st[ex + src], st[tot + src]))


@njit(cache=True, _nrt=False, inline="always")
def _assault_features_nb(cf, st, wp, side, act, i):
    """Features 12..15 (LF_AS..LF_AS_LDR) of an assault row."""
    b = act[i, 2]
    return (1.0, winp_nb(cf, st, wp, side, act[i, 1], b, act[i, 5]), act[i, 3] / 3.0,
            float(st[O_LAT + (1 - side) * MAXT + b]))


@njit(cache=True, _nrt=False, inline="always")
def _bombard_features_nb(st, side, act, i):
    """Features 16..18 (LF_BB..LF_BB_KILL) of a bombardment row: its dice, and may it take an
    enemy leader?"""
    b = act[i, 2]
    E = 1 - side
    kill = 1.0 if st[O_LAT + E * MAXT + b] > 0 and st[O_TOT + E * MAXT + b] <= act[i, 4] else 0.0
    return (1.0, act[i, 4] / 3.0, kill)


@njit(cache=True, _nrt=False)
def row_features_nb(cf, st, wp, side, act, i):
    """The learned player's features of action row ``i`` for ``side`` (the ``LF_*`` order);
    the caches of refresh_tot_nb and refresh_learned_nb (for ``side``) must be current."""
    f0 = f1 = f2 = f3 = f4 = f5 = f6 = f7 = f8 = f9 = 0.0
    f10 = f11 = f12 = f13 = f14 = f15 = f16 = f17 = f18 = f19 = 0.0
    z = 0.0     # the mission-die features (die_features_nb): 0 on an action row
    kind = act[i, 0]
    if kind == A_PASS:
        f0, f1 = 1.0, float(st[S_MISS])
    elif kind == A_MOVE or kind == A_CAV2:
        f2, f3, f4, f5, f6, f7, f8, f9 = _move_features_nb(cf, st, side, act, i)
    elif kind == A_LMOVE:
        f10, f11 = _lmove_features_nb(st, side, act, i)
    elif kind == A_ASSAULT:
        f12, f13, f14, f15 = _assault_features_nb(cf, st, wp, side, act, i)
    elif kind == A_BOMBARD:
        f16, f17, f18 = _bombard_features_nb(st, side, act, i)
    elif kind == A_HOLDER or kind == A_LCARD or kind == A_CATAPULT or kind == A_EXCHANGE:
        f19 = 1.0
    return (f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16, f17, f18, f19,
            z, z, z, z, z, z, z, z, z)


@njit(cache=True, _nrt=False)
def learned_bonus_nb(cf, st, wp, pol, side, act, i):
    """The learned term of row ``i``'s score: its features weighted by ``side``'s ``PL_LF0..``.
    Only the row kind's own features are computed and weighted by that kind's slots (the
    others' features are 0), from 0.0 in the ``LF_*`` order, so the sum is the same float as
    ``weighted_nb`` over all of ``row_features_nb`` (adding ``w * 0.0`` changes no sum)."""
    kind = act[i, 0]
    if kind == A_PASS:
        return weighted_nb(pol, side, PL_LF0 + LF_PASS, (1.0, float(st[S_MISS])))
    if kind == A_MOVE or kind == A_CAV2:
        return weighted_nb(pol, side, PL_LF0 + LF_MV, _move_features_nb(cf, st, side, act, i))
    if kind == A_LMOVE:
        return weighted_nb(pol, side, PL_LF0 + LF_LM, _lmove_features_nb(st, side, act, i))
    if kind == A_ASSAULT:
        return weighted_nb(pol, side, PL_LF0 + LF_AS, _assault_features_nb(cf, st, wp, side, act, i))
    if kind == A_BOMBARD:
        return weighted_nb(pol, side, PL_LF0 + LF_BB, _bombard_features_nb(st, side, act, i))
    if kind == A_HOLDER or kind == A_LCARD or kind == A_CATAPULT or kind == A_EXCHANGE:
        return weighted_nb(pol, side, PL_LF0 + LF_CARD, (1.0,))
    return 0.0


@njit(cache=True, _nrt=False)
def choose_action_nb(cf, st, wp, pol, s, side, act, n):
    if pol[side, PL_TYPE] == 0:
        return randint_nb(s, n)
    lw = learned_on_nb(pol, side)
    if lw:
        refresh_learned_nb(cf, st, side)
    best = 0
    bestv = pol[side, PL_PASS]      # row 0 is the pass (MT-6): the action to beat
    if lw:
        bestv += learned_bonus_nb(cf, st, wp, pol, side, act, 0)
    for i in range(1, n):
        v = score_action_nb(cf, st, wp, pol, side, act, i)
        if lw:
            v += learned_bonus_nb(cf, st, wp, pol, side, act, i)
        if v > bestv:
            bestv = v
            best = i
    return best


@njit(cache=True, _nrt=False)
def best_unit_territory_nb(cf, st, s, pol, side, u):
    """Where a side puts a unit of type u from the pool: a territory where it has units and
    where that unit may stand (MT-6.4 / MT-6.6: no cavalry or creature on a wall); -1 if none."""
    T = cf[C_T]
    refresh_tot_nb(cf, st)
    if pol[side, PL_TYPE] == 0:
        cnt = 0
        for t in range(T):
            if st[O_TOT + (side) * MAXT + t] > 0 and may_stand_nb(cf, u, t):
                cnt += 1
        if cnt == 0:
            return -1
        r = randint_nb(s, cnt)
        for t in range(T):
            if st[O_TOT + (side) * MAXT + t] > 0 and may_stand_nb(cf, u, t):
                if r == 0:
                    return t
                r -= 1
        return -1
    best = -1
    bestv = -1e9
    for t in range(T):
        if st[O_TOT + (side) * MAXT + t] == 0 or not may_stand_nb(cf, u, t):
            continue
        if side == GOOD:
            v = good_want_nb(cf, st, t, 0, pol[side, PL_TW], pol[side, PL_GUARD])
        else:
            v = -cf[O_DCITY + t] + 0.01 * st[O_TOT + (side) * MAXT + t]
        if v > bestv:
            bestv = v
            best = t
    return best


@njit(cache=True, _nrt=False)
def die_cw_nb(cf, st, pol, side):
    """The heuristic's worth of a reinforcement card against a mission step (MT-4.5), raised by
    a third for an Evil that holds neither Siege Tower nor Grond (MT-9.1, MT-9.3)."""
    cw = pol[side, PL_CW]
    if side == EVIL and holds_nb(cf, st, EVIL, K_SIEGE) == 0 and holds_nb(cf, st, EVIL, K_GROND) == 0:
        cw *= 1.3
    return cw


@njit(cache=True, _nrt=False)
def die_value_nb(cf, pol, side, cw, v):
    """The heuristic's worth of a mission die of value ``v`` (MT-4.5: v mission points, each
    worth 0.85 times the one before, and ``mission_card_base - v`` cards worth ``cw`` each)."""
    m = 0.0
    w = 1.0
    for _ in range(v):
        m += w
        w *= 0.85
    c = cf[P_MISSION_BASE] - v
    if c < 0:
        c = 0
    return pol[side, PL_MW] * m + cw * c


@njit(cache=True, _nrt=False)
def die_state_nb(cf, st, side):
    """What a mission die's features (die_features_nb) read of the state, the same for every
    die of the decision: the share of the reinforcement deck left (its end ends the game,
    MT-10.3), the seat's cards in hand / 6 (MT-5.6), its points lead (MT-10.3), its archers
    within bombardment range of an enemy (MT-7.2, 2 territories) and its units next to an enemy
    (what mission points can do now). Refreshes the O_TOT caches it reads."""
    nd = cf[C_ND]
    deck = (nd - st[S_DTOP]) / nd if nd > 0 else 0.0
    hand = st[S_HN + side] / 6.0
    pg, pe = points_nb(cf, st)
    lead = (pg - pe) if side == GOOD else (pe - pg)
    refresh_tot_nb(cf, st)
    T = cf[C_T]
    E = 1 - side
    shoot = 0
    front = 0
    for a in range(T):
        own = st[O_TOT + side * MAXT + a]
        if own == 0:
            continue
        for j in range(cf[O_NBN + a]):
            if st[O_TOT + E * MAXT + cf[O_NB + a * MAXDEG + j]] > 0:
                front += own
                break
        arch = archers_at_nb(cf, st, a, side)
        if arch == 0:
            continue
        for t in range(T):
            if st[O_TOT + E * MAXT + t] > 0 and cf[O_DIST + a * MAXT + t] <= 2:
                shoot += arch
                break
    return (deck, hand, float(lead), float(shoot), float(front))


@njit(cache=True, _nrt=False)
def die_features_nb(st, used, slot, ctx):
    """The learned player's features of taking mission die ``slot`` (``used``: the round's
    dice taken before, a bit each; MT-4.2/4.3 the three dice go to the two sides in turn), in
    the ``LF_DIE..`` order: its value x = v / 6 and x squared; the best die it leaves the
    opponent, who picks next (0 when none is left); the die the seat keeps for the round's
    third turn when it picks first (the lower of the other two, the opponent taking the
    higher); and x times each of die_state_nb's ``ctx`` (the lead / 10, the archers / 10, the
    units / 20)."""
    x = st[S_DICE + slot] / 6.0
    hi = -1
    lo = 7
    nleft = 0
    for j in range(3):
        if j == slot or (used >> j) & 1:
            continue
        d = st[S_DICE + j]
        nleft += 1
        if d > hi:
            hi = d
        if d < lo:
            lo = d
    opp = hi / 6.0 if nleft > 0 else 0.0
    later = lo / 6.0 if nleft == 2 else 0.0
    deck, hand, lead, shoot, front = ctx
    return (x, x * x, opp, later, x * deck, x * hand, x * lead / 10.0, x * shoot / 10.0, x * front / 20.0)


@njit(cache=True, _nrt=False)
def choose_die_nb(cf, st, s, pol, side, used):
    """MT-4.2/4.5: pick a mission die among the unused ones: the heuristic's worth
    (die_value_nb), plus the learned term over die_features_nb where ``side``'s row weighs it;
    the first of the highest."""
    nfree = 0
    for i in range(3):
        if not (used >> i) & 1:
            nfree += 1
    if pol[side, PL_TYPE] == 0:
        r = randint_nb(s, nfree)
        for i in range(3):
            if not (used >> i) & 1:
                if r == 0:
                    return i
                r -= 1
    cw = die_cw_nb(cf, st, pol, side)
    lw = nfree > 1 and weights_on_nb(pol, side, PL_LF0 + LF_DIE, NLF_DIE)
    ctx = die_state_nb(cf, st, side) if lw else (0.0, 0.0, 0.0, 0.0, 0.0)
    best = -1
    bv = -1e9
    for i in range(3):
        if (used >> i) & 1:
            continue
        val = die_value_nb(cf, pol, side, cw, st[S_DICE + i])
        if lw:
            val += weighted_nb(pol, side, PL_LF0 + LF_DIE, die_features_nb(st, used, i, ctx))
        if val > bv:
            bv = val
            best = i
    return best


# Each helper compiles once, whatever constants its callers pass (see lotr_sim/_numba/dispatch.py).
from lotr_sim._numba.dispatch import no_literal_dispatch  # noqa: E402

no_literal_dispatch(globals())
