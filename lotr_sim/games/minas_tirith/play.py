"""Minas Tirith games: set-up, turns and rounds, the step machine, whole games.

Rules: the set-up (MT-2, MT-3: ``setup_nb``), rounds and turns (MT-4: ``advance_nb`` rolls the
mission dice MT-4.2, ``begin_turn_nb`` draws MT-4.5 and runs the card step MT-5,
``finish_turn_nb`` / ``end_turn_nb`` end a turn MT-8.3, and the deck end MT-10.3). The step
machine (``to_move_nb``, ``legal_nb``, ``apply_nb``, ``choose_nb``,
``run_until_nb``) is the whole game: ``play_game_nb`` is its loop; ``simulate_nb`` plays a range
of games (game i always uses stream (seed, i)), ``play_one_nb`` one traced game.
lotr_sim.games.minas_tirith.game calls the step machine's kernels directly (they release the
GIL) and, for a search player, ``scores_nb`` and ``playouts_nb``: a thin jitted
wrapper would re-optimise the whole engine below it on a search user's first run.

What a seat cannot know (the game contract's hidden information): the order of
the two face-down piles, the same for both seats - the reinforcement deck ``O_DORD[S_DTOP:]``
(MT-3.1; drawn from the top, MT-4.5) and the Minas Tirith deck ``O_MTORD[S_MTTOP:]`` (MT-3.2;
its top card is drawn for a set, MT-5.3, its top two for the bonus trade, MT-5.4 a). Their
contents are public: every card not yet drawn (drawn reinforcement cards lie face up, MT-5.1;
the Minas Tirith card drawn for a trade is kept or discarded in the open, MT-5.3; ``O_CST``
says where each Minas Tirith card is, 0 = in the deck), and so are their sizes. Everything
else in the state is open: the hands of reinforcement cards (face up, MT-5.1), the Minas
Tirith cards each side holds (the Swedish rulebook: "Lägg Minas Tirith-kort som du drar med
framsidan uppåt framför dig", drawn Minas Tirith cards lie face up in front of their owner),
the discard pile of
Minas Tirith cards (MT-5.4 b takes from it), the board, the pools and the mission dice
(MT-4.2). Traded reinforcement cards leave the game (MT-5.3: never reshuffled), so no other
pile exists. The combat and mission dice still to be rolled come from the stream, never from
the state. ``determinize_nb`` deals the two deck orders again from a stream; the search
player's playouts (``playouts_nb``) run on such a copy, so the search sees no more than
its seat; the built-in heuristics read the piles' sizes only (``S_DTOP``, ``S_MTTOP``: the
bonus option MT-5.4 a is chosen while the deck is not empty; holder cards are played when
few reinforcement cards are left), never their order. Checked by reading every use of
``O_DORD``, ``O_MTORD``, ``S_DTOP`` and ``S_MTTOP``: the orders are read only by the draws
themselves (``cards.draw_cards_nb``, ``cards.mt_draw_nb``), and a choice made after a draw
(the card kept of two, MT-5.4 a) sees only the cards drawn; and by
tests/games/minas_tirith/test_mt_hidden.py (permuted orders change no score or choice).

Documented simplification: a game stops after ``MAX_TURNS`` turns (a deck that never runs
out) as a "deck" ending.
"""
from __future__ import annotations

import numpy as np

