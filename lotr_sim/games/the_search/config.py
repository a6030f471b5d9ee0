"""The Search config: the parameter table, loading and checking a TOML config, and compiling
it into the flat ``cf`` array (layout in layout.py) the numba engine reads.

Data tables of ``configs/games/the-search.toml``:

* ``[catalogue]``: ``shire`` (the Shire tile's pattern), ``tiles`` (47 four-letter patterns
  N E S W, TS-1.2) and ``[catalogue.generator]`` (the settings that made them,
  catalogue.py);
* ``[[tokens]]``: name, colour (blue/brown/green/yellow), value, count, power
  (none/fighter/mover/gwaihir/ent/ring/gollum/cave/monster), dots (moves lost in a fight,
  TS-6.5) and fighters (fighter tokens that cancel its fight, TS-7.3) - TS-2.5 [R];
* ``[params]``: every [R] rule item and the two variants of TS-9.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from lotr_sim.config import GameConfig, Param, load_game_config
from lotr_sim.config import checked as _checked
from lotr_sim.errors import ConfigError

from .layout import (
    C_BROWND, C_BROWNV, C_CAP, C_GWAIHIR, C_NEUTRAL_FIRST, C_NEUTRAL_JOIN, C_NTOK, C_P1FULL, C_REDRAW, CF_SIZE, COLOURS, GC, GR, MAXTOK, NCELL,
    NTILE, O_NBR, O_PAT, O_TCOL, O_TDOTS, O_TFIGHT, O_TPOW, O_TVAL, POWERS, SHIRE_TILE, TERRAIN_LETTERS,
)

GAME = "the-search"
TABLES = ("catalogue", "tokens", "params")

PARAMS: list[Param] = [
    Param("phase1_cross", "five", "choice", "TS-9.1 / TS-5.1",
          "phase 1 lays the Shire and its 4 neighbours (five) or the whole central cross (full)",
          choices=("five", "full")),
    Param("unplaceable_hand", "neutral", "choice", "TS-9.2 / TS-3.4",
          "a hand that cannot be placed: one tile goes face down as neutral, or the hand is redrawn",
          choices=("neutral", "redraw")),
    Param("neutral_tile", "chosen", "choice", "TS-3.4 [R]",
          "which hand tile goes face down: the player's choice or always the first drawn",
          choices=("chosen", "first")),
    Param("neutral_join", "skip_link", "choice", "TS-3.5 / TS-3.4 [R]",
          "a neutral tile that must be laid where every legal cell would link the regions of both "
          "hobbits: on any of them, the joining link not made (skip_link), or not at all - the "
          "player lays no tile that turn (no_tile)", choices=("skip_link", "no_tile")),
    Param("map_orientation", "fixed", "choice", "TS-3.1 [R]",
          "the 6 x 8 bounds: 6 rows and 8 columns, not rotated (the only reading implemented)",
          choices=("fixed",)),
    Param("gwaihir_flight", "line", "choice", "TS-7.1 [R]",
          "Gwaihir flies to the next region of the same terrain along a row or column of "
          "sections (line), or has no power (off)", choices=("line", "off")),
    Param("catalogue_seed", 0, "int", "TS-1.2 [R]",
          "0: the config's tile catalogue; S > 0: the generator's catalogue for seed S (with the "
          "config's generator settings) - to measure how much the tile draw matters", lo=0, hi=2**31),
    Param("gwaihir_tokens", 3, "int", "TS-2.5 [R]", "Gwaihir tokens among the blue ones", lo=0, hi=6),
    Param("ent_tokens", 3, "int", "TS-2.5 [R]", "Ent tokens among the blue ones", lo=0, hi=6),
    Param("troll_tokens", 2, "int", "TS-2.5 [R]", "Troll tokens among the brown ones", lo=0, hi=6),
    Param("orc_leader_tokens", 2, "int", "TS-2.5 [R]", "Orc leader tokens among the brown ones", lo=0, hi=6),
    Param("orc_tokens", 4, "int", "TS-2.5 [R]", "Orc tokens among the brown ones", lo=0, hi=6),
    Param("empty_caves", 10, "int", "TS-2.5 [R]", "empty caves among the brown tokens", lo=0, hi=14),
    Param("phase3_cap", 200, "int", "TS-5.4 [R]",
          "safety cap: phase-3 turns after which a game that does not finish ends (end reason "
          "cap) and is decided on points; only equal points draw", lo=10, hi=10000),
]
PARAM_NAMES = [p.name for p in PARAMS]
# TS-2.5 [R] counts: the parameter sets the count of the token of this name in [[tokens]]
COUNT_PARAMS = {"gwaihir_tokens": "Gwaihir", "ent_tokens": "Ent", "troll_tokens": "Troll",
                "orc_leader_tokens": "Orc leader", "orc_tokens": "Orc", "empty_caves": "Empty cave"}


def token_counts(data: dict, params: dict) -> list[int]:
    """Each [[tokens]] entry's count, with the TS-2.5 [R] count parameters applied by name."""
    by_name = {v: k for k, v in COUNT_PARAMS.items()}
    out = []
    for t in data["tokens"]:
        k = by_name.get(t.get("name"))
        out.append(int(params[k]) if k is not None else int(t.get("count", 1)))
    return out


