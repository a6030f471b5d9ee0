"""Set-up (TS-2), turns and phases (TS-5), the end and the winner (TS-5.4, TS-8.3), the step
machine and whole games.

The step machine rests at one of five decisions (``S_DK``): a placement (tile, cell,
rotation: one action; TS-3), a neutral tile (which tile, which cell; TS-3.4), a move step
(movement.py), the fighters used in a fight (TS-7.3: none, or one, or two against a Balrog
or Shelob) and using an Ent (TS-7.2). ``advance_nb`` runs
the turn from its current stage to the next decision; a move decision whose only action is
"stop" is skipped. The number of legal actions of the current decision is kept in
``S_NLEGAL``; ``legal_nb`` writes them again (the same rows) for a Python caller.

A neutral tile that TS-3.5 bars from every legal cell (its links would join the hobbits'
regions) is the reconstruction ``neutral_join`` (TS-3.5 [R], ``neutral_options_nb``): laid
without the joining link (``skip_link``, default) or not laid that turn (``no_tile``).

Turn stages: place (phase 1 and 2), move (phase 2 and 3; a fighting player loses it,
TS-6.5), draw (TS-5.1/5.2), Ent (phase 2), next turn. Phase 1 ends when the cross is laid
(TS-5.1, TS-9.1); phase 2 ends at once when the last tile is placed (TS-5.3), and phase 3
starts with that player. A game that does not finish stops after ``phase3_cap`` phase-3
turns (TS-5.4 [R], reason ``cap``) and is decided on points; only equal points draw.

The search player's playouts (``playouts_nb``) see only what the searching seat can see:
before each playout the copy is determinized from that seat's point of view
(``determinize_nb``) - the rival's hand is dealt again together with the face-down tile
stack (TS-2.1, TS-2.4), the face-down brown tokens on the map are dealt again together with
the brown stack (TS-2.2, TS-4.3, TS-6.5), and the other token stacks are reshuffled - from
the playout's own stream (key, j), the same for every candidate (common random numbers).
A hand shown under TS-3.4 is not remembered (narrowed: the rival's hand is treated as
wholly unknown).
"""
from __future__ import annotations

import numpy as np

from lotr_sim._numba.dispatch import no_literal_dispatch
from lotr_sim._numba.jit import njit
from lotr_sim.kernels.piles import redeal_range_nb, shuffle_range_nb
from lotr_sim.kernels.rng import STATE_SIZE, stream_init_nb
from lotr_sim.kernels.tracebuf import ev_begin_nb, ev_end_nb, ev_put_nb

from .layout import (
    A_ENT, A_FIGHT, A_NEUTRAL, A_PLACE, AT_SHIRE, C_CAP, C_NEUTRAL_FIRST, C_NEUTRAL_JOIN, C_NTOK, C_P1FULL,
    C_REDRAW, DK_ENT, DK_FIGHT, DK_MOVE, DK_NEUTRAL, DK_PLACE, EV_END, EV_PHASE, EV_REDRAW, EV_SETUP,
    EV_SNAP, EV_TURN, EV_UNPLACEABLE, EV_DECISION, EV_DRAW, A_STOP, S_ENTTURN, GC, HAND, MAP_C, MAP_R, MAXTOK, MOUNTAIN, NSEC, NTILE, O_CNEU,
    O_CROT, O_CTILE, O_DECK, O_HAND, O_NBR, O_PAR, O_RTOK, O_STER, O_STOCK, O_TCOL, O_TOWNER, O_TSTK,
    O_TWHERE, OVER, P_ENT, PH1, PH2, PH3, R_CAP, R_DOOM, S_BAD, S_BOATS, S_CMAX, S_CMIN, S_DEBUG, S_DECKPOS,
    S_DK, S_DOOM, S_DOOMPTS, S_FLEFT, S_FTOKS, S_GAMEIDX, S_HANDN, S_HCELL, S_HOB, S_LAST, S_NNEUTRAL,
    S_NORMAL, S_NPLACED, S_NTAKEN, S_P1TURNS, S_P2TURNS, S_P3TURNS, S_PHASE, S_POINTS, S_REACHED,
    S_REASON, S_RMAX, S_RMIN, S_ROUND, S_SEAT, S_STAGE, S_STEPS, S_STOCKN, S_TN, S_TOKPTS, S_TPOS, NLF,
    S_TURN, S_UNPL, S_USEDN, S_WINNER, S_EXTRA, S_SITES, SHIRE_TILE, SC, SR, ST_SIZE, STG_DRAW, STG_ENT,
    STG_MOVE, STG_NEXT, STG_PLACE, T_MAP, T_STACK, W_DRAW, S_NTOKMAP, STATE, S_STAMP, O_QUEUE, O_SEEN, O_DIST, O_TMP,
)
from .movement import (
    GO_DOOM, GO_END, GO_FIGHT, cheapest_held_nb, count_held_nb, do_move_nb, fight_nb, fight_options_nb,
    lose_move_nb,
    move_options_nb, score_nb, use_nb,
)
from .placement import fits_nb, legal_cells_nb, neutral_fits_nb, place_nb, ter_nb, CAND
from .policies import base_scores_nb, choose_nb, refresh_learned_nb, row_features_nb, scores_nb
from .regions import SHIRE_CELL, centre_regions_nb, find_nb, region_neighbours_nb, touches_cell_nb

