"""Tile-draw outcomes of The Search (``lotr-sim tiles --games N``, ``api.tiles``): what the
tile catalogue (TS-1.2) and the placing rules (TS-3) do to a game, from ``n`` games played
through the ``Game`` seam (``Game.simulate``'s columns), with its table, heat map and files.

* the share of turns on which a hand cannot be placed (TS-3.4; per placement, 47 a game);
* neutral tiles per game; where Mount Doom ends up (a 6 x 8 heat map, TS-5.3) and its
  distance from the Shire in moves over the finished map (regions, boats ignored);
* token sites created per colour (TS-4.3) and tokens never collected (left on the map or
  never placed); phase lengths in turns (TS-5).

Every row carries a 95% normal interval over games (mean +- 1.96 sd / sqrt(n)).

``catalogue`` gives ``lotr-sim tiles generate`` a catalogue to try, made by the game's seeded
generator (``games/the_search/catalogue.py``).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

import numpy as np

from lotr_sim._result import Result

if TYPE_CHECKING:
    import pandas as pd


MEAN_ROWS = (
    ("neutral tiles per game", "neutral_tiles"),
    ("Mount Doom distance from the Shire (moves)", "doom_distance"),
    ("token sites: blue", "sites_blue"),
    ("token sites: brown", "sites_brown"),
    ("token sites: green", "sites_green"),
    ("token sites: yellow", "sites_yellow"),
    ("tokens left on the map", "tokens_left_on_map"),
    ("tokens never placed", "tokens_never_placed"),
    ("phase 1 turns", "phase1_turns"),
    ("phase 2 turns", "phase2_turns"),
    ("phase 3 turns", "phase3_turns"),
)


def _mean_ci(x: np.ndarray) -> tuple[float, float, float]:
    x = np.asarray(x, dtype=float)
    m = float(x.mean()) if x.size else float("nan")
    h = 1.96 * float(x.std(ddof=1)) / np.sqrt(x.size) if x.size > 1 else float("nan")
    return m, m - h, m + h


def catalogue(seed: int | None = None, same_share: float | None = None) -> tuple[str, dict]:
    """A tile catalogue (TS-1.2 [R]) made by The Search's seeded generator, as the TOML text
    ``--config`` accepts, and the generator settings given (``seed``: by default the default
    catalogue's, 2026; ``same_share``: by default the generator's)."""
    from lotr_sim.games.the_search.catalogue import DEFAULT_GENERATOR, catalogue_toml
    gen: dict = {"seed": DEFAULT_GENERATOR["seed"] if seed is None else seed}
    if same_share is not None:
        gen["same_share"] = same_share
    return catalogue_toml(gen), gen


def tile_report(game: Any, compiled: Any, policies: Mapping[str, str], seed: int, n: int,
                threads: int | None = None) -> dict:
    """Simulate games 0..n-1 and summarise their tile-draw outcomes."""
    r = game.simulate(compiled, policies, seed, 0, n, threads=threads)
    # per game (turns of one game are not independent): the mean of each game's share
    share = (r["unplaceable_frodo"].astype(np.float64) + r["unplaceable_sam"]) / 47.0
    m, a, b = _mean_ci(share)
    rows = [{"quantity": "share of turns with an unplaceable hand", "value": m, "lo": max(a, 0.0), "hi": b}]
    for label, col in MEAN_ROWS:
        x = r[col]
        if col == "doom_distance":
            x = x[x >= 0]
        m, a, b = _mean_ci(x)
        rows.append({"quantity": label, "value": m, "lo": a, "hi": b})
    heat = np.zeros((6, 8), dtype=np.int64)
    for c in r["doom_cell"]:
        if c >= 0:
            heat[c // 8, c % 8] += 1
    return {"games": int(n), "seed": int(seed), "policies": dict(policies), "rows": rows,
            "doom_heat": heat.tolist(), "neutral_hist": np.bincount(r["neutral_tiles"]).tolist(),
            "params": dict(getattr(compiled, "meta", {}).get("params", {}))}


def format_text(rep: dict) -> str:
    """The report as plain text: the table and the heat map in percent of games."""
    from lotr_sim.games.account import players_text
    params = ", ".join(f"{k}={v}" for k, v in rep["params"].items())
    lines = [f"The Search tile-draw outcomes: {rep['games']} games, seed {rep['seed']}, "
             f"{players_text(rep['policies'])}" + (f"; {params}" if params else "")]
    w = max(len(r["quantity"]) for r in rep["rows"])
    for r in rep["rows"]:
        pct = r["quantity"].startswith("share")
        f = (lambda v: f"{100 * v:6.2f}%") if pct else (lambda v: f"{v:7.3f}")
        lines.append(f"  {r['quantity']:<{w}}  {f(r['value'])}  [{f(r['lo'])}, {f(r['hi'])}]")
    heat = np.array(rep["doom_heat"], dtype=float)
    tot = max(heat.sum(), 1.0)
    lines.append("Mount Doom's cell (% of games; rows top to bottom, 6 x 8 map):")
    for row in heat:
        lines.append("  " + " ".join(f"{100 * v / tot:5.1f}" for v in row))
    return "\n".join(lines)


def write(rep: dict, out: Path) -> list[Path]:
    """``report.json``, ``summary.csv``, ``doom_heat.csv`` and two plots in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "report.json", out / "summary.csv", out / "doom_heat.csv"]
    paths[0].write_text(json.dumps(rep, indent=1), encoding="utf-8")
    paths[1].write_text("quantity,value,lo,hi\n" + "".join(
        f"\"{r['quantity']}\",{r['value']:.6g},{r['lo']:.6g},{r['hi']:.6g}\n" for r in rep["rows"]), encoding="utf-8")
    paths[2].write_text("\n".join(",".join(str(v) for v in row) for row in rep["doom_heat"]) + "\n", encoding="utf-8")
    from lotr_sim._figure import save_figure
    save_figure(doom_heat_figure(rep), out / "doom_heat.png")
    save_figure(neutral_figure(rep), out / "neutral_tiles.png")
    return paths + [out / "doom_heat.png", out / "neutral_tiles.png"]


