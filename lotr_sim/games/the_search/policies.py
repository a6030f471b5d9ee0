"""The built-in players (in numba): ``random`` (uniform over the legal actions, drawing from
the game's stream) and the heuristic players, which score every legal action with a policy
vector (``PL_*``) and take the first best one (no draws):

* placement (TS-3): token sites the tile would close (TS-4.3), each worth its colour's mean
  remaining token value (brown: the mean over the unseen brown tokens, below), more when
  nearer the own hobbit than the rival's (cells apart);
* neutral tile (TS-3.4): the cell nearest the own hobbit and farthest from the rival
  (Mount Doom moves onto it); the tile given up is the one whose terrains the open sides
  of the map show least;
* moves (TS-6): a breadth-first search over the regions the hobbit may enter; every token
  is worth its value less ``PL_STEPCOST`` per move to it, Mount Doom in phase 3 is worth
  ``PL_RACE`` times its points plus a win bonus - with ``PL_COUNT`` only when the points
  would then lead (race when it pays: reaching it ends the game, TS-5.4/TS-8.3; the
  heuristic counts the tokens both hold); a step is worth the best target it leads to;
  with Mount Doom out of reach and no boat, brown tokens are worth half of it (a boat,
  TS-6.6); in phase 3 a step that leads to nothing worth going for still beats stopping
  (keep moving), except a step back into the region just left, which is worth less than
  stopping (no shuttling between two regions while nothing can be reached); the Shire (TS-6.3) is not a
  node of the search (a step into it is such an aimless step); a mover (TS-7.4) or Gwaihir (TS-7.1)
  costs its point; a boat (TS-6.6) is worth ``PL_BOAT`` times the tokens on water less the
  two brown tokens it costs;
* fights (TS-7.3): the fighters to use, each move saved worth ``PL_FIGHT`` against the
  fighters' points;
* Ent (TS-7.2): take the extra turn when ``PL_ENT`` beats its point.

What the heuristics know: only what a player can see or remember. A face-down brown token
(TS-2.2, TS-4.3) is valued by the mean worth (value less fight length) of the brown tokens
nobody has seen yet - the face-down stack together with the face-down tokens on the map;
tokens turned up (a monster being fought, TS-6.5) or held are known. The face-up colours'
stacks are counted (what is left of them is public). No heuristic looks at the rival's
hand (TS-2.4) or at the order of the tile or token stacks; the tokens both players hold
were all seen face up or turned up, so ``_doom_worth_nb`` may count them.

``greedy`` balances tokens and the race (and races only when reaching Mount Doom wins);
``racer`` always races in phase 3, spends movers freely and values tokens less. Measured
(4000-6000 games, seed 4): greedy v random 99.8% in either seat; greedy counting points v
greedy always racing +0.9 pp as Frodo, +1.7 pp as Sam; greedy beats racer ~95%.
"""
from __future__ import annotations


from lotr_sim._numba.dispatch import no_literal_dispatch
from lotr_sim._numba.jit import njit
from lotr_sim.kernels.learned import weighted_nb, weights_on_nb
from lotr_sim.kernels.rng import randint_nb

