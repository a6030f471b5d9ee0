"""The game contract's core: what a game is (its rules and parameters) and how a game starts.

A ``Game`` is immutable: its name, sides, outcomes and end reasons, its rule parameters
(``params``, ``load``), and ``compile``, which turns a config into what its engine reads.
``bind(compiled)`` gives the ``Rules`` of that config, and ``Rules.new_state`` (the game's
``start``) the ``State`` of one game, which is the whole step API (``lotr_sim.games.step``).
That is all a new game must provide: ``params``, ``load``, ``compile``, ``start`` and a
``State`` subclass.

Everything else the experiment layer uses is built around this core: seats and policy
names, batch simulation, traces (``lotr_sim.games.table.TableGame``, which every
registered game subclasses); the numba engines' one binding
(``lotr_sim.games.adapter.NumbaGame``); the players' surface of a state
(``lotr_sim.games.players.PlayableState``). The experiment layer
(run, sweep, compare, balance, bench, reports) asks for
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

from lotr_sim.config import GameConfig, Param
from lotr_sim.games.step import Rules, State
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
    """A game's rules and parameters: the core every game provides (see the module docstring)."""
    name: str = ""                      # registry name, e.g. "minas-tirith"
    title: str = ""                     # human title
    sides: tuple[str, ...] = ()         # e.g. ("good", "evil")
    outcomes: tuple[str, ...] = ()      # winner labels, e.g. ("good", "evil", "draw")
    reasons: tuple[str, ...] = ()       # end reasons, e.g. ("leaders", "city", "deck")
    notes: tuple[str, ...] = ()         # caveats every report of this game must show

    # -- configuration ------------------------------------------------------------------
    @abc.abstractmethod
    def params(self) -> list[Param]:
        """Every rule parameter: name, default, allowed values, rule ID, help."""

    @abc.abstractmethod
    def load(self, config: str | None = None,
             overrides: Sequence[str] | Mapping[str, Any] | None = None) -> GameConfig:
        """The default config (or ``config`` TOML file) with ``overrides``, validated.
        Raises ConfigError with one clear line on anything wrong."""

    @abc.abstractmethod
    def compile(self, cfg: GameConfig) -> Any:
        """Everything the kernels need, as flat NumPy arrays (picklable)."""

    def setup_warnings(self, config: GameConfig) -> list[str]:
        """One line for each way the set-up of ``config`` departs from the rulebook (e.g.
        token totals moved by count parameters); empty when it follows the rulebook. A game's
        ``load`` issues each as a ``SetupWarning``, which the CLI prints as
        ``lotr-sim: warning: ...`` on stderr."""
        return []

    def describe_params(self) -> list[dict]:
        """The rule parameters as plain dicts (``lotr-sim params``)."""
        return [dict(name=p.name, default=p.default, allowed=p.allowed(), rule=p.rule, help=p.help)
                for p in self.params()]

    # -- games of one config ------------------------------------------------------------
    def bind(self, compiled: Any) -> Rules:
        """This game bound to ``compiled`` (from ``compile``): its states start from there."""
        return Rules(self, compiled)

    @abc.abstractmethod
    def start(self, rules: Rules, policies: Mapping[str, str] | None, seed: int, index: int,
              trace: bool | int = False, debug: bool = False) -> State:
        """``Rules.new_state``: game ``index`` of ``seed`` under ``rules`` after its set-up,
        resting at its first decision, as this game's ``State``."""

    # -- seats ------------------------------------------------------------------------------
    # A seat is one player at the table (``State.to_move`` indexes them). Most games seat one
    # player per side; a game with more (LOTR Risk with 3-4 players) names its seats and maps
    # each to its side.
    def seat_names(self, compiled: Any) -> tuple[str, ...]:
        """The seats of this configuration in the rules' seat order (``to_move`` indexes it);
        by default one seat per side, named after it."""
        return tuple(self.sides)

    def seat_side(self, compiled: Any, seat: int) -> int:
        """The side (index into ``sides``) of seat ``seat``; by default the seat is the side."""
        return int(seat)