from lotr_sim._numba.jit import njit
from lotr_sim.kernels.piles import redeal_range_nb, shuffle_range_nb
from lotr_sim.kernels.rng import STATE_SIZE, d6_nb, randint_nb, stream_init_nb
from lotr_sim.games.minas_tirith.config import (
    C_NC, C_ND, C_NL, C_NU, C_T, MAXU, O_LCOL, O_LSIDE, O_LSTART, O_SETUP, O_UTOT, P_BOMB_LOSS, P_END_LAST,
    P_LEADER_TO, P_MISSION_BASE,
)
from lotr_sim.games.minas_tirith.layout import (
    A_CARD, A_DIE, A_LOSE, A_PASS, A_RETREAT, LF_DIE, NLF, NLF_DIE, PH_CARD, PL_CARDS, PL_PASS, PL_TYPE, EVIL, EV_SETUP, EV_TURN, GOOD, MAXA, MAX_TURNS, O_CAPT, O_CFIRED, O_CLOC, O_DMG, O_DORD,
    O_DRAWN, O_FIRED, O_LLOC, O_MTORD, O_POOL, O_UNITS, PH_ACT, PH_DIE, PH_LOSS, PH_RETREAT, PH_ROUND, R_DECK, ST_SIZE, S_BAD,
    S_BADTURN, S_DEBUG, S_DECKOUT, S_DICE, S_DIE, S_GAMEIDX, S_LCAP, S_MISS, S_NDRAWN, S_OVER, S_PE, S_PG,
    S_LOSS_N, S_LOSS_SEAT, S_PHASE, S_RT_SIDE, S_REASON, S_ROUND, S_SIDE, S_TIR, S_TURN, S_DTOP, S_MTTOP, S_TURNEND, S_USED, S_WINNER, W_DRAW,
)
from lotr_sim.games.minas_tirith.events import (
    STREAM_SIZE, decision_nb, event_nb, snapshot_nb,
)
from lotr_sim.kernels.tracebuf import TR_HEADER, TR_POS, ev_end_nb, ev_put_reserved_nb
from lotr_sim.games.minas_tirith.board import _debug_check_nb, check_win_nb, end_game_nb, invariant_nb, side_units_nb
from lotr_sim.games.minas_tirith.combat import (
    assault_resume_nb, catapults_check_nb, lose_one_nb, loss_options_nb, next_loss_nb, remove_leader_nb,
    retreat_choice_nb, retreat_go_nb, retreat_options_nb, retreat_step_nb, retreat_value_nb,
)
from lotr_sim.games.minas_tirith.policies import (
    choose_action_nb, choose_die_nb, die_cw_nb, die_features_nb, die_state_nb, die_value_nb, learned_bonus_nb, learned_on_nb,
    refresh_learned_nb, row_features_nb, score_action_nb,
)
from lotr_sim.games.minas_tirith.cards import (
    card_options_nb, card_phase_nb, card_score_nb, card_step_nb, draw_cards_nb,
)
from lotr_sim.games.minas_tirith.actions import do_action_nb, enum_actions_nb


@njit(cache=True, _nrt=False)
def end_turn_nb(cf, st, tr, side):
    """MT-8.3: leaders without own combat units are removed; two leaders of one colour may
    not end a turn together (one is removed)."""
    to_cap = cf[P_LEADER_TO]
    for l in range(cf[C_NL]):
        if cf[O_LSIDE + l] != side:
            continue
        t = st[O_LLOC + l]
        if t < 0:
            continue
        if side_units_nb(cf, st, t, side) == 0:
            remove_leader_nb(cf, st, tr, l, 0, to_cap)
    for l in range(cf[C_NL]):
        if cf[O_LSIDE + l] != side or st[O_LLOC + l] < 0:
            continue
        for m in range(l):
            if cf[O_LSIDE + m] == side and st[O_LLOC + m] == st[O_LLOC + l] and cf[O_LCOL + m] == cf[O_LCOL + l]:
                remove_leader_nb(cf, st, tr, l, 1, to_cap)
                break
    catapults_check_nb(cf, st, tr)
    check_win_nb(cf, st, tr)


