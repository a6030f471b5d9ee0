"""The Minas Tirith game engine in numba: state in one flat int64 array, one game per call
of ``play_game_nb`` entirely inside njit, many games with ``simulate_nb`` (a GIL-free range
of games, run on a thread pool by game.py; game i always uses stream (seed, i)).

This module is a facade: ``from lotr_sim.games.minas_tirith import engine as E; E.name``
reaches every name of the engine. The code lives in modules named by role; rule IDs (MT-x.y)
refer to docs/rules/minas-tirith.md, the config layout (``cf``) is in config.py:

* layout.py    the state layout (``S_*`` slots, ``O_*`` offsets, ``ST_SIZE``) and the codes:
               events ``EV_*``, card kinds ``K_*`` (MT-9), actions ``A_*`` (MT-6/7), policy
               vector ``PL_*``, outcomes ``W_*``/``R_*`` (MT-10), phases ``PH_*`` (MT-4);
* events.py    the trace: events, position snapshots, the dice faces of a roll (MT-3.3, MT-7.4);
* board.py     board queries and caches, who may cross or stand where (MT-1, MT-2, MT-6.3-6.6,
               MT-9.1, MT-9.3), points and the end of the game (MT-10), the invariant;
* movement.py  moving units and leaders, the gate, card placements, the exchange (MT-6.2,
               MT-8.3, MT-9.4-9.7);
* combat.py    losses and captures (MT-1.4, MT-1.5), leaders removed (MT-8.4), assault (MT-7.3,
               MT-7.4, MT-8.2), retreat (MT-7.5), taking ground (MT-7.6), bombardment (MT-6.1,
               MT-7.2), catapults (MT-9.4);
* policies.py  the random player and the heuristic: mission die (MT-4.2/4.5), action scores,
               where pool units go;
* cards.py     the card step (MT-5: draws, trades, bonus trade, loads, hand limit) and the
               Muster of Gondor (MT-9.7);
* actions.py   the mission menu ``enum_actions_nb`` and ``do_action_nb`` (MT-6, MT-7);
* play.py      set-up (MT-2/3), rounds and turns (MT-4, MT-8.3, MT-10.3), the step machine
               (``legal_nb`` / ``apply_nb`` / ``run_until_nb``), whole games
               (``play_game_nb``, ``simulate_nb``, ``play_one_nb``) and the search player's
               ``scores_nb`` / ``playouts_nb`` (whose playouts deal the decks' orders
               again, ``determinize_nb``: what no seat can know).

Imports go one way: layout <- events <- board <- movement <- combat <- policies <- cards,
actions <- play.

The step machine's decisions (issue 8): the mission die (PH_DIE, MT-4.2/4.5), the action
menu (PH_ACT, MT-6/7/9, PASS included), and every loss of a roll, one decision per hit by
the player the rules name - bombardment (PH_LOSS, MT-7.2: the owner, or the shooter under
``bombard_loss_choice = shooter``) and assault, the attacker among the units that attacked,
then the defender (PH_ALOSS, PH_DLOSS, MT-7.4), every retreat step with several
destinations, by the retreating side (PH_RETREAT, MT-7.5), and - for a seat held by a player
from ``lotr_sim.players`` (policy column PL_CARDS) - each play of its card step (PH_CARD, MT-5:
trade a set MT-5.2/5.3, play the Muster of Gondor MT-9.7, load a hand card on a holder card
MT-5.5, or stop; ``cards.card_options_nb``). Built-in players make their card step inside the
engine (``card_phase_nb``, unchanged), and the heuristic's card row is exactly its choice. The
built-in players take losses
in the engine's fixed order (cheapest first; the shooter dearest first), the random player
too, and retreat as the engine did (most own units; the random player draws once per
destination), so their results are those of the engine before the port, game for game.

Where the engine still narrows a player's choices (documented simplifications; each is
stated in full in the module it concerns; a player from ``lotr_sim.players`` gets the greedy
heuristic's choice there):

* actions.py: actions are a finite menu (all or half of the units that may cross; 1-3 units
  in an assault); the random player is uniform over it.
* combat.py: creature damage is a counter reset every turn; retreat steps must be passable
  for the whole force (it does not split), the losses of blocked retreat steps are taken
  cheapest first, only the bonus giver among attacking leaders retreats with an attack, and the
  retreat/wipe-out cases follow lotr_sim.kernels.combat; archers that fired carry the count
  with them (MT-7.2).
* cards.py: one bonus per trade (MT-5.4); the Muster of Gondor is played in the card step.
  Within the card step (a decision for a Python player's seat) the bonus trade's option (MT-5.4
  a/b/c, its unit type and territory), which cards make up a set (own shield first, jokers
  last), where Muster units go, and the discards of the hand limit (MT-5.6) are the heuristic's.
* movement.py: a leader alone ends with own troops, leaders follow only an emptying move,
  the free cavalry move-in takes all surviving cavalry (MT-7.6); Grond also lets Evil move
  into an empty city, the first crossing breaks the gate, siege cards allow climbing down;
  MT-6.2 h exchanges the most valuable Evil creature type.
* play.py: a game stops after ``MAX_TURNS`` turns as a "deck" ending.

Speed: every kernel except the two entry points that allocate (simulate_nb, play_one_nb) is
compiled with _nrt=False: they never allocate, so they need no reference counting, and
without it each call no longer pays atomic incref/decref on every array argument (that
was ~3/4 of the run time). score_action_nb is inlined into choose_action_nb (its only
caller in a game): the call with ~50 scalarised array arguments cost more than the score.
Every module that defines kernels ends with ``no_literal_dispatch(globals())`` (each helper
compiles once, see lotr_sim/kernels/dispatch.py).

First-run compile: numba links every jitted callee into its caller's library and optimises
and emits it again there, so each jitted level pays once more for all the code below it. The
step machine's thin levels are therefore ``inline="always"`` - legal_nb, apply_nb,
choose_nb and, within apply_nb, begin_turn_nb, finish_turn_nb, do_action_nb,
next_loss_nb and card_step_nb: numba types their few lines in the caller and builds no
library of their own - and simulate_nb writes play_game_nb's loop out itself. Kernels with
long bodies (enum_actions_nb, assault_nb, ...) stay separate: inlining them too made the
first run ~15 s slower, numba's typing grows faster than the function. Likewise each call
site of the inlined ``d6_nb`` costs ~0.4 s, so a roll of several dice draws them in a loop
(``kernels.combat.dice_each_nb``).
"""
from __future__ import annotations

