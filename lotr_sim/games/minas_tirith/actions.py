"""Minas Tirith missions: the action menu (MT-6, MT-7) and doing an action.

Rules: ``enum_actions_nb`` lists the missions a side may take with its mission points
(MT-6.1): moves and the cavalry double move (MT-6.2 a-c), a leader alone (MT-6.2 d,
``_leader_reach3_nb``, ``_leader_path_ok_nb``), card placements (MT-6.2 e-g, MT-9.4-9.6), the
exchange (MT-6.2 h), bombardments (MT-7.2, ``check_bombards_nb``) and assaults (MT-7.3), and
PASS; ``do_action_nb`` carries one out through movement.py and combat.py. ``check_caches_nb``
(debug games) checks the per-decision caches of board.py against the full computation.

Documented simplification: actions are a finite menu (``enum_actions_nb``): a move takes all
the units that may cross the border, or half of them (cheapest types first); the cavalry
double move takes all the cavalry; an assault uses 1, 2 or 3 units, cavalry first, then the
cheapest. The random player is uniform over this menu (PASS included).
"""
from __future__ import annotations

import numpy as np

from lotr_sim.games.minas_tirith.config import (
    C_NC, C_NL, C_NU, C_T, MAXDEG, MAXT, MAXU, O_BANNER, O_CENTRY, O_CKIND, O_DIST, O_EK, O_LORD, O_LSIDE,
    O_NB, O_NBN, O_NEAR, O_NEARN, O_NTS, O_UARCH, O_UCLS, P_EVIL_DIV, P_LEAVE_ONE,
)
from lotr_sim.games.minas_tirith.layout import (
    A_ASSAULT, A_BOMBARD, A_CATAPULT, A_CAV2, A_EXCHANGE, A_HOLDER, A_LCARD, A_LMOVE, A_MOVE, A_PASS, EVIL,
    GOOD, K_CATAPULT, K_GROND, K_HOLDER, K_LEADER, K_SIEGE, MAXA, O_CLOC, O_CST, O_DEC, O_FIRED, O_HOLD,
    O_LAT, O_LLOC, O_THR, O_TOT, O_UNITS, O_WKAT, PH_LOSS, S_BAD, S_BADTURN, S_DEBUG, S_NCHECK, S_PHASE,
    S_TURN,
)
from lotr_sim.games.minas_tirith.board import (
    check_win_nb, cross_fast_nb, cross_ok_nb, holds_nb, leaders_at_nb, may_stand_nb, mumak_type_nb,
    refresh_tot_nb, side_units_nb, wk_at_nb,
)
from lotr_sim.games.minas_tirith.movement import (
    exchange_nb, move_leader_nb, move_units_nb, place_catapult_nb, place_holder_nb, place_leader_card_nb,
)
from lotr_sim.games.minas_tirith.combat import (
    assault_bonus_nb, assault_nb, bombard_action_nb, bonus_fast_nb, catapults_check_nb, shooters_nb,
)
from lotr_sim.kernels.combat import bombard_per_die_nb
from lotr_sim._numba.jit import njit


