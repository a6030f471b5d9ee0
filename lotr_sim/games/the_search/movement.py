"""Moving the hobbits (TS-6), the tokens they take and use (TS-6.4-6.6, TS-7) and the score
(TS-8).

A move decision lists: stop (first; the pass action - left out in an Ent's extra turn while
the normal move is possible, TS-7.2), a step into each adjacent region the hobbit may enter
(TS-6.1-6.3) - the turn's normal move, or, once that is used, a mover token's extra region
(TS-7.4) -, the step back into the Shire from a region with a section on its tile (TS-1.4,
TS-6.3), Gwaihir's flight in each direction that has a
target (TS-7.1, instead of the normal move), buying a boat (TS-6.6) and, in phase 3, the
step onto Mount Doom from a region with a section on its tile (TS-5.4).

Narrowed choices (each the natural one; say so in reports):
* the token spent is always the cheapest of its kind: the mover for an extra region, the
  fighters that cancel a fight (TS-7.3), the two brown tokens for a boat (TS-6.6);
* entering a monster's region does not end the turn's movement (TS-6.5): after the fight
  (cancelled or not) a mover token may still take the hobbit on; a fight's lost moves are
  the player's next turns' moves, and the monster is taken right after the fight;
* Mount Doom can be reached only in phase 3 (its tile is fixed only then, TS-5.3);
* a token put on a region while a hobbit stands in it is taken only by entering it again.
"""
from __future__ import annotations


from lotr_sim._numba.dispatch import no_literal_dispatch
from lotr_sim._numba.jit import njit
from lotr_sim.kernels.tracebuf import ev_begin_nb, ev_end_nb, ev_put_nb

from .layout import (
    A_BOAT, A_FIGHT, A_GWAIHIR, A_STEP, A_STOP, AT_DOOM, AT_SHIRE, C_GWAIHIR, C_NTOK, EV_BOAT, EV_FIGHT, EV_LOST,
    EV_MOVE, EV_TAKE, EV_USE, MOUNTAIN, O_CTILE, O_NBR, O_NXT, O_RTOK, O_STER, O_TCOL, O_TDOTS,
    O_TFIGHT, O_TMP, O_TOWNER, O_TPOW, O_TVAL, O_TWHERE, P_FIGHTER, P_GOLLUM, P_GWAIHIR,
    P_MONSTER, P_MOVER, P_RING, PH3, S_BOAT, S_BOATS, S_DOOM, S_DOOMPTS, S_FLEFT, S_FTOKS, S_HCELL, S_HOB,
    S_ENTTURN, S_NORMAL, S_NTAKEN, S_PREV, S_NTOKMAP, S_PHASE, S_POINTS, S_REACHED, S_TOKPTS, S_USEDN, T_BOX, T_HELD, T_MAP, T_STACK,
    T_USED,
)
from .regions import SHIRE_CELL, centre_regions_nb, find_nb, may_enter_nb, region_neighbours_nb, touches_cell_nb

NB = O_TMP            # neighbour roots of the hobbit's region (<= 100)

# what entering a region leads to
GO_ON, GO_END, GO_FIGHT, GO_DOOM = 0, 1, 2, 3


@njit(cache=True, _nrt=False)
def count_held_nb(cf, st, seat, power):
    """Unused tokens of ``power`` held by ``seat`` (power -1: brown tokens)."""
    n = 0
    for t in range(cf[C_NTOK]):
        if st[O_TWHERE + t] == T_HELD and st[O_TOWNER + t] == seat:
            if (power < 0 and cf[O_TCOL + t] == MOUNTAIN) or cf[O_TPOW + t] == power:
                n += 1
    return n


@njit(cache=True, _nrt=False)
def cheapest_held_nb(cf, st, seat, power):
    """The lowest-valued unused token of ``power`` (-1: brown) held by ``seat``; -1 if none."""
    best = -1
    for t in range(cf[C_NTOK]):
        if st[O_TWHERE + t] == T_HELD and st[O_TOWNER + t] == seat:
            if (power < 0 and cf[O_TCOL + t] == MOUNTAIN) or cf[O_TPOW + t] == power:
                if best < 0 or cf[O_TVAL + t] < cf[O_TVAL + best]:
                    best = t
    return best


@njit(cache=True, _nrt=False)
def take_nb(cf, st, tr, seat, tok):
    """TS-6.4/6.5: the hobbit's player takes ``tok`` (face down)."""
    st[O_TWHERE + tok] = T_HELD
    st[O_TOWNER + tok] = seat
    st[S_NTAKEN + seat] += 1
    st[S_NTOKMAP] -= 1
    h = ev_begin_nb(tr, EV_TAKE)
    ev_put_nb(tr, h, seat)
    ev_put_nb(tr, h, tok)
    ev_end_nb(tr, h)


