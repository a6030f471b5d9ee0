"""``TheSearch``: the Game seam (lotr_sim.games.base) for Lord of the Rings: The Search.

Rules: docs/rules/the-search.md (TS-1 ... TS-9). The engine (numba) is split by role:
layout.py (codes, the state and config layouts), regions.py (union-find regions, TS-4),
placement.py (legal cells, rotations, placing, token sites; TS-3, TS-4.3), movement.py
(moves, tokens, fights, boats, score; TS-6 - TS-8), policies.py (random, greedy, racer),
play.py (set-up, turns, phases, the step machine, whole games; TS-2, TS-5); trace.py
decodes, draws and audits traces; catalogue.py generates tile catalogues.

Step-machine actions are rows of 4 ints ``(kind, a, b, c)``:
place ``(0, hand slot, cell, tile * 256 + rotation)``; neutral ``(1, hand slot, cell,
tile * 256)``; step ``(2, region root, -1 for the Shire or -2 for Mount Doom, 0 normal / 1 mover, 0)``;
Gwaihir ``(3, direction, region root, 0)``; boat ``(4, 0, 0, 0)``; stop ``(5, 0, 0, 0)``
(the pass action, first in a move decision; left out in an Ent's extra turn while the move
is possible, TS-7.2); fight ``(6, fighters used 0..2, 0, 0)`` (TS-7.3); Ent ``(7, use 0/1,
0, 0)``. Cells are ``row * 15 + column`` of the engine's 11 x 15 grid with the Shire at
(5, 7); ``doom_cell`` (games.parquet and traces alike) is ``row * 8 + column`` of the
drawn 6 x 8 map, counted from its top-left tile. The kernels of play.py are bound by the
common numba binding (lotr_sim.games.adapter).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from lotr_sim.config import GameConfig, Param
from lotr_sim.games.adapter import NumbaGame, NumbaState
from lotr_sim.games.weights import PolicyTable, Weight
from lotr_sim.kernels.outcomes import Column, OutcomeColumns, game_column

from . import config as C
from . import layout as L
from .layout import NPOL

BUILTIN_POLICIES = ("random", "greedy", "racer")
# PL_TYPE, PL_SITE, PL_NEAR, PL_TOKEN, PL_STEPCOST, PL_RACE, PL_MOVER, PL_BOAT, PL_ENT, PL_FIGHT, PL_COUNT
_POL = {
    "random": (0.0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0),
    "greedy": (1.0, 1.0, 0.5, 1.0, 0.6, 1.0, 0.5, 0.5, 2.0, 1.5, 1.0),
    "racer": (1.0, 0.6, 0.3, 0.6, 1.2, 2.5, 0.0, 0.3, 2.0, 2.0, 0.0),
}
OUT_COLS = ("winner", "reason", "rounds", "turns", "points_frodo", "points_sam", "token_points_frodo",
            "token_points_sam", "used_tokens_frodo", "used_tokens_sam", "doom_points_frodo",
            "doom_points_sam", "reached_doom", "neutral_tiles", "unplaceable_frodo", "unplaceable_sam",
            "doom_cell", "phase1_turns", "phase2_turns", "phase3_turns", "tokens_taken_frodo",
            "tokens_taken_sam", "invariant_broken", "token_sites", "boats_left", "tokens_left_on_map",
            "sites_blue", "sites_brown", "sites_green", "sites_yellow", "tokens_never_placed",
            "doom_distance")
_INT8 = ("winner", "reason", "reached_doom", "invariant_broken")
# play.record_nb's columns, in OUT_COLS order after the game index
COLUMNS = OutcomeColumns(("frodo", "sam"), [game_column()] + [
    Column(name, np.int8 if name in _INT8 else np.int32, j) for j, name in enumerate(OUT_COLS)])


# The learned term's weights, one per feature of an action row (layout LF_*,
# policies.row_features_nb), set by ``lotr-sim learn``; 0 in every preset.
_LEARNED = (
    ("lf_pl_own", "learned: a placement, cells from the own hobbit (/6)"),
    ("lf_pl_riv", "learned: a placement, cells from the rival's hobbit (/6)"),
    ("lf_pl_expose", "learned: a placement, lone sections left facing an empty cell (sites for the next placer)"),
    ("lf_pl_expose_near", "learned: those lone sections times how much nearer the own hobbit the tile lies"),
    ("lf_ne_late", "learned: a neutral tile, how much nearer the own hobbit, by the share of the map placed (TS-5.3)"),
    ("lf_pl_site_now", "learned: a placement, token sites it closes within one move of the own hobbit (TS-4.3)"),
    ("lf_ne_near", "learned: a neutral tile, how much nearer the own hobbit Mount Doom moves (TS-3.4)"),
    ("lf_mv_stop", "learned: stopping in phase 2"),
    ("lf_mv_stop3", "learned: stopping in phase 3"),
    ("lf_mv_mover", "learned: a mover's extra step (TS-7.4)"),
    ("lf_mv_boat", "learned: buying a boat (TS-6.6)"),
    ("lf_mv_gwaihir", "learned: Gwaihir's flight (TS-7.1)"),
    ("lf_mv_doom", "learned: a step's moves gained towards Mount Doom (TS-5.4)"),
    ("lf_mv_back", "learned: a step back into the region just left"),
    ("lf_fi_k", "learned: a fight, the fighters used (TS-7.3)"),
    ("lf_ent", "learned: taking an Ent's extra turn (TS-7.2)"),
    ("lf_pl_site_mine", "learned: a placement, sites it closes farther than one move, no nearer the rival"),
    ("lf_pl_site_theirs", "learned: a placement, sites it closes nearer the rival's hobbit (in moves)"),
    ("lf_mv_doom_late", "learned: a step's moves gained towards Mount Doom, by the share of the map placed"),
    ("lf_mv_race", "learned: a move's lead in the race to Mount Doom (the rival's moves less the own, /4, by the share placed)"),
    ("lf_mv_tok_lost", "learned: a step, the best token it leads to that the rival reaches first (worth / moves)"),
    ("lf_mv_tok_now", "learned: a step, the best token it leads to that the rival reaches as soon (worth / moves)"),
    ("lf_mv_tok_soon", "learned: a step, the best token it leads to that the rival reaches a move or two later"),
    ("lf_mv_tok_free", "learned: a step, the best token it leads to that the rival reaches later or never"),
    ("lf_mv_block", "learned: a step, how much worse the rival's best token (worth / moves) gets with the hobbit there (TS-6.3)"),
)
assert len(_LEARNED) == L.NLF

# What ``lotr-sim tune`` may change (every entry of the row but its type); the two hobbits play
# by the same rules, so one row is tuned for both.
TABLE = PolicyTable("the-search", ("frodo", "sam"), NPOL, (
    Weight("site", L.PL_SITE, 0.0, 3.0, "placement: worth of a token site"),
    Weight("near", L.PL_NEAR, 0.0, 2.0, "placement: bonus of a site near the own hobbit"),
    Weight("token", L.PL_TOKEN, 0.0, 3.0, "move: worth of a token"),
    Weight("stepcost", L.PL_STEPCOST, 0.0, 3.0, "move: cost of each move to reach it"),
    Weight("race", L.PL_RACE, 0.0, 5.0, "phase 3: worth of Mount Doom's points"),
    Weight("mover", L.PL_MOVER, 0.0, 2.0, "move: cost of ending a move short"),
    Weight("boat", L.PL_BOAT, 0.0, 2.0, "worth of a boat per token on water"),
    Weight("ent", L.PL_ENT, 0.0, 5.0, "worth of an Ent's extra turn"),
    Weight("fight", L.PL_FIGHT, 0.0, 4.0, "worth of each move a fighter saves"),
    Weight("count", L.PL_COUNT, 0.0, 2.0, "phase 3: weight of counting points before racing"),
    *(Weight(name, L.PL_LF0 + k, -50.0, 50.0, help, learned=True) for k, (name, help) in enumerate(_LEARNED)),
), {name: {"frodo": v, "sam": v} for name, v in _POL.items()}, tie_sides=True)


def policy_array(policies: Mapping[str, str]) -> np.ndarray:
    """The engine's policy rows (frodo, sam); a seat held by a player from
    ``lotr_sim.players`` gets greedy (its playouts and any decision the engine makes)."""
    pol = np.zeros((2, NPOL), dtype=np.float64)
    for i, side in enumerate(("frodo", "sam")):
        pol[i] = TABLE.row(policies[side], side)
    return pol


class TheSearchState(NumbaState):
    """A game of The Search: the engine's step API (``NumbaState``) with its kinds of decision."""

    def decision_kind(self):
        return "over" if self.st[L.S_PHASE] == L.OVER else L.DECISIONS[int(self.st[L.S_DK])]

    def pass_action(self):
        dk = int(self.st[L.S_DK])
        if dk == L.DK_MOVE:       # no stop in an Ent's extra turn (TS-7.2)
            return 0 if int(self.legal_actions()[0, 0]) == L.A_STOP else -1
        return 0 if dk in (L.DK_FIGHT, L.DK_ENT) else -1

    def _redeal(self, seat, s):
        """Hidden in The Search (``determinize``; ``play.determinize_nb``): the rival's hand
        with the face-down tile stack (TS-2.1, TS-2.4), the face-down brown tokens on the map
        with the brown stack (TS-2.2, TS-4.3, TS-6.5), and the order of the other token stacks.
        Counts, the map, the seat's own hand and every face-up token stay."""
        super()._redeal(seat, s)