from lotr_sim.kernels.combat import (
    _dice5_nb, assault_roll_nb, bombard_nb,
)
from lotr_sim.kernels.piles import (
    shuffle_range_nb,
)
from lotr_sim.kernels.rng import (
    STATE_SIZE, d6_nb, randint_nb, stream_init_nb, uniform_nb,
)
from lotr_sim.games.minas_tirith.config import (
    C_CITY, C_NC, C_ND, C_NL, C_NU, C_T, MAXC, MAXD, MAXDEG, MAXL, MAXT, MAXU, N_AB, N_DB, O_BANNER, O_CACC,
    O_CENTRY, O_CKIND, O_CLEAD, O_CMUSTER, O_CRANGE, O_CSIDES, O_CTOWER, O_DCITY, O_DEVIL, O_DGOOD, O_DIST,
    O_DSHIELD, O_DTYPE, O_EK, O_LCOL, O_LORD, O_LREV, O_LSIDE, O_LSTART, O_NB, O_NBN, O_NEAR, O_NEARN,
    O_NTS, O_SETUP, O_TKIND, O_UARCH, O_UCLS, O_UPTS, O_USIDE, O_UTOT, P_BANNER_BONUS, P_BLOCKED,
    P_BOMB_LOSS, P_CREATURE_HITS, P_END_LAST, P_EVIL_DIV, P_GOOD_CRE_INF, P_HAND_DISCARD, P_HAND_LIMIT,
    P_HOLDER_CAP, P_LEADERS_WIN, P_LEADER_BONUS, P_LEADER_LAST, P_LEADER_TO, P_LEAVE_ONE, P_MISSION_BASE,
    P_PTS_GATE, P_PTS_LEADER, P_PTS_WALL, P_RETREAT, P_RETREAT_WIPED, P_SIEGE_BONUS, WMAX,
)
from .layout import (
    A_ASSAULT, A_BOMBARD, A_CATAPULT, A_CAV2, A_DIE, A_EXCHANGE, A_HOLDER, A_LCARD, A_LMOVE, A_LOSE, A_MOVE, A_PASS,
    A_CARD, CD_LOAD, CD_MUSTER, CD_STOP, CD_TRADE, PH_CARD, PL_CARDS,
    A_RETREAT, PH_RETREAT, S_RT_A, S_RT_CUR, S_RT_K, S_RT_LMASK, S_RT_NP, S_RT_SIDE, S_RT_STEPS, S_RT_VEC,
    EVIL, EV_ASSAULT, EV_BOMBARD, EV_CAPTURE, EV_CATLOST, EV_DISCARD, EV_END, EV_EXCHANGE, EV_GATE, EV_LOAD,
    EV_DECISION, EV_LREMOVED, EV_MOVE, EV_PLACE, EV_PLAYED, EV_RETREAT, EV_SETUP, EV_TRADE, EV_TURN, GOOD, HMAX,
    K_CATAPULT, K_GROND, K_HOLDER, K_LEADER, K_MUSTER, K_SIEGE, MAXA, MAX_TURNS, NPOL, O_CAPT, O_CFIRED,
    O_CLOC, O_CST, O_DEC, O_DMG, O_DORD, O_DRAWN, O_FIRED, O_HAND, O_HOLD, O_LAT, O_LLOC, O_MTORD, O_PATH,
    O_POOL, O_SCA, O_SCB, O_THR, O_TOT, O_UNITS, O_WKAT, PH_ACT, PH_ALOSS, PH_DIE, PH_DLOSS, PH_LOSS, PH_ROUND, PL_ADV, PL_CW, PL_DEF,
    PL_MW, PL_THR, PL_TYPE, R_CITY, R_DECK, R_LEADERS, STATE, ST_SIZE, S_BAD, S_BADTURN, S_DEBUG, S_DECKOUT,
    S_DICE, S_DIE, S_DTOP, S_GAMEIDX, S_GATE, S_HN, S_AS_A, S_AS_A6, S_AS_AB, S_AS_B, S_AS_D6, S_AS_LD, S_AS_SIDE, S_AS_WK, S_LCAP, S_LOSS_N, S_LOSS_SEAT,
    S_LOSS_SIDE, S_LOSS_T, S_MISS, S_MTTOP, S_NCHECK, S_NDRAWN, S_OVER,
    S_PE, S_PG, S_PHASE, S_REASON, S_ROUND, S_SIDE, S_TIR, S_TROVF, S_TRPOS, S_TURN, S_TURNEND, S_USED,
    S_WINNER, TR_MARGIN, W_DRAW, W_EVIL, W_GOOD,
)
from .events import (
    STREAM_SIZE, _put_assault_faces_nb, _stream_restore_nb, _stream_save_nb, _stream_swap_nb, decision_nb,
    ev_begin_nb, ev_end_nb, ev_put_nb, snapshot_nb,
)
from .board import (
    _debug_check_nb, check_win_nb, cross_fast_nb, cross_ok_nb, end_game_nb, holds_nb, invariant_ok_nb,
    leader_mask_at_nb, leaders_at_nb, may_stand_nb, mumak_type_nb, points_nb, refresh_tot_nb, side_units_nb,
    walls_ok_nb, wk_at_nb,
)
from .movement import (
    break_gate_nb, card_played_nb, exchange_nb, move_leader_nb, move_units_nb, place_catapult_nb,
    place_holder_nb, place_leader_card_nb, place_pool_nb,
)
from .combat import (
    _all_units_vec_nb, _first_leader_mask_nb, _modified_roll_nb, assault_bonus_nb, assault_nb,
    bombard_action_nb, bonus_fast_nb, capture_leader_nb, capture_unit_nb, catapults_check_nb,
    assault_after_nb, begin_losses_nb, finish_losses_nb, leaders_last_unit_nb, lose_one_nb, loss_options_nb,
    loss_count_nb, may_lose_nb, next_loss_nb, remove_leader_nb, retreat_nb,
    _assault_end_nb, _six_ends_turn_nb, assault_resume_nb, retreat_choice_nb, retreat_go_nb, retreat_ok_nb,
    retreat_options_nb, retreat_step_nb, retreat_value_nb,
    shooters_nb, take_losses_nb,
)
from .policies import (
    best_unit_territory_nb, choose_action_nb, choose_die_nb, good_want_nb, importance_nb, score_action_nb,
    threat_nb, winp_nb,
)
from .cards import (
    _placeable_nb, _set_nb, _tradeable_nb, card_options_nb, card_phase_nb, card_score_nb, card_step_nb, card_unit_types_nb, draw_cards_nb, hand_counts_nb,
    hand_remove_nb, holder_load_nb, keep_mt_nb, load_nb, mt_draw_nb, muster_nb, trade_nb, usable_nb,
)
from .actions import (
    _add_nb, _leader_path_ok_nb, _leader_reach3_nb, check_bombards_nb, check_caches_nb, do_action_nb,
    enum_actions_nb,
)
from .play import (
    DET_TMP, advance_nb, apply_nb, begin_turn_nb, choose_nb, determinize_nb, end_turn_nb,
    finish_turn_nb, invariant_nb, legal_nb, new_game_nb, play_game_nb, play_one_nb, record_nb, run_until_nb, setup_nb,
    simulate_nb, playouts_nb, scores_nb, to_move_nb,
)

