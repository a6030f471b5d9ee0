"""Rule parameters, TOML configs, ``--set`` overrides and config hashing.

Every game declares its parameters as ``Param`` objects (name, default, allowed values,
the rule ID it belongs to, help). ``resolve_params`` merges defaults, a config file's
``[params]`` table and ``--set name=value`` overrides, validating each value; an unknown
name is an error that names the closest valid parameter.
"""
from __future__ import annotations

import difflib
import hashlib
import json
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from lotr_sim.errors import ConfigError

_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


@dataclass(frozen=True)
class Param:
    """One named rule parameter.

    kind: "int", "float", "bool" or "choice". ``choices`` lists the allowed values of a
    "choice" (strings); ``lo``/``hi`` bound an "int"/"float" (inclusive).
    """

    name: str
    default: Any
    kind: str
    rule: str
    help: str
    choices: tuple = ()
    lo: float | None = None
    hi: float | None = None

    def allowed(self) -> str:
        if self.kind == "bool":
            return "true|false"
        if self.kind == "choice":
            return "|".join(str(c) for c in self.choices)
        lo = "-inf" if self.lo is None else _fmt(self.lo)
        hi = "inf" if self.hi is None else _fmt(self.hi)
        return f"{self.kind} in [{lo}, {hi}]"

    def coerce(self, value: Any) -> Any:
        """Turn ``value`` (a TOML value or a command-line string) into a valid value."""
        where = f"parameter '{self.name}'"
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
                return value.strip().lower() in _TRUE
            raise ConfigError(f"{where}: expected true or false, got {value!r}")
        if self.kind == "choice":
            text = str(value).strip() if not isinstance(value, bool) else str(value).lower()
            for c in self.choices:
                if text == str(c):
                    return c
            raise ConfigError(f"{where}: {value!r} is not one of {self.allowed()}")
        if self.kind in ("int", "float"):
            try:
                if isinstance(value, bool):
                    raise ValueError
                if self.kind == "int":
                    if isinstance(value, float) and not value.is_integer():
                        raise ValueError
                    v = int(value) if not isinstance(value, str) else int(value.strip())
                else:
                    v = float(value)
            except (TypeError, ValueError):
                raise ConfigError(f"{where}: expected {self.kind}, got {value!r}") from None
            if (self.lo is not None and v < self.lo) or (self.hi is not None and v > self.hi):
                raise ConfigError(f"{where}: {v} is outside the allowed {self.allowed()}")
            return v
        raise ConfigError(f"{where}: unknown kind {self.kind!r}")  # a bug in a game's table


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def closest(name: str, names: Iterable[str]) -> str:
    """' (did you mean 'x'?)' for the closest name, or '' when none is close.

    Closeness is difflib's similarity plus the share of words (split on _ and -) in common,
    so 'banner_bonus' finds 'banner_defence_bonus' rather than 'leader_bonus'."""
    def words(x: str) -> set[str]:
        return set(x.replace("-", "_").lower().split("_")) - {""}

    w = words(name)
    best, score = None, 0.0
    for cand in names:
        ratio = difflib.SequenceMatcher(None, name.lower(), cand.lower()).ratio()
        cw = words(cand)
        shared = len(w & cw) / len(w | cw) if (w | cw) else 0.0
        sc = ratio + shared
        if (ratio >= 0.6 or shared >= 0.5) and sc > score:
            best, score = cand, sc
    return f"; did you mean '{best}'?" if best else ""


def parse_assignment(text: str) -> tuple[str, str]:
    if "=" not in text:
        raise ConfigError(f"expected name=value, got {text!r}")
    name, value = text.split("=", 1)
    name = name.strip().replace("-", "_")
    if not name:
        raise ConfigError(f"expected name=value, got {text!r}")
    return name, value.strip()


def resolve_params(
    params: Sequence[Param],
    file_values: Mapping[str, Any] | None = None,
    overrides: Sequence[str] | Mapping[str, Any] | None = None,
    game: str = "",
) -> dict[str, Any]:
    """Defaults <- config-file values <- overrides, each checked against ``params``."""
    table = {p.name: p for p in params}
    out = {p.name: p.default for p in params}

    def put(name: str, value: Any, origin: str) -> None:
        if name not in table:
            g = f" of game '{game}'" if game else ""
            raise ConfigError(f"unknown parameter '{name}'{g} ({origin}){closest(name, table)}")
        out[name] = table[name].coerce(value)

    for k, v in (file_values or {}).items():
        put(k, v, "config file")
    if isinstance(overrides, Mapping):
        for k, v in overrides.items():
            put(k, v, "override")
    else:
        for k, v in parse_overrides(overrides or ()).items():
            put(k, v, "--set")
    return out


def parse_overrides(texts: Iterable[str], option: str = "--set") -> dict[str, str]:
    """``name=value`` strings as a dict; the same name given twice is an error naming it
    (which of two values was meant is not knowable)."""
    out: dict[str, str] = {}
    for text in texts:
        k, v = parse_assignment(text)
        if k in out:
            raise ConfigError(f"{option} {k} is given twice ({k}={out[k]} and {k}={v}); give it once")
        out[k] = v
    return out


