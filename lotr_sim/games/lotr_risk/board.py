"""LOTR Risk board kernels: queries (borders, regions, Leaders), battalions on and off the board,
the territory and adventure decks (LR-4.3, LR-8), reinforcements (LR-4.1/4.2), the Ring's push
(LR-10.4; its move is fellowship.kernel), points and the winner (LR-11), the trace writer and the invariant.

Every kernel is ``@njit(cache=True)``, never allocates, and reads the compiled config ``cf``
(config.py) and the state ``st`` (layout.py); chance only from the stream ``s`` in the state.
"""
from __future__ import annotations

import numpy as np

from lotr_sim._numba.dispatch import no_literal_dispatch
from lotr_sim._numba.jit import njit
from lotr_sim.kernels.piles import shuffle_range_nb
from lotr_sim.kernels.rng import d6_nb
from lotr_sim.kernels.tracebuf import ev_begin_nb, ev_end_nb, ev_put_nb
from lotr_sim.games.lotr_risk.config import (
    C_NADV, C_NP, C_NPATH, C_NR, C_NT, C_NTC, MAXDEG, NEUTRAL, O_ADJ, O_ADJN, O_BLK, O_BLKN, O_CSYM,
    O_PATH, O_RBONUS, O_REG, O_RSIZE, O_SSIDE, O_STRONG, P_MINR, P_PSTR, P_PTER, P_SET, P_TPB,
)
from lotr_sim.games.lotr_risk.layout import (
    AHMAX, EV_LEADER, EV_PLACE, EV_RING, EV_SNAP, EV_TDECK, HMAX, O_ACOUNT, O_ADECK, O_ADISC, O_AHAND, O_AHN, O_ALIVE,
    O_ASCORE, O_HAND, O_HN, O_LEAD, O_OWNER, O_PTS, O_TDECK, O_TDISC, O_TROOPS, O_UPR, S_ADD, S_ADDED, S_ADN,
    PH_MOVEIN, S_CUR, S_DST, S_PHASE, S_REMOVED, S_RING, S_SETUP, S_TDD, S_TDN, S_TURN,
)


# ---- trace --------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def ev_nb(tr, code, n, v0, v1, v2, v3, v4, v5, v6, v7):
    """One trace event with its first ``n`` of eight values (no-op without a trace)."""
    h = ev_begin_nb(tr, code)
    if h < 0:
        return
    if n > 0:
        ev_put_nb(tr, h, v0)
    if n > 1:
        ev_put_nb(tr, h, v1)
    if n > 2:
        ev_put_nb(tr, h, v2)
    if n > 3:
        ev_put_nb(tr, h, v3)
    if n > 4:
        ev_put_nb(tr, h, v4)
    if n > 5:
        ev_put_nb(tr, h, v5)
    if n > 6:
        ev_put_nb(tr, h, v6)
    if n > 7:
        ev_put_nb(tr, h, v7)
    ev_end_nb(tr, h)


@njit(cache=True, _nrt=False)
def snapshot_nb(cf, st, tr):
    """Turn-start snapshot: turn, seat, Ring, owners, battalions, Leaders (replay_check), then
    each player's territory hand and adventure hand (count, then HMAX / AHMAX card slots)."""
    if tr.shape[0] == 0:
        return
    h = ev_begin_nb(tr, EV_SNAP)
    if h < 0:
        return
    nt = cf[C_NT]
    ev_put_nb(tr, h, st[S_TURN])
    ev_put_nb(tr, h, st[S_CUR])
    ev_put_nb(tr, h, st[S_RING])
    for t in range(nt):
        ev_put_nb(tr, h, st[O_OWNER + t])
    for t in range(nt):
        ev_put_nb(tr, h, st[O_TROOPS + t])
    for k in range(8):
        ev_put_nb(tr, h, st[O_LEAD + k])
    for p in range(4):
        ev_put_nb(tr, h, st[O_HN + p])
        for i in range(HMAX):
            ev_put_nb(tr, h, st[O_HAND + p * HMAX + i] if i < st[O_HN + p] else -1)
        ev_put_nb(tr, h, st[O_AHN + p])
        for i in range(AHMAX):
            ev_put_nb(tr, h, st[O_AHAND + p * AHMAX + i] if i < st[O_AHN + p] else -1)
    ev_end_nb(tr, h)


# ---- queries --------------------------------------------------------------------------------
@njit(cache=True, inline="always")
def adj_nb(cf, t, k):
    return cf[O_ADJ + t * MAXDEG + k]


@njit(cache=True, inline="always")
def blk_nb(cf, t, k):
    return cf[O_BLK + t * MAXDEG + k]