STG_STEP = 5
S_NLEGAL = STATE.field("tmp").offset + 250     # spare scratch slot: legal actions now
NOUT = 32
MAX_STEPS = 100000


@njit(cache=True, _nrt=False)
def _row_nb(act, n, a, b, c, d):
    act[n, 0] = a
    act[n, 1] = b
    act[n, 2] = c
    act[n, 3] = d
    return n + 1


@njit(cache=True, _nrt=False)
def place_options_nb(cf, st, seat, act):
    """Every legal (hand tile, cell, rotation) of TS-3.2/3.3/3.5 (rotations that give the
    same pattern are listed once)."""
    nc = legal_cells_nb(cf, st)
    n = 0
    for slot in range(st[S_HANDN + seat]):
        tile = st[O_HAND + HAND * seat + slot]
        for j in range(nc):
            cell = st[CAND + j]
            for rot in range(4):
                same = False
                for r2 in range(rot):
                    if (ter_nb(cf, tile, rot, 0) == ter_nb(cf, tile, r2, 0) and ter_nb(cf, tile, rot, 1)
                            == ter_nb(cf, tile, r2, 1) and ter_nb(cf, tile, rot, 2) == ter_nb(cf, tile, r2, 2)
                            and ter_nb(cf, tile, rot, 3) == ter_nb(cf, tile, r2, 3)):
                        same = True
                        break
                if same or not fits_nb(cf, st, cell, tile, rot):
                    continue
                n = _row_nb(act, n, A_PLACE, slot, cell, tile * 256 + rot)
    return n


@njit(cache=True, _nrt=False)
def neutral_options_nb(cf, st, seat, act):
    """TS-3.4: which hand tile goes face down (``neutral_tile = first``: the first) and on
    which legal cell - one where its links would not join both hobbits' regions (TS-3.5).
    If every legal cell would (TS-3.5 [R] ``neutral_join``): any of them, the link that would
    join the regions not made (``skip_link``), or none - no actions, the player lays no
    tile this turn (``no_tile``)."""
    nc = legal_cells_nb(cf, st)
    n = 0
    k = 1 if cf[C_NEUTRAL_FIRST] == 1 else st[S_HANDN + seat]
    ok = 0
    for j in range(nc):
        if neutral_fits_nb(cf, st, st[CAND + j]):
            ok += 1
    if ok == 0 and cf[C_NEUTRAL_JOIN] == 1:
        return 0
    for slot in range(k):
        tile = st[O_HAND + HAND * seat + slot]
        for j in range(nc):
            if ok == 0 or neutral_fits_nb(cf, st, st[CAND + j]):
                n = _row_nb(act, n, A_NEUTRAL, slot, st[CAND + j], tile * 256)
    return n


@njit(cache=True, _nrt=False)
def draw_nb(cf, st, tr, seat):
    """Draw one tile: from the face-down stack, then (TS-9.2) from the open stock (traced:
    who drew which tile)."""
    if st[S_HANDN + seat] >= HAND:
        return
    if st[S_DECKPOS] < NTILE:
        t = st[O_DECK + st[S_DECKPOS]]
        st[S_DECKPOS] += 1
    elif st[S_STOCKN] > 0:
        t = st[O_STOCK]
        for j in range(st[S_STOCKN] - 1):
            st[O_STOCK + j] = st[O_STOCK + j + 1]
        st[S_STOCKN] -= 1
    else:
        return
    st[O_HAND + HAND * seat + st[S_HANDN + seat]] = t
    st[S_HANDN + seat] += 1
    h = ev_begin_nb(tr, EV_DRAW)
    ev_put_nb(tr, h, seat)
    ev_put_nb(tr, h, t)
    ev_end_nb(tr, h)


@njit(cache=True, _nrt=False)
def _hand_remove_nb(st, seat, slot):
    k = st[S_HANDN + seat]
    for j in range(slot, k - 1):
        st[O_HAND + HAND * seat + j] = st[O_HAND + HAND * seat + j + 1]
    st[S_HANDN + seat] = k - 1