from .layout import (
    A_BOAT, A_GWAIHIR, A_STEP, A_STOP, AT_DOOM, C_NTOK, DK_ENT, DK_FIGHT,
    DK_NEUTRAL, DK_PLACE, GC, O_CTILE, O_NBR, O_PAT, O_STER, S_CMAX, S_CMIN, S_RMAX, S_RMIN, MAXTOK, O_DIST, O_FIRST, O_RTOK, O_QUEUE,
    O_TCOL, O_TDOTS, O_TSTK, O_TVAL, O_TWHERE, O_TOWNER, PH3, PL_BOAT, PL_ENT, PL_FIGHT,
    PL_COUNT, PL_NEAR, PL_RACE, PL_SITE, PL_STEPCOST, PL_MOVER, PL_TOKEN, PL_TYPE, P_RING, P_GOLLUM, S_DK, S_DOOM,
    S_FTOKS, S_HCELL, S_PHASE, S_PREV, S_BOAT, S_BOATS, S_SEAT, S_TN, S_TPOS, T_HELD, T_USED, O_TPOW, WATER, MOUNTAIN,
    A_ENT, A_FIGHT, A_NEUTRAL, A_PLACE, AT_SHIRE, DK_MOVE, NLF, NSEC, O_LDIST, O_RSIZE, O_ROPEN, O_SEEN, O_TMP,
    PL_LF0, S_HOB, S_NPLACED, S_STAMP, LF_MV_TOK_LOST, O_LLIST, O_LRIV, O_LRIVB, O_LTOK, LR_BEST, LR_BORDERS, LR_BROWN, LR_OWNQ, LR_STAMP, TR_FREE, TR_LOST, TR_NOW, TR_SOON,
)
from .movement import fight_lost_nb, token_worth_nb, unseen_brown_nb
from .placement import GRP, fits_with_nb, groups_nb, site_gain_nb
from .regions import (
    SHIRE_CELL, bfs_nb, centre_regions_nb, find_nb, fits_box_nb, may_enter_nb, region_neighbours_nb, spread_nb,
    touches_cell_nb,
)



@njit(cache=True, _nrt=False)
def _cells_apart_nb(a, b):
    ra = a // GC
    rb = b // GC
    return abs(ra - rb) + abs((a - ra * GC) - (b - rb * GC))


@njit(cache=True, _nrt=False)
def _stack_mean_nb(cf, st, col, fight_w):
    """Mean worth of the tokens still in colour ``col``'s stack (0 when empty). Only for the
    face-up colours, whose stacks a player can count (every token that left them lay face up
    on the map, TS-4.3); brown goes through ``unseen_brown_nb`` (TS-2.2, TS-4.3)."""
    k = st[S_TN + col] - st[S_TPOS + col]
    if k <= 0:
        return 0.0
    tot = 0.0
    for j in range(st[S_TPOS + col], st[S_TN + col]):
        t = st[O_TSTK + col * MAXTOK + j]
        tot += cf[O_TVAL + t] - fight_w * cf[O_TDOTS + t]
    return tot / k


@njit(cache=True, _nrt=False)
def _doom_worth_nb(cf, st, seat, race, count):
    """What reaching Mount Doom is worth (TS-8.2), scaled by the race weight: the game ends
    there (TS-5.4), so it is a win when the points then lead or tie (TS-8.3) and worth little
    while behind (the heuristic counts the tokens both players hold, face down or not)."""
    ring = False
    gollum = False
    mine = 0
    theirs = 0
    for t in range(cf[C_NTOK]):
        w = st[O_TWHERE + t]
        if w == T_HELD or w == T_USED:
            v = cf[O_TVAL + t] - (1 if w == T_USED and cf[O_TCOL + t] != MOUNTAIN else 0)
            if st[O_TOWNER + t] == seat:
                mine += v
                ring = ring or cf[O_TPOW + t] == P_RING
                gollum = gollum or cf[O_TPOW + t] == P_GOLLUM
            else:
                theirs += v
                if cf[O_TPOW + t] == P_GOLLUM:
                    theirs -= 1
    v = 3.0
    if ring:
        v = 5.0 if gollum else 4.0
    elif gollum:
        mine -= 1
    if count == 0.0 or mine + v >= theirs:
        return race * (v + 6.0)
    return race * 1.0


@njit(cache=True, _nrt=False)
def scores_nb(cf, wp, pol, st, act, scr, s, n, out):
    """The heuristic's score of each of the ``n`` legal actions (higher is better), by the
    seat to move's row of ``pol``, with its learned term when the row has one (``wp``,
    ``scr`` and ``s`` unused: the common signature, lotr_sim.games.adapter)."""
    base_scores_nb(cf, pol, st, act, n, out)
    seat = st[S_SEAT]
    if learned_on_nb(pol, seat):
        race = race_on_nb(pol, seat)
        refresh_learned_nb(cf, pol, st, race)
        for i in range(n):
            out[i] += learned_bonus_nb(cf, st, pol, seat, act, i, race)


