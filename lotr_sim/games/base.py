"""The seam between games and the experiment layer.

Every game is one ``Game`` subclass registered in ``registry.py`` (a game with a numba
engine subclasses ``lotr_sim.games.adapter.NumbaGame``, which binds this surface to the
engine's common kernels once). The experiment layer
(run, sweep, compare, balance, bench, reports) only ever calls this surface: it asks for
"games first..first+n of this config" and adds up the outcomes; it never looks inside a
game. Game ``i`` always uses random stream ``(seed, i)`` (``lotr_sim.kernels.rng``), so any
split of a range across threads, processes or Dask workers gives the same rows.

Outcomes are a ``dict[str, np.ndarray]``, one entry per column, one row per game, with
the common columns

    game      int64  the game index (its stream index)
    winner    int8   index into ``Game.outcomes``     (e.g. good / evil / draw)
    reason    int8   index into ``Game.reasons``      (e.g. leaders / city / deck)
    rounds    int32  rounds played
    turns     int32  turns played
    points_<side> int32 for each side in ``Game.sides``

plus any game-specific columns (e.g. units lost per type).
"""
from __future__ import annotations

import abc
import contextlib
import sys
import warnings
from typing import Any, Mapping, Sequence

import numpy as np

from lotr_sim.config import GameConfig, Param
from lotr_sim.errors import ConfigError
from lotr_sim.games.players import PLAYERS, is_generic
from lotr_sim.kernels.outcomes import COMMON_COLUMNS  # noqa: F401  (the columns above, re-exported)


class SetupWarning(UserWarning):
    """A set-up that departs from the rulebook (``Game.setup_warnings``)."""


_printing = [0]     # how many setup_warnings_printed contexts are open (the outermost prints)


def _setup_warnings_ignored() -> bool:
    """Does the first warnings filter that applies to every SetupWarning say "ignore"?"""
    for action, message, category, module, lineno in warnings.filters:
        if issubclass(SetupWarning, category) and (message is None or message.pattern in ("", ".*")) \
                and module is None and not lineno:
            return action == "ignore"
    return False


@contextlib.contextmanager
def setup_warnings_printed():
    """While open, each ``SetupWarning`` a game's ``load`` issues is printed once, as the one
    line ``lotr-sim: warning: ...`` on stderr (the CLI's and the API's form, not Python's
    ``path:line: SetupWarning: ...``), however often the same set-up is loaded; other
    warnings pass through. A filter that ignores SetupWarning is respected. Nested contexts
    print through the outermost."""
    if _printing[0]:
        yield
        return
    seen: set[str] = set()
    with warnings.catch_warnings():
        if not _setup_warnings_ignored():
            warnings.simplefilter("always", SetupWarning)
        shown = warnings.showwarning

        def show(message, category, *args, **kwargs):
            if not issubclass(category, SetupWarning):
                return shown(message, category, *args, **kwargs)
            text = str(message)
            if text not in seen:
                seen.add(text)
                print(f"lotr-sim: warning: {text}", file=sys.stderr, flush=True)
        warnings.showwarning = show
        _printing[0] += 1
        try:
            yield
        finally:
            _printing[0] -= 1