@njit(cache=True, _nrt=False)
def setup_nb(cf, st, s):
    """MT-2 / MT-3: the set-up, pools, shuffled decks."""
    for i in range(st.shape[0]):
        st[i] = 0
    T = cf[C_T]
    NU = cf[C_NU]
    for u in range(NU):
        st[O_POOL + u] = cf[O_UTOT + u]
    for t in range(T):
        for u in range(NU):
            v = cf[O_SETUP + t * MAXU + u]
            st[O_UNITS + t * MAXU + u] = v
            st[O_POOL + u] -= v
    for l in range(cf[C_NL]):
        st[O_LLOC + l] = cf[O_LSTART + l]
    nc = cf[C_NC]
    for c in range(nc):
        st[O_MTORD + c] = c
        st[O_CLOC + c] = -1
    shuffle_range_nb(s, st, O_MTORD, nc)  # MT-3: the Minas Tirith deck
    nd = cf[C_ND]
    for c in range(nd):
        st[O_DORD + c] = c
    shuffle_range_nb(s, st, O_DORD, nd)   # MT-3: the reinforcement deck


DET_TMP = 0     # determinize_nb's scratch (int64): none needed (the common signature has one)


@njit(cache=True, _nrt=False)
def determinize_nb(cf, st, s, seat, tmp):
    """Deal again what ``seat`` cannot know, in place, from stream ``s``: the order of the
    reinforcement deck still to draw (MT-3.1, MT-4.5) and of the Minas Tirith deck (MT-3.2,
    MT-5.3, MT-5.4 a). Both piles keep their size and contents (public: the cards not yet
    drawn, MT-5.1, MT-5.3) and everything drawn stays where it is. Each pile is sorted before
    it is shuffled, so the deal depends only on what the seat knows and on the stream, never
    on the order it had. Neither seat knows more than the other (hands are open, MT-5.1), so
    the deal is the same for ``seat`` 0 and 1; ``seat`` is the contract's argument."""
    redeal_range_nb(s, st, O_DORD + st[S_DTOP], cf[C_ND] - st[S_DTOP])
    redeal_range_nb(s, st, O_MTORD + st[S_MTTOP], cf[C_NC] - st[S_MTTOP])


# ---- the step machine: legal_actions / apply / to_move / is_over, chance inside ----
# A game is a loop "the player to move picks one of the legal actions, apply it". Between
# two calls the state always rests at a decision (or the game is over): ``apply_nb`` resolves
# everything up to the next one (dice, card draws, end of turn, the next round's dice) from
# the stream ``s`` held beside the state. Decisions: PH_DIE (MT-4.2/4.5: which unused mission
# die; rows (A_DIE, slot, face)), PH_ACT (MT-6/7/9: the action menu of enum_actions_nb,
# PASS included), the losses of a roll (PH_LOSS / PH_ALOSS / PH_DLOSS, MT-7.2/7.4: rows
# (A_LOSE, unit type, ...)), a retreat step with several destinations (PH_RETREAT, MT-7.5:
# rows (A_RETREAT, territory, ...)) and, for a seat with PL_CARDS (held by a player from
# lotr_sim.players), each play of the card step (PH_CARD, MT-5: rows (A_CARD, CD_*, ...), see
# cards.card_options_nb); the built-in policies make their card step inside the engine
# (card_phase_nb) as before. Leaders following a move are still made inside the engine by the
# seat's heuristic (see the module docstring of game.py).


