"""``MinasTirith``: the Game seam (lotr_sim.games.base) for the Siege of Minas Tirith."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from lotr_sim.config import GameConfig, Param
from lotr_sim.games.base import Game
from lotr_sim.games.minas_tirith import layout as L
from lotr_sim.games.weights import PolicyTable, Weight
from lotr_sim.games.minas_tirith import config as C
from lotr_sim.kernels.runner import resolve_threads

BUILTIN_POLICIES = ("random", "greedy", "aggressive", "cautious")

# policy vectors per side (good, evil), in layout order (PL_*):
# [type (0 random, 1 heuristic), attack threshold (exact P(take the territory)), mission weight,
#  card weight, defend weight (Good's moves), advance weight (Evil's moves), cards (set per
#  player, below), least gain of a Good move, threat weight in Good's want, value of passing]
_POL = {
    "random": ((0.0,) * 10, (0.0,) * 10),
    "greedy": ((1.0, 0.75, 1.0, 0.4, 1.0, 1.0, 0.0, 0.3, 1.0, 0.0),
               (1.0, 0.5, 1.0, 0.7, 1.0, 1.0, 0.0, 0.3, 1.0, 0.0)),
    "aggressive": ((1.0, 0.55, 1.3, 0.3, 0.6, 1.0, 0.0, 0.3, 1.0, 0.0),
                   (1.0, 0.3, 1.3, 0.5, 1.0, 1.6, 0.0, 0.3, 1.0, 0.0)),
    "cautious": ((1.0, 0.85, 0.8, 0.6, 1.5, 1.0, 0.0, 0.3, 1.0, 0.0),
                 (1.0, 0.7, 0.8, 0.9, 1.0, 0.6, 0.0, 0.3, 1.0, 0.0)),
}

# What ``lotr-sim tune`` may change (the mission weight stays 1: the die choice (MT-4.2)
# depends only on the card weight's ratio to it).
TABLE = PolicyTable("minas-tirith", ("good", "evil"), L.NPOL, (
    Weight("thr", L.PL_THR, 0.0, 1.0, "attack when P(take the territory) is at least this"),
    Weight("cw", L.PL_CW, 0.0, 4.0, "mission die: worth of a card against a mission step"),
    Weight("def", L.PL_DEF, 0.0, 4.0, "worth of a defensive move", sides=("good",)),
    Weight("adv", L.PL_ADV, 0.0, 4.0, "worth of a step towards the city", sides=("evil",)),
    Weight("gmin", L.PL_GMIN, 0.0, 2.0, "least gain of a defensive move worth making", sides=("good",)),
    Weight("tw", L.PL_TW, 0.0, 3.0, "weight of adjacent enemies in where Good wants its units",
           sides=("good",)),
    Weight("pass", L.PL_PASS, -2.0, 6.0, "value of ending the turn's actions (the action to beat)"),
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


class MinasTirith(Game):
    name = "minas-tirith"
    title = "Siege of Minas Tirith (two-player)"
    sides = ("good", "evil")
    outcomes = ("good", "evil", "draw")
    reasons = ("leaders", "city", "deck")
    builtin_policies = BUILTIN_POLICIES
    policy_table = TABLE
    default_policies = {"good": "tuned", "evil": "tuned"}
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

    # ------------------------------------------------------------------------------
    def simulate(self, compiled, policies, seed, first, n, threads=None, debug=False):
        from lotr_sim.games.minas_tirith import engine as E
        from lotr_sim.kernels.rng import check_seed
        check_seed(seed)
        pols = self.check_policies(policies)
        pol = policy_array(pols)
        NU = int(compiled.cf[C.C_NU])
        out = np.zeros((max(n, 0), 10 + NU), dtype=np.int64)
        if n > 0 and self.has_generic(pols):
            from lotr_sim.games.players import simulate_with_players

            def record(state, row):
                E.record_nb(compiled.cf, state.st, row, out)
            simulate_with_players(self, compiled, pols, seed, first, n, resolve_threads(threads), record)
        elif n > 0:
            from lotr_sim.kernels.runner import run_range

            run_range(E.simulate_nb, (compiled.cf, compiled.wp, pol, np.int64(seed), np.int64(first),
                                      np.int64(1 if debug else 0)), n, resolve_threads(threads), out)
        return self._columns(compiled, first, out)

    def _columns(self, compiled, first, out):
        n = out.shape[0]
        cols = {
            "game": np.arange(first, first + n, dtype=np.int64),
            "winner": out[:, 0].astype(np.int8),
            "reason": out[:, 1].astype(np.int8),
            "rounds": out[:, 2].astype(np.int32),
            "turns": out[:, 3].astype(np.int32),
            "points_good": out[:, 4].astype(np.int32),
            "points_evil": out[:, 5].astype(np.int32),
        }
        names = compiled.names
        for i, (u, s) in enumerate(zip(names["unit_types"], names["unit_sides"])):
            cols[f"lost_{s}_{u}"] = out[:, 10 + i].astype(np.int32)
        cols["leaders_lost_good"] = out[:, 6].astype(np.int32)
        cols["leaders_lost_evil"] = out[:, 7].astype(np.int32)
        cols["invariant_broken"] = out[:, 8].astype(np.int8)
        return cols

    def play(self, compiled, policies, seed, game_index, debug=False):
        from lotr_sim.games.minas_tirith import engine as E
        from lotr_sim.games.minas_tirith.trace import decode
        from lotr_sim.kernels.rng import check_seed
        check_seed(seed)
        pols = self.check_policies(policies)
        pol = policy_array(pols)
        size = 1 << 20
        generic = self.has_generic(pols)
        while True:
            if generic:
                from lotr_sim.games.players import play_state
                state = play_state(self, compiled, pols, seed, game_index, trace=size, debug=debug)
                st, tr = state.st, state.tr
                n = int(st[E.S_TRPOS])
            else:
                tr = np.zeros(size, dtype=np.int64)
                st, n = E.play_one_nb(compiled.cf, compiled.wp, pol, np.int64(seed), np.int64(game_index),
                                      tr, np.int64(1 if debug else 0))
            if st[E.S_TROVF] == 0:
                break
            size *= 4
        out = np.zeros((1, 10 + int(compiled.cf[C.C_NU])), dtype=np.int64)
        E.record_nb(compiled.cf, st, 0, out)
        row = self._columns(compiled, game_index, out)
        events = [self.trace_header(compiled, pols, seed, game_index)] + decode(compiled, tr[:n], game_index)
        return row, events

    # -- the step machine (lotr_sim.games.step) ----------------------------------------------
    # Actions are rows of 6 ints: (A_DIE, slot, face, 0, 0, 0) at a mission-die decision,
    # (A_LOSE, unit type, territory, hits left, 0, 0) at a loss, (A_RETREAT, territory, from,
    # steps left, neighbour index, 0) at a retreat step, (A_CARD, CD_TRADE, type | CD_MUSTER,
    # card | CD_LOAD, hand index, holder, unit type, card | CD_STOP) at a card play (MT-5, a
    # seat of a player from lotr_sim.players: engine.card_options_nb), the engine's action menu
    # (engine.enum_actions_nb: kind, a, b, c, d, e) otherwise.
    def new_state(self, compiled, policies, seed, index, trace=False, debug=False):
        from lotr_sim.games.minas_tirith import engine as E
        from lotr_sim.games.step import State, trace_size
        from lotr_sim.kernels.rng import STATE_SIZE, check_seed
        check_seed(seed)
        pols = self.check_policies(policies)
        size = trace_size(trace, 1 << 20)
        arrays = dict(st=np.zeros(E.ST_SIZE, dtype=np.int64),
                      s=np.zeros(E.STREAM_SIZE if trace else STATE_SIZE, dtype=np.uint64),
                      tr=np.zeros(size, dtype=np.int64),
                      act=np.zeros((E.MAXA, 6), dtype=np.int64),
                      scr=np.zeros(8, dtype=np.int64),
                      pol=policy_array(pols),
                      heur=policy_array({"good": "greedy", "evil": "greedy"}))
        state = State(self.name, int(seed), int(index), pols, arrays)
        E.new_game_nb(compiled.cf, state.st, state.tr, state.act, state.s, np.int64(seed), np.int64(index),
                      np.int64(1 if debug else 0))
        return state

    def _list_legal(self, compiled, state):
        from lotr_sim.games.minas_tirith import engine as E
        return E.legal_nb(compiled.cf, state.st, state.act)

    def _apply_legal(self, compiled, state, i):
        from lotr_sim.games.minas_tirith import engine as E
        if state.tr.shape[0]:   # the trace's "decision" event, as run_until_nb logs built-in seats'
            E.decision_nb(state.st, state.tr, E.to_move_nb(state.st), state.act, i, np.int64(state.n_legal))
        E.apply_nb(compiled.cf, compiled.wp, state.pol, state.st, state.tr, state.act, state.scr, state.s, i)

    def to_move(self, state):
        from lotr_sim.games.minas_tirith import engine as E
        return int(E.to_move_nb(state.st))

    def result(self, compiled, state):
        from lotr_sim.games.minas_tirith import engine as E
        out = np.zeros((1, 10 + int(compiled.cf[C.C_NU])), dtype=np.int64)
        E.record_nb(compiled.cf, state.st, 0, out)
        return self._columns(compiled, state.index, out)

    def invariant_ok(self, compiled, state):
        from lotr_sim.games.minas_tirith import engine as E
        return bool(E.invariant_nb(compiled.cf, state.st))

    def builtin_choice(self, compiled, state):
        from lotr_sim.games.minas_tirith import engine as E
        n = self.legal_actions(compiled, state).shape[0]
        return int(E.choose_nb(compiled.cf, compiled.wp, state.pol, state.st, state.act, state.scr, state.s,
                               np.int64(n)))

    def action_scores(self, compiled, state):
        from lotr_sim.games.minas_tirith import engine as E
        n = self.legal_actions(compiled, state).shape[0]
        out = np.zeros(n, dtype=np.float64)
        E.scores_nb(compiled.cf, compiled.wp, state.heur, state.st, state.act, state.scr, state.s,
                    np.int64(n), out)
        return out

    def heuristic_rows(self, compiled, seat_players):
        return policy_array(dict(zip(self.sides, map(self.engine_player, seat_players))))

    def heuristic_choice(self, compiled, state):
        scores = self.action_scores(compiled, state)
        from lotr_sim.games.minas_tirith import engine as E
        if state.st[E.S_PHASE] == E.PH_DIE or state.st[E.S_PHASE] >= E.PH_LOSS:
            return int(np.argmax(scores))   # PH_CARD too: the first highest is card_phase_nb's
        best = int(np.argmax(scores))   # choose_action_nb: the first strict maximum above PASS's 0
        return best if scores[best] > 0.0 else 0

    def decision_kind(self, compiled, state):
        """"die" (mission die, MT-4.2/4.5), "action" (the mission menu, MT-6/7/9), "loss" (a
        hit to take, MT-7.2/7.4), "retreat" (a retreat step's destination, MT-7.5) or "card"
        (a play of the card step, MT-5/MT-9.7: only for a seat of a player from lotr_sim.players)."""
        from lotr_sim.games.minas_tirith import engine as E
        ph = int(state.st[E.S_PHASE])
        if ph == E.PH_RETREAT:
            return "retreat"
        if ph == E.PH_CARD:
            return "card"
        return "die" if ph == E.PH_DIE else "action" if ph == E.PH_ACT else "loss"

    def pass_action(self, compiled, state):
        from lotr_sim.games.minas_tirith import engine as E
        return 0 if state.st[E.S_PHASE] == E.PH_ACT else -1   # PASS: end the turn (MT-4.5)

    def run_builtin(self, compiled, state, stop_seats):
        from lotr_sim.games.minas_tirith import engine as E
        mask = 0
        for seat in stop_seats:
            mask |= 1 << int(seat)
        seat = int(E.run_until_nb(compiled.cf, compiled.wp, state.pol, state.st, state.tr, state.act,
                                  state.scr, state.s, np.int64(mask)))
        state.n_legal = -1
        return seat

    def playouts(self, compiled, state, candidates, m, key):
        from lotr_sim.games.minas_tirith import engine as E
        self.legal_actions(compiled, state)
        out = np.zeros((len(candidates), int(m)), dtype=np.int64)
        E.playouts_nb(compiled.cf, compiled.wp, state.heur, state.st, state.act,
                           np.asarray(candidates, dtype=np.int64), np.int64(m), np.int64(key), out)
        return out

    def _redeal(self, compiled, state, seat, s):
        """Hidden in Minas Tirith (``determinize``): the order of the reinforcement deck
        (MT-3.1) and of the Minas Tirith deck (MT-3.2), the same for both seats (hands lie face
        up, MT-5.1; see minas_tirith/play.py). The piles keep their size and contents."""
        from lotr_sim.games.minas_tirith import engine as E
        E.determinize_nb(compiled.cf, state.st, s, np.int64(seat), np.zeros(E.DET_TMP, dtype=np.int64))

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

    def trace_header(self, compiled, policies, seed, game_index) -> dict:
        """The first event of every trace (issue 7): enough to re-run the game and to check the
        trace on its own - game, package version, config hash and file, the parameters that
        differ from the defaults, the policies, the seed and the game index."""
        from lotr_sim import __version__
        from lotr_sim.games.players import player_settings
        meta = getattr(compiled, "meta", {}) or {}
        return {"game": int(game_index), "round": 0, "turn": 0, "side": None, "event": "header",
                "trace_version": 3, "game_name": self.name, "lotr_sim_version": __version__,
                "config_hash": meta.get("config_hash"), "config": meta.get("config"),
                "params": dict(meta.get("params", {})), "policies": dict(policies),
                "seed": int(seed), "game_index": int(game_index),
                "players": {p: player_settings(p) for p in dict(policies).values() if player_settings(p)},
                "weights": self.player_weights(policies),
                "rules": "docs/rules/minas-tirith.md"}
