"""Placing tiles (TS-3) and what a placement does to the regions (TS-4).

* legal cells (TS-3.3): phase 1 the Shire's four neighbours (TS-9.1 ``full``: the arms of
  the central cross only, out to the 6 x 8 bounds); phase 2 an arm's extension or any empty
  cell touching two or more placed tiles; never outside the 6 x 8 bounding box (TS-3.1);
* a tile fits a cell in a rotation when every side it shares with a placed tile shows the
  same terrain (TS-3.2) or touches a neutral tile (TS-3.4), and no group of its linked
  sections would join the regions of both hobbits (TS-3.5), also through the links a
  neutral section it faces would make; a neutral tile goes only on a cell where no group of
  its linked sections (also a chain round the tile) would join them either. Where every
  legal cell would, the rulebook is silent ("Все соединяющиеся одинаковые типы местности
  составляют регион" makes the link; TS-3.5 bars it): the reading is the parameter
  ``neutral_join`` (TS-3.5 [R]): ``skip_link`` (default) lays it on any legal cell and does
  not make the link that would join the regions (``_link_neutral_nb``), ``no_tile`` lays no
  tile that turn (play.py);
* ``place_nb`` lays a tile (or a neutral one, TS-3.4: its sections take the terrain of the
  section across their side, now or when that cell is filled, and two side-sharing sections
  of the neutral tile that took the same terrain link like any others - never mountains,
  which keep TS-1.3's regions of exactly 2; a neutral section facing a neutral section
  takes no terrain, so it keeps no side-sharing section's region open), updates
  the regions incrementally (regions.py), closes the sides a full-height or full-width map
  shuts (TS-4.2: the map edge closes) and puts a token on every region of exactly two
  sections that this placement closes (TS-4.3, the placer draws it; an empty stack leaves
  the site empty).
"""
from __future__ import annotations


from lotr_sim._numba.dispatch import no_literal_dispatch
from lotr_sim._numba.jit import njit
from lotr_sim.kernels.tracebuf import ev_begin_nb, ev_end_nb, ev_put_nb

from .layout import (
    C_P1FULL, EV_CLOSE, EV_PLACE, EV_TOKEN, GC, GR, MAP_C, MAP_R, MAXTOK, MOUNTAIN, NEUTRAL, O_CNEU, O_CROT,
    O_CTILE, O_NBR, O_NXT, O_PAR, O_PAT, O_ROPEN, O_RSITE, O_RSIZE, O_RTOK, O_STER, O_TMP, O_TSTK, O_TWHERE,
    PH1, S_CMAX, S_CMIN, S_DOOM, S_HOB, S_LAST, S_NNEUTRAL, S_NPLACED, S_NTOKMAP, S_PHASE, S_RMAX, S_RMIN,
    S_SITES, S_TN, S_TPOS, T_MAP,
)
from .regions import SHIRE_CELL, find_nb, fits_box_nb, union_nb

CAND = O_TMP + 160      # candidate cells scratch (<= 64)
ROOTS = O_TMP + 128     # roots touched by a placement (<= 32)
GRP = O_TMP + 240       # linked groups of a tile's sections (4)


@njit(cache=True, _nrt=False)
def ter_nb(cf, tile, rot, d):
    """Terrain of the section facing direction ``d`` of ``tile`` turned ``rot`` quarter
    turns clockwise (TS-3.2)."""
    return cf[O_PAT + 4 * tile + (d - rot + 4) % 4]


@njit(cache=True, _nrt=False)
def legal_cells_nb(cf, st):
    """The legal cells of TS-3.3 (written at ``CAND``); returns their count."""
    n = 0
    full = cf[C_P1FULL] == 1
    p1 = st[S_PHASE] == PH1
    for d in range(4):          # (a) the arms of the central cross
        c = SHIRE_CELL
        while c >= 0 and st[O_CTILE + c] >= 0:
            c = cf[O_NBR + 4 * c + d]
            if p1 and not full:
                break
        if c >= 0 and st[O_CTILE + c] < 0 and fits_box_nb(st, c):
            st[CAND + n] = c
            n += 1
    if p1:
        return n
    for r in range(st[S_RMIN], st[S_RMAX] + 1):      # (b) two or more placed neighbours
        for q in range(st[S_CMIN], st[S_CMAX] + 1):
            c = r * GC + q
            if st[O_CTILE + c] >= 0:
                continue
            k = 0
            for d in range(4):
                nc = cf[O_NBR + 4 * c + d]
                if nc >= 0 and st[O_CTILE + nc] >= 0:
                    k += 1
            if k >= 2:
                dup = False
                for j in range(n):
                    if st[CAND + j] == c:
                        dup = True
                if not dup:
                    st[CAND + n] = c
                    n += 1
    return n