@njit(cache=True, _nrt=False)
def begin_turn_nb(cf, st, tr, s, pol, side, die, scr, act):
    """MT-4.5 and MT-5: the chosen die draws its cards, the turn event, the card step (left
    at PH_CARD when it is the seat's decision and it has a card play)."""
    st[S_SIDE] = side
    st[S_TURN] += 1
    st[S_DIE] = die
    base = cf[P_MISSION_BASE]
    ncards = base - die
    if ncards < 0:
        ncards = 0
    nd = draw_cards_nb(cf, st, side, ncards)
    st[S_NDRAWN] = nd
    st[S_MISS] = die
    st[S_TURNEND] = 0
    for t in range(cf[C_T]):
        st[O_FIRED + t] = 0
        st[O_DMG + t] = 0
    for c in range(cf[C_NC]):
        st[O_CFIRED + c] = 0
    h = event_nb(st, tr, EV_TURN)
    if h >= 0:
        for i in range(3):
            ev_put_reserved_nb(tr, h, st[S_DICE + i] if st[S_TIR] == 1 else -1)
        ev_put_reserved_nb(tr, h, die)
        ev_put_reserved_nb(tr, h, die)
        ev_put_reserved_nb(tr, h, nd)
        for i in range(nd):
            ev_put_reserved_nb(tr, h, st[O_DRAWN + i] if i < 16 else -1)
        snapshot_nb(cf, st, tr, h)
        ev_end_nb(tr, h)
    if st[S_DECKOUT] == 1 and cf[P_END_LAST] == 0:
        end_game_nb(cf, st, tr, W_DRAW, R_DECK)  # MT-10.3 immediate
        return
    if pol[side, PL_CARDS] != 0 and card_options_nb(cf, st, side, act, False) > 0:
        st[S_PHASE] = PH_CARD   # MT-5: the seat's player makes the card step, play by play
        return
    card_phase_nb(cf, st, tr, s, pol, side, scr, 200)
    _debug_check_nb(cf, st)


@njit(cache=True, _nrt=False)
def finish_turn_nb(cf, st, tr):
    """MT-8.3 end of turn, MT-10.3 deck end, then the next turn's seat (or a new round)."""
    side = st[S_SIDE]
    if st[S_OVER] == 0:
        end_turn_nb(cf, st, tr, side)
    _debug_check_nb(cf, st)
    if st[S_OVER] == 0 and st[S_DECKOUT] == 1:
        end_game_nb(cf, st, tr, W_DRAW, R_DECK)
    if st[S_OVER] == 1:
        return
    if st[S_TURN] >= MAX_TURNS:
        end_game_nb(cf, st, tr, W_DRAW, R_DECK)
        return
    if st[S_TIR] >= 3:
        st[S_PHASE] = PH_ROUND
    else:
        first = GOOD if st[S_ROUND] % 2 == 1 else EVIL
        st[S_TIR] += 1
        st[S_SIDE] = first if st[S_TIR] != 2 else 1 - first
        st[S_PHASE] = PH_DIE


@njit(cache=True, _nrt=False)
def advance_nb(cf, st, s):
    """Resolve chance up to the next decision: a new round rolls its three mission dice
    (MT-4: odd rounds Good-Evil-Good, even rounds Evil-Good-Evil)."""
    if st[S_OVER] == 0 and st[S_PHASE] == PH_ROUND:
        st[S_ROUND] += 1
        first = GOOD if st[S_ROUND] % 2 == 1 else EVIL
        for i in range(3):
            st[S_DICE + i] = d6_nb(s)
        st[S_USED] = 0
        st[S_TIR] = 1
        st[S_SIDE] = first
        st[S_PHASE] = PH_DIE


@njit(cache=True, _nrt=False, nogil=True)
def new_game_nb(cf, st, tr, act, s, seed, index, debug):
    """MT-2/MT-3: stream (seed, index), the set-up, resting at the first decision (``act``
    unused: the common signature, lotr_sim.games.adapter)."""
    stream_init_nb(seed, index, s)
    setup_nb(cf, st, s)
    st[S_DEBUG] = debug
    st[S_GAMEIDX] = index
    h = event_nb(st, tr, EV_SETUP)
    snapshot_nb(cf, st, tr, h)
    ev_end_nb(tr, h)
    _debug_check_nb(cf, st)
    st[S_PHASE] = PH_ROUND
    advance_nb(cf, st, s)