class Game(abc.ABC):
    name: str = ""                      # registry name, e.g. "minas-tirith"
    title: str = ""                     # human title
    sides: tuple[str, ...] = ()         # e.g. ("good", "evil")
    outcomes: tuple[str, ...] = ()      # winner labels, e.g. ("good", "evil", "draw")
    reasons: tuple[str, ...] = ()       # end reasons, e.g. ("leaders", "city", "deck")
    builtin_policies: tuple[str, ...] = ()  # AI players inside the engine ("random", "greedy", ...)
    default_policies: Mapping[str, str] = {}
    seat_keys: tuple[str, ...] = ()     # every seat name some configuration has (e.g. p1..p4);
                                        # () when the seats are the sides
    notes: tuple[str, ...] = ()         # caveats every report of this game must show

    policy_table: Any = None            # games.weights.PolicyTable: the heuristics as weight rows
                                        # (adds ``tuned``, ``tuned:FILE`` and inline weights)

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

    # -- configuration ------------------------------------------------------------------
    @abc.abstractmethod
    def params(self) -> list[Param]:
        """Every rule parameter: name, default, allowed values, rule ID, help."""

    @abc.abstractmethod
    def load(self, config: str | None = None,
             overrides: Sequence[str] | Mapping[str, Any] | None = None) -> GameConfig:
        """The default config (or ``config`` TOML file) with ``overrides``, validated.
        Raises ConfigError with one clear line on anything wrong."""

    def setup_warnings(self, config: GameConfig) -> list[str]:
        """One line for each way the set-up of ``config`` departs from the rulebook (e.g.
        token totals moved by count parameters); empty when it follows the rulebook. A game's
        ``load`` issues each as a ``SetupWarning``, which the CLI prints as
        ``lotr-sim: warning: ...`` on stderr."""
        return []

    @abc.abstractmethod
    def compile(self, cfg: GameConfig) -> Any:
        """Everything the kernels need, as flat NumPy arrays (picklable)."""

    # -- simulation -----------------------------------------------------------------------
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

    # -- the step machine (lotr_sim.games.step) ---------------------------------------------
    # Every game implements these; the contract test (tests/test_contract.py) runs them all.
    def new_state(self, compiled: Any, policies: Mapping[str, str] | None, seed: int, index: int,
                  trace: bool = False, debug: bool = False):
        """Game ``index`` of ``seed`` after its set-up, resting at the first decision.
        Seats held by a player from ``lotr_sim.players`` are played by the engine with the
        game's default heuristic for that seat whenever the engine decides for them."""
        raise NotImplementedError(f"{self.name} has no step machine")

    def legal_actions(self, compiled: Any, state) -> np.ndarray:
        """Every action of the current decision, one row each (empty once over).

        By default the game's listing kernel (``_list_legal``) writes the rows into the
        state's ``act`` array once per decision; ``state.n_legal`` caches their number until
        ``apply`` (or anything else that moves the game) marks it stale with -1."""
        if state.n_legal < 0:
            state.n_legal = int(self._list_legal(compiled, state))
        return state.act[: state.n_legal]

    def apply(self, compiled: Any, state, i: int) -> None:
        """Apply legal action ``i`` and resolve everything up to the next decision: an index
        outside the legal list is refused (``step.IllegalAction``) before the game's kernel
        (``_apply_legal``) sees it."""
        from lotr_sim.games.step import check_action
        i = check_action(i, self.legal_actions(compiled, state).shape[0])
        self._apply_legal(compiled, state, np.int64(i))
        state.n_legal = -1

    def _list_legal(self, compiled: Any, state) -> int:
        """Write the current decision's rows into ``state.act``; return how many."""
        raise NotImplementedError

    def _apply_legal(self, compiled: Any, state, i: np.int64) -> None:
        """Apply row ``i`` of ``state.act`` (already checked to be legal)."""
        raise NotImplementedError

    def to_move(self, state) -> int:
        """The seat (index into ``seat_names(compiled)``; the sides unless the game has more
        seats) whose decision it is; -1 once over."""
        raise NotImplementedError

    def is_over(self, state) -> bool:
        return self.to_move(state) < 0

    def result(self, compiled: Any, state) -> dict[str, np.ndarray]:
        """The finished game's one-row outcome columns (as ``simulate`` gives them)."""
        raise NotImplementedError

    def invariant_ok(self, compiled: Any, state) -> bool:
        """The game's conservation invariant (units, cards, tokens ...) holds."""
        raise NotImplementedError

    def builtin_choice(self, compiled: Any, state) -> int:
        """The index the seat's built-in policy picks (random ones draw from the state)."""
        raise NotImplementedError

    def heuristic_choice(self, compiled: Any, state) -> int:
        """The index the seat's default heuristic picks (never draws)."""
        raise NotImplementedError

    def heuristic_rows(self, compiled: Any, seat_players: Sequence[str]) -> np.ndarray | None:
        """The engine's default-heuristic rows (``state.heur``) with seat ``i`` played by
        the engine-played player ``seat_players[i]`` (a preset, ``tuned`` or weights): what
        ``heuristic_choice``, ``action_scores`` and ``playouts`` then use
        (``use_heuristic``). A player from ``lotr_sim.players`` stands for the heuristic it
        is built on (``engine_player``). None for a game with one heuristic and no rows."""
        return None

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

    def use_heuristic(self, compiled: Any, state, rows: np.ndarray | None) -> None:
        """Make ``rows`` (from ``heuristic_rows``) the heuristic that ``heuristic_choice``,
        ``action_scores`` and ``playouts`` use on ``state`` (nothing when None)."""
        if rows is not None:
            state.heur[...] = rows

    def action_scores(self, compiled: Any, state) -> np.ndarray:
        """The default heuristic's score of each legal action (higher is better)."""
        raise NotImplementedError

    def decision_kind(self, compiled: Any, state) -> str:
        """A short name of the current decision's kind, so a player may treat kinds
        differently (the search player's ``skip``); "decision" when the game does not say.
        Minas Tirith: "die", "action", "loss", "retreat", "card"; LOTR Risk: its phase
        (``lotr_risk.layout.PHASE_KIND``); The Search: ``the_search.layout.DECISIONS``."""
        return "decision"

    def pass_action(self, compiled: Any, state) -> int:
        """The index of the "do nothing more" action of this decision (e.g. end the turn), or
        -1 when there is none; a search player always considers it."""
        return -1

    def run_builtin(self, compiled: Any, state, stop_seats: Sequence[int]) -> int:
        """Play built-in policies until a seat in ``stop_seats`` is to move (returns it) or
        the game ends (returns -1)."""
        raise NotImplementedError

    def playouts(self, compiled: Any, state, candidates: np.ndarray, m: int, key: int,
                 horizon: int = 0) -> np.ndarray:
        """For each candidate action and j < m: on a copy, determinized from the mover's view
        as ``determinize`` does (on stream (key, j)), apply it, then the default heuristics
        play to the end with chance from stream (key, j), the same for every candidate.
        Returns winner codes (indices into ``outcomes``), shape [k, m].

        ``horizon`` > 0 (only a game with ``playout_horizon``): a playout stops once that many
        rounds more have ended and is scored as if the game ended there by its own rules
        (the winner the rules would name at that moment); the game's ``playout_horizon``
        docstring says how."""
        raise NotImplementedError

    def prepare_playouts(self, compiled: Any, state) -> None:
        """Called before the first step of a game in which a search player is seated: make
        ready whatever ``playouts`` needs, leaving ``state`` as it was. Nothing here (a numba
        game compiles its playouts kernel first: ``NumbaGame.prepare_playouts``)."""
        return None

    # Can a playout stop after some rounds and be scored as if the game ended there
    # (``playouts``' ``horizon``)? Only where the rules name a winner at any moment (LOTR Risk:
    # the most points, LR-11.2).
    playout_horizon: bool = False

    def _check_horizon(self, horizon: int) -> int:
        """``horizon`` as an int, refused when negative or when this game cannot stop a playout early."""
        hz = int(horizon)
        if hz < 0:
            raise ValueError(f"a playout horizon is a number of rounds >= 0 (0: to the end), not {hz}")
        if hz and not self.playout_horizon:
            raise ValueError(f"{self.name}'s playouts run to the end: a horizon ({hz} rounds) needs a game "
                             "whose rules name a winner at any moment (playout_horizon)")
        return hz

    def determinize(self, compiled: Any, state, seat: int, key: int):
        """A new state (the original is left as it was): ``state`` as seat ``seat`` sees it,
        with everything that seat cannot know dealt again from stream (key, 0) - the order of
        every deck and stack, the other players' hands and face-down cards or tokens where the
        rules keep them secret (their counts stay public). The public part is unchanged and
        the copy is a valid position of the same game, so the step machine plays on from it
        (its legal list is listed again). The search playouts (``playouts``) deal the same way
        inside their kernel, playout ``j`` on stream (key, j), so this is what playout 0 of
        ``key`` starts from. A game says what it hides in ``_redeal``; by default (no hidden
        information) the copy is unchanged."""
        from lotr_sim.kernels.rng import make_stream
        if not 0 <= int(seat) < len(self.seat_names(compiled)):
            raise ValueError(f"seat {seat} is not one of {', '.join(self.seat_names(compiled))} (0-based)")
        out = state.copy()
        self._redeal(compiled, out, int(seat), make_stream(int(key), 0))
        out.n_legal = -1
        return out

    def _redeal(self, compiled: Any, state, seat: int, s: np.ndarray) -> None:
        """Deal again, in place on ``state`` (a copy) and from stream ``s``, what ``seat``
        cannot know: the game's determinization kernel, the one its playouts run. Nothing by
        default: a game without hidden information."""
        return None

    # -- traces -----------------------------------------------------------------------------
    def account(self, events: list[dict]) -> str:
        """A readable turn-by-turn account of a trace (what ``lotr-sim play`` prints), in the
        shape every game's account shares (``lotr_sim.games.account``: header line first, end
        line last); a game renders its own events by overriding this."""
        from lotr_sim.games.account import plain_line, render
        return render(events, plain_line)

    def replay_check(self, compiled: Any, events: list[dict]) -> int:
        """Audit a trace on its own: from each state snapshot, replaying the events must give
        the next snapshot. Returns the number of snapshots checked; raises AssertionError
        naming the first one that does not follow."""
        raise NotImplementedError

    # -- seats ------------------------------------------------------------------------------
    # A seat is one player at the table. Most games seat one player per side; a game with more
    # (LOTR Risk with 3-4 players) names its seats (``seat_keys``) and maps each to its side.
    # ``--policy SIDE=NAME`` gives every seat of the side that player; ``--policy SEAT=NAME``
    # one seat (a seat's own entry wins over its side's).
    @property
    def policy_keys(self) -> tuple[str, ...]:
        """The names a policy may be given to: the sides, then every seat name."""
        return tuple(self.sides) + tuple(k for k in self.seat_keys if k not in self.sides)

    def seat_names(self, compiled: Any) -> tuple[str, ...]:
        """The seats of this configuration in the rules' seat order (``to_move`` indexes it);
        by default one seat per side, named after it."""
        return tuple(self.sides)

    def seat_side(self, compiled: Any, seat: int) -> int:
        """The side (index into ``sides``) of seat ``seat``; by default the seat is the side."""
        return int(seat)

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

    def describe_params(self) -> list[dict]:
        return [dict(name=p.name, default=p.default, allowed=p.allowed(), rule=p.rule, help=p.help)
                for p in self.params()]