@njit(cache=True, _nrt=False)
def groups_nb(cf, st, tile, rot):
    """Label the tile's sections by linked group (TS-1.3) at ``GRP``: equal labels are one
    group; a label equal to its own index starts a group."""
    for d in range(4):
        st[GRP + d] = d
    for _ in range(3):
        for d in range(4):
            e = (d + 1) % 4
            t = ter_nb(cf, tile, rot, d)
            if t != MOUNTAIN and t == ter_nb(cf, tile, rot, e):
                m = min(st[GRP + d], st[GRP + e])
                st[GRP + d] = m
                st[GRP + e] = m


@njit(cache=True, _nrt=False)
def _hobbit_roots_nb(st):
    """The roots of the two hobbits' regions; (-1, -1) while either stands off the map (the
    Shire, Mount Doom), when no placement can join them (TS-3.5)."""
    h0 = st[S_HOB]
    h1 = st[S_HOB + 1]
    if h0 < 0 or h1 < 0:
        return -1, -1
    return find_nb(st, h0), find_nb(st, h1)


@njit(cache=True, _nrt=False)
def _joins_nb(ra, rb, r0, r1):
    """Linking regions ``ra`` and ``rb`` would join the hobbits' regions ``r0``, ``r1``
    (``_hobbit_roots_nb``; -1: neither can be joined), which TS-3.5 forbids."""
    return r0 >= 0 and ((ra == r0 and rb == r1) or (ra == r1 and rb == r0))


@njit(cache=True, _nrt=False)
def fits_nb(cf, st, cell, tile, rot):
    """TS-3.2 terrain matching and the TS-3.5 ban for ``tile`` at ``cell`` turned ``rot``."""
    for d in range(4):
        nc = cf[O_NBR + 4 * cell + d]
        if nc < 0 or st[O_CTILE + nc] < 0 or st[O_CNEU + nc] == 1:
            continue
        if st[O_STER + 4 * nc + (d + 2) % 4] != ter_nb(cf, tile, rot, d):
            return False
    r0, r1 = _hobbit_roots_nb(st)
    if r0 < 0:
        return True
    groups_nb(cf, st, tile, rot)
    for g in range(4):
        if st[GRP + g] != g:
            continue
        has0 = False
        has1 = False
        for e in range(4):
            if st[GRP + e] != g:
                continue
            nc = cf[O_NBR + 4 * cell + e]
            if nc < 0 or st[O_CTILE + nc] < 0:
                continue
            ns = 4 * nc + (e + 2) % 4
            if st[O_CNEU + nc] == 0 or st[O_STER + ns] < NEUTRAL:
                if st[O_STER + ns] < NEUTRAL:
                    r = find_nb(st, ns)
                    has0 = has0 or r == r0
                    has1 = has1 or r == r1
                continue
            t = ter_nb(cf, tile, rot, e)       # TS-3.4: the neutral section takes t and links
            if t == MOUNTAIN:
                continue
            for k in (1, 3):
                u = 4 * nc + ((e + 2) % 4 + k) % 4
                if st[O_STER + u] == t:
                    r = find_nb(st, u)
                    has0 = has0 or r == r0
                    has1 = has1 or r == r1
        if has0 and has1:
            return False
    return True


@njit(cache=True, _nrt=False)
def neutral_fits_nb(cf, st, cell):
    """TS-3.5 for a neutral tile at ``cell`` (TS-3.4): no group of its sections linked by
    taking the same (non-mountain) terrain - side-sharing sections, in a chain round the
    tile - touches the regions of both hobbits."""
    r0, r1 = _hobbit_roots_nb(st)
    if r0 < 0:
        return True
    for d in range(4):
        st[GRP + d] = d
    for _ in range(3):
        for d in range(4):
            e = (d + 1) % 4
            a = _took_nb(cf, st, cell, d)
            if a >= 0 and a != MOUNTAIN and a == _took_nb(cf, st, cell, e):
                m = min(st[GRP + d], st[GRP + e])
                st[GRP + d] = m
                st[GRP + e] = m
    for g in range(4):
        if st[GRP + g] != g:
            continue
        has0 = False
        has1 = False
        for d in range(4):
            if st[GRP + d] != g or _took_nb(cf, st, cell, d) < 0:
                continue
            r = find_nb(st, 4 * cf[O_NBR + 4 * cell + d] + (d + 2) % 4)
            has0 = has0 or r == r0
            has1 = has1 or r == r1
        if has0 and has1:
            return False
    return True


