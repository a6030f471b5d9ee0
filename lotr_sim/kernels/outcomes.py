"""Named outcome columns: a batch kernel's int64 ``[n, k]`` matrix -> the experiment layer's dict.

A batch kernel writes one row per game into a plain ``int64`` matrix (one ``out[i, j]``
store per value, no structs). The experiment layer wants ``dict[str, np.ndarray]`` with the
common columns (``COMMON_COLUMNS``: ``game, winner, reason, rounds, turns``; and
``points_<side>`` per side; ``lotr_sim.games.base`` documents them) in their dtypes, plus
game-specific ones. ``OutcomeColumns`` declares that mapping once per game::

    COLS = OutcomeColumns(("good", "evil"), [
        game_column(),
        Column("winner", np.int8, 0), Column("reason", np.int8, 1),
        Column("rounds", np.int32, 2), Column("turns", np.int32, 3),
        Column("points_good", np.int32, 4), Column("points_evil", np.int32, 5),
    ])
    cols = COLS.to_dict(out, first)

A column's source is a column index of the matrix or a function ``f(out, first) -> array``
(the game index, a sum of columns...). Missing common columns or a name used twice are
refused when the declaration is built, not when the first run's results are read.
"""
from __future__ import annotations

from typing import Callable, Iterable, NamedTuple, Sequence, Union

import numpy as np

# The columns every game's outcomes have, besides ``points_<side>`` per side (``Game``'s
# contract, ``lotr_sim.games.base``; kept here so that the kernels import nothing above them).
COMMON_COLUMNS: tuple[str, ...] = ("game", "winner", "reason", "rounds", "turns")

Source = Union[int, Callable[[np.ndarray, int], np.ndarray]]


class Column(NamedTuple):
    """One outcome column: its name, dtype and source (matrix column or function)."""
    name: str
    dtype: np.dtype | type
    source: Source


def game_column() -> Column:
    """The ``game`` column: ``first .. first+n-1`` (game i uses stream (seed, i))."""
    return Column("game", np.int64, lambda out, first: np.arange(first, first + out.shape[0], dtype=np.int64))


def required_columns(sides: Sequence[str]) -> tuple[str, ...]:
    """The columns every game must produce: ``COMMON_COLUMNS`` and ``points_<side>`` per side."""
    return tuple(COMMON_COLUMNS) + tuple(f"points_{s}" for s in sides)


class OutcomeColumns:
    """The outcome columns of one game; ``to_dict`` applies them to a kernel's matrix."""

    def __init__(self, sides: Sequence[str], columns: Iterable[Column]) -> None:
        self.sides = tuple(sides)
        self.columns: tuple[Column, ...] = tuple(Column(*c) for c in columns)
        names = [c.name for c in self.columns]
        dups = sorted({x for x in names if names.count(x) > 1})
        if dups:
            raise ValueError(f"outcome columns declared twice: {', '.join(dups)}")
        missing = [c for c in required_columns(self.sides) if c not in names]
        if missing:
            raise ValueError(f"outcome columns missing the common columns: {', '.join(missing)}")
        for c in self.columns:
            if not (callable(c.source) or (isinstance(c.source, (int, np.integer))
                                           and not isinstance(c.source, bool) and c.source >= 0)):
                raise ValueError(f"column {c.name!r}: source must be a column index >= 0 or a function")
        idx = [int(c.source) for c in self.columns if not callable(c.source)]
        self.width = max(idx) + 1 if idx else 0   # the kernel's matrix needs at least this many

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.columns)

    def to_dict(self, out: np.ndarray, first: int = 0) -> dict[str, np.ndarray]:
        """One array per column, ``n = out.shape[0]`` rows each, in declaration order."""
        if out.ndim != 2:
            raise ValueError(f"outcome matrix must be 2-D, got shape {out.shape}")
        if out.shape[1] < self.width:
            raise ValueError(f"outcome matrix has {out.shape[1]} columns, the declaration reads {self.width}")
        n = out.shape[0]
        cols: dict[str, np.ndarray] = {}
        for c in self.columns:
            v = c.source(out, first) if callable(c.source) else out[:, int(c.source)]
            v = np.asarray(v).astype(c.dtype, copy=True)
            if v.shape != (n,):
                raise ValueError(f"column {c.name!r}: expected {n} values, got shape {v.shape}")
            cols[c.name] = v
        return cols
