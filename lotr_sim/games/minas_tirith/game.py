"""``MinasTirith``: the Game seam (lotr_sim.games.base) for the Siege of Minas Tirith, on the
common numba binding (lotr_sim.games.adapter, which binds the common kernels of play.py).

The engine (numba) keeps the state in one flat int64 array and plays one game per call of
``play_game_nb`` entirely inside njit, many games with ``simulate_nb`` (a GIL-free range of
games, run on a thread pool by the adapter; game i always uses stream (seed, i)). Its code
lives in modules named by role (import each by its own name: there is no facade); rule IDs
(MT-x.y) refer to docs/rules/minas-tirith.md, the config layout (``cf``) is in config.py:

* layout.py    the state layout (``S_*`` slots, ``O_*`` offsets, ``ST_SIZE``) and the codes:
               events ``EV_*``, card kinds ``K_*`` (MT-9), actions ``A_*`` (MT-6/7), policy
               vector ``PL_*``, outcomes ``W_*``/``R_*`` (MT-10), phases ``PH_*`` (MT-4);
* events.py    the trace (written through lotr_sim.kernels.tracebuf, as every game's): events with
               their round, turn and side, position snapshots, the dice faces of a roll (MT-3.3,
               MT-7.4);
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

Besides the kernels: config.py (the parameters and the compiled config), trace.py (decoding,
replaying and accounting for traces), position.py (hand-made positions for tests).

Imports go one way: layout <- events <- board <- movement <- combat <- policies <- cards,
actions <- play.

The step machine's decisions: the mission die (PH_DIE, MT-4.2/4.5), the action
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
  with them when they move or retreat, and are the archers lost first (MT-6.1, MT-7.2).
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
compiles once, see lotr_sim/_numba/dispatch.py).

First-run compile: numba links every jitted callee into its caller's library. The step
machine's thin levels (legal_nb, apply_nb, choose_nb and, within apply_nb, begin_turn_nb,
finish_turn_nb, do_action_nb, next_loss_nb and card_step_nb) are kernels of their own, not
``inline="always"``: a kernel compiled inside another is lean (``lotr_sim._numba.warmup``:
no module passes or machine code of its own), so a level costs only its own typing and
lowering, which the compile helper can do on the other core, while an inlined body would be
typed again in each caller, in the main process. Kernels with long bodies (enum_actions_nb,
assault_nb, ...) are separate too: numba's typing grows faster than the function. The
measurements are in docs/performance.md ("Minas Tirith's step-machine levels"). Each call site of the inlined
``d6_nb`` costs ~0.4 s, so a roll of several dice draws them in a loop
(``kernels.combat.dice_each_nb``).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from lotr_sim.config import GameConfig, Param
from lotr_sim.games.adapter import NumbaGame, NumbaState
from lotr_sim.games.minas_tirith import layout as L
from lotr_sim.games.weights import PolicyTable, Weight
from lotr_sim.games.minas_tirith import config as C
from lotr_sim.kernels.outcomes import Column, OutcomeColumns, game_column

BUILTIN_POLICIES = ("random", "greedy", "aggressive", "cautious")

# policy vectors per side (good, evil), in layout order (PL_*):
# [type (0 random, 1 heuristic), attack threshold (exact P(take the territory)), mission weight,
#  card weight, defend weight (Good's moves), advance weight (Evil's moves), cards (set per
#  player, below), least gain of a Good move, threat weight in Good's want, value of passing,
#  a catapult's place: per enemy unit in range, bonus on a fort; a leader card's place: per
#  own unit, bonus on a wall or the city; a leader's flight: its worth, the enemy-to-own ratio
#  that sets it off; Good's want of units where its own leader stands; Good's bonus for a
#  cavalry's two-territory move]
_POL = {
    "random": ((0.0,) * 18, (0.0,) * 18),
    "greedy": ((1.0, 0.75, 1.0, 0.4, 1.0, 1.0, 0.0, 0.3, 1.0, 0.0, 0.01, 0.0, 0.01, 0.0, 2.0, 1.0, 0.0, 0.0),
               (1.0, 0.5, 1.0, 0.7, 1.0, 1.0, 0.0, 0.3, 1.0, 0.0, 0.01, 0.0, 0.01, 0.0, 2.0, 1.0, 0.0, 0.0)),
    "aggressive": ((1.0, 0.55, 1.3, 0.3, 0.6, 1.0, 0.0, 0.3, 1.0, 0.0, 0.01, 0.0, 0.01, 0.0, 2.0, 1.0, 0.0, 0.0),
                   (1.0, 0.3, 1.3, 0.5, 1.0, 1.6, 0.0, 0.3, 1.0, 0.0, 0.01, 0.0, 0.01, 0.0, 2.0, 1.0, 0.0, 0.0)),
    "cautious": ((1.0, 0.85, 0.8, 0.6, 1.5, 1.0, 0.0, 0.3, 1.0, 0.0, 0.01, 0.0, 0.01, 0.0, 2.0, 1.0, 0.0, 0.0),
                 (1.0, 0.7, 0.8, 0.9, 1.0, 0.6, 0.0, 0.3, 1.0, 0.0, 0.01, 0.0, 0.01, 0.0, 2.0, 1.0, 0.0, 0.0)),
}

# The learned term's weights, one per feature of an action row (layout LF_*, policies.row_features_nb),
# set by ``lotr-sim learn``.
_LEARNED = (
    ("lf_pass", "learned: ending the turn's actions"),
    ("lf_pass_miss", "learned: ending them per mission step left"),
    ("lf_mv", "learned: a move"),
    ("lf_mv_exp", "learned: a move, per unit times the change in enemy archers within range"),
    ("lf_mv_risk", "learned: a move, the change in own leaders' exposure (last unit falls, MT-8.4)"),
    ("lf_mv_adj", "learned: a move, per unit times the change in adjacent enemy units"),
    ("lf_mv_imp", "learned: a move, the change in the territory's importance"),
    ("lf_mv_city", "learned: a move, steps towards the city"),
    ("lf_mv_frac", "learned: a move, the share of the territory's units moving"),
    ("lf_mv_early", "learned: a move, steps towards the city in the first rounds"),
    ("lf_lm", "learned: a leader moving alone"),
    ("lf_lm_risk", "learned: a leader moving alone, the change in its exposure"),
    ("lf_as", "learned: an assault"),
    ("lf_as_p", "learned: an assault, P(take the territory)"),
    ("lf_as_k", "learned: an assault, its dice"),
    ("lf_as_ldr", "learned: an assault, enemy leaders in the territory"),
    ("lf_bb", "learned: a bombardment"),
    ("lf_bb_dice", "learned: a bombardment, its dice"),
    ("lf_bb_kill", "learned: a bombardment that may take an enemy leader"),
    ("lf_card", "learned: a card action (holder, leader card, catapult, exchange)"),
    ("lf_die", "learned: a mission die, its value / 6 (MT-4.5: missions; the rest are cards)"),
    ("lf_die_sq", "learned: a mission die, its value / 6 squared"),
    ("lf_die_opp", "learned: a mission die, the best die it leaves the opponent / 6 (MT-4.2)"),
    ("lf_die_later", "learned: a mission die, the die the seat keeps for its later turn / 6"),
    ("lf_die_deck", "learned: a mission die, value / 6 times the share of the deck left (MT-10.3)"),
    ("lf_die_hand", "learned: a mission die, value / 6 times the cards in hand / 6 (MT-5.6)"),
    ("lf_die_lead", "learned: a mission die, value / 6 times the points lead / 10 (MT-10.3)"),
    ("lf_die_shoot", "learned: a mission die, value / 6 times own archers within range of enemies / 10"),
    ("lf_die_front", "learned: a mission die, value / 6 times own units next to enemies / 20"),
)
assert len(_LEARNED) == L.NLF

# What ``lotr-sim tune`` may change (the mission weight stays 1: the die choice (MT-4.2)
# depends only on the card weight's ratio to it).
TABLE = PolicyTable("minas-tirith", ("good", "evil"), L.NPOL, (
    Weight("thr", L.PL_THR, 0.0, 1.0, "attack when P(take the territory) is at least this"),
    Weight("cw", L.PL_CW, 0.0, 4.0, "mission die: worth of a card against a mission step"),
    Weight("def", L.PL_DEF, 0.0, 4.0, "worth of a defensive move", sides=("good",)),
    Weight("adv", L.PL_ADV, 0.0, 4.0, "worth of a step towards the city", sides=("evil",)),
    Weight("gmin", L.PL_GMIN, 0.0, 2.0, "least gain of a defensive move worth making", sides=("good",)),
    Weight("tw", L.PL_TW, 0.0, 6.0, "weight of adjacent enemies in where Good wants its units",
           sides=("good",)),
    Weight("pass", L.PL_PASS, -2.0, 6.0, "value of ending the turn's actions (the action to beat)"),
    Weight("cat_n", L.PL_CATN, 0.0, 0.1, "catapult (MT-9.4): worth of a place per enemy unit within range",
           sides=("good",)),
    Weight("cat_fort", L.PL_CATF, 0.0, 4.0, "catapult (MT-9.4): bonus for a place on a fort", sides=("good",)),
    Weight("lc_n", L.PL_LCN, 0.0, 0.1, "leader card (MT-9.6): worth of a place per own unit there",
           sides=("good",)),
    Weight("lc_wall", L.PL_LCW, 0.0, 4.0, "leader card (MT-9.6): bonus for a place on a wall or the city",
           sides=("good",)),
    Weight("flee", L.PL_FLEE, 0.0, 12.0, "worth of a leader's flight (MT-6.2 d) from a threatened territory",
           sides=("good",)),
    Weight("flee_ratio", L.PL_FLEER, 0.0, 2.0,
           "a leader flees where adjacent enemies outnumber this times its own units", sides=("good",)),
    Weight("guard", L.PL_GUARD, 0.0, 20.0,
           "added to a territory's importance in Good's want of units while its own leader stands there",
           sides=("good",)),
    Weight("cav2", L.PL_CAV2, 0.0, 10.0,
           "added to the worth of a Good cavalry move of two territories (MT-6.2 c) over a plain move",
           sides=("good",)),
    *(Weight(name, L.PL_LF0 + k, -50.0, 50.0, help, learned=True) for k, (name, help) in enumerate(_LEARNED)),
), {name: {"good": v[0], "evil": v[1]} for name, v in _POL.items()})


def policy_array(policies: Mapping[str, str]) -> np.ndarray:
    """The engine's policy rows (good, evil). A seat held by a player from
    ``lotr_sim.players`` gets the default heuristic (greedy): the engine uses it for the
    decisions it still makes inside an action, and the search player's playouts use it; its
    row also sets PL_CARDS, so its card step (MT-5) is its own decision (PH_CARD)."""
    pol = np.zeros((2, L.NPOL), dtype=np.float64)
    for i, side in enumerate(("good", "evil")):
        name = policies[side]
        pol[i] = TABLE.row(name, side)
        pol[i, L.PL_CARDS] = 0.0 if TABLE.knows(name) else 1.0
    return pol


class MinasTirithState(NumbaState):
    """A game of Minas Tirith: the engine's step API (``NumbaState``) with the trace's decision
    event of a Python seat, and the kinds of decision."""

    def _apply_legal(self, i):
        if self.tr.shape[0]:   # the trace's "decision" event, as run_until_nb logs built-in seats'
            from lotr_sim.games.minas_tirith.events import decision_nb
            decision_nb(self.st, self.tr, self.K.to_move_nb(self.st), self.act, i, np.int64(self.n_legal))
        super()._apply_legal(i)

    def decision_kind(self):
        """"die" (mission die, MT-4.2/4.5), "action" (the mission menu, MT-6/7/9), "loss" (a
        hit to take, MT-7.2/7.4), "retreat" (a retreat step's destination, MT-7.5) or "card"
        (a play of the card step, MT-5/MT-9.7: only for a seat of a player from lotr_sim.players)."""
        ph = int(self.st[L.S_PHASE])
        if ph == L.PH_RETREAT:
            return "retreat"
        if ph == L.PH_CARD:
            return "card"
        return "die" if ph == L.PH_DIE else "action" if ph == L.PH_ACT else "loss"

    def pass_action(self):
        return 0 if self.st[L.S_PHASE] == L.PH_ACT else -1   # PASS: end the turn (MT-4.5)

    def _redeal(self, seat, s):
        """Hidden in Minas Tirith (``determinize``): the order of the reinforcement deck
        (MT-3.1) and of the Minas Tirith deck (MT-3.2), the same for both seats (hands lie face
        up, MT-5.1; see minas_tirith/play.py). The piles keep their size and contents."""
        super()._redeal(seat, s)


class MinasTirith(NumbaGame):
    name = "minas-tirith"
    title = "Siege of Minas Tirith (two-player)"
    sides = ("good", "evil")
    outcomes = ("good", "evil", "draw")
    reasons = ("leaders", "city", "deck")
    builtin_policies = BUILTIN_POLICIES
    policy_table = TABLE
    default_policies = {"good": "tuned", "evil": "tuned"}
    kernels = "lotr_sim.games.minas_tirith.play"
    trace = "lotr_sim.games.minas_tirith.trace"
    trace_words = 1 << 20
    state_class = MinasTirithState
    notes = (
        "The board, set-up and 16-card Minas Tirith deck are a RECONSTRUCTED default "
        "(the rulebook describes the board but has no picture of it), not the printed game; "
        "rules marked [R] are reconstructions too, each a parameter (lotr-sim params -g minas-tirith).",
    )

    def params(self) -> list[Param]:
        return list(C.PARAMS)

    def load(self, config: str | None = None,
             overrides: Sequence[str] | Mapping[str, Any] | None = None) -> GameConfig:
        return C.load(config, overrides)

    def compile(self, cfg: GameConfig) -> C.Compiled:
        return C.checked(C.compile_config, cfg)

    # -- the adapter's parts (lotr_sim.games.adapter) -------------------------------------------
    # Actions are rows of 6 ints: (A_DIE, slot, face, 0, 0, 0) at a mission-die decision,
    # (A_LOSE, unit type, territory, hits left, 0, 0) at a loss, (A_RETREAT, territory, from,
    # steps left, neighbour index, 0) at a retreat step, (A_CARD, CD_TRADE, type | CD_MUSTER,
    # card | CD_LOAD, hand index, holder, unit type, card | CD_STOP) at a card play (MT-5, a
    # seat of a player from lotr_sim.players: cards.card_options_nb), the engine's action menu
    # (actions.enum_actions_nb: kind, a, b, c, d, e) otherwise.
    def _state_arrays(self, compiled, trace):
        from lotr_sim.games.minas_tirith.events import STREAM_SIZE
        from lotr_sim.kernels.rng import STATE_SIZE
        from lotr_sim.kernels.tracebuf import new_trace
        # a traced game's stream has room to replay the dice faces into the trace
        return dict(st=np.zeros(L.ST_SIZE, dtype=np.int64),
                    s=np.zeros(STREAM_SIZE if trace else STATE_SIZE, dtype=np.uint64),
                    tr=new_trace(trace),      # lotr_sim.kernels.tracebuf (0: no trace)
                    act=np.zeros((L.MAXA, 6), dtype=np.int64),
                    scr=np.zeros(8, dtype=np.int64))

    def _policy_rows(self, compiled, seat_players):
        return policy_array(dict(zip(self.sides, seat_players)))

    def _out_width(self, compiled):
        return 10 + int(compiled.cf[C.C_NU])

    def _outcome_columns(self, compiled):
        """record_nb's columns: winner, reason, rounds, turns, points, leaders lost by Good and
        by Evil, the debug check's flag and turn, then units lost per unit type."""
        names = compiled.names
        lost = [Column(f"lost_{s}_{u}", np.int32, 10 + i)
                for i, (u, s) in enumerate(zip(names["unit_types"], names["unit_sides"]))]
        return OutcomeColumns(self.sides, [
            game_column(), Column("winner", np.int8, 0), Column("reason", np.int8, 1),
            Column("rounds", np.int32, 2), Column("turns", np.int32, 3),
            Column("points_good", np.int32, 4), Column("points_evil", np.int32, 5),
            *lost,
            Column("leaders_lost_good", np.int32, 6), Column("leaders_lost_evil", np.int32, 7),
            Column("invariant_broken", np.int8, 8)])

    # -- traces ------------------------------------------------------------------------------
    def account(self, events):
        from lotr_sim.games.minas_tirith.trace import account
        return account(events)

    def replay_check(self, compiled, events):
        from lotr_sim.games.minas_tirith import trace as TR
        st = None
        n = 0
        for e in events:
            if e["event"] in ("setup", "turn_start"):
                snap = TR.snapshot_of(e)
                if st is not None:
                    if e["event"] == "turn_start":
                        TR.apply_event(compiled, st, e)
                    if TR.normalise(st) != TR.normalise(snap):
                        raise AssertionError(f"round {e['round']} turn {e['turn']}: replaying the "
                                             "events does not give this snapshot")
                    n += 1
                st = snap
            elif st is not None:
                TR.apply_event(compiled, st, e)
        return n