@njit(cache=True, _nrt=False)
def _took_nb(cf, st, cell, d):
    """The terrain section ``d`` of a neutral tile at ``cell`` takes at once (from a placed,
    not neutral neighbour); -1 if none yet."""
    nc = cf[O_NBR + 4 * cell + d]
    if nc < 0 or st[O_CTILE + nc] < 0 or st[O_CNEU + nc] == 1:
        return -1
    return st[O_STER + 4 * nc + (d + 2) % 4]


@njit(cache=True, _nrt=False)
def site_gain_nb(cf, st, cell, tile, rot):
    """Token sites (closed regions of exactly 2 sections, TS-4.3) the placement would make,
    counted per colour, packed 8 bits per colour (water in bits 0-7 ...)."""
    out = 0
    groups_nb(cf, st, tile, rot)
    for g in range(4):
        if st[GRP + g] != g:
            continue
        t = ter_nb(cf, tile, rot, g)
        size = 0
        opn = 0
        nroots = 0
        for e in range(4):
            if st[GRP + e] != g:
                continue
            size += 1
            nc = cf[O_NBR + 4 * cell + e]
            if nc < 0:
                continue
            if st[O_CTILE + nc] < 0:
                if fits_with_nb(st, cell, nc):
                    opn += 1
                continue
            if st[O_CNEU + nc] == 1 and st[O_STER + 4 * nc + (e + 2) % 4] == NEUTRAL:
                size += 1                      # TS-3.4: it takes t, and links on its tile
                if t != MOUNTAIN:
                    for k in (1, 3):
                        u = 4 * nc + ((e + 2) % 4 + k) % 4
                        if st[O_STER + u] != t:
                            continue
                        r = find_nb(st, u)
                        dup = False
                        for j in range(nroots):
                            if st[ROOTS + j] == r:
                                dup = True
                        if dup:
                            continue
                        st[ROOTS + nroots] = r
                        nroots += 1
                        size += st[O_RSIZE + r]
                        opn += st[O_ROPEN + r]
                continue
            r = find_nb(st, 4 * nc + (e + 2) % 4)
            dup = False
            for j in range(nroots):
                if st[ROOTS + j] == r:
                    dup = True
            if dup:
                opn -= 1
                continue
            st[ROOTS + nroots] = r
            nroots += 1
            size += st[O_RSIZE + r]
            opn += st[O_ROPEN + r] - 1
        if opn == 0 and size == 2:
            out += 1 << (8 * t)
    return out


@njit(cache=True, _nrt=False)
def fits_with_nb(st, cell, nc):
    """Would empty cell ``nc`` still fit the 6 x 8 box once ``cell`` is placed too?"""
    r = cell // GC
    c = cell - r * GC
    rn = nc // GC
    cn = nc - rn * GC
    r0 = min(st[S_RMIN], r, rn)
    r1 = max(st[S_RMAX], r, rn)
    c0 = min(st[S_CMIN], c, cn)
    c1 = max(st[S_CMAX], c, cn)
    return r1 - r0 + 1 <= MAP_R and c1 - c0 + 1 <= MAP_C


@njit(cache=True, _nrt=False)
def _new_section_nb(st, sec, ter):
    st[O_STER + sec] = ter
    st[O_PAR + sec] = sec
    st[O_NXT + sec] = sec
    st[O_RSIZE + sec] = 1
    st[O_ROPEN + sec] = 0
    st[O_RTOK + sec] = -1
    st[O_RSITE + sec] = 0


@njit(cache=True, _nrt=False)
def _add_root_nb(st, n, r):
    for j in range(n):
        if st[ROOTS + j] == r:
            return n
    st[ROOTS + n] = r
    return n + 1