@njit(cache=True, _nrt=False)
def to_move_nb(st):
    """The seat (0 Good, 1 Evil) whose decision it is; -1 once the game is over."""
    if st[S_OVER] != 0:
        return -1
    if st[S_PHASE] == PH_RETREAT:  # MT-7.5: the retreating side
        return st[S_RT_SIDE]
    if st[S_PHASE] == PH_CARD:     # MT-5: the seat whose turn it is
        return st[S_SIDE]
    if st[S_PHASE] >= PH_LOSS:   # PH_LOSS, PH_ALOSS, PH_DLOSS: the loser (or the shooter)
        return st[S_LOSS_SEAT]
    return st[S_SIDE]


@njit(cache=True, _nrt=False, nogil=True)
def legal_nb(cf, st, act):
    """Every action of the decision the state rests at, as rows of ``act``; returns n >= 1
    (0 once the game is over)."""
    if st[S_OVER] != 0:
        return 0
    if st[S_PHASE] == PH_DIE:
        n = 0
        for i in range(3):
            if not (st[S_USED] >> i) & 1:
                act[n, 0] = A_DIE
                act[n, 1] = i
                act[n, 2] = st[S_DICE + i]
                act[n, 3] = 0
                act[n, 4] = 0
                act[n, 5] = 0
                n += 1
        return n
    if st[S_PHASE] == PH_RETREAT:
        return retreat_options_nb(cf, st, act)
    if st[S_PHASE] == PH_CARD:
        return card_options_nb(cf, st, st[S_SIDE], act, True)
    if st[S_PHASE] >= PH_LOSS:
        return loss_options_nb(cf, st, act)
    return enum_actions_nb(cf, st, st[S_SIDE], act)


@njit(cache=True, _nrt=False, nogil=True)
def apply_nb(cf, wp, pol, st, tr, act, scr, s, i):
    """Apply legal action ``act[i]`` of the current decision and resolve everything up to the
    next decision (``act`` must hold this state's legal_nb; ``wp`` unused: the common signature)."""
    side = st[S_SIDE]
    if act[i, 0] == A_DIE or act[i, 0] == A_CARD:
        if act[i, 0] == A_DIE:
            slot = act[i, 1]
            st[S_USED] |= 1 << slot
            begin_turn_nb(cf, st, tr, s, pol, side, st[S_DICE + slot], scr, act)
            if st[S_PHASE] == PH_CARD:
                return
        else:
            # MT-5: one play of the card step; the step goes on (PH_CARD) until the seat
            # stops or has no play left, then the hand limit and the turn as after begin_turn_nb
            st[S_PHASE] = PH_DIE
            if card_step_nb(cf, st, tr, s, pol, side, act, i, scr):
                st[S_PHASE] = PH_CARD
                return
            _debug_check_nb(cf, st)
        if st[S_OVER] == 1:
            return
        if st[S_MISS] > 0 and st[S_TURNEND] == 0:
            st[S_PHASE] = PH_ACT
            return
        finish_turn_nb(cf, st, tr)
    elif act[i, 0] == A_PASS:
        finish_turn_nb(cf, st, tr)
    else:
        if act[i, 0] == A_LOSE:
            # MT-7.2 / MT-7.4: one hit on the chosen unit type; then the next hit, the
            # defender's losses, or the rest of the bombardment or assault and its checks
            lose_one_nb(cf, st, tr, act[i, 2], act[i, 1])
            st[S_LOSS_N] -= 1
            if next_loss_nb(cf, st, tr, s, pol):
                return
            catapults_check_nb(cf, st, tr)
            check_win_nb(cf, st, tr)
        elif act[i, 0] == A_RETREAT:
            # MT-7.5: one step to the chosen territory; then the retreat's other steps (the
            # next decision, if one has several destinations) and the rest of the assault
            retreat_step_nb(cf, st, act[i, 1])
            st[S_PHASE] = PH_ACT
            if retreat_go_nb(cf, st, tr, s, pol, True):
                return
            assault_resume_nb(cf, st, tr, s, pol)
            catapults_check_nb(cf, st, tr)
            check_win_nb(cf, st, tr)
        else:
            st[S_MISS] -= 1
            do_action_nb(cf, st, tr, s, pol, side, act, i)
            if st[S_PHASE] >= PH_LOSS:
                return  # the losses of the roll are the next decisions
        _debug_check_nb(cf, st)
        if st[S_MISS] > 0 and st[S_OVER] == 0 and st[S_TURNEND] == 0:
            return
        finish_turn_nb(cf, st, tr)
    advance_nb(cf, st, s)


