"""A game's heuristic players as weight rows: the named presets (``greedy``, ``cautious`` ...),
the shipped tuned weights (``tuned``) and weights a designer tuned (``tuned:FILE``).

Every game's heuristic reads one policy row per side (Minas Tirith ``PL_*``, LOTR Risk
``PL_*`` per seat, The Search ``PL_*``). A game declares its rows once in a ``PolicyTable``:
which entries are tunable (``Weight``: name, index in the row, range) and the presets. The
table resolves every player name that the engine itself plays:

* a preset name: its row;
* ``tuned``: the weights shipped in ``configs/tuned/<game>.toml`` (written by
  ``lotr-sim tune --ship``);
* ``tuned:FILE``: the weights in a TOML file ``lotr-sim tune`` wrote;
* ``weights:SIDE=v1,v2,...;SIDE=...``: the tunable weights inline, in the table's order (what
  ``lotr-sim tune`` plays its candidates as: the name alone says how the games were played,
  on any Dask worker, and in a trace header).

A weight a file does not name keeps greedy's value; a file given to a side it has no
``[weights.<side>]`` table for is an error (``check_side``). Tuned weights are tuned for the rules whose hash the file names: a rule change moves
the optimum, so re-tune after changing a default rule (``lotr-sim tune --game G``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from lotr_sim.errors import ConfigError
from lotr_sim.games.players import player_settings

TUNED = "tuned"
FILE_PREFIX = "tuned:"
INLINE_PREFIX = "weights:"


@dataclass(frozen=True)
class Weight:
    """One tunable entry of a heuristic's policy row."""
    name: str       # short name used in tuned files and inline weights
    index: int      # position in the engine's policy row
    lo: float       # the range the tuner searches (and a file's value must lie in)
    hi: float
    help: str = ""
    sides: tuple[str, ...] | None = None   # the sides whose heuristic reads it (None: every side)
    learned: bool = False   # a weight of the learned term (set by ``lotr-sim learn``, not by the tuner)


@dataclass(frozen=True)
class TunedWeights:
    """Weights read from a tuned file: per side, the full policy row; and the file's
    provenance (rules hash, seed, games, score ...)."""
    rows: dict[str, np.ndarray]
    rules_hash: str
    provenance: dict[str, Any]
    path: str
    sides: tuple[str, ...] = ()     # the sides the file gives a [weights.<side>] table


def generic_base(name: str) -> str | None:
    """The heuristic a player from ``lotr_sim.players`` is built on (its ``base`` setting:
    the search player's candidates, playouts and the decisions the engine makes for its
    seat), or None for a name that is not such a player."""
    base = player_settings(name).get("base")
    return str(base) if base else None