@njit(cache=True, _nrt=False)
def learned_on_nb(pol, seat):
    """Does ``seat``'s row carry learned weights (any ``PL_LF0..`` entry not 0)?"""
    return weights_on_nb(pol, seat, PL_LF0, NLF)


@njit(cache=True, _nrt=False)
def race_on_nb(pol, seat):
    """Does ``seat``'s row weigh the token race (``LF_MV_TOK_*``, ``LF_MV_BLOCK``)? Without,
    its cache and features are not computed (they cost three breadth-first searches a move)."""
    return weights_on_nb(pol, seat, PL_LF0 + LF_MV_TOK_LOST, NLF - LF_MV_TOK_LOST)


@njit(cache=True, _nrt=False)
def refresh_learned_nb(cf, pol, st, race):
    """The learned player's per-decision cache (``O_LDIST``, per seat and region root, 99 where
    it cannot go): at a placement, each seat's moves from its hobbit (regions.bfs_nb); at a move
    while Mount Doom has a cell, each seat's moves from the region to one that touches Mount
    Doom's tile (from there one more move reaches it, TS-5.4; ``_doom_moves_nb``); at every
    move with ``race``, the race for the tokens on the map (``token_race_nb``)."""
    if st[S_DK] == DK_MOVE:
        if race:
            token_race_nb(cf, pol, st, st[S_SEAT])
        if st[S_DOOM] >= 0:
            for s in range(2):
                _doom_moves_nb(st, s)
        return
    if st[S_DK] != DK_PLACE:
        return
    for s in range(2):
        for r in range(NSEC):
            st[O_LDIST + s * NSEC + r] = 99
        stamp, q = bfs_nb(cf, st, s)
        for j in range(q):
            r = st[O_QUEUE + j]
            st[O_LDIST + s * NSEC + r] = st[O_DIST + r]


@njit(cache=True, _nrt=False)
def token_race_nb(cf, pol, st, seat):
    """Who gets each token on the map first (TS-6.4, TS-6.5), for the learned term at a move of
    ``seat``, right after ``base_scores_nb`` (whose breadth-first search of ``seat``'s hobbit it
    reads): for each first step the best token reached through it, worth over moves (x1000,
    ``O_LTOK``), by race class: the rival is nearer (``TR_LOST``: it takes the token first,
    since it moves as soon as this seat's move ends); as near (``TR_NOW``: the token is this
    seat's only if it keeps going now); one or two moves farther (``TR_SOON``); farther or
    unable (``TR_FREE``). Moves count regions entered, as the heuristic's search does (a mover
    token or a fight's lost moves are not counted); a face-down brown token is worth what the
    seat can know of it (``unseen_brown_nb``). Also kept for ``LF_MV_BLOCK``: the rival's best
    token, the regions it reaches (``O_LRIV``) and whether the hobbit's region borders them."""
    brown = unseen_brown_nb(cf, st, pol[seat, PL_FIGHT])
    st[O_LRIVB + LR_BROWN] = int(1000.0 * brown)
    q = st[O_LRIVB + LR_OWNQ]
    nt = 0
    for j in range(q):
        r = st[O_QUEUE + j]
        first = st[O_FIRST + r]
        if first < 0:
            continue
        for c in range(4):
            st[O_LTOK + c * NSEC + first] = 0
        tok = st[O_RTOK + r]
        k = st[O_DIST + r]
        if tok >= 0 and k > 0:
            st[O_LLIST + 3 * nt] = r
            st[O_LLIST + 3 * nt + 1] = k
            st[O_LLIST + 3 * nt + 2] = first
            nt += 1
    stamp, q = bfs_nb(cf, st, 1 - seat)
    st[O_LRIVB + LR_BEST] = _best_token_nb(cf, st, q, brown)
    st[O_LRIVB + LR_STAMP] = stamp
    for j in range(q):
        st[O_LRIV + st[O_QUEUE + j]] = stamp
    st[O_LRIVB + LR_BORDERS] = 1 if _borders_rival_nb(st, seat, stamp) else 0
    for e in range(nt):
        r = st[O_LLIST + 3 * e]
        k = st[O_LLIST + 3 * e + 1]
        first = st[O_LLIST + 3 * e + 2]
        kr = st[O_DIST + r] if st[O_SEEN + r] == stamp else 99
        c = TR_FREE
        if kr < k:
            c = TR_LOST
        elif kr == k:
            c = TR_NOW
        elif kr <= k + 2:
            c = TR_SOON
        v = int(1000.0 * token_worth_nb(cf, st[O_RTOK + r], brown) / k)
        x = O_LTOK + c * NSEC + first
        if v > st[x]:
            st[x] = v