@njit(cache=True, _nrt=False)
def redraw_nb(cf, st, tr, seat, act):
    """TS-9.2 ``redraw``: the hand goes face up into the open stock and three tiles are
    drawn, until one can be placed or every available tile has been tried. Returns the
    number of legal placements then."""
    tried = 0
    while True:
        if st[S_DECKPOS] >= NTILE and tried > st[S_STOCKN] + HAND:
            return 0
        if st[S_DECKPOS] >= NTILE and st[S_STOCKN] == 0:
            return 0
        h = ev_begin_nb(tr, EV_REDRAW)
        ev_put_nb(tr, h, seat)
        ev_end_nb(tr, h)
        from_stock = st[S_DECKPOS] >= NTILE
        for j in range(st[S_HANDN + seat]):
            st[O_STOCK + st[S_STOCKN]] = st[O_HAND + HAND * seat + j]
            st[S_STOCKN] += 1
        st[S_HANDN + seat] = 0
        for _ in range(HAND):
            if st[S_DECKPOS] >= NTILE:
                from_stock = True
            draw_nb(cf, st, tr, seat)
        if from_stock:
            tried += HAND
        n = place_options_nb(cf, st, seat, act)
        if n > 0:
            return n


@njit(cache=True, _nrt=False)
def snapshot_nb(cf, st, tr):
    """Trace: the position at a turn's start (placed tiles, hobbits, hands, tokens)."""
    if tr.shape[0] == 0:
        return
    h = ev_begin_nb(tr, EV_SNAP)
    ev_put_nb(tr, h, st[S_NPLACED])
    for c in range(NSEC // 4):
        if st[O_CTILE + c] >= 0:
            ev_put_nb(tr, h, c)
            ev_put_nb(tr, h, st[O_CTILE + c])
            ev_put_nb(tr, h, st[O_CROT + c])
            ev_put_nb(tr, h, st[O_CNEU + c])
    ev_put_nb(tr, h, st[S_HOB])
    ev_put_nb(tr, h, st[S_HOB + 1])
    for seat in range(2):                  # the hands (count, then the tiles)
        ev_put_nb(tr, h, st[S_HANDN + seat])
        for j in range(st[S_HANDN + seat]):
            ev_put_nb(tr, h, st[O_HAND + HAND * seat + j])
    for t in range(cf[C_NTOK]):
        ev_put_nb(tr, h, st[O_TWHERE + t])
        ev_put_nb(tr, h, st[O_TOWNER + t])
    ev_end_nb(tr, h)


@njit(cache=True, _nrt=False)
def map_cell_nb(st, cell):
    """An engine cell as ``row * 8 + column`` of the drawn 6 x 8 map (its rows and columns
    counted from the map's top-left tile, TS-3.1); -1 for none. Meant for a finished map
    (phase 3), where the bounds are final: ``doom_cell`` in traces and in games.parquet."""
    if cell < 0:
        return -1
    return (cell // GC - st[S_RMIN]) * MAP_C + (cell % GC - st[S_CMIN])


@njit(cache=True, _nrt=False)
def _phase_ev_nb(st, tr):
    h = ev_begin_nb(tr, EV_PHASE)
    ev_put_nb(tr, h, st[S_PHASE])
    ev_put_nb(tr, h, st[S_SEAT])
    ev_put_nb(tr, h, map_cell_nb(st, st[S_DOOM]))
    ev_end_nb(tr, h)


@njit(cache=True, _nrt=False)
def end_game_nb(cf, st, tr, reason):
    """TS-8: score; most points wins, a tie goes to the hobbit on Mount Doom (TS-8.3). A game
    stopped by the safety cap (TS-5.4 [R], reason ``R_CAP``) is decided the same way: only
    equal points with nobody on Mount Doom make a draw."""
    score_nb(cf, st)
    if st[S_POINTS] > st[S_POINTS + 1]:
        st[S_WINNER] = 0
    elif st[S_POINTS + 1] > st[S_POINTS]:
        st[S_WINNER] = 1
    elif st[S_REACHED] >= 0:
        st[S_WINNER] = st[S_REACHED]
    else:
        st[S_WINNER] = W_DRAW
    st[S_REASON] = reason
    st[S_PHASE] = OVER
    st[S_NLEGAL] = 0
    h = ev_begin_nb(tr, EV_END)
    ev_put_nb(tr, h, st[S_WINNER])
    ev_put_nb(tr, h, reason)
    ev_put_nb(tr, h, st[S_POINTS])
    ev_put_nb(tr, h, st[S_POINTS + 1])
    ev_put_nb(tr, h, st[S_REACHED])
    ev_put_nb(tr, h, map_cell_nb(st, st[S_DOOM]))
    for seat in range(2):                  # the score's parts (TS-8.1 / TS-8.2)
        ev_put_nb(tr, h, st[S_TOKPTS + seat])
        ev_put_nb(tr, h, st[S_USEDN + seat])
        ev_put_nb(tr, h, st[S_DOOMPTS + seat])
    ev_end_nb(tr, h)


@njit(cache=True, _nrt=False)
def _after_move_nb(st):
    st[S_STAGE] = STG_DRAW if st[S_PHASE] == PH2 else STG_NEXT


@njit(cache=True, _nrt=False)
def advance_nb(cf, st, tr, act):
    """Run the turn on to the next decision (its actions in ``act``); returns their count
    (0 once the game is over)."""
    while True:
        if st[S_PHASE] == OVER:
            st[S_NLEGAL] = 0
            return 0
        seat = st[S_SEAT]
        stage = st[S_STAGE]
        if stage == STG_PLACE:
            if st[S_HANDN + seat] == 0:          # TS-3.6
                st[S_STAGE] = STG_MOVE
                continue
            n = place_options_nb(cf, st, seat, act)
            if n == 0:
                st[S_UNPL + seat] += 1
                h = ev_begin_nb(tr, EV_UNPLACEABLE)
                ev_put_nb(tr, h, seat)
                ev_end_nb(tr, h)
                if cf[C_REDRAW] == 1:
                    n = redraw_nb(cf, st, tr, seat, act)
                if n == 0:
                    n = neutral_options_nb(cf, st, seat, act)
                    if n == 0:                   # TS-3.5 [R] neutral_join = no_tile
                        st[S_STAGE] = STG_MOVE
                        continue
                    st[S_DK] = DK_NEUTRAL
                    st[S_NLEGAL] = n
                    return n
            st[S_DK] = DK_PLACE
            st[S_NLEGAL] = n
            return n
        if stage == STG_MOVE:
            if st[S_PHASE] == PH1:
                st[S_STAGE] = STG_DRAW
                continue
            if st[S_FLEFT + seat] > 0:
                lose_move_nb(cf, st, tr, seat)
                _after_move_nb(st)
                continue
            st[S_NORMAL] = 0
            st[S_STAGE] = STG_STEP
            continue
        if stage == STG_STEP:
            n = move_options_nb(cf, st, seat, act)
            if n == 0 or (n == 1 and act[0, 0] == A_STOP):
                _after_move_nb(st)
                continue
            st[S_DK] = DK_MOVE
            st[S_NLEGAL] = n
            return n
        if stage == STG_DRAW:
            draw_nb(cf, st, tr, seat)
            st[S_STAGE] = STG_ENT
            continue
        if stage == STG_ENT:
            if st[S_PHASE] == PH2 and count_held_nb(cf, st, seat, P_ENT) > 0:
                _row_nb(act, 0, A_ENT, 0, 0, 0)
                _row_nb(act, 1, A_ENT, 1, 0, 0)
                st[S_DK] = DK_ENT
                st[S_NLEGAL] = 2
                return 2
            st[S_STAGE] = STG_NEXT
            continue
        # STG_NEXT: the next turn
        if st[S_EXTRA] == 1:
            st[S_EXTRA] = 0
            st[S_ENTTURN] = 1                  # TS-7.2: the Ent's extra turn
        else:
            st[S_SEAT] = 1 - seat
            st[S_ENTTURN] = 0
        if st[S_PHASE] == PH1 and _phase1_done_nb(cf, st):
            st[S_PHASE] = PH2
            st[S_SEAT] = 0                     # TS-5.2: Frodo first again
            _phase_ev_nb(st, tr)
        st[S_TURN] += 1
        if st[S_SEAT] == 0:
            st[S_ROUND] += 1
        if st[S_PHASE] == PH3:
            st[S_P3TURNS] += 1
            if st[S_P3TURNS] > cf[C_CAP]:
                end_game_nb(cf, st, tr, R_CAP)
                continue
        elif st[S_PHASE] == PH2:
            st[S_P2TURNS] += 1
        else:
            st[S_P1TURNS] += 1
        st[S_STAGE] = STG_MOVE if st[S_PHASE] == PH3 else STG_PLACE
        h = ev_begin_nb(tr, EV_TURN)
        ev_put_nb(tr, h, st[S_TURN])
        ev_put_nb(tr, h, st[S_PHASE])
        ev_put_nb(tr, h, st[S_SEAT])
        ev_end_nb(tr, h)
        snapshot_nb(cf, st, tr)


@njit(cache=True, _nrt=False)
def _phase1_done_nb(cf, st):
    """TS-5.1: the cross of five; TS-9.1 ``full``: no arm can grow any more."""
    if cf[C_P1FULL] == 0:
        return st[S_NPLACED] >= 5
    return legal_cells_nb(cf, st) == 0


@njit(cache=True, _nrt=False)
def apply_nb(cf, wp, pol, st, tr, act, scr, s, i):
    """Apply action ``i`` of the current decision, then advance to the next decision (``wp``,
    ``pol``, ``scr`` and ``s`` unused: the common signature, lotr_sim.games.adapter)."""
    seat = st[S_SEAT]
    kind = act[i, 0]
    st[S_STEPS] += 1
    h = ev_begin_nb(tr, EV_DECISION)          # the trace: who chose which legal row
    ev_put_nb(tr, h, seat)
    ev_put_nb(tr, h, st[S_DK])
    ev_put_nb(tr, h, i)
    ev_put_nb(tr, h, st[S_NLEGAL])
    for q in range(4):
        ev_put_nb(tr, h, act[i, q])
    ev_end_nb(tr, h)
    if kind == A_PLACE or kind == A_NEUTRAL:
        slot = act[i, 1]
        tile = st[O_HAND + HAND * seat + slot]
        _hand_remove_nb(st, seat, slot)
        place_nb(cf, st, tr, seat, act[i, 2], tile, act[i, 3] & 255, kind == A_NEUTRAL)
        if st[S_NPLACED] == NTILE + 1:      # TS-5.3: the last tile ends phase 2 at once
            if st[S_DOOM] < 0:
                st[S_DOOM] = st[S_LAST]
            st[S_PHASE] = PH3
            st[S_P3TURNS] = 1
            st[S_ENTTURN] = 0                  # TS-7.2: no Ent in phase 3
            _phase_ev_nb(st, tr)
            st[S_STAGE] = STG_MOVE
        else:
            st[S_STAGE] = STG_MOVE
    elif kind == A_FIGHT:
        fight_nb(cf, st, tr, seat, act[i, 1])
        st[S_STAGE] = STG_STEP                 # TS-6.5: the fight does not end the move
    elif kind == A_ENT:
        if act[i, 1] == 1:
            use_nb(cf, st, tr, seat, cheapest_held_nb(cf, st, seat, P_ENT))
            st[S_EXTRA] = 1
        st[S_STAGE] = STG_NEXT
    else:
        r = do_move_nb(cf, st, tr, seat, kind, act[i, 1], act[i, 2])
        if r == GO_DOOM:
            end_game_nb(cf, st, tr, R_DOOM)
        elif r == GO_FIGHT:
            n = fight_options_nb(cf, st, seat, act)
            st[S_DK] = DK_FIGHT
            st[S_NLEGAL] = n
            _debug_nb(cf, st)
            return n
        elif r == GO_END:
            _after_move_nb(st)
        else:
            st[S_STAGE] = STG_STEP
    n = advance_nb(cf, st, tr, act)
    _debug_nb(cf, st)
    return n


@njit(cache=True, _nrt=False)
def _debug_nb(cf, st):
    if st[S_DEBUG] != 0 and invariant_nb(cf, st) == 0:
        st[S_BAD] = 1


@njit(cache=True, _nrt=False)
def legal_nb(cf, st, act):
    """Write the current decision's actions (the rows ``advance_nb`` found) to ``act``."""
    if st[S_PHASE] == OVER:
        return 0
    seat = st[S_SEAT]
    dk = st[S_DK]
    if dk == DK_PLACE:
        return place_options_nb(cf, st, seat, act)
    if dk == DK_NEUTRAL:
        return neutral_options_nb(cf, st, seat, act)
    if dk == DK_MOVE:
        return move_options_nb(cf, st, seat, act)
    if dk == DK_FIGHT:
        return fight_options_nb(cf, st, seat, act)
    _row_nb(act, 0, A_ENT, 0, 0, 0)
    _row_nb(act, 1, A_ENT, 1, 0, 0)
    return 2


@njit(cache=True, _nrt=False)
def new_game_nb(cf, st, tr, act, s, seed, index, debug):
    """TS-2: the Shire in the middle, the tiles and the token stacks shuffled, three tiles
    each, both hobbits on the Shire, Frodo to move; then on to the first decision."""
    stream_init_nb(seed, index, s)
    for k in range(st.shape[0]):
        st[k] = 0
    for k in range(NSEC):
        st[O_STER + k] = -1
        st[O_PAR + k] = k
        st[O_RTOK + k] = -1
    for c in range(NSEC // 4):
        st[O_CTILE + c] = -1
    st[S_GAMEIDX] = index
    st[S_DEBUG] = debug
    st[S_RMIN] = SR
    st[S_RMAX] = SR
    st[S_CMIN] = SC
    st[S_CMAX] = SC
    st[S_DOOM] = -1
    st[S_REACHED] = -1
    st[S_WINNER] = -1
    st[S_BOATS] = 2
    st[S_HOB] = AT_SHIRE
    st[S_HOB + 1] = AT_SHIRE
    st[S_HCELL] = SHIRE_CELL
    st[S_HCELL + 1] = SHIRE_CELL
    st[S_FTOKS] = -1
    st[S_FTOKS + 1] = -1
    place_nb(cf, st, tr, -1, SHIRE_CELL, SHIRE_TILE, 0, False)
    st[S_LAST] = -1
    for t in range(NTILE):
        st[O_DECK + t] = t
    shuffle_range_nb(s, st, O_DECK, NTILE)
    for t in range(cf[C_NTOK]):
        c = cf[O_TCOL + t]
        st[O_TSTK + c * MAXTOK + st[S_TN + c]] = t
        st[S_TN + c] += 1
        st[O_TWHERE + t] = T_STACK
        st[O_TOWNER + t] = -1
    for c in range(4):
        shuffle_range_nb(s, st, O_TSTK + c * MAXTOK, st[S_TN + c])
    for _ in range(HAND):
        draw_nb(cf, st, tr, 0)
        draw_nb(cf, st, tr, 1)
    st[S_PHASE] = PH1
    st[S_SEAT] = 0
    st[S_TURN] = 1
    st[S_ROUND] = 1
    st[S_P1TURNS] = 1
    st[S_STAGE] = STG_PLACE
    h = ev_begin_nb(tr, EV_SETUP)
    for k in range(2 * HAND):
        ev_put_nb(tr, h, st[O_HAND + k])
    ev_end_nb(tr, h)
    h = ev_begin_nb(tr, EV_TURN)
    ev_put_nb(tr, h, 1)
    ev_put_nb(tr, h, PH1)
    ev_put_nb(tr, h, 0)
    ev_end_nb(tr, h)
    snapshot_nb(cf, st, tr)
    advance_nb(cf, st, tr, act)
    _debug_nb(cf, st)


@njit(cache=True, _nrt=False)
def invariant_nb(cf, st):
    """Tokens conserved, 48 tiles accounted for, the bounding box within 6 x 8, every placed
    side matching or touching a neutral section, hobbits in different regions, and no debug
    check found it broken before (``S_BAD``). 1 if all hold."""
    if st[S_BAD] != 0:
        return 0
    ntok = cf[C_NTOK]
    instack = 0
    for c in range(4):
        instack += st[S_TN + c] - st[S_TPOS + c]
    nstack = 0
    nmap = 0
    for t in range(ntok):
        w = st[O_TWHERE + t]
        if w == T_STACK:
            nstack += 1
        elif w == T_MAP:
            nmap += 1
    if nstack != instack or nmap != st[S_NTOKMAP]:
        return 0
    onmap = 0
    for k in range(NSEC):
        if st[O_PAR + k] == k and st[O_RTOK + k] >= 0:
            onmap += 1
            if st[O_TWHERE + st[O_RTOK + k]] != T_MAP:
                return 0
    if onmap != nmap:
        return 0
    tiles = st[S_NPLACED] + st[S_HANDN] + st[S_HANDN + 1] + (NTILE - st[S_DECKPOS]) + st[S_STOCKN]
    if tiles != NTILE + 1:
        return 0
    if st[S_RMAX] - st[S_RMIN] + 1 > MAP_R or st[S_CMAX] - st[S_CMIN] + 1 > MAP_C:
        return 0
    placed = 0
    for c in range(NSEC // 4):
        if st[O_CTILE + c] < 0:
            continue
        placed += 1
        for d in range(4):
            nc = cf[O_NBR + 4 * c + d]
            if nc < 0 or st[O_CTILE + nc] < 0:
                continue
            a = st[O_STER + 4 * c + d]
            b = st[O_STER + 4 * nc + (d + 2) % 4]
            if st[O_CNEU + c] == 0 and st[O_CNEU + nc] == 0 and a != b:
                return 0
            if (st[O_CNEU + c] == 1) != (st[O_CNEU + nc] == 1) and a != b:
                return 0
    if placed != st[S_NPLACED]:
        return 0
    h0 = st[S_HOB]
    h1 = st[S_HOB + 1]
    if h0 >= 0 and h1 >= 0 and find_nb(st, h0) == find_nb(st, h1):
        return 0
    return 1


@njit(cache=True, _nrt=False)
def doom_distance_nb(cf, st):
    """Moves from the Shire to Mount Doom over the finished map (any region, boats and
    hobbits ignored; the last move is onto Mount Doom, TS-5.4); -1 when there is none."""
    d = st[S_DOOM]
    if d < 0 or st[S_NPLACED] < NTILE + 1:
        return -1
    st[S_STAMP] += 1
    stamp = st[S_STAMP]
    q0 = 0
    q1 = centre_regions_nb(st, SHIRE_CELL, O_QUEUE, 0)
    for j in range(q1):
        r = st[O_QUEUE + j]
        st[O_SEEN + r] = stamp
        st[O_DIST + r] = 1
    while q0 < q1:
        r = st[O_QUEUE + q0]
        q0 += 1
        if touches_cell_nb(st, r, d):
            return st[O_DIST + r] + 1
        n = region_neighbours_nb(st, r, O_TMP, 0, 128)
        for j in range(n):
            x = st[O_TMP + j]
            if st[O_SEEN + x] != stamp:
                st[O_SEEN + x] = stamp
                st[O_DIST + x] = st[O_DIST + r] + 1
                st[O_QUEUE + q1] = x
                q1 += 1
    return -1


@njit(cache=True, _nrt=False)
def record_nb(cf, st, row, out):
    """One game's outcome row (columns in game.py)."""
    out[row, 0] = st[S_WINNER]
    out[row, 1] = st[S_REASON]
    out[row, 2] = st[S_ROUND]
    out[row, 3] = st[S_TURN]
    out[row, 4] = st[S_POINTS]
    out[row, 5] = st[S_POINTS + 1]
    out[row, 6] = st[S_TOKPTS]
    out[row, 7] = st[S_TOKPTS + 1]
    out[row, 8] = st[S_USEDN]
    out[row, 9] = st[S_USEDN + 1]
    out[row, 10] = st[S_DOOMPTS]
    out[row, 11] = st[S_DOOMPTS + 1]
    out[row, 12] = st[S_REACHED]
    out[row, 13] = st[S_NNEUTRAL]
    out[row, 14] = st[S_UNPL]
    out[row, 15] = st[S_UNPL + 1]
    out[row, 16] = map_cell_nb(st, st[S_DOOM])
    out[row, 17] = st[S_P1TURNS]
    out[row, 18] = st[S_P2TURNS]
    out[row, 19] = st[S_P3TURNS]
    out[row, 20] = st[S_NTAKEN]
    out[row, 21] = st[S_NTAKEN + 1]
    out[row, 22] = st[S_BAD]
    out[row, 23] = st[S_SITES] + st[S_SITES + 1] + st[S_SITES + 2] + st[S_SITES + 3]
    out[row, 24] = st[S_BOATS]
    out[row, 25] = st[S_NTOKMAP]
    for c in range(4):
        out[row, 26 + c] = st[S_SITES + c]
    left = 0
    for c in range(4):
        left += st[S_TN + c] - st[S_TPOS + c]
    out[row, 30] = left
    out[row, 31] = doom_distance_nb(cf, st)


@njit(cache=True, _nrt=False)
def to_move_nb(st):
    """The seat to move; -1 once the game is over."""
    return -1 if st[S_PHASE] == OVER else st[S_SEAT]


@njit(cache=True, _nrt=False, nogil=True)
def run_until_nb(cf, wp, pol, st, tr, act, scr, s, mask):
    """Built-in players (``pol[seat]``) play until a seat in ``mask`` is to move (returned)
    or the game ends (-1)."""
    while st[S_PHASE] != OVER:
        seat = st[S_SEAT]
        if (mask >> seat) & 1:
            return seat
        n = st[S_NLEGAL]
        i = choose_nb(cf, wp, pol, st, act, scr, s, n)
        apply_nb(cf, wp, pol, st, tr, act, scr, s, i)
        if st[S_STEPS] > MAX_STEPS:
            end_game_nb(cf, st, tr, R_CAP)
    return -1


@njit(cache=True, nogil=True)
def simulate_nb(cf, wp, pol, seed, first, debug, lo, hi, out):
    """Games ``first + lo .. first + hi - 1`` into rows ``lo .. hi - 1`` of ``out``."""
    st = np.zeros(ST_SIZE, dtype=np.int64)
    s = np.zeros(STATE_SIZE, dtype=np.uint64)
    tr = np.zeros(0, dtype=np.int64)
    act = np.zeros((600, 4), dtype=np.int64)
    buf = np.zeros(600, dtype=np.float64)
    for row in range(lo, hi):
        new_game_nb(cf, st, tr, act, s, seed, first + row, debug)
        # run_until_nb's loop (mask 0) written out: every jitted level re-optimises the whole
        # engine below it when compiled (see minas_tirith/game.py, first-run compile)
        while st[S_PHASE] != OVER:
            apply_nb(cf, wp, pol, st, tr, act, buf, s, choose_nb(cf, wp, pol, st, act, buf, s, st[S_NLEGAL]))
            if st[S_STEPS] > MAX_STEPS:
                end_game_nb(cf, st, tr, R_CAP)
        record_nb(cf, st, row, out)


DET_TMP = 2 * (NTILE + MAXTOK)        # determinize_nb's scratch (int64)


@njit(cache=True, _nrt=False)
def determinize_nb(cf, st, s, seat, tmp):
    """Resample what ``seat`` cannot see, from stream ``s`` (the search's playouts): the
    rival's hand together with the face-down tile stack (TS-2.1, TS-2.4), the face-down brown
    tokens on the map together with the brown stack (TS-2.2, TS-4.3; a monster being fought
    is turned up, TS-6.5, and stays), and the order of the other token stacks (whose contents
    are public). Each pool is sorted before it is shuffled, so the deal depends on what the
    seat knows (the pool's contents) and the stream, never on the hidden order or identities.
    ``tmp`` is int64 scratch of ``DET_TMP``."""
    riv = 1 - seat
    # tiles: the rival's hand and the undrawn tiles are one unseen pool
    nh = st[S_HANDN + riv]
    k = 0
    for j in range(nh):
        tmp[k] = st[O_HAND + HAND * riv + j]
        k += 1
    for j in range(st[S_DECKPOS], NTILE):
        tmp[k] = st[O_DECK + j]
        k += 1
    redeal_range_nb(s, tmp, 0, k)
    k = 0
    for j in range(nh):
        st[O_HAND + HAND * riv + j] = tmp[k]
        k += 1
    for j in range(st[S_DECKPOS], NTILE):
        st[O_DECK + j] = tmp[k]
        k += 1
    # brown tokens: face down on the map (at region roots) or in the stack; tmp holds the
    # tokens from 0 and their places (indices into st) from NTILE + MAXTOK
    P0 = NTILE + MAXTOK
    k = 0
    for r in range(NSEC):
        t = st[O_RTOK + r]
        if t >= 0 and st[O_PAR + r] == r and cf[O_TCOL + t] == MOUNTAIN and st[O_TWHERE + t] == T_MAP \
                and t != st[S_FTOKS] and t != st[S_FTOKS + 1]:
            tmp[k] = t
            tmp[P0 + k] = O_RTOK + r
            k += 1
    nmap = k
    for j in range(st[S_TPOS + MOUNTAIN], st[S_TN + MOUNTAIN]):
        tmp[k] = st[O_TSTK + MOUNTAIN * MAXTOK + j]
        tmp[P0 + k] = O_TSTK + MOUNTAIN * MAXTOK + j
        k += 1
    redeal_range_nb(s, tmp, 0, k)        # the places keep their order at P0
    for j in range(k):
        st[tmp[P0 + j]] = tmp[j]
        st[O_TWHERE + tmp[j]] = T_MAP if j < nmap else T_STACK
    for col in range(4):
        if col != MOUNTAIN:
            redeal_range_nb(s, st, O_TSTK + col * MAXTOK + st[S_TPOS + col], st[S_TN + col] - st[S_TPOS + col])


@njit(cache=True, nogil=True)
def features_nb(cf, wp, pol, st, act, scr, s, n, out):
    """What the learned player learns from, at any decision of more than one row: per legal
    row, the heuristic's own score (``pol`` row of the seat to move, its learned term left
    out) in column 0 and the row's features (policies.row_features_nb, ``NLF`` of them)
    after it. Returns 1 (0 with fewer than two rows: nothing written)."""
    if n < 2:
        return 0
    seat = st[S_SEAT]
    base_scores_nb(cf, pol, st, act, n, scr)
    for i in range(n):
        out[i, 0] = scr[i]
    refresh_learned_nb(cf, pol, st, True)
    for i in range(n):
        f = row_features_nb(cf, st, seat, act, i, True)
        for k in range(NLF):
            out[i, 1 + k] = f[k]
    return 1


@njit(cache=True, nogil=True)
def playouts_nb(cf, wp, pol, st, act, cands, m, key, hz, out):
    """For each candidate and j < m: a copy determinized from the searching seat's point of
    view (``determinize_nb``: the rival's hand and the unseen tiles, the face-down brown
    tokens and the brown stack, resampled from stream (key, j), the same for every candidate:
    common random numbers), the candidate applied, then the heuristics to the end;
    ``out[c, j]`` = winner code. ``hz`` is not read: this game's playouts always
    run to the end (its ``playout_horizon`` is False, so the adapter passes 0)."""
    st2 = np.zeros(ST_SIZE, dtype=np.int64)
    s2 = np.zeros(STATE_SIZE, dtype=np.uint64)
    tr = np.zeros(0, dtype=np.int64)
    act2 = np.zeros((600, 4), dtype=np.int64)
    buf = np.zeros(600, dtype=np.float64)
    tmp = np.zeros(DET_TMP, dtype=np.int64)
    n = act.shape[0]       # the whole buffer: rows past the legal ones are never read
    seat = st[S_SEAT]
    for j in range(m):
        for c in range(cands.shape[0]):
            st2[:] = st
            for k in range(n):
                for q in range(4):
                    act2[k, q] = act[k, q]
            stream_init_nb(key, j, s2)
            determinize_nb(cf, st2, s2, seat, tmp)
            apply_nb(cf, wp, pol, st2, tr, act2, buf, s2, cands[c])
            run_until_nb(cf, wp, pol, st2, tr, act2, buf, s2, 0)
            out[c, j] = st2[S_WINNER]


_ = scores_nb    # re-exported: every game's kernels module has the common kernels (games/adapter.py)
no_literal_dispatch(globals())
