"""``LotrRisk``: the Game seam (lotr_sim.games.base) for Risk: The Lord of the Rings (2002).

Seats and sides (LR-2.1/2.3): the seats are ``p1``..``pN`` in the rules' seat order; 2 players
= p1 Good, p2 Evil plus the neutral army (which never decides, LR-2.2/5.8); 3 players = Evil,
Good, Evil; 4 players = Good, Evil, Good, Evil (``compiled.names["seat_sides"]``). Policies are
given per side (``--good greedy``: every seat of the side) and/or per seat (``--policy
p3=random``, which wins over its side's entry); ``to_move`` is the seat to move, and a search
player in a seat scores its playouts by its seat's side winning. Outcomes are "good" / "evil"
(LR-11.3 breaks ties by dice, so no draw): the side of the winning player; ``winner_seat``
names the player (LR-11.4: reports give win rates per side and per seat).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from lotr_sim.config import GameConfig, Param
from lotr_sim.games.base import Game
from lotr_sim.games.lotr_risk import config as C
from lotr_sim.games.lotr_risk import layout as L
from lotr_sim.games.lotr_risk.layout import NPOL
from lotr_sim.games.weights import PolicyTable, Weight
from lotr_sim.kernels.runner import resolve_threads

BUILTIN_POLICIES = ("random", "greedy", "aggressive", "cautious")

# policy vector: type (0 random, 1 heuristic), attack threshold (exact P(take it)),
# concentrate reinforcements (1) or spread (0), mission weight, fortify weight, power weight
_POL = {
    "random": (0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
    "greedy": (1.0, 0.6, 1.0, 1.0, 1.0, 1.0),
    "aggressive": (1.0, 0.4, 1.0, 0.6, 1.0, 1.5),
    "cautious": (1.0, 0.8, 0.0, 1.3, 1.0, 0.7),
}

REASONS = ("fellowship", "conquest", "turn_cap")


# What ``lotr-sim tune`` may change, per side (every seat of a side plays its side's row).
TABLE = PolicyTable("lotr-risk", ("good", "evil"), NPOL, (
    Weight("thr", L.PL_THR, 0.0, 1.0, "attack when P(take the territory) is at least this"),
    Weight("conc", L.PL_CONC, -1.0, 1.0, "reinforcements: concentrate (> 0) or spread (<= 0)"),
    Weight("miss", L.PL_MISS, 0.0, 3.0, "worth of mission territories and sites"),
    Weight("fort", L.PL_FORT, 0.0, 3.0, "worth of a fortify move towards the front"),
    Weight("pow", L.PL_POW, 0.0, 3.0, "worth of power: cards, strongholds, continents"),
), {name: {"good": v, "evil": v} for name, v in _POL.items()})


def policy_array(seat_policies: Sequence[str], seat_sides: Sequence[str] = ()) -> np.ndarray:
    """The engine's policy vectors, one row per seat (``C.MAXP`` rows; seats past the player
    count play greedy and never move); a seat held by a player from ``lotr_sim.players`` gets
    greedy's (its playouts and inner decisions use it). A tuned player's row is its seat's
    side's (``seat_sides``)."""
    pol = np.zeros((C.MAXP, NPOL), dtype=np.float64)
    for i in range(C.MAXP):
        name = seat_policies[i] if i < len(seat_policies) else "greedy"
        pol[i] = TABLE.row(name, seat_sides[i] if i < len(seat_sides) else "good")
    return pol


def _seat_sides(compiled) -> list[str]:
    """The side of each seat of a compiled config, or of a loaded ``GameConfig``."""
    if isinstance(compiled, GameConfig):
        return [s[0] for s in C.SEATS[int(compiled.params["players"])]]
    return list(compiled.names["seat_sides"])


