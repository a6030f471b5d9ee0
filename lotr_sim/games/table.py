"""``TableGame``: the helpers every registered game offers around the core contract (``games/base.py``).

The core says what a game is and how one starts; the experiment layer needs more, and this
class gives it once for every game:

* policy names: the engine's own players, ``tuned`` weights and the players from
  ``lotr_sim.players`` (``policies``, ``check_policies``, ``seat_policies``,
  ``player_weights``, ``engine_player``, ``heuristic_rows``);
* batch simulation (``simulate``: games first..first+n of a config; game i always uses
  stream (seed, i), so any split of a range across threads, processes or Dask workers
  gives the same rows) and one traced game (``play``), which a game implements;
* traces (``account``, ``replay_check``).

A game with a numba engine gets all of it from ``lotr_sim.games.adapter.NumbaGame``.
"""
from __future__ import annotations

import abc
from typing import Any, Mapping, Sequence

import numpy as np

from lotr_sim.errors import ConfigError
from lotr_sim.games.base import Game
from lotr_sim.games.players import PLAYERS, is_generic


class TableGame(Game):
    """A ``Game`` with seats, policy names, batch simulation and traces: what the registry holds."""
    builtin_policies: tuple[str, ...] = ()  # AI players inside the engine ("random", "greedy", ...)
    default_policies: Mapping[str, str] = {}
    seat_keys: tuple[str, ...] = ()     # every seat name some configuration has (e.g. p1..p4);
                                        # () when the seats are the sides
    policy_table: Any = None            # games.weights.PolicyTable: the heuristics as weight rows
                                        # (adds ``tuned``, ``tuned:FILE`` and inline weights)

    # Can a playout stop after some rounds and be scored as if the game ended there
    # (``PlayableState.playouts``' ``horizon``)? Only where the rules name a winner at any
    # moment (LOTR Risk: the most points, LR-11.2).
    playout_horizon: bool = False

    # -- players ----------------------------------------------------------------------------
    @property
    def policies(self) -> tuple[str, ...]:
        """Every player name: the engine's own (with ``tuned`` when the game has a
        ``policy_table``), then the players written once for every game against the step
        machine (``lotr_sim.players``: the search player). ``tuned:FILE`` names are accepted
        too (``check_policies``) but not listed."""
        own = tuple(self.builtin_policies)
        if self.policy_table is not None:
            own += tuple(p for p in self.policy_table.names if p not in own)
        return own + tuple(p for p in PLAYERS if p not in own)

    def player_weights(self, policies: Mapping[str, str]) -> dict[str, dict]:
        """For every tuned player among ``policies`` (``tuned``, ``tuned:FILE``, inline
        weights), its weights per side: trace headers and manifests record them so a game
        can be re-run and checked without the file."""
        t = self.policy_table
        if t is None:
            return {}
        from lotr_sim.games.weights import generic_base

        def tuned(p: str) -> bool:
            return t.knows(p) and p not in t.presets
        # a search player built on tuned weights plays them in its playouts: record them too
        return {p: t.describe(p) for p in dict.fromkeys(policies.values())
                if tuned(p) or tuned(generic_base(p) or "")}

    def has_generic(self, policies: Mapping[str, str]) -> bool:
        """Does any seat have a player from ``lotr_sim.players`` (played through the step
        machine) rather than one the engine plays itself?"""
        return any(is_generic(p) for p in policies.values())

    def engine_player(self, name: str) -> str:
        """The engine-played player that ``name`` stands for in playouts: itself, or for a
        player from ``lotr_sim.players`` the heuristic it is built on (its ``base``
        setting; else the policy table's base heuristic, greedy)."""
        from lotr_sim.games.weights import generic_base
        if not is_generic(name):
            return name
        base = generic_base(name)
        if base and not is_generic(base):
            return base
        t = self.policy_table
        return t.base if t is not None else "greedy"

    def heuristic_rows(self, compiled: Any, seat_players: Sequence[str]) -> np.ndarray | None:
        """The engine's default-heuristic rows (``state.heur``) with seat ``i`` played by
        the engine-played player ``seat_players[i]`` (a preset, ``tuned`` or weights): what
        a state's ``heuristic_choice``, ``action_scores`` and ``playouts`` then use
        (``PlayableState.use_heuristic``). A player from ``lotr_sim.players`` stands for the
        heuristic it is built on (``engine_player``). None for a game with one heuristic and
        no rows."""
        return None

    def check_horizon(self, horizon: int) -> int:
        """``horizon`` as an int, refused when negative or when this game cannot stop a playout early."""
        hz = int(horizon)
        if hz < 0:
            raise ValueError(f"a playout horizon is a number of rounds >= 0 (0: to the end), not {hz}")
        if hz and not self.playout_horizon:
            raise ValueError(f"{self.name}'s playouts run to the end: a horizon ({hz} rounds) needs a game "
                             "whose rules name a winner at any moment (playout_horizon)")
        return hz

    # -- seats' players ---------------------------------------------------------------------
    # ``--policy SIDE=NAME`` gives every seat of the side that player; ``--policy SEAT=NAME``
    # one seat (a seat's own entry wins over its side's).
    @property
    def policy_keys(self) -> tuple[str, ...]:
        """The names a policy may be given to: the sides, then every seat name."""
        return tuple(self.sides) + tuple(k for k in self.seat_keys if k not in self.sides)

    def seat_policies(self, compiled: Any, policies: Mapping[str, str] | None) -> dict[str, str]:
        """Every seat's player, ``{seat name: player}`` in seat order: the seat's own entry,
        else its side's (``check_policies``). A seat this configuration does not have is one
        ConfigError line."""
        pols = self.check_policies(policies)
        seats = self.seat_names(compiled)
        for k in pols:
            if k not in self.sides and k not in seats:
                listed = ", ".join(f"{s} {self.sides[self.seat_side(compiled, i)]}" for i, s in enumerate(seats))
                raise ConfigError(f"game '{self.name}' has no seat '{k}' in this configuration "
                                  f"(its seats: {listed})")
        out = {s: pols.get(s) or pols[self.sides[self.seat_side(compiled, i)]] for i, s in enumerate(seats)}
        table = self.policy_table
        if table is not None:
            for i, s in enumerate(seats):
                if s not in self.sides and s in pols and table.knows(out[s]):
                    table.check_side(out[s], self.sides[self.seat_side(compiled, i)])
        return out

    def check_policies(self, policies: Mapping[str, str] | None) -> dict[str, str]:
        """The sides' default players updated with ``policies`` (keys: sides or seat names,
        ``policy_keys``), every name checked; one ConfigError line on anything unknown.
        Which seats exist may depend on the configuration: ``seat_policies`` checks that."""
        out = dict(self.default_policies)
        keys = self.policy_keys
        for side, pol in (policies or {}).items():
            if side not in keys:
                what = ("side or seat", "sides and seats") if self.seat_keys else ("side", "sides")
                raise ConfigError(f"game '{self.name}' has no {what[0]} '{side}' ({what[1]}: {', '.join(keys)})")
            if pol is None:
                continue
            table = self.policy_table
            if table is not None and table.knows(pol):
                table.check(pol)        # a bad tuned file or inline list: one ConfigError line
                if side in self.sides:
                    table.check_side(pol, side)
            elif pol not in self.policies:
                raise ConfigError(f"unknown policy '{pol}' for {side}; choose from {', '.join(self.policies)}")
            out[side] = pol
        return out

    # -- batch simulation -----------------------------------------------------------------
    @abc.abstractmethod
    def simulate(self, compiled: Any, policies: Mapping[str, str], seed: int,
                 first: int, n: int, threads: int | None = None) -> dict[str, np.ndarray]:
        """Play games ``first .. first+n-1``; game i uses stream (seed, i)."""

    @abc.abstractmethod
    def play(self, compiled: Any, policies: Mapping[str, str], seed: int,
             game_index: int) -> tuple[dict[str, np.ndarray], list[dict]]:
        """One game with its full event trace (list of JSON-able dicts). The first event is a
        ``header`` (game, package version, config hash, parameters that differ from the
        defaults, policies, seed, game index) so that a trace file can be checked on its own."""

    # -- traces -----------------------------------------------------------------------------
    def account(self, events: list[dict]) -> str:
        """A readable turn-by-turn account of a trace (what ``lotr-sim play`` prints), in the
        shape every game's account shares (``lotr_sim.games.account``: header line first, end
        line last); a game renders its own events by overriding this."""
        from lotr_sim.games.account import plain_line, render
        return render(events, plain_line)

    @abc.abstractmethod
    def replay_check(self, compiled: Any, events: list[dict]) -> int:
        """Audit a trace on its own: from each state snapshot, replaying the events must give
        the next snapshot. Returns the number of snapshots checked; raises AssertionError
        naming the first one that does not follow."""