@njit(cache=True, _nrt=False)
def _pend_nb(cf, st, cell, d):
    """TS-3.4 / TS-4.2: section ``d`` of the neutral tile at ``cell`` has just taken a terrain
    (not mountain); each side-sharing section of its tile that is still neutral and faces an
    empty cell that can be filled may yet take the same terrain and link, so it counts as an
    open side of this region (the region is not closed while it may still grow)."""
    t = st[O_STER + 4 * cell + d]
    if t >= NEUTRAL or t == MOUNTAIN:
        return
    for k in (1, 3):
        e = (d + k) % 4
        if st[O_STER + 4 * cell + e] != NEUTRAL:
            continue
        nc = cf[O_NBR + 4 * cell + e]
        if nc >= 0 and st[O_CTILE + nc] < 0 and fits_box_nb(st, nc):
            st[O_ROPEN + find_nb(st, 4 * cell + d)] += 1


@njit(cache=True, _nrt=False)
def _unpend_nb(st, cell, e, nr):
    """Neutral section ``e`` of the tile at ``cell`` takes a terrain now, or can no longer
    take one (its cell beyond became map edge, or a neutral tile whose section there is
    neutral too): the open sides ``_pend_nb`` counted for it in its tile's side-sharing
    regions are closed. Returns the new count of touched roots."""
    for k in (1, 3):
        u = 4 * cell + (e + k) % 4
        t = st[O_STER + u]
        if 0 <= t < NEUTRAL and t != MOUNTAIN:
            x = find_nb(st, u)
            st[O_ROPEN + x] -= 1
            nr = _add_root_nb(st, nr, x)
    return nr


@njit(cache=True, _nrt=False)
def _link_neutral_nb(st, cell, d):
    """TS-3.4: section ``d`` of the neutral tile at ``cell`` links to a side-sharing section
    of its tile that took the same terrain (never a mountain: TS-1.3 keeps mountain regions
    at exactly 2 sections; never joining both hobbits' regions, TS-3.5)."""
    s = 4 * cell + d
    t = st[O_STER + s]
    if t >= NEUTRAL or t == MOUNTAIN:
        return
    for k in (1, 3):
        u = 4 * cell + (d + k) % 4
        if st[O_STER + u] != t:
            continue
        ra = find_nb(st, s)
        rb = find_nb(st, u)
        if ra == rb:
            continue
        r0, r1 = _hobbit_roots_nb(st)
        if _joins_nb(ra, rb, r0, r1):
            continue
        union_nb(st, s, u)