class PolicyTable:
    """The engine-played heuristics of one game (see the module docstring)."""

    def __init__(self, game: str, sides: Sequence[str], width: int, weights: Sequence[Weight],
                 presets: Mapping[str, Mapping[str, Sequence[float]]], base: str = "greedy",
                 tie_sides: bool = False):
        self.game = game
        self.tie_sides = bool(tie_sides)   # the sides play the same role: tune one row for all
        self.sides = tuple(sides)
        self.width = int(width)
        self.weights = tuple(weights)
        self.base = base
        self.presets = {name: {s: self._full(v) for s, v in rows.items()} for name, rows in presets.items()}
        for name, rows in self.presets.items():
            if set(rows) != set(self.sides):
                raise ValueError(f"preset {name!r} of {game} must give a row for each of {self.sides}")
        self._cache: dict[str, dict[str, np.ndarray]] = {}
        self._file_sides: dict[str, tuple[str, tuple[str, ...]]] = {}   # tuned name: (file, its sides)

    def side_weights(self, side: str) -> tuple[Weight, ...]:
        """The tunable weights ``side``'s heuristic reads, in the table's order."""
        return tuple(w for w in self.weights if w.sides is None or side in w.sides)

    def slots(self, sides: Sequence[str] | None = None, learned: bool = False) -> list[tuple[str, Weight]]:
        """``(side, weight)`` of every entry of a tunable vector over ``sides``: the tuner's
        weights, or with ``learned`` the learned term's (``lotr-sim learn``)."""
        return [(s, w) for s in (sides or self.sides) for w in self.side_weights(s) if w.learned == learned]

    def learned_weights(self, side: str) -> tuple[Weight, ...]:
        """The learned term's weights of ``side``'s row, in the table's order (empty for a game
        without a learned player)."""
        return tuple(w for w in self.side_weights(side) if w.learned)

    def _full(self, v: Sequence[float]) -> np.ndarray:
        row = np.zeros(self.width, dtype=np.float64)
        row[: len(v)] = np.asarray(v, dtype=np.float64)
        return row

    # -- names ------------------------------------------------------------------------------
    @property
    def names(self) -> tuple[str, ...]:
        """The engine's own player names: the presets, then ``tuned``."""
        return tuple(self.presets) + (TUNED,)

    def is_parametric(self, name: str) -> bool:
        """``tuned:FILE`` or ``weights:...``: a name that carries its weights."""
        return isinstance(name, str) and (name.startswith(FILE_PREFIX) or name.startswith(INLINE_PREFIX))

    def knows(self, name: str) -> bool:
        """Is ``name`` a player this table plays (a preset, ``tuned`` or a parametric name)?"""
        return name in self.presets or name == TUNED or self.is_parametric(name)

    def check(self, name: str) -> None:
        """Resolve ``name`` once, so a bad file or inline list is one ConfigError line."""
        self.rows(name)

    # -- rows -------------------------------------------------------------------------------
    def rows(self, name: str) -> dict[str, np.ndarray]:
        """Each side's policy row of player ``name``; a name the table does not play (a
        player from ``lotr_sim.players``) gets the rows of the heuristic it is built on (its
        ``base`` setting), else the table's base heuristic's rows."""
        if name in self.presets:
            return self.presets[name]
        if not self.knows(name):
            base = generic_base(name)
            return self.rows(base) if base and self.knows(base) else self.presets[self.base]
        if name not in self._cache:
            if name == TUNED or name.startswith(FILE_PREFIX):
                tw = self.read(shipped_path(self.game) if name == TUNED else name[len(FILE_PREFIX):])
                self._cache[name] = tw.rows
                self._file_sides[name] = (tw.path, tw.sides)
            else:
                self._cache[name] = self.parse_inline(name)
        return self._cache[name]

    def check_side(self, name: str, side: str) -> None:
        """Player ``name`` given to ``side``: a tuned file with no ``[weights.<side>]`` table
        would play the base heuristic's weights there under a tuned name, so it is one
        ConfigError line (another side's table, or a weight left out, is fine)."""
        if not (name == TUNED or (isinstance(name, str) and name.startswith(FILE_PREFIX))):
            return
        self.rows(name)
        path, sides = self._file_sides[name]
        if side not in sides:
            have = ", ".join(f"[weights.{s}]" for s in sides) or "no weights table"
            raise ConfigError(f"tuned weights file {path} has no [weights.{side}] table (it has {have}): "
                              f"{side} would play {self.base}'s weights under the name '{name}'; give {side} "
                              f"a file that tunes it")

    def describe(self, name: str) -> dict[str, dict[str, float]]:
        """``{side: {weight: value}}`` of player ``name``'s tunable weights (what a trace
        header records for a tuned player, so the trace says how it was played)."""
        rows = self.rows(name)
        return {s: {w.name: float(rows[s][w.index]) for w in self.side_weights(s)} for s in self.sides}

    def describe_weights(self, players: Sequence[str] = ("greedy", TUNED)) -> list[dict[str, Any]]:
        """Every tunable weight, for ``lotr-sim params``: its name, the sides whose heuristic
        reads it, the range ``lotr-sim tune`` searches, its help and its value per side in each
        of ``players`` (a player this table cannot resolve, e.g. a missing tuned file, is left
        out)."""
        values = {}
        for p in players:
            try:
                values[p] = self.rows(p)
            except ConfigError:
                continue
        out = []
        for w in self.weights:
            sides = [s for s in self.sides if w.sides is None or s in w.sides]
            out.append(dict(name=w.name, sides=sides, lo=w.lo, hi=w.hi, help=w.help,
                            **{p: {s: float(rows[s][w.index]) for s in sides} for p, rows in values.items()}))
        return out

    def fingerprint(self, name: str) -> str:
        """A short hash of player ``name``'s tunable weights on every side: what skill
        figures record, so figures measured for other weights (a re-tuned ``tuned``) are
        not cited for these."""
        import hashlib
        import json
        # a learned weight at 0 plays as if absent: weights without a learned term keep their print
        zero = {w.name for w in self.weights if w.learned}
        text = json.dumps({s: {w: round(v, 6) for w, v in ws.items() if not (w in zero and v == 0.0)}
                           for s, ws in self.describe(name).items()}, sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def row(self, name: str, side: str) -> np.ndarray:
        """The policy row of player ``name`` on ``side`` (a copy)."""
        return self.rows(name)[side].copy()

    @property
    def tuned_sides(self) -> tuple[str, ...]:
        """The sides whose rows a tuner searches: every side, or the first when the sides
        play the same role (``tie_sides``: its row is then every side's)."""
        return self.sides[:1] if self.tie_sides else self.sides

    def vector(self, rows: Mapping[str, np.ndarray], sides: Sequence[str] | None = None) -> np.ndarray:
        """The tunable weights of ``rows`` (``sides`` in order, each in the table's order)."""
        return np.array([rows[s][w.index] for s, w in self.slots(sides)])

    def from_vector(self, x: Sequence[float], sides: Sequence[str] | None = None,
                    start: Mapping[str, np.ndarray] | None = None) -> dict[str, np.ndarray]:
        """Rows from a tunable vector (``sides`` in order); other entries from ``start``'s
        rows (default: the base heuristic's)."""
        slots = self.slots(sides)
        x = np.asarray(x, dtype=np.float64)
        if x.size != len(slots):
            raise ValueError(f"{self.game}: {x.size} weights given, {len(slots)} wanted")
        out = {s: r.copy() for s, r in (start or self.presets[self.base]).items()}
        for (s, w), v in zip(slots, x):
            out[s][w.index] = float(v)
        if self.tie_sides and len(set(s for s, _ in slots)) == 1:
            first = slots[0][0] if slots else self.sides[0]
            for s in self.sides:
                out[s] = out[first].copy()
        return out

    def inline_name(self, rows: Mapping[str, np.ndarray], sides: Sequence[str] | None = None) -> str:
        """``weights:SIDE=v1,...;...``: a player name carrying these rows' tunable weights."""
        parts = []
        for s in sides or self.sides:
            parts.append(s + "=" + ",".join(_fmt(rows[s][w.index]) for w in self.side_weights(s)))
        return INLINE_PREFIX + ";".join(parts)

    def parse_inline(self, name: str) -> dict[str, np.ndarray]:
        body = name[len(INLINE_PREFIX):]
        out = {s: r.copy() for s, r in self.presets[self.base].items()}
        for part in filter(None, body.split(";")):
            side, _, vals = part.partition("=")
            side = side.strip()
            if side not in self.sides:
                raise ConfigError(f"player '{name}': no side '{side}' in {self.game} (sides: {', '.join(self.sides)})")
            ws = self.side_weights(side)
            wanted = ", ".join(w.name for w in ws)
            try:
                v = [float(t) for t in vals.split(",")]
            except ValueError:
                raise ConfigError(f"player '{name}': {side}'s weights must be numbers ({wanted})") from None
            if len(v) != len(ws):
                raise ConfigError(f"player '{name}': {side} needs {len(ws)} weights ({wanted}), got {len(v)}")
            for w, x in zip(ws, v):
                self._check_value(name, side, w, x)
                out[side][w.index] = x
        return out

    def _check_value(self, where: str, side: str, w: Weight, x: float) -> None:
        if not math.isfinite(x) or not w.lo <= x <= w.hi:
            raise ConfigError(f"{where}: {side}.{w.name} = {x} is outside {_fmt(w.lo)}..{_fmt(w.hi)}")

    # -- files ------------------------------------------------------------------------------
    def read(self, path: str | Path) -> TunedWeights:
        """A tuned-weights file (``lotr-sim tune`` writes them): one ConfigError line when it
        is missing, not TOML, of another game, or names an unknown weight or side."""
        from lotr_sim.config import load_toml
        if not str(path).strip():
            raise ConfigError("player 'tuned:' names no file: give tuned:FILE (a tuned.toml that lotr-sim tune wrote)")
        p = Path(path)
        data = load_toml(p, what="tuned weights file")
        if data.get("game") != self.game:
            raise ConfigError(f"tuned weights file {p} is for game '{data.get('game')}', not '{self.game}'")
        table = data.get("weights")
        if not isinstance(table, dict) or not table:
            raise ConfigError(f"tuned weights file {p} has no [weights.<side>] table")
        out = {s: r.copy() for s, r in self.presets[self.base].items()}
        for side, vals in table.items():
            if side not in self.sides or not isinstance(vals, dict):
                raise ConfigError(f"tuned weights file {p}: no side '{side}' in {self.game} "
                                  f"(sides: {', '.join(self.sides)})")
            byname = {w.name: w for w in self.side_weights(side)}
            for k, x in vals.items():
                if k not in byname:
                    raise ConfigError(f"tuned weights file {p}: {side}.{k} is not a weight of {self.game}'s "
                                      f"{side} (weights: {', '.join(byname)})")
                if isinstance(x, bool) or not isinstance(x, (int, float)):
                    raise ConfigError(f"tuned weights file {p}: {side}.{k} must be a number")
                self._check_value(f"tuned weights file {p}", side, byname[k], float(x))
                out[side][byname[k].index] = float(x)
        return TunedWeights(out, str(data.get("rules_hash", "")), dict(data.get("provenance", {})), str(p),
                            tuple(s for s in self.sides if s in table))

    def write(self, path: str | Path, rows: Mapping[str, np.ndarray], rules_hash: str,
              provenance: Mapping[str, Any], by: str = "lotr-sim tune") -> Path:
        """Write ``rows``' tunable weights with their provenance as a tuned file (``by``: the
        command that wrote it, for its first line)."""
        p = Path(path)
        lines = [f"# Tuned heuristic weights, written by {by}. Play them: --policy SIDE=tuned:THIS_FILE",
                 "# They are tuned for the rules with this hash: re-tune after changing a default rule.",
                 f'game = "{self.game}"', f'rules_hash = "{rules_hash}"', "", "[provenance]"]
        for k, v in provenance.items():
            lines.append(f"{k} = {_toml_value(v)}")
        for s in self.sides:
            lines += ["", f"[weights.{s}]"]
            for w in self.side_weights(s):
                lines.append(f"{w.name} = {_fmt(rows[s][w.index])}" + (f"  # {w.help}" if w.help else ""))
        tmp = p.with_name(p.name + ".tmp")
        tmp.write_text("\n".join(lines) + "\n")
        tmp.replace(p)
        return p


def shipped_path(game: str) -> Path:
    """Where a game's shipped tuned weights live: ``configs/tuned/<game>.toml``."""
    from lotr_sim.config import configs_dir
    return configs_dir() / "tuned" / f"{game}.toml"


def _fmt(x: float) -> str:
    return f"{float(x):.6g}" if float(x) != int(x) else f"{float(x):.1f}"


def _toml_value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, np.integer)):
        return str(int(v))
    if isinstance(v, (float, np.floating)):
        return repr(float(v))
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    s = str(v).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{s}"'