@njit(cache=True, _nrt=False)
def side_of_nb(cf, seat):
    """0 Good, 1 Evil, 2 the neutral army."""
    if seat >= NEUTRAL or seat < 0:
        return 2
    return cf[O_SSIDE + seat]


@njit(cache=True, _nrt=False)
def count_terr_nb(cf, st, seat):
    n = 0
    for t in range(cf[C_NT]):
        if st[O_OWNER + t] == seat:
            n += 1
    return n


@njit(cache=True, _nrt=False)
def region_held_nb(cf, st, seat, r):
    """The player holds every territory of region ``r`` (LR-4.2, LR-11.2)."""
    for t in range(cf[C_NT]):
        if cf[O_REG + t] == r and st[O_OWNER + t] != seat:
            return False
    return cf[O_RSIZE + r] > 0


@njit(cache=True, _nrt=False)
def region_missing_nb(cf, st, seat, r):
    """Territories of region ``r`` the player does not hold."""
    n = 0
    for t in range(cf[C_NT]):
        if cf[O_REG + t] == r and st[O_OWNER + t] != seat:
            n += 1
    return n


@njit(cache=True, _nrt=False)
def reinforcements_nb(cf, st, seat):
    """LR-4.1 territories / 3 (down), at least 3; LR-4.2 plus whole regions' bonuses."""
    n = count_terr_nb(cf, st, seat) // cf[P_TPB]
    if n < cf[P_MINR]:
        n = cf[P_MINR]
    for r in range(cf[C_NR]):
        if region_held_nb(cf, st, seat, r):
            n += cf[O_RBONUS + r]
    return n


@njit(cache=True, _nrt=False)
def enemy_adj_nb(cf, st, t):
    """Enemy (any other owner) battalions and territories next to ``t``."""
    me = st[O_OWNER + t]
    tot = 0
    cnt = 0
    for k in range(cf[O_ADJN + t]):
        u = adj_nb(cf, t, k)
        if st[O_OWNER + u] != me:
            tot += st[O_TROOPS + u]
            cnt += 1
    return tot, cnt


@njit(cache=True, _nrt=False)
def leader_slot_at_nb(st, seat, t):
    """The player's Leader slot standing on ``t``, or -1."""
    if seat >= NEUTRAL:
        return -1
    for k in range(2):
        if st[O_LEAD + 2 * seat + k] == t:
            return 2 * seat + k
    return -1


@njit(cache=True, _nrt=False)
def n_leaders_nb(st, seat):
    n = 0
    for k in range(2):
        if st[O_LEAD + 2 * seat + k] >= 0:
            n += 1
    return n


@njit(cache=True, _nrt=False)
def leader_ok_at_nb(st, seat, t):
    """LR-7.2: a Leader may stand on ``t`` (own territory, no other own Leader)."""
    return st[O_OWNER + t] == seat and leader_slot_at_nb(st, seat, t) < 0


@njit(cache=True, _nrt=False)
def is_blocked_pair_nb(cf, a, b):
    for k in range(cf[O_BLKN + a]):
        if blk_nb(cf, a, k) == b:
            return True
    return False


# ---- battalions and Leaders -----------------------------------------------------------------
@njit(cache=True, _nrt=False)
def add_troops_nb(st, tr, t, n, seat, why):
    """Put ``n`` battalions of ``seat`` on ``t`` (the owner becomes ``seat``); traced."""
    st[O_OWNER + t] = seat
    st[O_TROOPS + t] += n
    st[S_ADDED] += n
    ev_nb(tr, EV_PLACE, 4, seat, t, n, why, 0, 0, 0, 0)


@njit(cache=True, _nrt=False)
def take_troops_nb(st, tr, t, n, why):
    """Take up to ``n`` battalions off ``t``, at least one stays (events, LR-9)."""
    k = n
    if k > st[O_TROOPS + t] - 1:
        k = st[O_TROOPS + t] - 1
    if k <= 0:
        return 0
    st[O_TROOPS + t] -= k
    st[S_REMOVED] += k
    ev_nb(tr, EV_PLACE, 4, st[O_OWNER + t], t, -k, why, 0, 0, 0, 0)
    return k