@njit(cache=True, _nrt=False)
def use_nb(cf, st, tr, seat, tok):
    """TS-7: a token's power is used (face up; -1 point at the end, TS-8.1)."""
    st[O_TWHERE + tok] = T_USED
    h = ev_begin_nb(tr, EV_USE)
    ev_put_nb(tr, h, seat)
    ev_put_nb(tr, h, tok)
    ev_end_nb(tr, h)


@njit(cache=True, _nrt=False)
def hobbit_neighbours_nb(cf, st, seat):
    """Roots of the regions next to ``seat``'s hobbit (written at ``NB``); their count."""
    h = st[S_HOB + seat]
    if h == AT_SHIRE:
        return centre_regions_nb(st, SHIRE_CELL, NB, 0)
    if h < 0:
        return 0
    return region_neighbours_nb(st, find_nb(st, h), NB, 0, 100)


@njit(cache=True, _nrt=False)
def gwaihir_target_nb(cf, st, seat, d):
    """TS-7.1 [R]: from any section of the hobbit's region, straight along direction ``d``
    cell by cell (over placed tiles), the nearest region of the same terrain; -1 if none
    or not enterable."""
    h = st[S_HOB + seat]
    if h < 0:
        return -1
    root = find_nb(st, h)
    ter = st[O_STER + root]
    best = -1
    bk = 1 << 30
    s = root
    while True:
        c = s // 4
        k = 0
        while True:
            c = cf[O_NBR + 4 * c + d]
            k += 1
            if c < 0 or st[O_CTILE + c] < 0 or k >= bk:
                break
            hit = -1
            for dd in range(4):
                t = 4 * c + dd
                if st[O_STER + t] == ter:
                    r = find_nb(st, t)
                    if r != root:
                        hit = r
                        break
            if hit >= 0:
                best = hit
                bk = k
                break
        s = st[O_NXT + s]
        if s == root:
            break
    if best >= 0 and not may_enter_nb(st, seat, best):
        return -1
    return best


@njit(cache=True, _nrt=False)
def move_options_nb(cf, st, seat, act):
    """Write the move decision's actions (rows kind, a, b, c) to ``act``; their count."""
    n = 0
    act[n, 0] = A_STOP
    act[n, 1] = 0
    act[n, 2] = 0
    act[n, 3] = 0
    n += 1
    normal = st[S_NORMAL] == 0
    movers = count_held_nb(cf, st, seat, P_MOVER) > 0
    if normal or movers:
        via = 0 if normal else 1
        k = hobbit_neighbours_nb(cf, st, seat)
        for j in range(k):
            r = st[NB + j]
            if may_enter_nb(st, seat, r):
                act[n, 0] = A_STEP
                act[n, 1] = r
                act[n, 2] = via
                act[n, 3] = 0
                n += 1
        h = st[S_HOB + seat]
        if h >= 0 and touches_cell_nb(st, find_nb(st, h), SHIRE_CELL):
            act[n, 0] = A_STEP                 # TS-1.4 / TS-6.3: back into the Shire
            act[n, 1] = AT_SHIRE
            act[n, 2] = via
            act[n, 3] = 0
            n += 1
        if st[S_PHASE] == PH3 and h >= 0 and touches_cell_nb(st, find_nb(st, h), st[S_DOOM]):
            act[n, 0] = A_STEP
            act[n, 1] = AT_DOOM
            act[n, 2] = via
            act[n, 3] = 0
            n += 1
    if normal and cf[C_GWAIHIR] == 1 and st[S_HOB + seat] >= 0 and count_held_nb(cf, st, seat, P_GWAIHIR) > 0:
        for d in range(4):
            r = gwaihir_target_nb(cf, st, seat, d)
            if r >= 0:
                act[n, 0] = A_GWAIHIR
                act[n, 1] = d
                act[n, 2] = r
                act[n, 3] = 0
                n += 1
    if st[S_BOAT + seat] == 0 and st[S_BOATS] > 0 and count_held_nb(cf, st, seat, -1) >= 2:
        act[n, 0] = A_BOAT
        act[n, 1] = 0
        act[n, 2] = 0
        act[n, 3] = 0
        n += 1
    if normal and st[S_ENTTURN] == 1:
        # TS-7.2: in an Ent's extra turn the move is compulsory where possible - no stop
        # while a normal step or Gwaihir's flight is open
        must = False
        for j in range(1, n):
            if act[j, 0] == A_STEP or act[j, 0] == A_GWAIHIR:
                must = True
                break
        if must:
            for j in range(n - 1):
                for q in range(4):
                    act[j, q] = act[j + 1, q]
            n -= 1
    return n