def _columns(out: np.ndarray, first: int) -> dict[str, np.ndarray]:
    n = out.shape[0]
    cols = {
        "game": np.arange(first, first + n, dtype=np.int64),
        "winner": out[:, 0].astype(np.int8),
        "reason": out[:, 1].astype(np.int8),
        "rounds": out[:, 2].astype(np.int32),
        "turns": out[:, 3].astype(np.int32),
        "points_good": out[:, 16].astype(np.int32),
        "points_evil": out[:, 21].astype(np.int32),
        "winner_seat": out[:, 4].astype(np.int8),
    }
    for p in range(4):
        cols[f"points_p{p + 1}"] = out[:, 8 + p].astype(np.int32)
    for sd, side in enumerate(("good", "evil")):
        for k, what in enumerate(("territories", "regions", "strongholds", "adventure")):
            cols[f"{what}_pts_{side}"] = out[:, 12 + 5 * sd + k].astype(np.int32)
    cols["conquest_win"] = out[:, 5].astype(np.int8)
    cols["fellowship_turns"] = out[:, 6].astype(np.int32)
    cols["invariant_broken"] = (out[:, 7] > 0).astype(np.int8)
    return cols


class LotrRisk(Game):
    name = "lotr-risk"
    title = "Risk: The Lord of the Rings (2002)"
    sides = ("good", "evil")
    outcomes = ("good", "evil")
    reasons = REASONS
    builtin_policies = BUILTIN_POLICIES
    policy_table = TABLE
    default_policies = {"good": "tuned", "evil": "tuned"}
    seat_keys = tuple(f"p{i + 1}" for i in range(C.MAXP))
    notes = (
        "The board is assembled from public fan implementations and a board photo (not an official "
        "data file); the 40-card adventure deck and its points are a RECONSTRUCTION (LR-9.4): "
        "'You Shall Not Pass!' and 'Strategic Withdrawal' are decisions of their holders (play.py).",
        "Good/Evil win rates are per side: with 3-4 players a side wins when any of its seats wins (LR-11.4).",
    )

    def seat_names(self, compiled) -> tuple[str, ...]:
        """``p1``..``pN`` in the rules' seat order (LR-2.2/2.3); ``compiled`` may also be the
        loaded GameConfig."""
        return tuple(f"p{i + 1}" for i in range(len(_seat_sides(compiled))))

    def seat_side(self, compiled, seat: int) -> int:
        return self.sides.index(_seat_sides(compiled)[int(seat)])

    def params(self) -> list[Param]:
        return list(C.PARAMS)

    def load(self, config: str | None = None,
             overrides: Sequence[str] | Mapping[str, Any] | None = None) -> GameConfig:
        return C.load(config, overrides)

    def compile(self, cfg: GameConfig) -> C.Compiled:
        return C.compile_checked(cfg)

    def fellowship_track(self, cfg: GameConfig):
        """The Fellowship's path, its die territories and threshold (LR-10.1/10.2) as a
        ``lotr_sim.exact.fellowship.FellowshipTrack``: what ``lotr-sim fellowship`` and the
        exact law read, from the same config the engine plays."""
        from lotr_sim.exact.fellowship import FellowshipTrack
        fs = cfg.data["fellowship"]
        marked = set(fs.get("marked", []))
        return FellowshipTrack(tuple(fs["path"]), tuple(t in marked for t in fs["path"]),
                               roll_above=int(cfg.params["fellowship_roll_above"]))

    # ------------------------------------------------------------------------------
    def simulate(self, compiled, policies, seed, first, n, threads=None, debug=False):
        from lotr_sim.games.lotr_risk import play as E
        from lotr_sim.kernels.rng import check_seed
        check_seed(seed)
        pols = self.check_policies(policies)
        seats = self.seat_policies(compiled, pols)
        out = np.zeros((max(n, 0), E.NOUT), dtype=np.int64)
        if n > 0 and self.has_generic(seats):
            from lotr_sim.games.players import simulate_with_players

            def record(state, row):
                E.record_nb(compiled.cf, state.st, row, out)
            simulate_with_players(self, compiled, pols, seed, first, n, resolve_threads(threads), record)
        elif n > 0:
            from lotr_sim.kernels.runner import run_range
            run_range(E.simulate_nb, (compiled.cf, compiled.wp, policy_array(list(seats.values()), _seat_sides(compiled)), np.int64(seed),
                                      np.int64(first), np.int64(1 if debug else 0)),
                      n, resolve_threads(threads), out)
        return _columns(out, first)

    def play(self, compiled, policies, seed, game_index, debug=False):
        from lotr_sim.games.lotr_risk.trace import decode
        from lotr_sim.kernels.rng import check_seed
        from lotr_sim.kernels.tracebuf import overflowed
        check_seed(seed)
        pols = self.check_policies(policies)
        seats = self.seat_policies(compiled, pols)
        size = 1 << 18
        while True:
            if self.has_generic(seats):
                from lotr_sim.games.players import play_state
                state = play_state(self, compiled, pols, seed, game_index, trace=size, debug=debug)
            else:
                state = self.new_state(compiled, pols, seed, game_index, trace=size, debug=debug)
                self.run_builtin(compiled, state, ())
            if not overflowed(state.tr):
                break
            size *= 4
        row = self.result(compiled, state)
        events = [self.trace_header(compiled, pols, seed, game_index)] + decode(compiled, state.tr, game_index)
        return row, events

    # -- the step machine ----------------------------------------------------------------------
    # Actions are rows (kind, a, b, c); see lotr_sim/games/lotr_risk/play.py.
    def new_state(self, compiled, policies, seed, index, trace=False, debug=False):
        from lotr_sim.games.lotr_risk import layout as L
        from lotr_sim.games.lotr_risk import play as E
        from lotr_sim.games.step import State, trace_size
        from lotr_sim.games.lotr_risk.policies import NCTX
        from lotr_sim.kernels.rng import STATE_SIZE, check_seed
        from lotr_sim.kernels.tracebuf import new_trace
        check_seed(seed)
        pols = self.check_policies(policies)
        seats = self.seat_policies(compiled, pols)
        size = trace_size(trace, 1 << 18)
        arrays = dict(st=np.zeros(L.ST_SIZE, dtype=np.int64),
                      s=np.zeros(STATE_SIZE, dtype=np.uint64),
                      tr=new_trace(size),
                      act=np.zeros((L.MAXA, 4), dtype=np.int64),
                      pol=policy_array(list(seats.values()), _seat_sides(compiled)),
                      heur=policy_array(()),
                      scr=np.zeros(NCTX))
        state = State(self.name, int(seed), int(index), pols, arrays, meta=dict(cf=compiled.cf))
        E.new_game_nb(compiled.cf, state.st, state.tr, state.act, state.s, np.int64(seed), np.int64(index),
                      np.int64(1 if debug else 0))
        return state

    def _list_legal(self, compiled, state):
        from lotr_sim.games.lotr_risk import play as E
        return E.legal_nb(compiled.cf, state.st, state.act)

    def _apply_legal(self, compiled, state, i):
        from lotr_sim.games.lotr_risk import play as E
        E.apply_nb(compiled.cf, compiled.wp, state.pol, state.st, state.tr, state.act, state.scr, state.s, i)

    def to_move(self, state):
        from lotr_sim.games.lotr_risk import layout as L
        if state.st[L.S_OVER] != 0:
            return -1
        return int(state.st[L.S_CUR])     # the seat (p1 = 0); seat_side gives its side

    def result(self, compiled, state):
        from lotr_sim.games.lotr_risk import play as E
        out = np.zeros((1, E.NOUT), dtype=np.int64)
        E.record_nb(compiled.cf, state.st, 0, out)
        return _columns(out, state.index)

    def invariant_ok(self, compiled, state):
        from lotr_sim.games.lotr_risk import board as B
        return bool(B.invariant_ok_nb(compiled.cf, state.st))

    def builtin_choice(self, compiled, state):
        from lotr_sim.games.lotr_risk import policies as P
        n = self.legal_actions(compiled, state).shape[0]
        return int(P.choose_nb(compiled.cf, compiled.wp, state.pol, state.st, state.act, state.scr, state.s,
                               np.int64(n)))

    def action_scores(self, compiled, state):
        from lotr_sim.games.lotr_risk import policies as P
        n = self.legal_actions(compiled, state).shape[0]
        out = np.zeros(n, dtype=np.float64)
        P.scores_nb(compiled.cf, compiled.wp, state.heur, state.st, state.act, state.scr, state.s, np.int64(n), out)
        return out

    def heuristic_rows(self, compiled, seat_players):
        return policy_array([self.engine_player(p) for p in seat_players], _seat_sides(compiled))

    def heuristic_choice(self, compiled, state):
        scores = self.action_scores(compiled, state)
        return int(np.argmax(scores)) if scores.shape[0] else 0

    def decision_kind(self, compiled, state):
        from lotr_sim.games.lotr_risk import layout as L
        return L.PHASE_KIND[int(state.st[L.S_PHASE])]

    def pass_action(self, compiled, state):
        from lotr_sim.games.lotr_risk import layout as L
        acts = self.legal_actions(compiled, state)
        if acts.shape[0] and acts[0, 0] == L.A_PASS and int(state.st[L.S_PHASE]) in (L.PH_ATTACK, L.PH_FORT):
            return 0
        return -1

    def run_builtin(self, compiled, state, stop_seats):
        from lotr_sim.games.lotr_risk import play as E
        mask = 0
        for seat in stop_seats:
            mask |= 1 << int(seat)
        seat = int(E.run_until_nb(compiled.cf, compiled.wp, state.pol, state.st, state.tr, state.act,
                                  state.scr, state.s, np.int64(mask)))
        state.n_legal = -1
        return seat

    def playouts(self, compiled, state, candidates, m, key):
        from lotr_sim.games.lotr_risk import play as E
        self.legal_actions(compiled, state)
        out = np.zeros((len(candidates), int(m)), dtype=np.int64)
        E.playouts_nb(compiled.cf, compiled.wp, state.heur, state.st, state.act,
                      np.asarray(candidates, dtype=np.int64), np.int64(m), np.int64(key), out)
        return out

    def _redeal(self, compiled, state, seat, s):
        """Hidden in LOTR Risk (``determinize``; ``play.determinize_nb``): the order of the
        territory-card and adventure decks, and the other players' territory-card hands (the
        rulebook does not say they are open: kept hidden) and adventure hands with their secret
        missions (LR-9.1), every count kept. Discard piles, the seat's own hands, completed
        missions and played cards are public and stay."""
        from lotr_sim.games.lotr_risk import play as E
        E.determinize_nb(compiled.cf, state.st, s, np.int64(seat), np.zeros(E.DET_TMP, dtype=np.int64))

    # -- traces ------------------------------------------------------------------------------
    def account(self, events):
        from lotr_sim.games.lotr_risk.trace import account
        return account(events)

    def replay_check(self, compiled, events):
        from lotr_sim.games.lotr_risk.trace import replay_check
        return replay_check(events)

    def trace_header(self, compiled, policies, seed, game_index) -> dict:
        """The first event of every trace: game, version, config hash and source, parameters
        that differ from the defaults, policies, seed and game index."""
        from lotr_sim import __version__
        from lotr_sim.games.players import player_settings
        meta = getattr(compiled, "meta", {}) or {}
        seats = self.seat_policies(compiled, policies)   # every seat's player (p1..pN)
        return {"game": int(game_index), "round": 0, "turn": 0, "side": None, "event": "header",
                "trace_version": 2, "game_name": self.name, "lotr_sim_version": __version__,
                "config_hash": meta.get("config_hash"), "config": meta.get("config"),
                "params": dict(meta.get("params", {})), "policies": dict(policies),
                "seat_policies": seats,
                "players": int(compiled.cf[C.C_NP]), "seat_sides": compiled.names["seat_sides"],
                "seed": int(seed), "game_index": int(game_index),
                "search": {p: player_settings(p) for p in seats.values() if player_settings(p)},
                "weights": self.player_weights(seats),
                "rules": "docs/rules/lotr-risk.md"}