@njit(cache=True, _nrt=False)
def _borders_rival_nb(st, seat, stamp):
    """Could the rival enter ``seat``'s hobbit's region once it leaves (TS-6.3)? It borders a
    region of the rival's search ``stamp``, or touches the Shire while the rival stands there."""
    h = st[S_HOB + seat]
    if h < 0:
        return False
    r = find_nb(st, h)
    if st[S_HOB + 1 - seat] == AT_SHIRE and touches_cell_nb(st, r, SHIRE_CELL):
        return True
    n = region_neighbours_nb(st, r, O_TMP, 0, 128)
    for j in range(n):
        if st[O_SEEN + st[O_TMP + j]] == stamp:
            return True
    return False


@njit(cache=True, _nrt=False)
def _best_token_nb(cf, st, q, brown):
    """The best token worth / moves (x1000, 0 when none is worth anything) over the ``q`` regions
    of the breadth-first search just run (``O_QUEUE``, ``O_DIST``)."""
    best = 0
    for j in range(q):
        r = st[O_QUEUE + j]
        k = st[O_DIST + r]
        tok = st[O_RTOK + r]
        if tok >= 0 and k > 0:
            best = max(best, int(1000.0 * token_worth_nb(cf, tok, brown) / k))
    return best


@njit(cache=True, _nrt=False)
def _rival_best_after_nb(cf, st, seat, tgt):
    """The rival's best token worth / moves (x1000) with ``seat``'s hobbit on region ``tgt``
    (TS-6.3: the rival may not enter it), the hobbit put back after."""
    h = st[S_HOB + seat]
    st[S_HOB + seat] = tgt
    stamp, q = bfs_nb(cf, st, 1 - seat)
    st[S_HOB + seat] = h
    return _best_token_nb(cf, st, q, st[O_LRIVB + LR_BROWN] / 1000.0)


@njit(cache=True, _nrt=False)
def _doom_moves_nb(st, seat):
    """Breadth-first, outwards from the regions touching Mount Doom's tile: the moves ``seat``'s
    hobbit needs from each region to one of them (the regions it may enter, TS-6.2/TS-6.3)."""
    base = O_LDIST + seat * NSEC
    for r in range(NSEC):
        st[base + r] = 99
    st[S_STAMP] += 1
    stamp = st[S_STAMP]
    q1 = 0
    n = centre_regions_nb(st, st[S_DOOM], O_TMP, 0)
    for j in range(n):
        r = st[O_TMP + j]
        if may_enter_nb(st, seat, r) and st[O_SEEN + r] != stamp:
            st[O_SEEN + r] = stamp
            st[base + r] = 0
            st[O_QUEUE + q1] = r
            q1 += 1
    spread_nb(st, seat, stamp, q1, base, False)


@njit(cache=True, _nrt=False)
def _doom_moves_from_nb(st, seat, where):
    """``seat``'s moves to a region touching Mount Doom's tile from ``where`` (a section of its
    region, or the Shire: one more move than its best centre region), 99 when out of reach."""
    base = O_LDIST + seat * NSEC
    if where >= 0:
        return st[base + find_nb(st, where)]
    if where != AT_SHIRE:
        return 99
    best = 99
    n = centre_regions_nb(st, SHIRE_CELL, O_TMP, 0)
    for j in range(n):
        best = min(best, st[base + st[O_TMP + j]] + 1)
    return best


@njit(cache=True, _nrt=False)
def learned_bonus_nb(cf, st, pol, seat, act, i, race):
    """The learned term of row ``i``'s score: its features weighted by ``seat``'s ``PL_LF0..``
    (the token race's only with ``race``: ``race_on_nb``)."""
    f = row_features_nb(cf, st, seat, act, i, race)
    return weighted_nb(pol, seat, PL_LF0, f)