@njit(cache=True, _nrt=False)
def enter_nb(cf, st, tr, seat, target, how, used):
    """Move ``seat``'s hobbit into region ``target`` (or onto Mount Doom); ``how``: 0 the
    normal move, 1 a mover's extra region, 2 Gwaihir. Returns GO_ON, GO_END, GO_FIGHT (a
    fight the player may cancel, token in S_FTOKS) or GO_DOOM."""
    h = ev_begin_nb(tr, EV_MOVE)
    ev_put_nb(tr, h, seat)
    ev_put_nb(tr, h, st[S_HOB + seat])
    ev_put_nb(tr, h, target)
    ev_put_nb(tr, h, how)
    ev_put_nb(tr, h, used)
    ev_end_nb(tr, h)
    st[S_NORMAL] = 1
    st[S_PREV + seat] = st[S_HOB + seat]
    if target == AT_SHIRE:                     # TS-6.3: the Shire holds both hobbits
        st[S_HOB + seat] = AT_SHIRE
        st[S_HCELL + seat] = SHIRE_CELL
        return GO_ON
    if target == AT_DOOM:
        st[S_HOB + seat] = AT_DOOM
        st[S_REACHED] = seat
        return GO_DOOM
    st[S_HOB + seat] = target
    st[S_HCELL + seat] = target // 4
    tok = st[O_RTOK + target]
    if tok < 0:
        return GO_ON
    if cf[O_TPOW + tok] != P_MONSTER:          # TS-6.4, TS-6.5 (an empty cave is taken)
        st[O_RTOK + target] = -1
        take_nb(cf, st, tr, seat, tok)
        return GO_ON
    st[S_FTOKS + seat] = tok                   # TS-6.5: a fight (the monster turned up)
    if count_held_nb(cf, st, seat, P_FIGHTER) >= 1:
        return GO_FIGHT                        # TS-7.3: the player may use fighters
    fight_nb(cf, st, tr, seat, 0)
    return GO_ON                               # TS-6.5: entering does not end the move


@njit(cache=True, _nrt=False)
def fight_need_nb(cf, tok):
    """Fighter tokens that cancel the whole fight of ``tok`` (TS-7.3)."""
    return max(1, cf[O_TFIGHT + tok])


@njit(cache=True, _nrt=False)
def fight_lost_nb(cf, tok, k):
    """Moves lost to the fight of ``tok`` when ``k`` fighters are used (TS-6.5 / TS-7.3): all
    its dots with none, none with enough to cancel it, and one fewer per fighter below that
    (one fighter against a Balrog or Shelob saves one of its two moves)."""
    need = fight_need_nb(cf, tok)
    if k >= need:
        return 0
    return max(0, cf[O_TDOTS + tok] - k)


@njit(cache=True, _nrt=False)
def fight_options_nb(cf, st, seat, act):
    """The fight decision's rows ``(A_FIGHT, k, 0, 0)``: k = 0 .. the fighters that help (at
    most those needed to cancel, at most those held)."""
    tok = st[S_FTOKS + seat]
    kmax = min(fight_need_nb(cf, tok), count_held_nb(cf, st, seat, P_FIGHTER))
    n = 0
    for k in range(kmax + 1):
        act[n, 0] = A_FIGHT
        act[n, 1] = k
        act[n, 2] = 0
        act[n, 3] = 0
        n += 1
    return n


@njit(cache=True, _nrt=False)
def fight_nb(cf, st, tr, seat, k):
    """TS-6.5 / TS-7.3: the fight with the monster of ``S_FTOKS``: ``k`` fighters are used
    (the cheapest), the moves still lost (``fight_lost_nb``) are the player's next moves, and
    the monster is taken right after the fight ("После этого игрок берет фишку")."""
    tok = st[S_FTOKS + seat]
    lost = fight_lost_nb(cf, tok, k)
    h = ev_begin_nb(tr, EV_FIGHT)
    ev_put_nb(tr, h, seat)
    ev_put_nb(tr, h, tok)
    ev_put_nb(tr, h, cf[O_TDOTS + tok])
    ev_put_nb(tr, h, 1 if lost == 0 else 0)
    ev_put_nb(tr, h, k)
    ev_put_nb(tr, h, lost)
    ev_end_nb(tr, h)
    for _ in range(k):
        use_nb(cf, st, tr, seat, cheapest_held_nb(cf, st, seat, P_FIGHTER))
    root = find_nb(st, st[S_HOB + seat])
    if st[O_RTOK + root] == tok:
        st[O_RTOK + root] = -1
    take_nb(cf, st, tr, seat, tok)
    st[S_FTOKS + seat] = -1
    st[S_FLEFT + seat] += lost                 # a second fight in the same turn adds its moves