@njit(cache=True, _nrt=False, nogil=True)
def choose_nb(cf, wp, pol, st, act, scr, s, n):
    """The built-in policy of the seat to move (random or a heuristic, ``pol`` row) picks one
    of the ``n`` legal actions in ``act``; returns its index (``scr`` unused: the common signature)."""
    side = st[S_SIDE]
    if st[S_PHASE] == PH_DIE:
        slot = choose_die_nb(cf, st, s, pol, side, st[S_USED])
        for i in range(n):
            if act[i, 1] == slot:
                return i
        return 0
    if st[S_PHASE] == PH_CARD:
        # MT-5: the heuristic's card play is card_phase_nb's; the random player draws a row
        # (built-in seats make their card step inside the engine, so this serves callers only)
        if pol[side, PL_TYPE] == 0:
            return randint_nb(s, n)
        best = 0
        bv = -1.0
        for r in range(n):   # the first highest card_score_nb
            v = card_score_nb(cf, st, side, act, r)
            if v > bv:
                bv = v
                best = r
        return best
    if st[S_PHASE] == PH_RETREAT:
        # MT-7.5: the heuristic retreats to the territory with most own units, the random
        # player draws once per destination (as the engine did before retreats were decisions)
        return retreat_choice_nb(cf, st, pol, s, act, n)
    if st[S_PHASE] >= PH_LOSS:
        # every built-in player (random too: it draws nothing here) loses the cheapest
        # units first; under bombard_loss_choice = shooter the shooter takes the dearest
        return n - 1 if st[S_PHASE] == PH_LOSS and cf[P_BOMB_LOSS] == 1 else 0
    return choose_action_nb(cf, st, wp, pol, s, side, act, n)


@njit(cache=True, _nrt=False, nogil=True)
def run_until_nb(cf, wp, pol, st, tr, act, scr, s, mask):
    """Play built-in policies until a seat in ``mask`` (bit per seat) is to move or the
    game ends; returns the seat to move (-1: over). ``mask = 0`` plays to the end. A
    traced game logs each decision before applying it (``decision_nb``); a decision of a seat
    held in Python is logged by ``MinasTirith._apply_legal``, with the same kernel."""
    while st[S_OVER] == 0:
        seat = to_move_nb(st)
        if (mask >> seat) & 1:
            return seat
        n = legal_nb(cf, st, act)
        i = choose_nb(cf, wp, pol, st, act, scr, s, n)
        decision_nb(st, tr, seat, act, i, n)   # the trace's "decision" event (no-op untraced)
        apply_nb(cf, wp, pol, st, tr, act, scr, s, i)
    return -1


@njit(cache=True, _nrt=False)
def play_game_nb(cf, wp, pol, seed, index, st, tr, act, scr, s, debug):
    """One whole game (MT-4) with built-in policies: the step machine's loop."""
    new_game_nb(cf, st, tr, act, s, seed, index, debug)
    run_until_nb(cf, wp, pol, st, tr, act, scr, s, 0)


@njit(cache=True, _nrt=False)
def record_nb(cf, st, row, out):
    """One finished game's outcome row (columns in game.py)."""
    out[row, 0] = st[S_WINNER]
    out[row, 1] = st[S_REASON]
    out[row, 2] = st[S_ROUND]
    out[row, 3] = st[S_TURN]
    out[row, 4] = st[S_PG]
    out[row, 5] = st[S_PE]
    out[row, 6] = st[S_LCAP + EVIL]   # Good leaders lost
    out[row, 7] = st[S_LCAP + GOOD]   # Evil leaders lost
    out[row, 8] = st[S_BAD]
    out[row, 9] = st[S_BADTURN]
    for u in range(cf[C_NU]):
        out[row, 10 + u] = st[O_CAPT + u]