@njit(cache=True, _nrt=False)
def place_nb(cf, st, tr, seat, cell, tile, rot, neutral):
    """Lay ``tile`` at ``cell`` turned ``rot`` (face down as a neutral tile when
    ``neutral``); update regions, bounds and token sites (TS-3, TS-4)."""
    r = cell // GC
    q = cell - r * GC
    h_before = st[S_RMAX] - st[S_RMIN] + 1
    w_before = st[S_CMAX] - st[S_CMIN] + 1
    st[S_RMIN] = min(st[S_RMIN], r)
    st[S_RMAX] = max(st[S_RMAX], r)
    st[S_CMIN] = min(st[S_CMIN], q)
    st[S_CMAX] = max(st[S_CMAX], q)
    nr = 0
    # TS-4.2: once the map is 6 rows high (8 columns wide) the cells beyond are map edge
    if h_before < MAP_R and st[S_RMAX] - st[S_RMIN] + 1 == MAP_R:
        for rr in (st[S_RMIN], st[S_RMAX]):
            d = 0 if rr == st[S_RMIN] else 2
            for qq in range(GC):
                c = rr * GC + qq
                nc = cf[O_NBR + 4 * c + d]
                if st[O_CTILE + c] >= 0 and nc >= 0 and st[O_CTILE + nc] < 0:
                    sec = 4 * c + d
                    if st[O_STER + sec] < NEUTRAL:
                        x = find_nb(st, sec)
                        st[O_ROPEN + x] -= 1
                        nr = _add_root_nb(st, nr, x)
                    else:               # a neutral section that can no longer take a terrain
                        nr = _unpend_nb(st, c, d, nr)
    if w_before < MAP_C and st[S_CMAX] - st[S_CMIN] + 1 == MAP_C:
        for qq in (st[S_CMIN], st[S_CMAX]):
            d = 3 if qq == st[S_CMIN] else 1
            for rr in range(GR):
                c = rr * GC + qq
                nc = cf[O_NBR + 4 * c + d]
                if st[O_CTILE + c] >= 0 and nc >= 0 and st[O_CTILE + nc] < 0:
                    sec = 4 * c + d
                    if st[O_STER + sec] < NEUTRAL:
                        x = find_nb(st, sec)
                        st[O_ROPEN + x] -= 1
                        nr = _add_root_nb(st, nr, x)
                    else:               # a neutral section that can no longer take a terrain
                        nr = _unpend_nb(st, c, d, nr)
    st[O_CTILE + cell] = tile
    st[O_CROT + cell] = rot
    st[O_CNEU + cell] = 1 if neutral else 0
    st[S_NPLACED] += 1
    st[S_LAST] = cell
    if neutral:
        st[S_NNEUTRAL] += 1
        st[S_DOOM] = cell           # TS-3.4: Mount Doom moves onto the neutral tile
    for d in range(4):
        _new_section_nb(st, 4 * cell + d, NEUTRAL if neutral else ter_nb(cf, tile, rot, d))
    if not neutral:
        for d in range(4):          # TS-1.3: links on the tile, never a mountain
            t = st[O_STER + 4 * cell + d]
            if t != MOUNTAIN and t == st[O_STER + 4 * cell + (d + 1) % 4]:
                union_nb(st, 4 * cell + d, 4 * cell + (d + 1) % 4)
    for d in range(4):              # TS-4.1: across the sides
        sec = 4 * cell + d
        nc = cf[O_NBR + 4 * cell + d]
        if nc < 0:
            continue
        if st[O_CTILE + nc] < 0:
            if st[O_STER + sec] < NEUTRAL and fits_box_nb(st, nc):
                st[O_ROPEN + find_nb(st, sec)] += 1
            continue
        nsec = 4 * nc + (d + 2) % 4
        a = st[O_STER + sec]
        b = st[O_STER + nsec]
        if a == NEUTRAL and b == NEUTRAL:   # neither can ever take a terrain (TS-3.4)
            nr = _unpend_nb(st, nc, (d + 2) % 4, nr)
            continue
        if a == NEUTRAL:
            st[O_STER + sec] = b
            st[O_ROPEN + find_nb(st, nsec)] -= 1
        elif b == NEUTRAL:
            nr = _unpend_nb(st, nc, (d + 2) % 4, nr)
            st[O_STER + nsec] = a
        else:
            st[O_ROPEN + find_nb(st, nsec)] -= 1
        union_nb(st, sec, nsec)
        if b == NEUTRAL:                # TS-3.4: the neutral section links on its tile
            _pend_nb(cf, st, nc, (d + 2) % 4)
            _link_neutral_nb(st, nc, (d + 2) % 4)
    if neutral:
        for d in range(4):              # TS-3.4: the new neutral tile's own links
            _pend_nb(cf, st, cell, d)
        for d in range(4):
            _link_neutral_nb(st, cell, d)
    for d in range(4):
        if st[O_STER + 4 * cell + d] < NEUTRAL:
            nr = _add_root_nb(st, nr, find_nb(st, 4 * cell + d))
    h = ev_begin_nb(tr, EV_PLACE)
    ev_put_nb(tr, h, seat)
    ev_put_nb(tr, h, tile)
    ev_put_nb(tr, h, cell)
    ev_put_nb(tr, h, rot)
    ev_put_nb(tr, h, 1 if neutral else 0)
    ev_end_nb(tr, h)
    for j in range(nr):             # TS-4.2 / TS-4.3: closed regions and token sites
        x = find_nb(st, st[ROOTS + j])
        if st[O_ROPEN + x] != 0 or st[O_RSITE + x] != 0:
            continue
        col = st[O_STER + x]
        st[O_RSITE + x] = 1
        h = ev_begin_nb(tr, EV_CLOSE)
        ev_put_nb(tr, h, x)
        ev_put_nb(tr, h, st[O_RSIZE + x])
        ev_put_nb(tr, h, col)
        ev_end_nb(tr, h)
        if st[O_RSIZE + x] != 2:
            continue
        st[O_RSITE + x] = 2
        st[S_SITES + col] += 1
        if st[S_TPOS + col] < st[S_TN + col]:
            tok = st[O_TSTK + col * MAXTOK + st[S_TPOS + col]]
            st[S_TPOS + col] += 1
            st[O_RTOK + x] = tok
            st[O_TWHERE + tok] = T_MAP
            st[S_NTOKMAP] += 1
            h = ev_begin_nb(tr, EV_TOKEN)
            ev_put_nb(tr, h, seat)
            ev_put_nb(tr, h, tok)
            ev_put_nb(tr, h, x)
            ev_end_nb(tr, h)


no_literal_dispatch(globals())
