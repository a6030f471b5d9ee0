"""The tile catalogue generator (TS-1.2, TS-1.3): a documented, seeded recipe for the 47
land tiles, because the seed rulebook has no picture of them.

A tile is four letters, the terrains of its sections N E S W (``W`` water, ``M`` mountain,
``F`` forest, ``D`` desert). The generator draws each tile section by section, clockwise
from N, with its own ``random.Random(seed)`` (pure Python: a catalogue is data, made once):

* the first section's terrain is drawn from the terrain mix ``mix`` (weights W M F D);
* each next section copies the previous section's terrain with probability ``same_share``
  when that terrain is not a mountain (so same-terrain neighbours on one tile, which
  TS-1.3 connects, appear at about that rate), otherwise it is drawn from the mix;
* mountain sections are never linked on a tile: per TS-1.3 a "river" cuts every mountain
  section off from the rest of its tile, so two mountain sections on one tile stay two
  regions (the engine never links them; ``mountain_pairs`` only says whether a tile may
  hold two mountain sections side by side, each behind its river, or must redraw);
* a tile with ``max_mountains`` or more mountain sections is redrawn (a mountain region is
  always exactly 2 sections across a tile edge, TS-1.3, so a tile of four mountains would
  be four dead ends).

``lotr-sim tiles generate --seed S`` writes the result as a catalogue TOML table a designer
can edit and pass back with ``--config``; the default catalogue in
``configs/games/the-search.toml`` is ``generate(DEFAULT_GENERATOR)`` (seed 2026).
"""
from __future__ import annotations

import random
from typing import Any, Mapping

from lotr_sim.errors import ConfigError

TERRAINS = "WMFD"
N_TILES = 47
DEFAULT_GENERATOR: dict[str, Any] = {
    "seed": 2026,
    "mix": {"W": 0.2, "M": 0.3, "F": 0.25, "D": 0.25},
    "same_share": 0.35,
    "max_mountains": 3,
    "mountain_pairs": True,
}


def check_generator(gen: Mapping[str, Any]) -> dict[str, Any]:
    """The generator settings merged over the defaults and checked (ConfigError)."""
    g = dict(DEFAULT_GENERATOR)
    for k, v in gen.items():
        if k not in g:
            raise ConfigError(f"config: unknown catalogue generator setting '{k}' "
                              f"(settings: {', '.join(DEFAULT_GENERATOR)})")
        g[k] = v
    mix = g["mix"]
    if not isinstance(mix, Mapping) or set(mix) != set(TERRAINS):
        raise ConfigError("config: catalogue generator 'mix' needs weights for W, M, F and D")
    if any(not isinstance(mix[t], (int, float)) or isinstance(mix[t], bool) or mix[t] < 0 for t in TERRAINS) \
            or sum(mix.values()) <= 0 or mix["M"] >= sum(mix.values()):
        raise ConfigError("config: catalogue generator 'mix' weights must be >= 0, not all mountain")
    if not isinstance(g["same_share"], (int, float)) or not 0.0 <= float(g["same_share"]) <= 1.0:
        raise ConfigError("config: catalogue generator 'same_share' must be in [0, 1]")
    if not isinstance(g["max_mountains"], int) or not 1 <= g["max_mountains"] <= 4:
        raise ConfigError("config: catalogue generator 'max_mountains' must be an int in [1, 4]")
    if not isinstance(g["seed"], int) or g["seed"] < 0:
        raise ConfigError("config: catalogue generator 'seed' must be an int >= 0")
    return g


def generate(gen: Mapping[str, Any] | None = None, n: int = N_TILES) -> list[str]:
    """``n`` tile patterns (N E S W letters) from the generator settings ``gen``."""
    g = check_generator(gen or {})
    rng = random.Random(int(g["seed"]))
    weights = [float(g["mix"][t]) for t in TERRAINS]
    share = float(g["same_share"])
    out: list[str] = []
    while len(out) < n:
        secs: list[str] = []
        for d in range(4):
            if d > 0 and secs[-1] != "M" and rng.random() < share:
                secs.append(secs[-1])
            else:
                secs.append(rng.choices(TERRAINS, weights)[0])
        nm = secs.count("M")
        if nm >= g["max_mountains"]:
            continue
        if not g["mountain_pairs"] and any(secs[d] == "M" == secs[(d + 1) % 4] for d in range(4)):
            continue
        out.append("".join(secs))
    return out


def catalogue_toml(gen: Mapping[str, Any] | None = None) -> str:
    """A ``[catalogue]`` TOML table (with its generator settings) a designer can edit."""
    g = check_generator(gen or {})
    tiles = generate(g)
    lines = ["# The Search tile catalogue (TS-1.2): 47 tiles, sections N E S W,",
             "# W water, M mountain, F forest, D desert. Made by",
             f"# `lotr-sim tiles generate --seed {g['seed']}` (lotr_sim/games/the_search/catalogue.py);",
             "# edit the patterns freely and pass this file with --config.",
             "[catalogue]",
             'shire = "FDFD"',
             "tiles = ["]
    for i in range(0, len(tiles), 8):
        lines.append("    " + ", ".join(f'"{t}"' for t in tiles[i:i + 8]) + ",")
    lines.append("]")
    lines.append("")
    lines.append("[catalogue.generator]")
    lines.append(f"seed = {g['seed']}")
    lines.append("mix = { " + ", ".join(f"{t} = {g['mix'][t]}" for t in TERRAINS) + " }")
    lines.append(f"same_share = {g['same_share']}")
    lines.append(f"max_mountains = {g['max_mountains']}")
    lines.append(f"mountain_pairs = {'true' if g['mountain_pairs'] else 'false'}")
    return "\n".join(lines) + "\n"
