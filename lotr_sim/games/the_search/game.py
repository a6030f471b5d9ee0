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
drawn 6 x 8 map, counted from its top-left tile.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from lotr_sim.config import GameConfig, Param
from lotr_sim.games.base import Game
from lotr_sim.games.weights import PolicyTable, Weight

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
), {name: {"frodo": v, "sam": v} for name, v in _POL.items()}, tie_sides=True)


def policy_array(policies: Mapping[str, str]) -> np.ndarray:
    """The engine's policy rows (frodo, sam); a seat held by a player from
    ``lotr_sim.players`` gets greedy (its playouts and any decision the engine makes)."""
    pol = np.zeros((2, NPOL), dtype=np.float64)
    for i, side in enumerate(("frodo", "sam")):
        pol[i] = TABLE.row(policies[side], side)
    return pol


class TheSearch(Game):
    name = "the-search"
    title = "Lord of the Rings: The Search (two-player tile game)"
    sides = ("frodo", "sam")
    outcomes = ("frodo", "sam", "draw")
    reasons = ("mount_doom", "cap")
    builtin_policies = BUILTIN_POLICIES
    policy_table = TABLE
    default_policies = {"frodo": "tuned", "sam": "tuned"}
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

    # ------------------------------------------------------------------------------------
    def _columns(self, first: int, out: np.ndarray) -> dict[str, np.ndarray]:
        n = out.shape[0]
        cols: dict[str, np.ndarray] = {"game": np.arange(first, first + n, dtype=np.int64)}
        for j, name in enumerate(OUT_COLS):
            t = np.int8 if name in ("winner", "reason", "reached_doom", "invariant_broken") else np.int32
            cols[name] = out[:, j].astype(t)
        return cols

    def simulate(self, compiled, policies, seed, first, n, threads=None, debug=False):
        from lotr_sim.kernels.rng import check_seed
        from lotr_sim.kernels.runner import resolve_threads
        from . import play as E
        check_seed(seed)
        pols = self.check_policies(policies)
        out = np.zeros((max(n, 0), E.NOUT), dtype=np.int64)
        if n > 0 and self.has_generic(pols):
            from lotr_sim.games.players import simulate_with_players

            def record(state, row):
                E.record_nb(compiled.cf, state.st, row, out)
            simulate_with_players(self, compiled, pols, seed, first, n, resolve_threads(threads), record)
        elif n > 0:
            from lotr_sim.kernels.runner import run_range
            run_range(E.simulate_nb, (compiled.cf, compiled.wp, policy_array(pols), np.int64(seed), np.int64(first),
                                      np.int64(1 if debug else 0)), n, resolve_threads(threads), out)
        return self._columns(first, out)

    def play(self, compiled, policies, seed, game_index, debug=False):
        from lotr_sim.kernels.rng import check_seed
        from lotr_sim.games.players import play_state
        from . import play as E
        from .trace import decode
        check_seed(seed)
        pols = self.check_policies(policies)
        size = 1 << 18
        while True:
            state = play_state(self, compiled, pols, seed, game_index, trace=size, debug=debug)
            if state.tr[1] == 0:
                break
            size *= 4
        out = np.zeros((1, E.NOUT), dtype=np.int64)
        E.record_nb(compiled.cf, state.st, 0, out)
        events = [self.trace_header(compiled, pols, seed, game_index)] + decode(compiled, state.tr, game_index)
        return self._columns(game_index, out), events

    # -- the step machine ------------------------------------------------------------------
    def new_state(self, compiled, policies, seed, index, trace=False, debug=False):
        from lotr_sim.games.step import State, trace_size
        from lotr_sim.kernels.rng import STATE_SIZE, check_seed
        from lotr_sim.kernels.tracebuf import new_trace
        from . import play as E
        from .layout import MAXA, ST_SIZE
        check_seed(seed)
        pols = self.check_policies(policies)
        size = trace_size(trace, 1 << 18)
        arrays = dict(st=np.zeros(ST_SIZE, dtype=np.int64), s=np.zeros(STATE_SIZE, dtype=np.uint64),
                      tr=new_trace(size), act=np.zeros((MAXA, 4), dtype=np.int64),
                      buf=np.zeros(MAXA, dtype=np.float64), pol=policy_array(pols),
                      heur=policy_array({"frodo": "greedy", "sam": "greedy"}))
        state = State(self.name, int(seed), int(index), pols, arrays)
        E.new_game_nb(compiled.cf, state.st, state.tr, state.act, state.s, np.int64(seed), np.int64(index),
                      np.int64(1 if debug else 0))
        state.n_legal = -1
        return state

    def _list_legal(self, compiled, state):
        from . import play as E
        return E.legal_nb(compiled.cf, state.st, state.act)

    def _apply_legal(self, compiled, state, i):
        from . import play as E
        E.apply_nb(compiled.cf, compiled.wp, state.pol, state.st, state.tr, state.act, state.buf, state.s, i)

    def to_move(self, state):
        from .layout import OVER, S_PHASE, S_SEAT
        return -1 if state.st[S_PHASE] == OVER else int(state.st[S_SEAT])

    def result(self, compiled, state):
        from . import play as E
        out = np.zeros((1, E.NOUT), dtype=np.int64)
        E.record_nb(compiled.cf, state.st, 0, out)
        return self._columns(state.index, out)

    def invariant_ok(self, compiled, state):
        from . import play as E
        return bool(E.invariant_nb(compiled.cf, state.st))

    def builtin_choice(self, compiled, state):
        from . import policies as P
        n = self.legal_actions(compiled, state).shape[0]
        return int(P.choose_nb(compiled.cf, compiled.wp, state.pol, state.st, state.act, state.buf, state.s,
                               np.int64(n)))

    def action_scores(self, compiled, state):
        from . import policies as P
        n = self.legal_actions(compiled, state).shape[0]
        out = np.zeros(n, dtype=np.float64)
        P.scores_nb(compiled.cf, compiled.wp, state.heur, state.st, state.act, state.buf, state.s, np.int64(n), out)
        return out

    def heuristic_rows(self, compiled, seat_players):
        return policy_array(dict(zip(self.sides, map(self.engine_player, seat_players))))

    def heuristic_choice(self, compiled, state):
        scores = self.action_scores(compiled, state)
        return int(np.argmax(scores)) if scores.shape[0] else 0

    def decision_kind(self, compiled, state):
        from .layout import DECISIONS, OVER, S_DK, S_PHASE
        return "over" if state.st[S_PHASE] == OVER else DECISIONS[int(state.st[S_DK])]

    def pass_action(self, compiled, state):
        from .layout import A_STOP, DK_ENT, DK_FIGHT, DK_MOVE, S_DK
        dk = int(state.st[S_DK])
        if dk == DK_MOVE:       # no stop in an Ent's extra turn (TS-7.2)
            return 0 if int(self.legal_actions(compiled, state)[0, 0]) == A_STOP else -1
        return 0 if dk in (DK_FIGHT, DK_ENT) else -1

    def run_builtin(self, compiled, state, stop_seats):
        from . import play as E
        mask = 0
        for seat in stop_seats:
            mask |= 1 << int(seat)
        seat = int(E.run_until_nb(compiled.cf, compiled.wp, state.pol, state.st, state.tr, state.act,
                                  state.buf, state.s, np.int64(mask)))
        state.n_legal = -1
        return seat

    def playouts(self, compiled, state, candidates, m, key):
        from . import play as E
        self.legal_actions(compiled, state)
        out = np.zeros((len(candidates), int(m)), dtype=np.int64)
        E.playouts_nb(compiled.cf, compiled.wp, state.heur, state.st, state.act,
                      np.asarray(candidates, dtype=np.int64), np.int64(m), np.int64(key), out)
        return out

    def _redeal(self, compiled, state, seat, s):
        """Hidden in The Search (``determinize``; ``play.determinize_nb``): the rival's hand
        with the face-down tile stack (TS-2.1, TS-2.4), the face-down brown tokens on the map
        with the brown stack (TS-2.2, TS-4.3, TS-6.5), and the order of the other token stacks.
        Counts, the map, the seat's own hand and every face-up token stay."""
        from . import play as E
        E.determinize_nb(compiled.cf, state.st, s, np.int64(seat), np.zeros(E.DET_TMP, dtype=np.int64))

    # -- traces ------------------------------------------------------------------------------
    def account(self, events):
        from .trace import account
        return account(events)

    def replay_check(self, compiled, events):
        from .trace import replay_check
        return replay_check(compiled, events)

    def trace_header(self, compiled, policies, seed, game_index) -> dict:
        """The first event of every trace: game, version, config hash and file, parameters
        that differ from the defaults, policies, seed, game index."""
        from lotr_sim import __version__
        from lotr_sim.games.players import player_settings
        meta = getattr(compiled, "meta", {}) or {}
        return {"game": int(game_index), "round": 0, "turn": 0, "side": None, "event": "header",
                "trace_version": 2, "game_name": self.name, "lotr_sim_version": __version__,
                "config_hash": meta.get("config_hash"), "config": meta.get("config"),
                "params": dict(meta.get("params", {})), "policies": dict(policies),
                "seed": int(seed), "game_index": int(game_index),
                "players": {p: player_settings(p) for p in dict(policies).values() if player_settings(p)},
                "weights": self.player_weights(policies),
                "rules": "docs/rules/the-search.md"}
