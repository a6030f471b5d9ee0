"""Minas Tirith board queries and caches, scoring and the end of the game.

Rules: who stands where (MT-1, MT-2), who may cross a border (walls and city MT-6.4/MT-6.5,
climbing MT-6.6, siege cards MT-9.1, Grond MT-9.3), cards held (``holds_nb``), the points
count and the end of the game (MT-10.1-10.3: ``points_nb``, ``end_game_nb``, ``check_win_nb``),
the invariant checked after every step in debug games (``invariant_ok_nb``: MT-1.4 every
unit is on the board, on a holder card, in the pool or captured; ``walls_ok_nb``,
``may_stand_nb``: MT-6.4/MT-6.6 who may stand on a wall).

Caches: ``refresh_tot_nb`` fills the per-decision caches of the state (``O_TOT`` units per side
and territory, ``O_THR`` enemy units next door, ``O_LAT`` leaders, ``O_WKAT`` Witch-king, ``O_DEC``
flags); ``cross_fast_nb`` reads them. actions.check_caches_nb compares them with the full
computation in debug games. ``mumak_type_nb`` names the creature type MT-6.2 h exchanges.
"""
from __future__ import annotations


from lotr_sim.games.minas_tirith.config import (
    C_CITY, C_NC, C_NL, C_NU, C_T, MAXDEG, MAXT, MAXU, O_CKIND, O_CTOWER, O_EK, O_LORD, O_LREV, O_LSIDE,
    O_NB, O_NBN, O_NTS, O_TKIND, O_UCLS, O_UPTS, O_USIDE, O_UTOT, P_LEADERS_WIN, P_PTS_GATE, P_PTS_LEADER,
    P_PTS_WALL,
)
from lotr_sim.games.minas_tirith.layout import (
    EVIL, EV_END, GOOD, K_GROND, K_SIEGE, O_CAPT, O_CST, O_DEC, O_HOLD, O_LAT, O_LLOC, O_POOL, O_THR, O_TOT,
    O_UNITS, O_WKAT, R_CITY, R_DECK, R_LEADERS, S_BAD, S_BADTURN, S_DEBUG, S_GATE, S_LCAP, S_OVER, S_PE,
    S_PG, S_REASON, S_TURN, S_WINNER, W_DRAW, W_EVIL, W_GOOD,
)
from lotr_sim.games.minas_tirith.events import event_nb
from lotr_sim._numba.jit import njit
from lotr_sim.kernels.tracebuf import ev_end_nb, ev_put_reserved_nb


@njit(cache=True, _nrt=False)
def side_units_nb(cf, st, t, side):
    n = 0
    nts = cf[O_NTS + side]
    for j in range(nts):
        n += st[O_UNITS + t * MAXU + cf[O_LORD + side * MAXU + j]]
    return n


@njit(cache=True, _nrt=False)
def refresh_tot_nb(cf, st):
    """Fill the per-decision caches (valid until the next change of the board): units per side
    and territory (O_TOT), Evil units next to t (O_THR, Good's slots only: only Good's threat is
    read), leaders per side (O_LAT), Witch-king (O_WKAT), card flags (O_DEC)."""
    for side in range(2):
        nts = cf[O_NTS + side]
        for t in range(cf[C_T]):
            n = 0
            for j in range(nts):
                n += st[O_UNITS + t * MAXU + cf[O_LORD + side * MAXU + j]]
            st[O_TOT + side * MAXT + t] = n
    for t in range(cf[C_T]):
        n = 0
        for j in range(cf[O_NBN + t]):
            n += st[O_TOT + EVIL * MAXT + cf[O_NB + t * MAXDEG + j]]
        st[O_THR + GOOD * MAXT + t] = n
    for t in range(cf[C_T]):
        st[O_LAT + t] = 0
        st[O_LAT + MAXT + t] = 0
        st[O_WKAT + t] = 0
    for l in range(cf[C_NL]):
        t = st[O_LLOC + l]
        if t >= 0:
            st[O_LAT + cf[O_LSIDE + l] * MAXT + t] += 1
            if cf[O_LREV + l] == 1:
                st[O_WKAT + t] = 1
    # holds_nb(EVIL, K_SIEGE), holds_nb(EVIL, K_GROND) and the catapults on the board
    sg = 0
    gr = 0
    n0 = 0
    n1 = 0
    for c in range(cf[C_NC]):
        cs = st[O_CST + c]
        if cs == 2:
            k = cf[O_CKIND + c]
            if k == K_SIEGE or k == K_GROND:
                v = 1 + cf[O_CTOWER + c]
                if k == K_SIEGE:
                    if v > sg:
                        sg = v
                elif v > gr:
                    gr = v
        elif cs == 4:
            n0 += 1
        elif cs == 5:
            n1 += 1
    st[O_DEC] = sg
    st[O_DEC + 1] = gr
    st[O_DEC + 2] = n0
    st[O_DEC + 3] = n1