def check_input_file(p: Path, what: str = "config file") -> None:
    """``p`` must be a regular file to read: a missing path, a folder and anything else (a
    FIFO, which would block the read, a device) are each one ConfigError line saying which."""
    import stat
    try:
        mode = p.stat().st_mode
    except FileNotFoundError:
        raise ConfigError(f"{what} not found: {p}") from None
    except OSError as e:
        raise ConfigError(f"cannot read {what} {p}: {e.strerror or e}") from None
    if stat.S_ISDIR(mode):
        raise ConfigError(f"{what} {p} is a folder, not a TOML file")
    if not stat.S_ISREG(mode):
        kind = "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "a device"
        raise ConfigError(f"{what} {p} is not a regular file ({kind}); give a TOML file")


def load_toml(path: str | os.PathLike, what: str = "config file") -> dict:
    """A TOML file as a dict; one ConfigError line naming ``what`` is wrong with it."""
    p = Path(path)
    check_input_file(p, what)
    try:
        with p.open("rb") as f:
            raw = f.read()
    except OSError as e:
        raise ConfigError(f"cannot read {what} {p}: {e.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ConfigError(f"{what} {p} is not UTF-8 text (byte {e.start}: a binary file?); "
                          "it must be a TOML text file") from None
    if "\x00" in text:
        raise ConfigError(f"{what} {p} contains NUL bytes (a binary file?); it must be a TOML text file")
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{what} {p} is not valid TOML: {e}") from None
    except RecursionError:
        raise ConfigError(f"{what} {p} is nested too deeply") from None


def config_hash(obj: Any) -> str:
    """A stable hash of a JSON-able object (a game's data plus resolved parameters)."""
    blob = json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def configs_dir() -> Path:
    """The ``configs/`` folder: $LOTR_SIM_CONFIGS, the source tree's, or the installed copy."""
    env = os.environ.get("LOTR_SIM_CONFIGS")
    if env:
        return Path(env)
    here = Path(__file__).resolve().parent
    for cand in (here.parent / "configs", here / "configs"):
        if cand.is_dir():
            return cand
    raise ConfigError("cannot find the configs/ folder (set LOTR_SIM_CONFIGS)")


@dataclass
class GameConfig:
    """A loaded, validated game configuration: the game's data plus resolved parameters."""

    game: str
    data: dict
    params: dict[str, Any]
    source: str = ""
    extra: dict = field(default_factory=dict)

    @property
    def hash(self) -> str:
        return config_hash({"game": self.game, "data": self.data, "params": self.params})


# --- loading a game's config: what every game does the same way ------------------------------

def merge_tables(base: dict, over: dict, whole: Sequence[str] = ()) -> dict:
    """``over`` deep-merged into a copy of ``base``: tables merge key by key, anything else
    (and the tables named in ``whole``, which a user replaces entirely) is replaced."""
    import copy
    out = copy.deepcopy(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict) and k not in whole:
            out[k] = merge_tables(out[k], v, whole)
        else:
            out[k] = copy.deepcopy(v)
    return out


def game_config_path(game: str) -> Path:
    """The default config file of a game: ``configs/games/<game>.toml``."""
    return configs_dir() / "games" / f"{game}.toml"


def check_tables(user: Mapping[str, Any], path: Any, tables: Sequence[str]) -> None:
    """An unknown top-level table (a typo such as ``[parms]``) is an error, not ignored."""
    for k in user:
        if k not in tables:
            raise ConfigError(f"config file {path}: unknown table [{k}]{closest(str(k), tables)} "
                              f"(tables: {', '.join(tables)})")


def checked(game: str, fn: Any, *args: Any) -> Any:
    """``fn(*args)`` with a safety net under a game's explicit checks: a value of the wrong
    shape somewhere in a user's tables becomes one ConfigError line, never a traceback."""
    try:
        return fn(*args)
    except ConfigError:
        raise
    except (TypeError, AttributeError, KeyError, ValueError, IndexError, OverflowError) as e:
        raise ConfigError(f"config: malformed game data ({type(e).__name__}: {e}); "
                          f"compare with configs/games/{game}.toml") from None


def load_game_config(game: str, params: Sequence[Param], validate: Any, tables: Sequence[str],
                     config: str | None = None,
                     overrides: Sequence[str] | Mapping[str, Any] | None = None,
                     whole: Sequence[str] = ()) -> GameConfig:
    """A game's default TOML, merged with a user TOML (``whole`` tables are replaced, not
    merged; unknown tables refused), its ``[params]`` resolved with ``overrides`` against
    ``params``, then ``validate(data, params)`` under the ``checked`` safety net."""
    default = game_config_path(game)
    data = load_toml(default)
    source = str(default)
    if config is not None:
        user = load_toml(config)
        check_tables(user, config, tables)
        data = merge_tables(data, user, whole)
        source = str(config)
    file_params = data.pop("params", {})
    if not isinstance(file_params, dict):
        raise ConfigError("config: [params] must be a table")
    values = resolve_params(params, file_params, overrides, game=game)
    checked(game, validate, data, values)
    return GameConfig(game=game, data=data, params=values, source=source)
