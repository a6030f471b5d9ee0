"""A tiny fake game for the experiment-layer tests and the game contract: Good's win
probability is a known, simple function of its parameters and of two decisions, so win
rates can be checked exactly (|z| < 4).

A game is a step machine (lotr_sim.games.step) with two decisions: Good picks
a_g in {-1, 0, +1}, then Evil picks a_e in {-1, 0, +1} (action rows [a]); then chance:

P(Good wins) = clip(0.25 + 0.05*strength + edge + 0.05*bonus + 0.10*[mode == tilted]
                    + 0.05*a_g - 0.05*a_e, 0, 1 - draw_rate)
P(draw) = draw_rate, P(Evil wins) = the rest.

"greedy" plays +1, "random" is uniform (so on average it adds nothing, as before the step
machine). Chance comes from stream (seed, i) (lotr_sim.kernels.rng), first draw = the
winner, so variants are paired game by game; the random player draws from its own stream
(seed ^ POLICY_SALT, i), so the chance stream does not depend on who plays.
"""
from __future__ import annotations

import time

import numpy as np
from numba import njit

from lotr_sim.config import GameConfig, Param, load_toml, resolve_params
from lotr_sim.games.players import PlayableState
from lotr_sim.games.step import IllegalAction
from lotr_sim.games.table import TableGame
from lotr_sim.kernels.rng import STATE_SIZE, randint_nb, stream_init_nb, uniform_nb, d6_nb

POLICY_SALT = 0x5A5A5A5A
# state slots
PHASE, A_GOOD, A_EVIL, WIN, REASON, ROUNDS, TURNS, PG, PE, LOST = range(10)
CHOICES = np.array([[-1], [0], [1]], dtype=np.int64)


@njit(cache=True)
def fake_resolve_nb(st, s, p_base, p_draw):
    """Chance after both decisions: the winner first, then the other columns."""
    p_good = p_base + 0.05 * st[A_GOOD] - 0.05 * st[A_EVIL]
    p_good = min(max(p_good, 0.0), 1.0 - p_draw)
    u = uniform_nb(s)
    if u < p_good:
        st[WIN] = 0
    elif u < p_good + p_draw:
        st[WIN] = 2
    else:
        st[WIN] = 1
    st[REASON] = randint_nb(s, 3)
    st[ROUNDS] = 1 + randint_nb(s, 20)
    st[TURNS] = 2 * st[ROUNDS]
    st[PG] = randint_nb(s, 10)
    st[PE] = randint_nb(s, 10)
    st[LOST] = d6_nb(s)
    st[PHASE] = 2


@njit(cache=True)
def fake_choice_nb(kind, sp):
    """A built-in policy's pick among the three rows: greedy +1 (row 2), random uniform."""
    if kind == 0:
        return randint_nb(sp, 3)
    return 2


@njit(cache=True)
def fake_games_nb(seed, first, n, p_base, p_draw, kind_good, kind_evil,
                  winner, reason, rounds, turns, pg, pe, lost):
    s = np.empty(STATE_SIZE, dtype=np.uint64)
    sp = np.empty(STATE_SIZE, dtype=np.uint64)
    st = np.zeros(10, dtype=np.int64)
    for j in range(n):
        stream_init_nb(seed, first + j, s)
        stream_init_nb(seed ^ POLICY_SALT, first + j, sp)
        st[:] = 0
        st[A_GOOD] = fake_choice_nb(kind_good, sp) - 1
        st[A_EVIL] = fake_choice_nb(kind_evil, sp) - 1
        fake_resolve_nb(st, s, p_base, p_draw)
        winner[j] = st[WIN]
        reason[j] = st[REASON]
        rounds[j] = st[ROUNDS]
        turns[j] = st[TURNS]
        pg[j] = st[PG]
        pe[j] = st[PE]
        lost[j] = st[LOST]


def _base(params: dict) -> float:
    return (0.25 + 0.05 * params["strength"] + params["edge"] + 0.05 * params["bonus"]
            + 0.10 * (params["mode"] == "tilted"))


def win_probability(params: dict, policies: dict) -> tuple[float, float]:
    """The exact (P(Good), P(draw)) of the fake game: the average over the random players'
    uniform choices of the clipped probability (greedy plays +1; any other player is
    taken to play as greedy does, which is what the search player converges to)."""
    d = params["draw_rate"]

    def choices(p):
        return (-1, 0, 1) if p == "random" else (1,)
    tot = 0.0
    cg, ce = choices(policies.get("good")), choices(policies.get("evil"))
    for ag in cg:
        for ae in ce:
            tot += min(max(_base(params) + 0.05 * ag - 0.05 * ae, 0.0), 1.0 - d)
    return tot / (len(cg) * len(ce)), d