@njit(cache=True, _nrt=False)
def row_features_nb(cf, st, seat, act, i, race):
    """The ``NLF`` features of legal row ``i`` for ``seat`` (layout ``LF_*``), what the learned
    term weighs (the token race's left at 0 without ``race``, when ``refresh_learned_nb`` did
    not compute their cache). Only what the seat may know is read (the map, the hobbits, counts):

    * a placement (TS-3): cells from the own and the rival's hobbit (/6, capped at 2); the
      tile's lone sections left facing an empty cell, each a token site the next placer may
      close (TS-4.3), plain and times how much nearer the own hobbit the tile lies; the
      token sites it closes, by who reaches them first in moves (``refresh_learned_nb``):
      within one move of the own hobbit, farther but no nearer the rival, nearer the rival
      (a site on the tile alone, or through a neutral tile, by cells);
    * a neutral tile (TS-3.4): how much nearer the own hobbit Mount Doom moves, plain and
      by the share of the map placed (the last neutral tile is Mount Doom's, TS-5.3);
    * a move (TS-6): stopping (phase 2, phase 3), a mover's extra step (TS-7.4), a boat
      (TS-6.6), Gwaihir (TS-7.1), a step back into the region just left; in phase 2 once Mount
      Doom has a cell, a step's moves gained towards it (plain and by the share of the map
      placed) and, for a step or a stop, the lead in moves over the rival after it (TS-5.4);
      for a step, the best token it leads to (worth over moves), split by whether the rival
      reaches that token first, as soon, a move or two later, or later (``token_race_nb``), and
      how much worse the rival's best token (worth over moves) becomes with the hobbit standing
      on the step's region, which the rival may not enter (TS-6.3);
    * a fight (TS-7.3): the fighters used; an Ent (TS-7.2): taking the extra turn."""
    f0 = 0.0; f1 = 0.0; f2 = 0.0; f3 = 0.0; f4 = 0.0; f5 = 0.0; f6 = 0.0; f7 = 0.0
    f8 = 0.0; f9 = 0.0; f10 = 0.0; f11 = 0.0; f12 = 0.0; f13 = 0.0; f14 = 0.0; f15 = 0.0
    f16 = 0.0; f17 = 0.0; f18 = 0.0; f19 = 0.0; f20 = 0.0; f21 = 0.0; f22 = 0.0; f23 = 0.0; f24 = 0.0
    kind = act[i, 0]
    own = st[S_HCELL + seat]
    riv = st[S_HCELL + 1 - seat]
    if kind == A_PLACE or kind == A_NEUTRAL:
        cell = act[i, 2]
        do = _cells_apart_nb(cell, own) / 6.0
        dr = _cells_apart_nb(cell, riv) / 6.0
        near = min(1.0, max(-1.0, dr - do))
        if kind == A_NEUTRAL:
            f6 = near
            f4 = near * min(1.0, st[S_NPLACED] / 48.0)   # the last neutral tile is Mount Doom's (TS-5.3)
        else:
            f0 = min(2.0, do)
            f1 = min(2.0, dr)
            tile = act[i, 3] >> 8
            groups_nb(cf, st, tile, act[i, 3] & 255)
            lone = 0
            for d in range(4):
                if st[GRP + d] != d:
                    continue
                size = 0
                for e in range(4):
                    if st[GRP + e] == d:
                        size += 1
                if size != 1:
                    continue
                nc = cf[O_NBR + 4 * cell + d]
                if nc < 0:
                    continue
                if st[O_CTILE + nc] < 0:
                    if fits_with_nb(st, cell, nc):
                        lone += 1
                    continue
                # a lone section facing a lone section open only here: a token site (TS-4.3),
                # worth it to whichever hobbit reaches its region first (the placer moves next)
                r = find_nb(st, 4 * nc + (d + 2) % 4)
                if st[O_RSIZE + r] != 1 or st[O_ROPEN + r] != 1:
                    continue
                mo = st[O_LDIST + seat * NSEC + r]
                mr = st[O_LDIST + (1 - seat) * NSEC + r]
                if mo <= 1:
                    f5 += 1.0
                elif mr < mo:
                    f17 += 1.0
                else:
                    f16 += 1.0
            f2 = float(lone)
            # sites the per-section reading does not place (a tile's own linked pair closed by
            # the map's edge, a neutral neighbour): by cells, nearer the own hobbit or not
            g = site_gain_nb(cf, st, cell, tile, act[i, 3] & 255)
            rest = ((g & 255) + ((g >> 8) & 255) + ((g >> 16) & 255) + ((g >> 24) & 255)) - (f5 + f16 + f17)
            if rest > 0:
                if do <= dr:
                    f16 += rest
                else:
                    f17 += rest
            f3 = lone * near
        return (f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16, f17, f18, f19, f20, f21,
            f22, f23, f24)
    if kind == A_STOP:
        if st[S_PHASE] == PH3:
            f8 = 1.0
        else:
            f7 = 1.0
    elif kind == A_STEP:
        if act[i, 2] == 1:
            f9 = 1.0
        tgt = act[i, 1]
        prev = st[S_PREV + seat]
        if prev >= 0 and tgt >= 0 and tgt == find_nb(st, prev):
            f13 = 1.0
        elif prev < 0 and tgt == prev:
            f13 = 1.0
        if race and tgt >= 0:      # the tokens this first step leads to, by who gets them first
            f20 = st[O_LTOK + TR_LOST * NSEC + tgt] / 1000.0
            f21 = st[O_LTOK + TR_NOW * NSEC + tgt] / 1000.0
            f22 = st[O_LTOK + TR_SOON * NSEC + tgt] / 1000.0
            f23 = st[O_LTOK + TR_FREE * NSEC + tgt] / 1000.0
            # standing there shuts the rival out of it (TS-6.3): what that costs the rival's best
            # token; nothing changes when the rival reaches neither that region nor the one left
            if st[O_LRIV + tgt] == st[O_LRIVB + LR_STAMP] or st[O_LRIVB + LR_BORDERS] == 1:
                f24 = (st[O_LRIVB + LR_BEST] - _rival_best_after_nb(cf, st, seat, tgt)) / 1000.0
    elif kind == A_BOAT:
        f10 = 1.0
    # the race to Mount Doom (TS-5.4), in moves, once it has a cell: what a step gains and the
    # lead after the move (a stop keeps the hobbit where it is), weighed by the share placed
    if st[S_DOOM] >= 0 and (kind == A_STEP or kind == A_STOP) and st[S_PHASE] != PH3:
        late = min(1.0, st[S_NPLACED] / 48.0)
        here = _doom_moves_from_nb(st, seat, st[S_HOB + seat])
        riv_m = _doom_moves_from_nb(st, 1 - seat, st[S_HOB + 1 - seat])
        after = here
        if kind == A_STEP and act[i, 1] != AT_DOOM:
            after = _doom_moves_from_nb(st, seat, act[i, 1])
        if here < 99 and after < 99:
            f12 = float(here - after)
            f18 = f12 * late
        if after < 99 and riv_m < 99:
            f19 = late * min(4.0, max(-4.0, float(riv_m - after))) / 4.0
    elif kind == A_GWAIHIR:
        f11 = 1.0
    elif kind == A_FIGHT:
        f14 = float(act[i, 1])
    elif kind == A_ENT:
        f15 = float(act[i, 1])
    return (f0, f1, f2, f3, f4, f5, f6, f7, f8, f9, f10, f11, f12, f13, f14, f15, f16, f17, f18, f19, f20, f21,
            f22, f23, f24)


