"""The verdict of a grid sweep of the fake game: every pooled figure (a value's games and
win rate over the cells of the other swept parameters, "closest to parity") counts the
grid cell equal to the baseline once. ``build_points`` plays that cell only as the baseline
(point 0, varied "baseline"), never again as a grid point, so a pooling over the grid
points alone misses it. The expected figures are summed here by hand from results.parquet.

And the swept parameters come in the order the sweep gave them (``swept_dims``), not in
the alphabetical order of the ``dims`` column's sorted keys."""
import itertools
import json

import pandas as pd
import pytest

from lotr_sim import api
from lotr_sim.experiments.verdict import _dim_parity_entries, swept_dims, verdict
from lotr_sim.reports import plots

N = 400


def _sweep(fake, tmp_path, params: dict, name="g"):
    res = api.sweep(fake, params=params, grid=True, games=N, seed=3, out=tmp_path / name, report=False)
    df = pd.read_parquet(res.out / "results.parquet")
    manifest = json.loads((res.out / "manifest.json").read_text())
    return df, manifest


def _cells(df, params: dict) -> list:
    """``[(values, row)]``: the grid points, and the baseline when the grid has no point with
    its values; checked to be the full factorial of ``params``, each combination once."""
    grid = [(json.loads(r["dims"]), r) for _, r in df.iterrows() if r["varied"] == "grid"]
    base = df[df["point"] == 0].iloc[0]
    bd = json.loads(base["dims"])
    combos = {tuple(c[k] for k in params) for c, _ in grid}
    cells = list(grid)
    if tuple(bd[k] for k in params) not in combos and all(bd[k] in vs for k, vs in params.items()):
        cells.append((bd, base))
    assert sorted(tuple(c[k] for k in params) for c, _ in cells) == sorted(itertools.product(*params.values()))
    return cells


def _by_hand(cells, dim) -> dict:
    """``{value: (games, Good's wins)}`` summed over the cells with that value of ``dim``."""
    out: dict = {}
    for c, r in cells:
        g, w = out.get(c[dim], (0, 0))
        out[c[dim]] = (g + int(r["games"]), w + int(r["wins_good"]))
    return out


GRIDS = {
    # 3 x 2, baseline strength=5, mode=fair: mode=fair pools three cells, strength=5 two
    "two": {"strength": [3, 5, 7], "mode": ["fair", "tilted"]},
    # 2 x 2 x 2 with a boolean: strength=5 pools four cells, one of them the baseline's
    "three": {"strength": [3, 5], "mode": ["fair", "tilted"], "bonus": [False, True]},
    # a side's player as a dimension (baseline good=greedy)
    "player": {"good": ["random", "greedy"], "strength": [3, 5]},
}


@pytest.mark.parametrize("name", list(GRIDS))
def test_grid_pooling_counts_the_baseline_cell_once(fake, tmp_path, name):
    params = GRIDS[name]
    df, manifest = _sweep(fake, tmp_path, params)
    # the baseline's cell is not played twice: one point fewer than the cells
    ncells = 1
    for vs in params.values():
        ncells *= len(vs)
    assert (df["varied"] == "grid").sum() == ncells - 1
    cells = _cells(df, params)
    assert len(cells) == ncells
    for dim, values in params.items():
        hand = _by_hand(cells, dim)
        entries = _dim_parity_entries(df, dim, "good", "evil", "good50")
        assert [e["value"] for e in entries] == values
        for e in entries:
            games, wins = hand[e["value"]]
            assert e["games"] == games == N * ncells // len(values), (dim, e["value"])
            assert e["rate"] == pytest.approx(wins / games), (dim, e["value"])


def test_closest_to_parity_pools_the_baseline_cell(fake, tmp_path):
    """mode=fair is Good's 40%, 50% (the baseline) and 60% at strength 3, 5, 7: closest to
    parity over 3 x N games, the baseline's N among them."""
    params = GRIDS["two"]
    df, manifest = _sweep(fake, tmp_path, params)
    hand = _by_hand(_cells(df, params), "mode")
    v = verdict(df, manifest)
    p = {x["param"]: x for x in v["parity"]}["mode"]
    games, wins = hand["fair"]
    assert p["closest"]["value"] == "fair"
    assert p["closest"]["games"] == games == 3 * N
    assert p["closest"]["rate"] == pytest.approx(wins / games)
    line = next(ln for ln in v["lines"] if ln.startswith("- mode:"))
    assert f"Good {100 * wins / games:.1f}%" in line


def test_baseline_outside_the_grid_is_not_pooled(fake, tmp_path):
    """The baseline (strength=5) is no cell of a strength=4,6 grid: each value pools its
    two grid points only."""
    params = {"strength": [4, 6], "mode": ["fair", "tilted"]}
    df, _ = _sweep(fake, tmp_path, params)
    assert (df["varied"] == "grid").sum() == 4
    grid = [(json.loads(r["dims"]), r) for _, r in df.iterrows() if r["varied"] == "grid"]
    for dim in params:
        hand = _by_hand(grid, dim)
        for e in _dim_parity_entries(df, dim, "good", "evil", "good50"):
            assert (e["games"], e["rate"]) == (hand[e["value"]][0], pytest.approx(hand[e["value"]][1] / hand[e["value"]][0]))
            assert e["games"] == 2 * N


GIVEN = ["strength", "mode", "bonus"]   # not alphabetical


@pytest.mark.parametrize("grid", [False, True])
def test_swept_dims_in_the_order_given(fake, tmp_path, grid):
    params = {"strength": [3, 7], "mode": ["fair", "tilted"], "bonus": [True]}
    res = api.sweep(fake, params=params, grid=grid, games=N, seed=3, out=tmp_path / "s", report=False)
    df = pd.read_parquet(res.out / "results.parquet")
    manifest = json.loads((res.out / "manifest.json").read_text())
    assert list(json.loads(df["dims"].iloc[0])) == sorted(GIVEN)   # the column cannot tell
    assert [n for n, _ in manifest["spec"]["dims"]] == GIVEN
    assert swept_dims(df, manifest) == GIVEN
    assert swept_dims(df) == GIVEN                                  # read from the points
    v = verdict(df, manifest)
    assert [p["param"] for p in v["parity"]] == GIVEN
    after = v["lines"][v["lines"].index(v["parity_title"]) + 1:]
    assert [ln.split(":")[0] for ln in after] == [f"- {d}" for d in GIVEN]
    names = [n for n, _, _ in plots.figures(df, ["good", "evil", "draw"], ["leaders", "city", "deck"])]
    assert [n for n in names if n.startswith("winrate_")] == [f"winrate_{d}" for d in GIVEN]


def test_swept_dims_keeps_a_dimension_without_points_in_place(fake, tmp_path):
    """bonus=false is the baseline's value: the dimension has no point of its own, so only
    the manifest knows its place; from the points alone it comes last."""
    res = api.sweep(fake, params=["strength=3", "bonus=false", "mode=tilted"], games=N, seed=3,
                    out=tmp_path / "s", report=False)
    df = pd.read_parquet(res.out / "results.parquet")
    manifest = json.loads((res.out / "manifest.json").read_text())
    assert df["label"].tolist() == ["baseline", "strength=3", "mode=tilted"]
    assert swept_dims(df, manifest) == ["strength", "bonus", "mode"]
    assert swept_dims(df) == ["strength", "mode", "bonus"]
    assert [p["param"] for p in verdict(df, manifest)["parity"]] == ["strength", "bonus", "mode"]