class TheSearch(NumbaGame):
    name = "the-search"
    title = "Lord of the Rings: The Search (two-player tile game)"
    sides = ("frodo", "sam")
    outcomes = ("frodo", "sam", "draw")
    reasons = ("mount_doom", "cap")
    builtin_policies = BUILTIN_POLICIES
    policy_table = TABLE
    default_policies = {"frodo": "tuned", "sam": "tuned"}
    kernels = "lotr_sim.games.the_search.play"
    trace = "lotr_sim.games.the_search.trace"
    state_class = TheSearchState
    notes = (
        "The 47-tile catalogue is GENERATED (seeded, TS-1.2 [R]), not the printed tiles; token "
        "counts and every [R] rule are reconstructions (lotr-sim params -g the-search).",
    )

    def params(self) -> list[Param]:
        return list(C.PARAMS)

    def load(self, config: str | None = None,
             overrides: Sequence[str] | Mapping[str, Any] | None = None) -> GameConfig:
        import warnings
        from lotr_sim.games.base import SetupWarning
        cfg = C.load(config, overrides)
        for line in self.setup_warnings(cfg):
            warnings.warn(line, SetupWarning, stacklevel=2)
        return cfg

    def setup_warnings(self, config: GameConfig) -> list[str]:
        """TS-1.1: a line for each token colour whose total departs from the rulebook's
        8 blue, 20 brown, 8 green and 8 yellow (e.g. moved by the TS-2.5 [R] count
        parameters), naming the parameters that moved it."""
        return C.setup_departures(config)

    def compile(self, cfg: GameConfig) -> C.Compiled:
        return C.checked(C.compile_config, cfg)

    # -- the adapter's parts (lotr_sim.games.adapter) -------------------------------------------
    def _state_arrays(self, compiled, trace):
        from lotr_sim.kernels.rng import STATE_SIZE
        from lotr_sim.kernels.tracebuf import new_trace
        return dict(st=np.zeros(L.ST_SIZE, dtype=np.int64), s=np.zeros(STATE_SIZE, dtype=np.uint64),
                    tr=new_trace(trace), act=np.zeros((L.MAXA, 4), dtype=np.int64),
                    scr=np.zeros(L.MAXA, dtype=np.float64))   # the heuristic's scores (policies.choose_nb)

    def _policy_rows(self, compiled, seat_players):
        return policy_array(dict(zip(self.sides, seat_players)))

    def _outcome_columns(self, compiled):
        return COLUMNS

    # -- traces ------------------------------------------------------------------------------
    def account(self, events):
        from .trace import account
        return account(events)

    def replay_check(self, compiled, events):
        from .trace import replay_check
        return replay_check(compiled, events)