@njit(cache=True, _nrt=False)
def base_scores_nb(cf, pol, st, act, n, out):
    """The heuristic's own score of each of the ``n`` legal actions (its learned term left
    out), by the seat to move's row of ``pol``."""
    seat = st[S_SEAT]
    w = pol[seat]
    dk = st[S_DK]
    for i in range(n):
        out[i] = 0.0
    if dk == DK_PLACE:
        own = st[S_HCELL + seat]
        riv = st[S_HCELL + 1 - seat]
        fw = w[PL_FIGHT] * 0.5
        m0 = _stack_mean_nb(cf, st, 0, fw)
        m1 = unseen_brown_nb(cf, st, fw)        # the brown stack is face down (TS-2.2)
        m2 = _stack_mean_nb(cf, st, 2, fw)
        m3 = _stack_mean_nb(cf, st, 3, fw)
        for i in range(n):
            cell = act[i, 2]
            g = site_gain_nb(cf, st, cell, act[i, 3] >> 8, act[i, 3] & 255)
            if g == 0:
                continue
            v = m0 * (g & 255) + m1 * ((g >> 8) & 255) + m2 * ((g >> 16) & 255) + m3 * ((g >> 24) & 255)
            near = (_cells_apart_nb(cell, riv) - _cells_apart_nb(cell, own)) / 6.0
            near = min(1.0, max(-1.0, near))
            out[i] = w[PL_SITE] * v * (1.0 + w[PL_NEAR] * near)
        return
    if dk == DK_NEUTRAL:
        own = st[S_HCELL + seat]
        riv = st[S_HCELL + 1 - seat]
        # the tile to give up: the one whose terrains the open sides of the map show least
        # (a tie-break below one cell of distance)
        f0 = 0
        f1 = 0
        f2 = 0
        f3 = 0
        for r in range(st[S_RMIN], st[S_RMAX] + 1):
            for q in range(st[S_CMIN], st[S_CMAX] + 1):
                c = r * GC + q
                if st[O_CTILE + c] < 0:
                    continue
                for d in range(4):
                    nc = cf[O_NBR + 4 * c + d]
                    if nc >= 0 and st[O_CTILE + nc] < 0 and fits_box_nb(st, nc):
                        t = st[O_STER + 4 * c + d]
                        if t == 0:
                            f0 += 1
                        elif t == 1:
                            f1 += 1
                        elif t == 2:
                            f2 += 1
                        elif t == 3:
                            f3 += 1
        tot = max(1, f0 + f1 + f2 + f3)
        for i in range(n):
            cell = act[i, 2]
            tile = act[i, 3] >> 8
            fit = 0
            for d in range(4):
                t = cf[O_PAT + 4 * tile + d]
                fit += f0 if t == 0 else f1 if t == 1 else f2 if t == 2 else f3
            out[i] = 0.1 * (_cells_apart_nb(cell, riv) - _cells_apart_nb(cell, own)) - 0.02 * fit / tot
        return
    if dk == DK_FIGHT:
        tok = st[S_FTOKS + seat]
        for i in range(n):
            k = act[i, 1]
            saved = cf[O_TDOTS + tok] - fight_lost_nb(cf, tok, k)
            out[i] = w[PL_FIGHT] * saved * (2.0 if st[S_PHASE] == PH3 else 1.0) - k * 1.0
        return
    if dk == DK_ENT:
        for i in range(n):
            if act[i, 1] == 1:
                out[i] = w[PL_ENT] - 1.0
        return
    # DK_MOVE: values through each first step
    stamp, q = bfs_nb(cf, st, seat)
    st[O_LRIVB + LR_OWNQ] = q              # read by token_race_nb
    sc = w[PL_STEPCOST]
    fw = w[PL_FIGHT]
    brown = unseen_brown_nb(cf, st, fw)     # a face-down brown token's worth (TS-4.3)
    p3 = st[S_PHASE] == PH3
    doomv = _doom_worth_nb(cf, st, seat, w[PL_RACE], w[PL_COUNT]) if p3 else 0.0
    for i in range(n):
        out[i] = (-1.0 if p3 else 0.0) if act[i, 0] == A_STOP else -1e9   # phase 3: keep moving
    here_doom = -1e9
    doom_found = False
    # phase 3 with Mount Doom out of reach and no boat: brown tokens buy one (TS-6.6)
    need_boat = False
    if p3 and st[S_BOAT + seat] == 0 and st[S_BOATS] > 0:
        need_boat = True
        for j in range(q):
            if touches_cell_nb(st, st[O_QUEUE + j], st[S_DOOM]):
                need_boat = False
                break
    for j in range(q):
        r = st[O_QUEUE + j]
        k = st[O_DIST + r]
        first = st[O_FIRST + r]
        best = -1e9
        tok = st[O_RTOK + r]
        if tok >= 0 and k > 0:
            best = w[PL_TOKEN] * token_worth_nb(cf, tok, brown) - sc * k
            if need_boat and cf[O_TCOL + tok] == MOUNTAIN:
                best += 0.5 * doomv
        if p3 and touches_cell_nb(st, r, st[S_DOOM]):
            dv = doomv - sc * (k + 1)
            doom_found = True
            if first < 0:
                here_doom = max(here_doom, dv)
            elif dv > best:
                best = dv
        if first < 0 or best <= 0.0:        # only targets worth going for
            continue
        for i in range(n):
            if act[i, 0] == A_STEP and act[i, 1] == first and best > out[i]:
                out[i] = best
    water = 0.0
    prev = st[S_PREV + seat]
    prev_root = find_nb(st, prev) if prev >= 0 else prev
    for i in range(n):
        kind = act[i, 0]
        if kind == A_STEP:
            if act[i, 1] == AT_DOOM:
                out[i] = max(here_doom, doomv - sc)
            if out[i] <= -1e8:
                out[i] = -0.05 * sc
                tgt = act[i, 1]
                if p3 and (tgt == prev_root if tgt >= 0 else tgt == prev):
                    out[i] = -2.0           # phase 3: no aimless step back (no shuttling)
            if act[i, 2] == 1:
                out[i] -= 1.0 + w[PL_MOVER]
        elif kind == A_GWAIHIR:
            r = act[i, 2]
            tok = st[O_RTOK + r]
            v = 0.0
            if tok >= 0:
                v = w[PL_TOKEN] * token_worth_nb(cf, tok, brown)
            if p3 and touches_cell_nb(st, r, st[S_DOOM]):
                v = max(v, doomv - sc)
            out[i] = v - 1.0 - w[PL_MOVER]
        elif kind == A_BOAT:
            if water == 0.0:
                water = _water_worth_nb(cf, st, brown) + 1e-9
            out[i] = w[PL_BOAT] * water - _two_brown_nb(cf, st, seat) - 1.0
            if p3 and not doom_found:       # a boat is the only way on to Mount Doom
                out[i] += doomv