__all__ = [
    'A_ASSAULT',
    'A_BOMBARD',
    'A_CATAPULT',
    'A_CAV2',
    'A_DIE',
    'A_EXCHANGE',
    'A_HOLDER',
    'A_LCARD',
    'A_LMOVE',
    'A_MOVE',
    'A_PASS',
    'C_CITY',
    'C_NC',
    'C_ND',
    'C_NL',
    'C_NU',
    'C_T',
    'EVIL',
    'EV_ASSAULT',
    'EV_BOMBARD',
    'EV_CAPTURE',
    'EV_CATLOST',
    'EV_DISCARD',
    'EV_END',
    'EV_EXCHANGE',
    'EV_GATE',
    'EV_LOAD',
    'EV_LREMOVED',
    'EV_MOVE',
    'EV_PLACE',
    'EV_PLAYED',
    'EV_RETREAT',
    'EV_SETUP',
    'EV_TRADE',
    'EV_TURN',
    'GOOD',
    'HMAX',
    'K_CATAPULT',
    'K_GROND',
    'K_HOLDER',
    'K_LEADER',
    'K_MUSTER',
    'K_SIEGE',
    'MAXA',
    'MAXC',
    'MAXD',
    'MAXDEG',
    'MAXL',
    'MAXT',
    'MAXU',
    'MAX_TURNS',
    'NPOL',
    'N_AB',
    'N_DB',
    'O_BANNER',
    'O_CACC',
    'O_CAPT',
    'O_CENTRY',
    'O_CFIRED',
    'O_CKIND',
    'O_CLEAD',
    'O_CLOC',
    'O_CMUSTER',
    'O_CRANGE',
    'O_CSIDES',
    'O_CST',
    'O_CTOWER',
    'O_DCITY',
    'O_DEC',
    'O_DEVIL',
    'O_DGOOD',
    'O_DIST',
    'O_DMG',
    'O_DORD',
    'O_DRAWN',
    'O_DSHIELD',
    'O_DTYPE',
    'O_EK',
    'O_FIRED',
    'O_HAND',
    'O_HOLD',
    'O_LAT',
    'O_LCOL',
    'O_LLOC',
    'O_LORD',
    'O_LREV',
    'O_LSIDE',
    'O_LSTART',
    'O_MTORD',
    'O_NB',
    'O_NBN',
    'O_NEAR',
    'O_NEARN',
    'O_NTS',
    'O_PATH',
    'O_POOL',
    'O_SCA',
    'O_SCB',
    'O_SETUP',
    'O_THR',
    'O_TKIND',
    'O_TOT',
    'O_UARCH',
    'O_UCLS',
    'O_UNITS',
    'O_UPTS',
    'O_USIDE',
    'O_UTOT',
    'O_WKAT',
    'PH_ACT',
    'PH_DIE',
    'PH_ROUND',
    'PL_ADV',
    'PL_CW',
    'PL_DEF',
    'PL_MW',
    'PL_THR',
    'PL_TYPE',
    'P_BANNER_BONUS',
    'P_BLOCKED',
    'P_BOMB_LOSS',
    'P_CREATURE_HITS',
    'P_END_LAST',
    'P_EVIL_DIV',
    'P_GOOD_CRE_INF',
    'P_HAND_DISCARD',
    'P_HAND_LIMIT',
    'P_HOLDER_CAP',
    'P_LEADERS_WIN',
    'P_LEADER_BONUS',
    'P_LEADER_LAST',
    'P_LEADER_TO',
    'P_LEAVE_ONE',
    'P_MISSION_BASE',
    'P_PTS_GATE',
    'P_PTS_LEADER',
    'P_PTS_WALL',
    'P_RETREAT',
    'P_RETREAT_WIPED',
    'P_SIEGE_BONUS',
    'R_CITY',
    'R_DECK',
    'R_LEADERS',
    'STATE',
    'STATE_SIZE',
    'STREAM_SIZE',
    'ST_SIZE',
    'S_BAD',
    'S_BADTURN',
    'S_DEBUG',
    'S_DECKOUT',
    'S_DICE',
    'S_DIE',
    'S_DTOP',
    'S_GAMEIDX',
    'S_GATE',
    'S_HN',
    'S_LCAP',
    'S_MISS',
    'S_MTTOP',
    'S_NCHECK',
    'S_NDRAWN',
    'S_OVER',
    'S_PE',
    'S_PG',
    'S_PHASE',
    'S_REASON',
    'S_ROUND',
    'S_SIDE',
    'S_TIR',
    'S_TROVF',
    'S_TRPOS',
    'S_TURN',
    'S_TURNEND',
    'S_USED',
    'S_WINNER',
    'TR_MARGIN',
    'WMAX',
    'W_DRAW',
    'W_EVIL',
    'W_GOOD',
    '_add_nb',
    '_all_units_vec_nb',
    '_debug_check_nb',
    '_dice5_nb',
    '_first_leader_mask_nb',
    '_leader_path_ok_nb',
    '_leader_reach3_nb',
    '_modified_roll_nb',
    '_placeable_nb',
    '_put_assault_faces_nb',
    '_set_nb',
    '_stream_restore_nb',
    '_stream_save_nb',
    '_stream_swap_nb',
    '_tradeable_nb',
    'advance_nb',
    'apply_nb',
    'assault_bonus_nb',
    'assault_nb',
    'assault_roll_nb',
    'begin_turn_nb',
    'best_unit_territory_nb',
    'bombard_action_nb',
    'bombard_nb',
    'bonus_fast_nb',
    'break_gate_nb',
    'choose_nb',
    'capture_leader_nb',
    'capture_unit_nb',
    'card_phase_nb',
    'card_played_nb',
    'card_unit_types_nb',
    'catapults_check_nb',
    'check_bombards_nb',
    'check_caches_nb',
    'check_win_nb',
    'choose_action_nb',
    'choose_die_nb',
    'cross_fast_nb',
    'cross_ok_nb',
    'd6_nb',
    'do_action_nb',
    'draw_cards_nb',
    'end_game_nb',
    'determinize_nb',
    'end_turn_nb',
    'enum_actions_nb',
    'ev_begin_nb',
    'ev_end_nb',
    'ev_put_nb',
    'exchange_nb',
    'finish_turn_nb',
    'good_want_nb',
    'hand_counts_nb',
    'hand_remove_nb',
    'holder_load_nb',
    'holds_nb',
    'importance_nb',
    'invariant_ok_nb',
    'keep_mt_nb',
    'leader_mask_at_nb',
    'leaders_at_nb',
    'leaders_last_unit_nb',
    'legal_nb',
    'load_nb',
    'may_stand_nb',
    'move_leader_nb',
    'move_units_nb',
    'mt_draw_nb',
    'mumak_type_nb',
    'muster_nb',
    'new_game_nb',
    'place_catapult_nb',
    'place_holder_nb',
    'place_leader_card_nb',
    'place_pool_nb',
    'play_game_nb',
    'play_one_nb',
    'points_nb',
    'randint_nb',
    'refresh_tot_nb',
    'remove_leader_nb',
    'retreat_nb',
    'run_until_nb',
    'score_action_nb',
    'setup_nb',
    'shooters_nb',
    'shuffle_range_nb',
    'side_units_nb',
    'simulate_nb',
    'snapshot_nb',
    'playouts_nb',
    'scores_nb',
    'stream_init_nb',
    'take_losses_nb',
    'threat_nb',
    'to_move_nb',
    'trade_nb',
    'uniform_nb',
    'usable_nb',
    'walls_ok_nb',
    'winp_nb',
    'wk_at_nb',
    'A_LOSE', 'PH_LOSS', 'S_LOSS_N', 'S_LOSS_SEAT', 'S_LOSS_SIDE', 'S_LOSS_T',
    'finish_losses_nb', 'lose_one_nb', 'loss_options_nb', 'PH_ALOSS', 'PH_DLOSS', 'assault_after_nb',
    'begin_losses_nb', 'next_loss_nb', 'loss_count_nb', 'may_lose_nb', 'S_AS_A', 'S_AS_A6', 'S_AS_AB', 'S_AS_B', 'S_AS_D6', 'S_AS_LD',
    'S_AS_SIDE', 'S_AS_WK',
    'A_RETREAT', 'PH_RETREAT', 'S_RT_A', 'S_RT_CUR', 'S_RT_K', 'S_RT_LMASK', 'S_RT_NP', 'S_RT_SIDE',
    'S_RT_STEPS', 'S_RT_VEC', '_assault_end_nb', '_six_ends_turn_nb', 'assault_resume_nb',
    'retreat_choice_nb', 'retreat_go_nb', 'retreat_ok_nb', 'retreat_options_nb', 'retreat_step_nb',
    'retreat_value_nb',
    'A_CARD', 'CD_LOAD', 'CD_MUSTER', 'CD_STOP', 'CD_TRADE', 'PH_CARD', 'PL_CARDS',
    'card_options_nb', 'card_score_nb', 'card_step_nb',
    'EV_DECISION', 'decision_nb',
    'DET_TMP', 'invariant_nb', 'record_nb',
]