def doom_heat_figure(rep: dict):
    """Where Mount Doom ends up (TS-5.3): a 6 x 8 heat map of the share of games, each
    cell's share written in it (a ``matplotlib.figure.Figure``, no pyplot state)."""
    from lotr_sim._figure import new_figure
    heat = np.array(rep["doom_heat"], dtype=float) / max(rep["games"], 1)
    fig = new_figure((7, 4.5))
    ax = fig.subplots()
    im = ax.imshow(100 * heat, cmap="viridis")
    top = 100 * heat.max() if heat.size else 0.0
    for i in range(heat.shape[0]):
        for j in range(heat.shape[1]):
            v = 100 * heat[i, j]
            ax.text(j, i, f"{v:.1f}", ha="center", va="center", fontsize=8,
                    color="black" if v > 0.6 * top else "white")
    ax.set_xticks(range(heat.shape[1]))
    ax.set_yticks(range(heat.shape[0]))
    ax.set_xlabel("column of the final map")
    ax.set_ylabel("row of the final map")
    fig.colorbar(im, ax=ax, label="% of games")
    ax.set_title(f"Where Mount Doom ends up (6 x 8 map, {rep['games']} games)")
    return fig


def neutral_figure(rep: dict):
    """Neutral tiles per game (TS-3.4): the share of games with 0, 1, 2 ... neutral tiles."""
    from lotr_sim._figure import new_figure
    fig = new_figure((6, 4))
    ax = fig.subplots()
    h = np.asarray(rep["neutral_hist"], dtype=float)
    ax.bar(range(len(h)), 100 * h / max(rep["games"], 1))
    ax.set_xlabel("neutral tiles in a game")
    ax.set_ylabel("% of games")
    ax.set_title("Neutral tiles per game")
    from matplotlib.ticker import MaxNLocator
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    return fig


@dataclass(frozen=True)
class TilesResult(Result):
    """What ``lotr_sim.api.tiles`` returns: The Search's tile-draw outcomes over ``games``
    games. Tables are pandas DataFrames, plots ``matplotlib.figure.Figure`` objects (no pyplot
    state: a notebook shows them inline, nothing is saved).

    Attributes
    ----------
    report : dict
        What ``report.json`` holds: ``games``, the table's ``rows``, ``doom_heat`` counts,
        ``neutral_hist`` and the players.
    out : Path or None
        The folder the files were written to, if any.
    paths : list of Path
        The files written there.
    """

    report: dict
    out: Path | None = None
    paths: list[Path] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-able: the ``report`` (as ``report.json``), ``out`` and ``paths`` as text."""
        return dict(report=self.report, out=None if self.out is None else str(self.out),
                    paths=[str(p) for p in self.paths])

    @property
    def games(self) -> int:
        return int(self.report["games"])

    @property
    def table(self) -> "pd.DataFrame":
        """One row per quantity: ``quantity``, ``value`` and its 95% interval ``lo``, ``hi``."""
        import pandas as pd
        return pd.DataFrame(self.report["rows"], columns=["quantity", "value", "lo", "hi"])

    @property
    def doom_heat(self) -> "pd.DataFrame":
        """Share of games with Mount Doom on each cell of the final 6 x 8 map (rows top to
        bottom; games where it was never placed are in no cell)."""
        import pandas as pd
        return pd.DataFrame(np.array(self.report["doom_heat"], dtype=float) / max(self.games, 1))

    @property
    def neutral_tiles(self) -> "pd.Series":
        """Share of games by the number of neutral tiles in them."""
        import pandas as pd
        h = np.asarray(self.report["neutral_hist"], dtype=float)
        return pd.Series(h / max(self.games, 1), name="share of games").rename_axis("neutral tiles")

    def text(self) -> str:
        """The report as ``lotr-sim tiles`` prints it."""
        return format_text(self.report)

    def heatmap(self):
        """The Mount Doom heat map (a ``Figure``)."""
        return doom_heat_figure(self.report)

    def figures(self) -> list[tuple[str, Any, str]]:
        """Every plot as ``(name, Figure, caption)``, named as the files ``write`` saves."""
        return [("doom_heat", self.heatmap(), "Where Mount Doom ends up"),
                ("neutral_tiles", neutral_figure(self.report), "Neutral tiles per game")]