@njit(cache=True, _nrt=False)
def cross_fast_nb(cf, st, side, cls, a, b):
    """cross_ok_nb from the per-decision cache (valid after refresh_tot_nb, until the board
    changes): MT-6.4 walls, MT-6.5 gate, MT-6.6 climbing, MT-9.1-9.3 siege cards."""
    ek = cf[O_EK + a * MAXT + b]
    if ek < 0:
        return False
    if ek == 0:
        return True
    inf = cls == 0 or cls == 3
    if ek == 1:
        if not inf:
            return False
        if side == GOOD:
            return True
        return cf[O_TKIND + a] == 2
    if ek == 2:
        if side == GOOD or not inf:
            return False
        return st[O_DEC] > 0
    if side == GOOD:
        return True
    return st[S_GATE] == 1 or st[O_DEC + 1] > 0


@njit(cache=True, _nrt=False)
def leaders_at_nb(cf, st, t, side):
    n = 0
    for l in range(cf[C_NL]):
        if st[O_LLOC + l] == t and cf[O_LSIDE + l] == side:
            n += 1
    return n


@njit(cache=True, _nrt=False)
def leader_mask_at_nb(cf, st, t, side):
    m = 0
    for l in range(cf[C_NL]):
        if st[O_LLOC + l] == t and cf[O_LSIDE + l] == side:
            m |= 1 << l
    return m


@njit(cache=True, _nrt=False)
def wk_at_nb(cf, st, t):
    for l in range(cf[C_NL]):
        if st[O_LLOC + l] == t and cf[O_LREV + l] == 1:
            return 1
    return 0


@njit(cache=True, _nrt=False)
def holds_nb(cf, st, side, kind):
    """1 + tower flag if the side holds a card of ``kind`` (siege: 2 with a tower), else 0."""
    best = 0
    for c in range(cf[C_NC]):
        if st[O_CST + c] == 1 + side and cf[O_CKIND + c] == kind:
            v = 1 + cf[O_CTOWER + c]
            if v > best:
                best = v
    return best


@njit(cache=True, _nrt=False)
def cross_ok_nb(cf, st, side, cls, a, b):
    """May a unit of class ``cls`` (0 inf, 1 cav, 2 creature, 3 leader) of ``side`` cross a-b?
    MT-6.4 walls, MT-6.5 gate, MT-6.6 climbing, MT-9.1-9.3 siege cards."""
    ek = cf[O_EK + a * MAXT + b]
    if ek < 0:
        return False
    if ek == 0:
        return True
    inf = cls == 0 or cls == 3
    if ek == 1:  # wall edge: city-wall, wall-wall
        if not inf:
            return False
        if side == GOOD:
            return True
        return cf[O_TKIND + a] == 2  # Evil only once on a wall
    if ek == 2:  # climb: wall-outside
        if side == GOOD or not inf:
            return False
        return holds_nb(cf, st, EVIL, K_SIEGE) > 0
    # gate
    if side == GOOD:
        return True
    return st[S_GATE] == 1 or holds_nb(cf, st, EVIL, K_GROND) > 0


@njit(cache=True, _nrt=False)
def points_nb(cf, st):
    """MT-10.3 points of (good, evil)."""
    pg = 0
    pe = 0
    for u in range(cf[C_NU]):
        if cf[O_USIDE + u] == EVIL:
            pg += st[O_CAPT + u] * cf[O_UPTS + u]
        else:
            pe += st[O_CAPT + u] * cf[O_UPTS + u]
    pg += st[S_LCAP + GOOD] * cf[P_PTS_LEADER]
    pe += st[S_LCAP + EVIL] * cf[P_PTS_LEADER]
    for t in range(cf[C_T]):
        if cf[O_TKIND + t] == 2 and side_units_nb(cf, st, t, EVIL) > 0:
            pe += cf[P_PTS_WALL]
    if st[S_GATE] == 1:
        pe += cf[P_PTS_GATE]
    return pg, pe