@njit(cache=True, _nrt=False)
def put_leader_nb(st, tr, slot, t):
    """Leader ``slot`` goes from where it is to ``t`` (-1: off the board, LR-5.7); traced."""
    ev_nb(tr, EV_LEADER, 4, slot // 2, slot, st[O_LEAD + slot], t, 0, 0, 0, 0)
    st[O_LEAD + slot] = t


# ---- decks ------------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def tdeck_event_nb(st, tr, why):
    """Trace the territory deck's order, top card first (EV_TDECK): after the set-up's shuffle
    (``why`` 0, LR-2.5) or a reshuffle of the discards (1, LR-4.3)."""
    if tr.shape[0] == 0:
        return
    h = ev_begin_nb(tr, EV_TDECK)
    if h < 0:
        return
    n = st[S_TDN]
    ev_put_nb(tr, h, why)
    ev_put_nb(tr, h, n)
    for i in range(n - 1, -1, -1):
        ev_put_nb(tr, h, st[O_TDECK + i])
    ev_end_nb(tr, h)


@njit(cache=True, _nrt=False)
def tdraw_nb(st, s, tr):
    """The top territory card; an empty deck is first refilled from the discards and shuffled
    (LR-4.3; traced with its new order). -1: none left."""
    if st[S_TDN] == 0:
        nd = st[S_TDD]
        if nd == 0:
            return -1
        for i in range(nd):
            st[O_TDECK + i] = st[O_TDISC + i]
        st[S_TDD] = 0
        st[S_TDN] = nd
        shuffle_range_nb(s, st, O_TDECK, nd)
        tdeck_event_nb(st, tr, 1)
    st[S_TDN] -= 1
    return st[O_TDECK + st[S_TDN]]


@njit(cache=True, _nrt=False)
def tdiscard_nb(st, c):
    st[O_TDISC + st[S_TDD]] = c
    st[S_TDD] += 1


@njit(cache=True, _nrt=False)
def adraw_nb(st, s):
    """The top adventure card; -1 when the deck is empty: a draw from an empty deck draws
    nothing (LR-9.2 [R]: the discards come back only between turns, ``arefill_nb``)."""
    if st[S_ADN] == 0:
        return -1
    st[S_ADN] -= 1
    return st[O_ADECK + st[S_ADN]]


@njit(cache=True, _nrt=False)
def arefill_nb(st, s):
    """Between turns (LR-8.2/9.2 [R]): an empty adventure deck is refilled from its discards,
    shuffled."""
    if st[S_ADN] == 0 and st[S_ADD] > 0:
        nd = st[S_ADD]
        for i in range(nd):
            st[O_ADECK + i] = st[O_ADISC + i]
        st[S_ADD] = 0
        st[S_ADN] = nd
        shuffle_range_nb(s, st, O_ADECK, nd)


@njit(cache=True, _nrt=False)
def adiscard_nb(st, c):
    st[O_ADISC + st[S_ADD]] = c
    st[S_ADD] += 1


@njit(cache=True, _nrt=False)
def ahand_remove_nb(st, seat, i):
    """Remove adventure card ``i`` of the hand (order kept); returns the card."""
    b = O_AHAND + seat * AHMAX
    c = st[b + i]
    n = st[O_AHN + seat]
    for j in range(i, n - 1):
        st[b + j] = st[b + j + 1]
    st[O_AHN + seat] = n - 1
    return c


@njit(cache=True, _nrt=False)
def hand_remove_nb(st, seat, i):
    b = O_HAND + seat * HMAX
    c = st[b + i]
    n = st[O_HN + seat]
    for j in range(i, n - 1):
        st[b + j] = st[b + j + 1]
    st[O_HN + seat] = n - 1
    return c


@njit(cache=True, _nrt=False)
def set_value_nb(cf, a, b, c):
    """LR-4.3: 3 of a symbol 4/6/8, one of each 10, a joker any symbol; -1 no set."""
    sa, sb, sc = cf[O_CSYM + a], cf[O_CSYM + b], cf[O_CSYM + c]
    best = -1
    for x in range(3):
        # three of symbol x
        if (sa == x or sa == 3) and (sb == x or sb == 3) and (sc == x or sc == 3):
            if cf[P_SET + x] > best:
                best = cf[P_SET + x]
    # one of each: the non-jokers are all different
    if not ((sa == sb and sa != 3) or (sa == sc and sa != 3) or (sb == sc and sb != 3)):
        if cf[P_SET + 3] > best:
            best = cf[P_SET + 3]
    return best


# ---- the Fellowship (LR-10) ---------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def ring_advance_nb(cf, st, tr):
    """The Ring moves one territory on whatever the path (Hunt for the Ringbearer, LR-10.4);
    returns 1 when it leaves the last territory."""
    r = st[S_RING]
    ev_nb(tr, EV_RING, 4, r, r + 1, 0, 0, 0, 0, 0, 0)
    if r + 1 >= cf[C_NPATH]:
        return 1
    st[S_RING] = r + 1
    return 0


@njit(cache=True, _nrt=False)
def ring_territory_nb(cf, st):
    return cf[O_PATH + st[S_RING]]


# ---- points and the winner (LR-11) ---------------------------------------------------------------
@njit(cache=True, _nrt=False)
def points_nb(cf, st):
    """LR-11.2 per player into O_PTS: territories, region bonuses, strongholds, adventure, total."""
    nt = cf[C_NT]
    for p in range(cf[C_NP]):
        ter = 0
        strn = 0
        for t in range(nt):
            if st[O_OWNER + t] == p:
                ter += 1
                strn += cf[O_STRONG + t]
        reg = 0
        for r in range(cf[C_NR]):
            if region_held_nb(cf, st, p, r):
                reg += cf[O_RBONUS + r]
        b = O_PTS + 5 * p
        st[b] = ter * cf[P_PTER]
        st[b + 1] = reg
        st[b + 2] = strn * cf[P_PSTR]
        st[b + 3] = st[O_ASCORE + p]
        st[b + 4] = st[b] + st[b + 1] + st[b + 2] + st[b + 3]


@njit(cache=True, _nrt=False)
def _better_nb(cf, st, p, q):
    """LR-11.2/11.3: player p ahead of q on points, then territories, strongholds, adventure."""
    a = O_PTS + 5 * p
    b = O_PTS + 5 * q
    for k in (4, 0, 2, 3):
        if st[a + k] != st[b + k]:
            return st[a + k] > st[b + k]
    return False


@njit(cache=True, _nrt=False)
def winner_nb(cf, st, s):
    """LR-11.2/11.3: most points; ties by territories, strongholds, adventure points, then a
    roll of the three red dice (highest sum; rolled again while tied)."""
    np_ = cf[C_NP]
    best = -1
    for p in range(np_):
        if best < 0:
            best = p
            continue
        if _better_nb(cf, st, p, best):
            best = p
    # players tied with best on every key roll dice
    nt = 0
    tied = 0
    b = O_PTS + 5 * best
    for p in range(np_):
        q = O_PTS + 5 * p
        if st[q + 4] == st[b + 4] and st[q] == st[b] and st[q + 2] == st[b + 2] and st[q + 3] == st[b + 3]:
            tied |= 1 << p
            nt += 1
    while nt > 1:
        top = -1
        who = 0
        cnt = 0
        for p in range(np_):
            if tied & (1 << p):
                v = d6_nb(s) + d6_nb(s) + d6_nb(s)
                if v > top:
                    top = v
                    who = 1 << p
                    cnt = 1
                elif v == top:
                    who |= 1 << p
                    cnt += 1
        tied = who
        nt = cnt
    for p in range(np_):
        if tied & (1 << p):
            return p
    return best


# ---- the invariant ----------------------------------------------------------------------------------
@njit(cache=True, _nrt=False)
def invariant_ok_nb(cf, st):
    """Each territory held by one army with >= 1 battalion; battalions on the board = put on -
    taken off; territory and adventure cards conserved; Leaders of one army on own, distinct
    territories (LR-7.2)."""
    nt = cf[C_NT]
    tot = 0
    for t in range(nt):
        o = st[O_OWNER + t]
        if o < 0 and st[S_SETUP] == 0 and st[O_TROOPS + t] == 0:
            continue        # LR-2.2: not claimed yet
        if st[O_TROOPS + t] == 0 and st[S_PHASE] == PH_MOVEIN and t == st[S_DST]:
            continue        # LR-5.6: conquered, the attacker is choosing how many move in
        if o < 0 or o > NEUTRAL or st[O_TROOPS + t] < 1:
            return False
        tot += st[O_TROOPS + t]
    if tot != st[S_ADDED] - st[S_REMOVED]:
        return False
    cards = st[S_TDN] + st[S_TDD]
    adv = st[S_ADN] + st[S_ADD]
    for p in range(cf[C_NP]):
        cards += st[O_HN + p] + (1 if st[O_UPR + p] >= 0 else 0)
        adv += st[O_AHN + p] + st[O_ACOUNT + p]
        for k in range(2):
            t = st[O_LEAD + 2 * p + k]
            if t >= 0:
                if st[O_OWNER + t] != p:
                    return False
                if k == 1 and st[O_LEAD + 2 * p] == t:
                    return False
        if st[O_ALIVE + p] == 0 and (st[O_LEAD + 2 * p] >= 0 or st[O_LEAD + 2 * p + 1] >= 0):
            return False
    if cards != cf[C_NTC]:
        return False
    return adv == cf[C_NADV]


no_literal_dispatch(globals())
_ = np  # numpy is used by numba-typed callers