RULEBOOK_TOTALS = {"blue": 8, "brown": 20, "green": 8, "yellow": 8}     # TS-1.1


def setup_departures(cfg: GameConfig) -> list[str]:
    """TS-1.1: one line per token colour whose total is not the rulebook's (8/20/8/8)."""
    data, params = cfg.data, cfg.params
    counts = token_counts(data, params)
    tot = {c: 0 for c in RULEBOOK_TOTALS}
    moved: dict[str, list[str]] = {c: [] for c in RULEBOOK_TOTALS}
    by_name = {v: k for k, v in COUNT_PARAMS.items()}
    defaults = {p.name: p.default for p in PARAMS}
    for t, n in zip(data["tokens"], counts):
        col = t.get("colour")
        if col not in tot:
            continue
        tot[col] += n
        k = by_name.get(t.get("name"))
        if k is not None and params[k] != defaults[k]:
            moved[col].append(f"{k}={params[k]}")
    out = []
    for col, want in RULEBOOK_TOTALS.items():
        if tot[col] != want:
            why = f" ({', '.join(moved[col])})" if moved[col] else " (the [[tokens]] table)"
            out.append(f"the set-up departs from the rulebook (TS-1.1): {tot[col]} {col} tokens instead "
                       f"of {want}{why}")
    return out


def load(config: str | None = None,
         overrides: Sequence[str] | Mapping[str, Any] | None = None) -> GameConfig:
    """Default TOML merged with a user TOML (a user's ``tokens`` list replaces the default
    one; ``catalogue`` merges key by key), with overrides; validated."""
    return load_game_config(GAME, PARAMS, validate, TABLES, config, overrides, whole=("tokens",))


def checked(fn, *args):
    return _checked(GAME, fn, *args)


def _pattern(p: Any, where: str) -> str:
    if not isinstance(p, str) or len(p) != 4 or any(ch not in TERRAIN_LETTERS for ch in p.upper()):
        raise ConfigError(f"config: {where} must be four letters of W M F D (N E S W), got {p!r}")
    return p.upper()


def validate(data: dict, params: dict) -> None:
    """Raise ConfigError (one line) on anything inconsistent."""
    cat = data.get("catalogue")
    if not isinstance(cat, dict):
        raise ConfigError("config: a [catalogue] table is required")
    for k in cat:
        if k not in ("shire", "tiles", "generator"):
            raise ConfigError(f"config: unknown key '{k}' in [catalogue] (keys: shire, tiles, generator)")
    _pattern(cat.get("shire"), "catalogue.shire")
    tiles = cat.get("tiles")
    if not isinstance(tiles, list) or len(tiles) != NTILE:
        n = len(tiles) if isinstance(tiles, list) else "none"
        raise ConfigError(f"config: catalogue.tiles must list exactly {NTILE} tiles (TS-1.1/TS-3.1: "
                          f"48 with the Shire fill 6 x 8), got {n}")
    for i, t in enumerate(tiles):
        _pattern(t, f"catalogue.tiles[{i}]")
    if "generator" in cat:
        from .catalogue import check_generator
        check_generator(cat["generator"])
    toks = data.get("tokens")
    if not isinstance(toks, list) or not toks:
        raise ConfigError("config: [[tokens]] must be a non-empty list")
    keys = {"name", "colour", "value", "count", "power", "dots", "fighters"}
    for i, t in enumerate(toks):
        if not isinstance(t, dict):
            raise ConfigError(f"config: tokens[{i}] must be a table")
        for k in t:
            if k not in keys:
                raise ConfigError(f"config: tokens[{i}] has unknown key '{k}' (keys: {', '.join(sorted(keys))})")
        name = t.get("name", f"#{i}")
        if t.get("colour") not in COLOURS:
            raise ConfigError(f"config: token '{name}': colour must be one of {', '.join(COLOURS)}")
        if t.get("power", "none") not in POWERS:
            raise ConfigError(f"config: token '{name}': power must be one of {', '.join(POWERS)}")
        for k, lo, hi in (("value", -5, 20), ("count", 0, MAXTOK), ("dots", 0, 5), ("fighters", 0, 5)):
            v = t.get(k, 1 if k == "count" else 0)
            if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
                raise ConfigError(f"config: token '{name}': {k} must be an int in [{lo}, {hi}], got {v!r}")
        pw = t.get("power", "none")
        if (pw == "monster") != (t.get("dots", 0) > 0):
            raise ConfigError(f"config: token '{name}': a monster (and only a monster) has dots > 0 (TS-6.5)")
        if pw in ("monster", "cave") and t["colour"] != "brown":
            raise ConfigError(f"config: token '{name}': monsters and caves are brown (TS-6.5)")
        if t["colour"] == "brown" and pw not in ("monster", "cave"):
            raise ConfigError(f"config: token '{name}': a brown token is a monster or a cave (TS-6.5)")
    names = {t.get("name") for t in toks}
    for k, name in COUNT_PARAMS.items():
        if name not in names and params.get(k) != next(p.default for p in PARAMS if p.name == k):
            raise ConfigError(f"config: parameter '{k}' sets the count of token '{name}', which is not in [[tokens]]")
    total = sum(token_counts(data, params))
    if total > MAXTOK:
        raise ConfigError(f"config: at most {MAXTOK} tokens, got {total}")