@njit(cache=True, _nrt=False)
def check_caches_nb(cf, st):
    """Debug games: every cached twin used to propose and score moves against
    its full version, on the current position, right after refresh_tot_nb. Returns the number
    of disagreements; counts the comparisons in st[S_NCHECK].
    Twins: cross_fast_nb / cross_ok_nb (every edge, side, class), bonus_fast_nb /
    assault_bonus_nb (every edge, side), the per-territory caches (units, Evil threat,
    leaders, Witch-king, siege / Grond / catapult flags) and _leader_reach3_nb /
    _leader_path_ok_nb (every leader, every territory at distance 3)."""
    bad = 0
    T = cf[C_T]
    for a in range(T):
        for j in range(cf[O_NBN + a]):
            b = cf[O_NB + a * MAXDEG + j]
            for side in range(2):
                for cls in range(4):
                    st[S_NCHECK] += 1
                    if cross_fast_nb(cf, st, side, cls, a, b) != cross_ok_nb(cf, st, side, cls, a, b):
                        bad += 1
                ab1, db1, wk1 = bonus_fast_nb(cf, st, side, a, b)
                ab2, db2, wk2 = assault_bonus_nb(cf, st, side, a, b)
                st[S_NCHECK] += 1
                if ab1 != ab2 or db1 != db2 or wk1 != wk2:
                    bad += 1
        thr = 0
        for j in range(cf[O_NBN + a]):
            thr += side_units_nb(cf, st, cf[O_NB + a * MAXDEG + j], EVIL)
        st[S_NCHECK] += 1
        if st[O_THR + GOOD * MAXT + a] != thr or st[O_WKAT + a] != wk_at_nb(cf, st, a):
            bad += 1
        for side in range(2):
            if st[O_TOT + side * MAXT + a] != side_units_nb(cf, st, a, side):
                bad += 1
            if st[O_LAT + side * MAXT + a] != leaders_at_nb(cf, st, a, side):
                bad += 1
    st[S_NCHECK] += 1
    if st[O_DEC] != holds_nb(cf, st, EVIL, K_SIEGE) or st[O_DEC + 1] != holds_nb(cf, st, EVIL, K_GROND):
        bad += 1
    for side in range(2):
        n = 0
        for c in range(cf[C_NC]):
            if st[O_CST + c] == 4 + side:
                n += 1
        if st[O_DEC + 2 + side] != n:
            bad += 1
    for l in range(cf[C_NL]):
        a = st[O_LLOC + l]
        if a < 0:
            continue
        side = cf[O_LSIDE + l]
        r3 = _leader_reach3_nb(cf, st, side, a)
        for b in range(T):
            if cf[O_DIST + a * MAXT + b] == 3 and st[O_TOT + side * MAXT + b] > 0:
                st[S_NCHECK] += 1
                if (((r3 >> b) & 1) == 1) != _leader_path_ok_nb(cf, st, side, a, b):
                    bad += 1
    return bad


@njit(cache=True, _nrt=False)
def _add_nb(act, n, kind, a, b, c, d, e):
    if n < MAXA:
        act[n, 0] = kind
        act[n, 1] = a
        act[n, 2] = b
        act[n, 3] = c
        act[n, 4] = d
        act[n, 5] = e
        return n + 1
    return n