@njit(cache=True, _nrt=False)
def end_game_nb(cf, st, tr, winner, reason):
    if st[S_OVER] == 1:
        return
    pg, pe = points_nb(cf, st)
    if reason == R_DECK:
        winner = W_GOOD if pg > pe else (W_EVIL if pe > pg else W_DRAW)
    st[S_OVER] = 1
    st[S_WINNER] = winner
    st[S_REASON] = reason
    st[S_PG] = pg
    st[S_PE] = pe
    h = event_nb(st, tr, EV_END)
    ev_put_reserved_nb(tr, h, winner)
    ev_put_reserved_nb(tr, h, reason)
    ev_put_reserved_nb(tr, h, pg)
    ev_put_reserved_nb(tr, h, pe)
    ev_end_nb(tr, h)


@njit(cache=True, _nrt=False)
def check_win_nb(cf, st, tr):
    """MT-10.1 (Good captures enough Evil leaders) and MT-10.2 (Evil in the city)."""
    if st[S_OVER] == 1:
        return True
    if st[S_LCAP + GOOD] >= cf[P_LEADERS_WIN]:
        end_game_nb(cf, st, tr, W_GOOD, R_LEADERS)
        return True
    if side_units_nb(cf, st, cf[C_CITY], EVIL) > 0:
        end_game_nb(cf, st, tr, W_EVIL, R_CITY)
        return True
    return False


@njit(cache=True, _nrt=False)
def invariant_ok_nb(cf, st):
    """MT-1.4: board + holder cards + pool + captured = totals, per unit type; every count >= 0."""
    for u in range(cf[C_NU]):
        n = st[O_POOL + u] + st[O_CAPT + u]
        if st[O_POOL + u] < 0 or st[O_CAPT + u] < 0:
            return False
        for t in range(cf[C_T]):
            v = st[O_UNITS + t * MAXU + u]
            if v < 0:
                return False
            n += v
        for c in range(cf[C_NC]):
            n += st[O_HOLD + c * MAXU + u]
        if n != cf[O_UTOT + u]:
            return False
    return True


@njit(cache=True, _nrt=False)
def may_stand_nb(cf, u, t):
    """MT-6.4 / MT-6.6: only infantry (archers and crossbowmen included) stand on a wall; no
    cavalry, no creature, by any route (move, retreat, bonus unit, muster, holder card)."""
    return cf[O_TKIND + t] != 2 or cf[O_UCLS + u] == 0


@njit(cache=True, _nrt=False)
def walls_ok_nb(cf, st):
    """True when no unit stands where MT-6.4 / MT-6.6 forbid it (checked in debug games)."""
    for t in range(cf[C_T]):
        if cf[O_TKIND + t] != 2:
            continue
        for u in range(cf[C_NU]):
            if st[O_UNITS + t * MAXU + u] > 0 and not may_stand_nb(cf, u, t):
                return False
    return True


@njit(cache=True, _nrt=False)
def invariant_nb(cf, st):
    """Both checks of a debug game hold: ``invariant_ok_nb`` (MT-1.4) and ``walls_ok_nb``
    (MT-6.4 / MT-6.6); the common kernels' invariant (games/adapter.py)."""
    return invariant_ok_nb(cf, st) and walls_ok_nb(cf, st)


@njit(cache=True, _nrt=False)
def _debug_check_nb(cf, st):
    if st[S_DEBUG] == 1 and st[S_BAD] == 0:
        if not invariant_ok_nb(cf, st):
            st[S_BAD] = 1
            st[S_BADTURN] = st[S_TURN]
        elif not walls_ok_nb(cf, st):
            st[S_BAD] = 2
            st[S_BADTURN] = st[S_TURN]


@njit(cache=True, _nrt=False)
def mumak_type_nb(cf):
    mu = -1
    for j in range(cf[O_NTS + EVIL]):
        u = cf[O_LORD + EVIL * MAXU + j]
        if cf[O_UCLS + u] == 2:
            mu = u
    return mu


# Each helper compiles once, whatever constants its callers pass (see lotr_sim/_numba/dispatch.py).
from lotr_sim._numba.dispatch import no_literal_dispatch  # noqa: E402

no_literal_dispatch(globals())