class Compiled:
    """The kernels' arrays plus the names the trace needs (picklable)."""

    def __init__(self, cf: np.ndarray, names: dict, meta: dict | None = None):
        self.cf = cf
        # no win-probability table: an empty one, for the kernels' common signature (games/adapter.py)
        self.wp = np.zeros(0, dtype=np.float64)
        self.names = names
        self.meta = meta or {}


def compile_config(cfg: GameConfig) -> Compiled:
    """``cfg`` as the flat ``cf`` array."""
    d, p = cfg.data, cfg.params
    cf = np.zeros(CF_SIZE, dtype=np.int64)
    tiles = d["catalogue"]["tiles"]
    if p["catalogue_seed"] > 0:
        from .catalogue import generate
        tiles = generate(dict(d["catalogue"].get("generator", {}), seed=int(p["catalogue_seed"])))
    pats = [t.upper() for t in tiles] + [d["catalogue"]["shire"].upper()]
    for t, pat in enumerate(pats):
        for k in range(4):
            cf[O_PAT + 4 * t + k] = TERRAIN_LETTERS.index(pat[k])
    names: list[str] = []
    i = 0
    for tok, count in zip(d["tokens"], token_counts(d, p)):
        for _ in range(count):
            cf[O_TCOL + i] = COLOURS.index(tok["colour"])
            cf[O_TVAL + i] = tok.get("value", 0)
            cf[O_TPOW + i] = POWERS.index(tok.get("power", "none"))
            cf[O_TDOTS + i] = tok.get("dots", 0)
            cf[O_TFIGHT + i] = tok.get("fighters", 0)
            names.append(tok["name"])
            i += 1
    cf[C_NTOK] = i
    browns = [k for k in range(i) if cf[O_TCOL + k] == 1]
    if browns:
        cf[C_BROWNV] = int(1000 * sum(cf[O_TVAL + k] for k in browns) / len(browns))
        cf[C_BROWND] = int(1000 * sum(cf[O_TDOTS + k] for k in browns) / len(browns))
    cf[C_P1FULL] = int(p["phase1_cross"] == "full")
    cf[C_REDRAW] = int(p["unplaceable_hand"] == "redraw")
    cf[C_NEUTRAL_FIRST] = int(p["neutral_tile"] == "first")
    cf[C_NEUTRAL_JOIN] = int(p["neutral_join"] == "no_tile")
    cf[C_GWAIHIR] = int(p["gwaihir_flight"] == "line")
    cf[C_CAP] = int(p["phase3_cap"])
    for c in range(NCELL):
        r, q = divmod(c, GC)
        for dd, (dr, dc) in enumerate(((-1, 0), (0, 1), (1, 0), (0, -1))):
            rr, cc = r + dr, q + dc
            cf[O_NBR + 4 * c + dd] = rr * GC + cc if 0 <= rr < GR and 0 <= cc < GC else -1
    defaults = {x.name: x.default for x in PARAMS}
    meta = {"config_hash": cfg.hash, "config": cfg.source,
            "params": {k: v for k, v in p.items() if defaults.get(k) != v}}
    return Compiled(cf, {"tokens": names, "tiles": pats, "shire_tile": SHIRE_TILE}, meta)