@njit(cache=True, _nrt=False)
def enum_actions_nb(cf, st, side, act):
    E = 1 - side
    T = cf[C_T]
    refresh_tot_nb(cf, st)
    if st[S_DEBUG] == 1 and check_caches_nb(cf, st) > 0 and st[S_BAD] == 0:
        st[S_BAD] = 3  # a cached check disagrees with the full one
        st[S_BADTURN] = st[S_TURN]
    n = _add_nb(act, 0, A_PASS, 0, 0, 0, 0, 0)
    mu = mumak_type_nb(cf) if side == EVIL else -1
    for a in range(T):
        own = st[O_TOT + (side) * MAXT + a]
        if own == 0:
            continue
        # per territory: cavalry, archers able to fire (as in shooters_nb), any archer
        cav_a = 0
        arch_a = 0
        has_sh = False
        for jj in range(cf[O_NTS + side]):
            u = cf[O_LORD + side * MAXU + jj]
            m = st[O_UNITS + a * MAXU + u]
            if cf[O_UCLS + u] == 1:
                cav_a += m
            if cf[O_UARCH + u] == 1:
                arch_a += m
                if m > 0:
                    has_sh = True
        arch_a -= st[O_FIRED + a]
        if arch_a < 0:
            arch_a = 0
        nbn = cf[O_NBN + a]
        for j in range(nbn):
            b = cf[O_NB + a * MAXDEG + j]
            ne = st[O_TOT + (E) * MAXT + b]
            if cf[O_EK + a * MAXT + b] == 0:
                # an open border: every unit may cross (cross_ok_nb)
                elig = own
                cav = cav_a
            else:
                elig = 0
                cav = 0
                for jj in range(cf[O_NTS + side]):
                    u = cf[O_LORD + side * MAXU + jj]
                    m = st[O_UNITS + a * MAXU + u]
                    if m > 0 and cross_fast_nb(cf, st, side, cf[O_UCLS + u], a, b):
                        elig += m
                        if cf[O_UCLS + u] == 1:
                            cav += m
            if elig == 0:
                continue
            if ne > 0:
                # MT-7.3 assault with 1..3 units (leave_one_behind optional)
                kmax = elig
                if cf[P_LEAVE_ONE] == 1 and kmax > own - 1:
                    kmax = own - 1
                tot = kmax
                if kmax > 3:
                    kmax = 3
                for k in range(1, kmax + 1):
                    n = _add_nb(act, n, A_ASSAULT, a, b, k, 1 if k == kmax else 0, tot)
            else:
                # MT-6.2 a/b: move all eligible, or half
                n = _add_nb(act, n, A_MOVE, a, b, elig, 1, 0)
                if elig >= 2:
                    n = _add_nb(act, n, A_MOVE, a, b, elig // 2, 0, 0)
                # MT-6.2 c: cavalry 2 territories through an own-held territory
                if cav > 0 and st[O_TOT + (side) * MAXT + b] > 0 and cross_fast_nb(cf, st, side, 1, a, b):
                    for j2 in range(cf[O_NBN + b]):
                        c2 = cf[O_NB + b * MAXDEG + j2]
                        if c2 == a or st[O_TOT + (E) * MAXT + c2] > 0:
                            continue
                        if cross_fast_nb(cf, st, side, 1, b, c2):
                            n = _add_nb(act, n, A_CAV2, a, b, cav, 1, c2)
        # MT-7.2 bombardment (targets within 3, nearest first; only where there are shooters)
        ncat = st[O_DEC + 2 + side]
        if not has_sh and ncat > 0:
            for c in range(cf[C_NC]):
                if st[O_CST + c] == 4 + side and st[O_CLOC + c] == a:
                    has_sh = True
        if has_sh:
            for jn in range(cf[O_NEARN + a]):
                b = cf[O_NEAR + a * MAXT + jn]
                if st[O_TOT + E * MAXT + b] == 0:
                    continue
                if ncat > 0:
                    arch, cat = shooters_nb(cf, st, side, a, b)
                else:
                    arch = arch_a if cf[O_DIST + a * MAXT + b] <= 2 else 0
                    cat = -1
                sh = arch + (1 if cat >= 0 else 0)
                # MT-7.2: 1-3 dice; Evil at a banner needs evil_banner_divisor shooters per
                # die (2 -> 1, 4 -> 2, 6 -> 3) and names only the shooters it needs
                div = bombard_per_die_nb(side == EVIL and cf[O_BANNER + b] == 1, cf[P_EVIL_DIV])
                if sh > 3 * div:
                    sh = 3 * div
                dice = sh // div
                if dice == 0:
                    continue
                sh = dice * div
                n = _add_nb(act, n, A_BOMBARD, a, b, sh, dice, 0)
        # MT-6.2 h: mumak for 3 infantry
        if side == EVIL:
            if mu >= 0 and st[O_UNITS + a * MAXU + mu] > 0:
                n = _add_nb(act, n, A_EXCHANGE, a, 0, 0, 0, 0)
    # MT-6.2 d: a leader alone 1-3 territories through territories holding own troops
    for l in range(cf[C_NL]):
        if cf[O_LSIDE + l] != side:
            continue
        a = st[O_LLOC + l]
        if a < 0:
            continue
        r3 = np.int64(-1)
        for jn in range(cf[O_NEARN + a]):
            b = cf[O_NEAR + a * MAXT + jn]
            if st[O_TOT + (side) * MAXT + b] == 0:
                continue
            d = cf[O_DIST + a * MAXT + b]
            if d == 1:
                ok = cross_fast_nb(cf, st, side, 3, a, b)
            elif d == 2:
                ok = _leader_path_ok_nb(cf, st, side, a, b)
            else:
                if r3 < 0:
                    r3 = _leader_reach3_nb(cf, st, side, a)
                ok = ((r3 >> b) & 1) == 1
            if ok:
                n = _add_nb(act, n, A_LMOVE, l, b, 0, 0, 0)
    # Minas Tirith cards played as movement missions (MT-6.2 e-g, MT-9.4, MT-9.6)
    for c in range(cf[C_NC]):
        if st[O_CST + c] != 1 + side:
            continue
        kind = cf[O_CKIND + c]
        if kind == K_HOLDER:
            for t in range(T):
                if cf[O_CENTRY + c * MAXT + t] == 1 and st[O_TOT + (E) * MAXT + t] == 0:
                    ok = True
                    for u in range(cf[C_NU]):  # MT-6.4 / MT-6.6: nobody lands where it may not stand
                        if st[O_HOLD + c * MAXU + u] > 0 and not may_stand_nb(cf, u, t):
                            ok = False
                    if ok:
                        n = _add_nb(act, n, A_HOLDER, c, t, 0, 0, 0)
        elif kind == K_LEADER:
            for t in range(T):
                if st[O_TOT + (side) * MAXT + t] > 0:
                    n = _add_nb(act, n, A_LCARD, c, t, 0, 0, 0)
        elif kind == K_CATAPULT:
            for t in range(T):
                if st[O_TOT + (side) * MAXT + t] > 0:
                    n = _add_nb(act, n, A_CATAPULT, c, t, 0, 0, 0)
    if st[S_DEBUG] == 1 and check_bombards_nb(cf, st, side, act, n) > 0 and st[S_BAD] == 0:
        st[S_BAD] = 3  # the proposed bombardments disagree with shooters_nb
        st[S_BADTURN] = st[S_TURN]
    return n


@njit(cache=True, _nrt=False)
def check_bombards_nb(cf, st, side, act, n):
    """Debug games: the bombardments enum_actions_nb proposes (its own shooter count, fast when
    no catapult is on the board) against the full count of shooters_nb (MT-7.2, MT-9.4): the
    same targets, the same shooters and dice. Returns the number of disagreements."""
    bad = 0
    T = cf[C_T]
    nfull = 0
    for a in range(T):
        if st[O_TOT + side * MAXT + a] == 0:
            continue
        for b in range(T):
            d = cf[O_DIST + a * MAXT + b]
            if d < 1 or d > 3 or st[O_TOT + (1 - side) * MAXT + b] == 0:
                continue
            arch, cat = shooters_nb(cf, st, side, a, b)
            sh = arch + (1 if cat >= 0 else 0)
            div = bombard_per_die_nb(side == EVIL and cf[O_BANNER + b] == 1, cf[P_EVIL_DIV])
            if sh > 3 * div:
                sh = 3 * div
            dice = sh // div
            if dice == 0:
                continue
            nfull += 1
            found = 0
            for i in range(n):
                if act[i, 0] == A_BOMBARD and act[i, 1] == a and act[i, 2] == b:
                    found += 1
                    st[S_NCHECK] += 1
                    if act[i, 3] != dice * div or act[i, 4] != dice:
                        bad += 1
            if found != 1:
                bad += 1
    for i in range(n):
        if act[i, 0] == A_BOMBARD:
            nfull -= 1
    if nfull != 0:
        bad += 1
    return bad


@njit(cache=True, _nrt=False)
def _leader_reach3_nb(cf, st, side, a):
    """Bit mask of the territories a leader alone reaches from a in 3 steps whose intermediate
    territories hold own troops (MT-6.2 d): for targets at distance 3, the same set as
    _leader_path_ok_nb (per-decision cache, see refresh_tot_nb)."""
    own = O_TOT + side * MAXT
    s2 = 0
    for j in range(cf[O_NBN + a]):
        m = cf[O_NB + a * MAXDEG + j]
        if st[own + m] == 0 or not cross_fast_nb(cf, st, side, 3, a, m):
            continue
        for j2 in range(cf[O_NBN + m]):
            x = cf[O_NB + m * MAXDEG + j2]
            if st[own + x] > 0 and (s2 >> x) & 1 == 0 and cross_fast_nb(cf, st, side, 3, m, x):
                s2 |= np.int64(1) << x
    r3 = 0
    for m2 in range(cf[C_T]):
        if (s2 >> m2) & 1:
            for j3 in range(cf[O_NBN + m2]):
                x = cf[O_NB + m2 * MAXDEG + j3]
                if (r3 >> x) & 1 == 0 and cross_fast_nb(cf, st, side, 3, m2, x):
                    r3 |= np.int64(1) << x
    return r3


@njit(cache=True, _nrt=False)
def _leader_path_ok_nb(cf, st, side, a, b):
    """A path of <= 3 steps a -> b whose intermediate territories hold own troops (MT-6.2 d)."""
    d = cf[O_DIST + a * MAXT + b]
    if d == 1:
        return cross_fast_nb(cf, st, side, 3, a, b)
    for j in range(cf[O_NBN + a]):
        m = cf[O_NB + a * MAXDEG + j]
        if st[O_TOT + (side) * MAXT + m] == 0 or not cross_fast_nb(cf, st, side, 3, a, m):
            continue
        if cf[O_DIST + m * MAXT + b] == 1 and cross_fast_nb(cf, st, side, 3, m, b):
            return True
        if d == 3:
            for j2 in range(cf[O_NBN + m]):
                m2 = cf[O_NB + m * MAXDEG + j2]
                if st[O_TOT + (side) * MAXT + m2] == 0 or not cross_fast_nb(cf, st, side, 3, m, m2):
                    continue
                if cf[O_DIST + m2 * MAXT + b] == 1 and cross_fast_nb(cf, st, side, 3, m2, b):
                    return True
    return False


@njit(cache=True, _nrt=False)
def do_action_nb(cf, st, tr, s, pol, side, act, i):
    kind = act[i, 0]
    a = act[i, 1]
    b = act[i, 2]
    if kind == A_MOVE:
        move_units_nb(cf, st, tr, side, a, -1, b, act[i, 3], False, 1)
    elif kind == A_CAV2:
        move_units_nb(cf, st, tr, side, a, b, act[i, 5], act[i, 3], True, 1)
    elif kind == A_LMOVE:
        move_leader_nb(cf, st, tr, a, b)
    elif kind == A_ASSAULT:
        assault_nb(cf, st, tr, s, pol, side, a, b, act[i, 3], True)
    elif kind == A_BOMBARD:
        bombard_action_nb(cf, st, tr, s, side, a, b, act[i, 3], True)
    elif kind == A_HOLDER:
        place_holder_nb(cf, st, tr, side, a, b)
    elif kind == A_LCARD:
        place_leader_card_nb(cf, st, tr, a, b)
    elif kind == A_CATAPULT:
        place_catapult_nb(cf, st, tr, side, a, b)
    elif kind == A_EXCHANGE:
        exchange_nb(cf, st, tr, a)
    if st[S_PHASE] >= PH_LOSS:
        return  # the roll's losses are decisions first; apply_nb makes these checks after them
    catapults_check_nb(cf, st, tr)
    check_win_nb(cf, st, tr)


# Each helper compiles once, whatever constants its callers pass (see lotr_sim/_numba/dispatch.py).
from lotr_sim._numba.dispatch import no_literal_dispatch  # noqa: E402

no_literal_dispatch(globals())