@njit(cache=True, _nrt=False)
def lose_move_nb(cf, st, tr, seat):
    """TS-6.5: a move lost to a fight (the monster was taken at the fight)."""
    st[S_FLEFT + seat] -= 1
    h = ev_begin_nb(tr, EV_LOST)
    ev_put_nb(tr, h, seat)
    ev_put_nb(tr, h, st[S_FLEFT + seat])
    ev_end_nb(tr, h)


@njit(cache=True, _nrt=False)
def buy_boat_nb(cf, st, tr, seat):
    """TS-6.6: two brown tokens (the cheapest) go back to the box for a boat."""
    a = cheapest_held_nb(cf, st, seat, -1)
    st[O_TWHERE + a] = T_BOX
    b = cheapest_held_nb(cf, st, seat, -1)
    st[O_TWHERE + b] = T_BOX
    st[S_BOAT + seat] = 1
    st[S_BOATS] -= 1
    h = ev_begin_nb(tr, EV_BOAT)
    ev_put_nb(tr, h, seat)
    ev_put_nb(tr, h, a)
    ev_put_nb(tr, h, b)
    ev_end_nb(tr, h)


@njit(cache=True, _nrt=False)
def do_move_nb(cf, st, tr, seat, kind, a, b):
    """Apply one move action; returns GO_* (GO_END also for stop)."""
    if kind == A_STOP:
        return GO_END
    if kind == A_BOAT:
        buy_boat_nb(cf, st, tr, seat)
        return GO_ON
    if kind == A_GWAIHIR:
        tok = cheapest_held_nb(cf, st, seat, P_GWAIHIR)
        use_nb(cf, st, tr, seat, tok)
        return enter_nb(cf, st, tr, seat, b, 2, tok)
    used = -1
    if b == 1:
        used = cheapest_held_nb(cf, st, seat, P_MOVER)
        use_nb(cf, st, tr, seat, used)
    return enter_nb(cf, st, tr, seat, a, b, used)


@njit(cache=True, _nrt=False)
def score_nb(cf, st):
    """TS-8.1 / TS-8.2: each seat's points (and their parts) into the state."""
    for seat in range(2):
        pts = 0
        used = 0
        ring = False
        gollum = False
        for t in range(cf[C_NTOK]):
            w = st[O_TWHERE + t]
            if (w == T_HELD or w == T_USED) and st[O_TOWNER + t] == seat:
                pts += cf[O_TVAL + t]
                if w == T_USED and cf[O_TCOL + t] != MOUNTAIN:
                    used += 1
                ring = ring or cf[O_TPOW + t] == P_RING
                gollum = gollum or cf[O_TPOW + t] == P_GOLLUM
        doom = 0
        if st[S_REACHED] == seat:
            doom = 3
            if ring:
                doom = 5 if gollum else 4
        if gollum and not (st[S_REACHED] == seat and ring):
            doom -= 1
        st[S_TOKPTS + seat] = pts
        st[S_USEDN + seat] = used
        st[S_DOOMPTS + seat] = doom
        st[S_POINTS + seat] = pts - used + doom


@njit(cache=True, _nrt=False)
def unseen_brown_nb(cf, st, fight_w):
    """What a face-down brown token is worth to a player who cannot see it (TS-2.2, TS-4.3):
    the mean value less ``fight_w`` times the mean fight length (dots, TS-6.5) over the brown
    tokens nobody has seen yet - the face-down stack and the face-down tokens on the map, not
    a monster being fought (turned up, TS-6.5) nor any token held or in the box. 0 if none."""
    k = 0
    tot = 0.0
    for t in range(cf[C_NTOK]):
        if cf[O_TCOL + t] != MOUNTAIN:
            continue
        w = st[O_TWHERE + t]
        if w == T_STACK or (w == T_MAP and t != st[S_FTOKS] and t != st[S_FTOKS + 1]):
            k += 1
            tot += cf[O_TVAL + t] - fight_w * cf[O_TDOTS + t]
    return tot / k if k > 0 else 0.0


@njit(cache=True, _nrt=False)
def token_worth_nb(cf, tok, brown):
    """What a token on the map is worth to a heuristic player: its value when face up; a
    face-down brown one ``brown`` (``unseen_brown_nb``: what the player can know of it, never
    its identity; TS-2.5, TS-6.5)."""
    if cf[O_TCOL + tok] == MOUNTAIN:           # face down: the player does not see it
        return brown
    v = float(cf[O_TVAL + tok])
    if cf[O_TPOW + tok] == P_RING:
        v += 1.0
    if cf[O_TPOW + tok] == P_GOLLUM:
        v += 0.5
    return v


no_literal_dispatch(globals())