@njit(cache=True, nogil=True)
def simulate_nb(cf, wp, pol, seed, first, debug, lo, hi, out):
    """Games first+lo .. first+hi-1 into rows lo..hi-1 of ``out`` (int64 [n, 10 + NU]).

    Game i uses stream (seed, i), so rows do not depend on how the range is split. The
    kernel releases the GIL: ``MinasTirith.simulate`` runs chunks on a thread pool, which
    gives the same parallelism as prange without compiling the engine a second time in a
    parallel context (that cost ~12 s of the first run's compile)."""
    st = np.zeros(ST_SIZE, dtype=np.int64)
    tr = np.zeros(0, dtype=np.int64)
    act = np.zeros((MAXA, 6), dtype=np.int64)
    scr = np.zeros(8, dtype=np.int64)
    s = np.zeros(STATE_SIZE, dtype=np.uint64)
    for i in range(lo, hi):
        # play_game_nb's loop written out here: one jitted level less to compile (see
        # game.py, first-run compile)
        new_game_nb(cf, st, tr, act, s, seed, first + i, debug)
        while st[S_OVER] == 0:
            n = legal_nb(cf, st, act)
            apply_nb(cf, wp, pol, st, tr, act, scr, s, choose_nb(cf, wp, pol, st, act, scr, s, n))
        record_nb(cf, st, i, out)


@njit(cache=True)
def play_one_nb(cf, wp, pol, seed, index, tr, debug):
    """One game with a trace buffer (lotr_sim.kernels.tracebuf); returns (state, the trace's
    write position)."""
    st = np.zeros(ST_SIZE, dtype=np.int64)
    act = np.zeros((MAXA, 6), dtype=np.int64)
    scr = np.zeros(8, dtype=np.int64)
    s = np.zeros(STREAM_SIZE, dtype=np.uint64)  # room to replay the dice faces into the trace
    play_game_nb(cf, wp, pol, seed, index, st, tr, act, scr, s, debug)
    return st, tr[TR_POS] if tr.shape[0] >= TR_HEADER else np.int64(0)


@njit(cache=True, nogil=True)
def scores_nb(cf, wp, pol, st, act, scr, s, n, out):
    """The heuristic score of each legal action for the seat to move (``pol`` row, which
    must be a heuristic's): actions as choose_action_nb scores them (PASS 0); at a mission-die
    or loss decision the heuristic's pick scores 1, the others 0; at a retreat decision each
    destination scores the heuristic's value of it (the highest is its pick); at a card
    decision card_score_nb (the first highest is card_phase_nb's choice)."""
    side = st[S_SIDE]
    if st[S_PHASE] == PH_DIE:
        slot = choose_die_nb(cf, st, s, pol, side, st[S_USED])
        for i in range(n):
            out[i] = 1.0 if act[i, 1] == slot else 0.0
        return
    if st[S_PHASE] == PH_CARD:     # MT-5: the heuristic's value of each card play
        for i in range(n):
            out[i] = card_score_nb(cf, st, side, act, i)
        return
    if st[S_PHASE] == PH_RETREAT:  # the heuristic's value of each destination (MT-7.5)
        for i in range(n):
            out[i] = retreat_value_nb(cf, st, s, pol, act[i, 1], act[i, 4])
        return
    if st[S_PHASE] >= PH_LOSS:
        pick = choose_nb(cf, wp, pol, st, act, scr, s, n)
        for i in range(n):
            out[i] = 1.0 if i == pick else 0.0
        return
    out[0] = pol[side, PL_PASS]
    for i in range(1, n):
        out[i] = score_action_nb(cf, st, wp, pol, side, act, i)
    if learned_on_nb(pol, side):   # the learned player's term (policies.learned_bonus_nb)
        refresh_learned_nb(cf, st, side)
        for i in range(n):
            out[i] += learned_bonus_nb(cf, st, wp, pol, side, act, i)


