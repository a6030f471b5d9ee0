"""Regions over sections (TS-4), kept incrementally with union-find: a placement links the
new tile's sections to each other (TS-1.3: same-terrain neighbours on one tile, never a
mountain - a river cuts it off) and across its sides to the placed neighbours (TS-4.1).
At each root: the region's size in sections, its open sides (sides facing an empty cell
that can still be filled inside a 6 x 8 map, TS-4.2: the map edge closes), its token and a
closed/site flag. Members form a circular list (``nxt``), spliced on union, so a region's
sections are listed without scanning the map. Also here: the map's bounds (TS-3.1), the
regions next to a region or to a tile's centre (TS-1.4, TS-6.1), and the breadth-first
distances between regions that the heuristics use.
"""
from __future__ import annotations


from lotr_sim._numba.dispatch import no_literal_dispatch
from lotr_sim._numba.jit import njit

from .layout import (
    AT_SHIRE, GC, MAP_C, MAP_R, NEUTRAL, O_FIRST, O_DIST, O_NXT, O_PAR, O_QUEUE, O_ROPEN, O_RSIZE,
    O_SEEN, O_STER, O_TMP, S_BOAT, S_CMAX, S_CMIN, S_HOB, S_RMAX, S_RMIN, S_STAMP, SC, SR, WATER,
)

SHIRE_CELL = SR * GC + SC


@njit(cache=True, _nrt=False)
def find_nb(st, v):
    """The root of section ``v``'s region (path halving)."""
    while st[O_PAR + v] != v:
        st[O_PAR + v] = st[O_PAR + st[O_PAR + v]]
        v = st[O_PAR + v]
    return v


@njit(cache=True, _nrt=False)
def union_nb(st, a, b):
    """Join the regions of sections ``a`` and ``b`` (sizes and open sides add; member lists
    are spliced). Returns the new root."""
    ra = find_nb(st, a)
    rb = find_nb(st, b)
    if ra == rb:
        return ra
    if st[O_RSIZE + ra] < st[O_RSIZE + rb]:
        ra, rb = rb, ra
    st[O_PAR + rb] = ra
    st[O_RSIZE + ra] += st[O_RSIZE + rb]
    st[O_ROPEN + ra] += st[O_ROPEN + rb]
    x = st[O_NXT + ra]
    st[O_NXT + ra] = st[O_NXT + rb]
    st[O_NXT + rb] = x
    return ra


@njit(cache=True, _nrt=False)
def fits_box_nb(st, cell):
    """True when the map's bounding box with ``cell`` stays within 6 rows x 8 columns (TS-3.1)."""
    r = cell // GC
    c = cell - r * GC
    r0 = min(st[S_RMIN], r)
    r1 = max(st[S_RMAX], r)
    c0 = min(st[S_CMIN], c)
    c1 = max(st[S_CMAX], c)
    return r1 - r0 + 1 <= MAP_R and c1 - c0 + 1 <= MAP_C


@njit(cache=True, _nrt=False)
def region_neighbours_nb(st, root, off, n0, cap):
    """Append to ``st[off + n0:]`` the roots of the regions sharing a side with region ``root``
    (TS-6.1: inside a tile across its diagonals, also past a river - a river keeps regions
    apart, not hobbits); returns the new count (at most ``cap``)."""
    n = n0
    s = root
    while True:
        cell = s // 4
        d = s - 4 * cell
        for k in (1, 3):
            t = 4 * cell + (d + k) % 4
            if 0 <= st[O_STER + t] < NEUTRAL:
                r = find_nb(st, t)
                if r != root:
                    dup = False
                    for j in range(n0, n):
                        if st[off + j] == r:
                            dup = True
                            break
                    if not dup and n < cap:
                        st[off + n] = r
                        n += 1
        s = st[O_NXT + s]
        if s == root:
            break
    return n


@njit(cache=True, _nrt=False)
def centre_regions_nb(st, cell, off, n0):
    """Append the distinct roots of the four sections of ``cell`` (TS-1.4: the Shire and
    Mount Doom touch the regions of their tile's sections)."""
    n = n0
    for d in range(4):
        t = 4 * cell + d
        if 0 <= st[O_STER + t] < NEUTRAL:
            r = find_nb(st, t)
            dup = False
            for j in range(n0, n):
                if st[off + j] == r:
                    dup = True
                    break
            if not dup:
                st[off + n] = r
                n += 1
    return n


@njit(cache=True, _nrt=False)
def touches_cell_nb(st, root, cell):
    """True when region ``root`` has a section on ``cell`` (TS-5.4)."""
    if cell < 0:
        return False
    for d in range(4):
        t = 4 * cell + d
        if 0 <= st[O_STER + t] < NEUTRAL and find_nb(st, t) == root:
            return True
    return False


@njit(cache=True, _nrt=False)
def may_enter_nb(st, seat, root):
    """TS-6.2 (water only with a boat) and TS-6.3 (one hobbit per region)."""
    if st[O_STER + root] == WATER and st[S_BOAT + seat] == 0:
        return False
    o = st[S_HOB + 1 - seat]
    if o >= 0 and find_nb(st, o) == root:
        return False
    return True


@njit(cache=True, _nrt=False)
def bfs_nb(cf, st, seat):
    """Breadth-first distances (in moves) from ``seat``'s hobbit to every region it may
    enter; ``dist``/``first`` are read at roots whose ``seen`` equals the returned stamp.
    ``first`` is the root of the first step on a shortest path. Returns (stamp, count)."""
    st[S_STAMP] += 1
    stamp = st[S_STAMP]
    q1 = 0
    h = st[S_HOB + seat]
    if h == AT_SHIRE:
        n = centre_regions_nb(st, SHIRE_CELL, O_TMP, 0)
        for j in range(n):
            r = st[O_TMP + j]
            if may_enter_nb(st, seat, r):
                st[O_SEEN + r] = stamp
                st[O_DIST + r] = 1
                st[O_FIRST + r] = r
                st[O_QUEUE + q1] = r
                q1 += 1
    elif h >= 0:
        r = find_nb(st, h)
        st[O_SEEN + r] = stamp
        st[O_DIST + r] = 0
        st[O_FIRST + r] = -1
        st[O_QUEUE + q1] = r
        q1 += 1
    return stamp, spread_nb(st, seat, stamp, q1, O_DIST, True)


@njit(cache=True, _nrt=False)
def spread_nb(st, seat, stamp, q1, dist, first):
    """The breadth-first search from the ``q1`` regions already queued at ``O_QUEUE`` (marked
    ``seen`` with ``stamp``, their moves at ``st[dist + root]``): every region ``seat`` may
    enter gets its moves at ``st[dist + root]`` (and, with ``first``, the root of the first
    step at ``O_FIRST``). Returns the regions queued in all."""
    q0 = 0
    while q0 < q1:
        r = st[O_QUEUE + q0]
        q0 += 1
        n = region_neighbours_nb(st, r, O_TMP, 0, 128)
        for j in range(n):
            x = st[O_TMP + j]
            if st[O_SEEN + x] == stamp or not may_enter_nb(st, seat, x):
                continue
            st[O_SEEN + x] = stamp
            st[dist + x] = st[dist + r] + 1
            if first:
                st[O_FIRST + x] = x if st[O_FIRST + r] < 0 else st[O_FIRST + r]
            st[O_QUEUE + q1] = x
            q1 += 1
    return q1


no_literal_dispatch(globals())
