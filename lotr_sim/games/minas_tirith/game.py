"""``MinasTirith``: the Game seam (lotr_sim.games.base) for the Siege of Minas Tirith."""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from lotr_sim.config import GameConfig, Param
from lotr_sim.games.base import Game
from lotr_sim.games.minas_tirith import config as C

POLICIES = ("random", "greedy", "aggressive", "cautious")

# policy vectors per side (good, evil):
# [type (0 random, 1 heuristic), attack threshold (exact P(take the territory)), mission weight,
#  card weight, defend weight (Good's moves), advance weight (Evil's moves)]
_POL = {
    "random": ((0.0, 0.0, 0.0, 0.0, 0.0, 0.0), (0.0, 0.0, 0.0, 0.0, 0.0, 0.0)),
    "greedy": ((1.0, 0.75, 1.0, 0.4, 1.0, 1.0), (1.0, 0.5, 1.0, 0.7, 1.0, 1.0)),
    "aggressive": ((1.0, 0.55, 1.3, 0.3, 0.6, 1.0), (1.0, 0.3, 1.3, 0.5, 1.0, 1.6)),
    "cautious": ((1.0, 0.85, 0.8, 0.6, 1.5, 1.0), (1.0, 0.7, 0.8, 0.9, 1.0, 0.6)),
}


def policy_array(policies: Mapping[str, str]) -> np.ndarray:
    from lotr_sim.games.minas_tirith.engine import NPOL
    pol = np.zeros((2, NPOL), dtype=np.float64)
    for i, side in enumerate(("good", "evil")):
        v = _POL[policies[side]][i]
        pol[i, : len(v)] = v
    return pol


def _threads(threads):
    import numba
    if threads is None:
        return numba.config.NUMBA_NUM_THREADS
    return max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS))


class MinasTirith(Game):
    name = "minas-tirith"
    title = "Siege of Minas Tirith (two-player)"
    sides = ("good", "evil")
    outcomes = ("good", "evil", "draw")
    reasons = ("leaders", "city", "deck")
    policies = POLICIES
    default_policies = {"good": "greedy", "evil": "greedy"}
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
        if n > 0:
            nt = min(_threads(threads), n)
            args = (compiled.cf, compiled.wp, pol, np.int64(seed), np.int64(first))
            dbg = np.int64(1 if debug else 0)
            if nt == 1:
                E.simulate_nb(*args, np.int64(0), np.int64(n), dbg, out)
            else:
                from concurrent.futures import ThreadPoolExecutor
                # one contiguous chunk per thread: few, large chunks are fastest
                bounds = [(n * c) // nt for c in range(nt + 1)]
                with ThreadPoolExecutor(max_workers=nt) as ex:
                    futs = [ex.submit(E.simulate_nb, *args, np.int64(bounds[c]),
                                      np.int64(bounds[c + 1]), dbg, out) for c in range(nt)]
                    for f in futs:
                        f.result()
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
        while True:
            tr = np.zeros(size, dtype=np.int64)
            st, n = E.play_one_nb(compiled.cf, compiled.wp, pol, np.int64(seed), np.int64(game_index),
                                  tr, np.int64(1 if debug else 0))
            if st[E.S_TROVF] == 0:
                break
            size *= 4
        out = np.zeros((1, 10 + int(compiled.cf[C.C_NU])), dtype=np.int64)
        E._record_nb(compiled.cf, st, 0, out)
        row = self._columns(compiled, game_index, out)
        events = [self.trace_header(compiled, pols, seed, game_index)] + decode(compiled, tr[:n], game_index)
        return row, events

    def trace_header(self, compiled, policies, seed, game_index) -> dict:
        """The first event of every trace (issue 7): enough to re-run the game and to check the
        trace on its own - game, package version, config hash and file, the parameters that
        differ from the defaults, the policies, the seed and the game index."""
        from lotr_sim import __version__
        meta = getattr(compiled, "meta", {}) or {}
        return {"game": int(game_index), "round": 0, "turn": 0, "side": None, "event": "header",
                "trace_version": 2, "game_name": self.name, "lotr_sim_version": __version__,
                "config_hash": meta.get("config_hash"), "config": meta.get("config"),
                "params": dict(meta.get("params", {})), "policies": dict(policies),
                "seed": int(seed), "game_index": int(game_index),
                "rules": "shared/rules/minas-tirith.md"}