@njit(cache=True, nogil=True)
def features_nb(cf, wp, pol, st, act, scr, s, n, out):
    """What the learned player learns from, at a mission-phase action decision (MT-6/MT-7)
    or a mission die's (MT-4.2/4.5): per legal row, the heuristic's own score (``pol`` row,
    its learned term left out: at a die, policies.die_value_nb) in column 0 and the row's
    features (policies.row_features_nb or die_features_nb, ``NLF`` of them, each kind's
    slots only) after it. Returns 1, or 0 at any other decision (losses, retreats, cards:
    nothing written)."""
    side = st[S_SIDE]
    if st[S_PHASE] == PH_DIE:
        cw = die_cw_nb(cf, st, pol, side)
        ctx = die_state_nb(cf, st, side)
        for i in range(n):
            slot = act[i, 1]
            out[i, 0] = die_value_nb(cf, pol, side, cw, st[S_DICE + slot])
            for k in range(NLF):
                out[i, 1 + k] = 0.0
            f = die_features_nb(st, st[S_USED], slot, ctx)
            for k in range(NLF_DIE):
                out[i, 1 + LF_DIE + k] = f[k]
        return 1
    if st[S_PHASE] != PH_ACT:
        return 0
    refresh_learned_nb(cf, st, side)
    for i in range(n):
        out[i, 0] = pol[side, PL_PASS] if i == 0 else score_action_nb(cf, st, wp, pol, side, act, i)
        f = row_features_nb(cf, st, wp, side, act, i)
        for k in range(NLF):
            out[i, 1 + k] = f[k]
    return 1


@njit(cache=True, nogil=True)
def playouts_nb(cf, wp, pol, st, act, cands, m, key, hz, out):
    """Look-ahead for a search player: for each candidate ``act[cands[c]]`` and each j < m,
    a copy of ``st`` is determinized from the searching seat's point of view (the seat to move
    in ``st``; ``determinize_nb``: the orders of the reinforcement and Minas Tirith decks dealt
    again), applies the candidate, and the built-in policies play to the end, the deal and the
    chance from stream (key, j) - the same deal and stream for every candidate (common random
    numbers). ``out[c, j]`` is the winner code (W_GOOD, W_EVIL, W_DRAW). ``hz`` is not read: this game's playouts always
    run to the end (its ``playout_horizon`` is False, so the adapter passes 0)."""
    st2 = np.empty_like(st)
    s2 = np.zeros(STATE_SIZE, dtype=np.uint64)
    act2 = np.zeros((MAXA, 6), dtype=np.int64)
    scr2 = np.zeros(8, dtype=np.int64)
    tr = np.zeros(0, dtype=np.int64)
    tmp = np.zeros(DET_TMP, dtype=np.int64)
    seat = to_move_nb(st)
    for j in range(m):
        for c in range(cands.shape[0]):
            for k in range(st.shape[0]):
                st2[k] = st[k]
            st2[S_DEBUG] = 0
            stream_init_nb(key, j, s2)
            determinize_nb(cf, st2, s2, seat, tmp)
            apply_nb(cf, wp, pol, st2, tr, act, scr2, s2, cands[c])
            run_until_nb(cf, wp, pol, st2, tr, act2, scr2, s2, 0)
            out[c, j] = st2[S_WINNER]


# Each helper compiles once, whatever constants its callers pass (see lotr_sim/_numba/dispatch.py).
from lotr_sim._numba.dispatch import no_literal_dispatch  # noqa: E402

_ = invariant_nb   # re-exported: every game's kernels module has the common kernels (games/adapter.py)
no_literal_dispatch(globals())