@njit(cache=True, _nrt=False)
def _water_worth_nb(cf, st, brown):
    """Worth of the tokens lying on water regions (what a boat opens, TS-6.2)."""
    v = 0.0
    for t in range(cf[C_NTOK]):
        if st[O_TWHERE + t] == 1 and cf[O_TCOL + t] == WATER:
            v += token_worth_nb(cf, t, brown)
    return v


@njit(cache=True, _nrt=False)
def _two_brown_nb(cf, st, seat):
    """Points of the two cheapest brown tokens ``seat`` holds (a boat's price, TS-6.6)."""
    a = 1 << 30
    b = 1 << 30
    for t in range(cf[C_NTOK]):
        if st[O_TWHERE + t] == T_HELD and st[O_TOWNER + t] == seat and cf[O_TCOL + t] == MOUNTAIN:
            v = cf[O_TVAL + t]
            if v < a:
                b = a
                a = v
            elif v < b:
                b = v
    return float(a + b)


@njit(cache=True, _nrt=False)
def choose_nb(cf, wp, pol, st, act, scr, s, n):
    """The built-in player's pick among ``n`` legal actions (``pol`` row of the seat to move):
    random draws uniformly from the game's stream; a heuristic takes its first best-scored
    action (``scr``: float scratch of ``MAXA``, the scores)."""
    if n <= 1:
        return 0
    if pol[st[S_SEAT], PL_TYPE] == 0.0:
        return randint_nb(s, n)
    scores_nb(cf, wp, pol, st, act, scr, s, n, scr)
    best = 0
    for i in range(1, n):
        if scr[i] > scr[best]:
            best = i
    return best


no_literal_dispatch(globals())