class FakeState(PlayableState):
    """A game of the fake game: two decisions, then chance (the module docstring)."""

    def legal_actions(self):
        return CHOICES if self.st[PHASE] < 2 else CHOICES[:0]

    def apply(self, i):
        st = self.st
        if st[PHASE] >= 2 or not 0 <= int(i) < 3:
            raise IllegalAction(f"action {i} is not legal here")
        st[A_GOOD if st[PHASE] == 0 else A_EVIL] = CHOICES[int(i), 0]
        st[PHASE] += 1
        if st[PHASE] == 2:
            fake_resolve_nb(st, self.s, _base(self.compiled), self.compiled["draw_rate"])

    @property
    def to_move(self):
        return -1 if self.st[PHASE] >= 2 else int(self.st[PHASE])

    def result(self):
        st = self.st
        one = lambda v, t: np.array([v], dtype=t)  # noqa: E731
        return dict(game=one(self.index, np.int64), winner=one(st[WIN], np.int8),
                    reason=one(st[REASON], np.int8), rounds=one(st[ROUNDS], np.int32),
                    turns=one(st[TURNS], np.int32), points_good=one(st[PG], np.int32),
                    points_evil=one(st[PE], np.int32), lost_good_infantry=one(st[LOST], np.int32))

    def invariant_ok(self):
        st = self.st
        return -1 <= st[A_GOOD] <= 1 and -1 <= st[A_EVIL] <= 1 and 0 <= st[PHASE] <= 2

    def builtin_choice(self):
        side = self.game.sides[self.to_move]
        return int(fake_choice_nb(FakeGame._kind(self.policies[side]), self.sp))

    def action_scores(self):
        return np.array([-1.0, 0.0, 1.0])

    def playouts(self, candidates, m, key):
        out = np.zeros((len(candidates), int(m)), dtype=np.int64)
        for j in range(int(m)):
            for c, a in enumerate(candidates):
                x = self.copy()
                stream_init_nb(key, j, x.s)
                x.apply(int(a))
                while not x.is_terminal():
                    x.apply(x.heuristic_choice())
                out[c, j] = x.st[WIN]
        return out


class FakeGame(TableGame):
    name = "fake"
    title = "A fake game for tests"
    sides = ("good", "evil")
    outcomes = ("good", "evil", "draw")
    reasons = ("leaders", "city", "deck")
    builtin_policies = ("random", "greedy")
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

    @staticmethod
    def _kind(p: str) -> int:
        return 0 if p == "random" else 1   # other players: the engine plays greedy for them

    def simulate(self, compiled, policies, seed, first, n, threads=None):
        pol = self.check_policies(policies)
        if compiled["delay_ms"]:
            time.sleep(compiled["delay_ms"] / 1000.0)
        out = dict(
            game=np.arange(first, first + n, dtype=np.int64),
            winner=np.empty(n, np.int8), reason=np.empty(n, np.int8),
            rounds=np.empty(n, np.int32), turns=np.empty(n, np.int32),
            points_good=np.empty(n, np.int32), points_evil=np.empty(n, np.int32),
            lost_good_infantry=np.empty(n, np.int32),
        )
        if any(p not in self.builtin_policies for p in pol.values()):
            from lotr_sim.games.players import simulate_with_players

            def record(state, row):
                r = state.result()
                for k in out:
                    out[k][row] = r[k][0]
            simulate_with_players(self, compiled, pol, seed, first, n, threads or 1, record)
            return out
        fake_games_nb(seed, first, n, _base(compiled), compiled["draw_rate"],
                      self._kind(pol["good"]), self._kind(pol["evil"]),
                      out["winner"], out["reason"], out["rounds"],
                      out["turns"], out["points_good"], out["points_evil"], out["lost_good_infantry"])
        return out

    # -- the step machine -------------------------------------------------------------------
    def start(self, rules, policies, seed, index, trace=False, debug=False):
        pol = self.check_policies(policies)
        s = np.empty(STATE_SIZE, dtype=np.uint64)
        sp = np.empty(STATE_SIZE, dtype=np.uint64)
        stream_init_nb(seed, index, s)
        stream_init_nb(seed ^ POLICY_SALT, index, sp)
        return FakeState(rules, seed, index, pol, dict(st=np.zeros(10, dtype=np.int64), s=s, sp=sp))

    def play(self, compiled, policies, seed, game_index):
        row = self.simulate(compiled, policies, seed, game_index, 1)
        row = {k: v[:1] for k, v in row.items()}
        w = self.outcomes[int(row["winner"][0])]
        events = [
            dict(game=game_index, round=0, turn=0, side=None, event="header", game_name=self.name,
                 seed=int(seed), game_index=int(game_index), policies=self.check_policies(policies),
                 params=dict(compiled)),
            dict(game=game_index, round=0, turn=0, side="good", event="setup"),
            dict(game=game_index, round=int(row["rounds"][0]), turn=int(row["turns"][0]), side="evil",
                 event="game_end", winner=w, reason=self.reasons[int(row["reason"][0])],
                 points={"good": int(row["points_good"][0]), "evil": int(row["points_evil"][0])}),
        ]
        return row, events

    def replay_check(self, compiled, events):
        """The fake trace has no snapshots: its game_end must follow from the setup's decisions."""
        end = [e for e in events if e["event"] == "game_end"]
        if len(end) != 1 or end[0]["winner"] not in self.outcomes:
            raise AssertionError("a fake trace ends with exactly one game_end")
        return 0


#: The fake game's levers as a sweep file, for the fix tests: with strength=2 Good wins 35%.
#: Single changes: edge=0.15 reaches 50%; bonus, tilted and edge=0.05 do not. Pairs reaching
#: 50%: mode=tilted+edge=0.05 (cost 1 + 1/3) and bonus+mode=tilted (cost 2).
FIX_SWEEP = """
game = "fake"
[set]
strength = 2
[params]
bonus = [false, true]
mode = ["fair", "tilted"]
edge = [0.0, 0.05, 0.15]
"""
