"""A tiny fake game for the experiment-layer tests: Good's win probability is a known,
simple function of its parameters, so win rates can be checked exactly (|z| < 4).

P(Good wins) = clip(0.25 + 0.05*strength + edge + 0.05*bonus + 0.10*[mode == tilted]
                    + 0.05*[good plays greedy] - 0.05*[evil plays greedy], 0, 1 - draw_rate)
P(draw) = draw_rate, P(Evil wins) = the rest. Game i draws its fate from stream (seed, i)
(lotr_sim.kernels.rng), first draw = the winner, so variants are paired game by game.
"""
from __future__ import annotations

import time

import numpy as np
from numba import njit

from lotr_sim.config import GameConfig, Param, load_toml, resolve_params
from lotr_sim.games.base import Game
from lotr_sim.kernels.rng import STATE_SIZE, randint_nb, stream_init_nb, uniform_nb, d6_nb


@njit(cache=True)
def fake_games_nb(seed, first, n, p_good, p_draw, winner, reason, rounds, turns, pg, pe, lost):
    s = np.empty(STATE_SIZE, dtype=np.uint64)
    for j in range(n):
        stream_init_nb(seed, first + j, s)
        u = uniform_nb(s)
        if u < p_good:
            winner[j] = 0
        elif u < p_good + p_draw:
            winner[j] = 2
        else:
            winner[j] = 1
        reason[j] = randint_nb(s, 3)
        rounds[j] = 1 + randint_nb(s, 20)
        turns[j] = 2 * rounds[j]
        pg[j] = randint_nb(s, 10)
        pe[j] = randint_nb(s, 10)
        lost[j] = d6_nb(s)


def win_probability(params: dict, policies: dict) -> tuple[float, float]:
    """The exact (P(Good), P(draw)) of the fake game."""
    p = (0.25 + 0.05 * params["strength"] + params["edge"] + 0.05 * params["bonus"]
         + 0.10 * (params["mode"] == "tilted")
         + 0.05 * (policies.get("good") == "greedy") - 0.05 * (policies.get("evil") == "greedy"))
    d = params["draw_rate"]
    return min(max(p, 0.0), 1.0 - d), d


class FakeGame(Game):
    name = "fake"
    title = "A fake game for tests"
    sides = ("good", "evil")
    outcomes = ("good", "evil", "draw")
    reasons = ("leaders", "city", "deck")
    policies = ("random", "greedy")
    default_policies = {"good": "greedy", "evil": "greedy"}

    def params(self):
        return [
            Param("strength", 5, "int", "FK-1", "Good's strength", lo=0, hi=10),
            Param("edge", 0.0, "float", "FK-2", "added to Good's win chance", lo=-0.2, hi=0.2),
            Param("bonus", False, "bool", "FK-3", "+0.05 for Good"),
            Param("mode", "fair", "choice", "FK-4", "tilted: +0.10 for Good", choices=("fair", "tilted")),
            Param("draw_rate", 0.1, "float", "FK-5", "chance of a draw", lo=0.0, hi=0.5),
            Param("delay_ms", 0, "int", "FK-6", "sleep per simulate call (tests of kill/resume)", lo=0, hi=5000),
        ]

    def load(self, config=None, overrides=None):
        file_values = load_toml(config).get("params", {}) if config else {}
        params = resolve_params(self.params(), file_values, overrides, game=self.name)
        return GameConfig(game=self.name, data={"version": 1}, params=params, source=str(config or ""))

    def compile(self, cfg):
        return dict(cfg.params)

    def simulate(self, compiled, policies, seed, first, n, threads=None):
        pol = self.check_policies(policies)
        p_good, p_draw = win_probability(compiled, pol)
        if compiled["delay_ms"]:
            time.sleep(compiled["delay_ms"] / 1000.0)
        out = dict(
            game=np.arange(first, first + n, dtype=np.int64),
            winner=np.empty(n, np.int8), reason=np.empty(n, np.int8),
            rounds=np.empty(n, np.int32), turns=np.empty(n, np.int32),
            points_good=np.empty(n, np.int32), points_evil=np.empty(n, np.int32),
            lost_good_infantry=np.empty(n, np.int32),
        )
        fake_games_nb(seed, first, n, p_good, p_draw, out["winner"], out["reason"], out["rounds"],
                      out["turns"], out["points_good"], out["points_evil"], out["lost_good_infantry"])
        return out

    def play(self, compiled, policies, seed, game_index):
        row = self.simulate(compiled, policies, seed, game_index, 1)
        row = {k: v[:1] for k, v in row.items()}
        w = self.outcomes[int(row["winner"][0])]
        events = [
            dict(game=game_index, round=0, turn=0, side="good", event="setup"),
            dict(game=game_index, round=int(row["rounds"][0]), turn=int(row["turns"][0]), side="evil",
                 event="game_end", winner=w, reason=self.reasons[int(row["reason"][0])],
                 points={"good": int(row["points_good"][0]), "evil": int(row["points_evil"][0])}),
        ]
        return row, events
