"""The verdict of a grid sweep of the fake game: its cells (full rule sets) hold the grid
cell equal to the baseline once. ``build_points`` plays that cell only as the baseline
(point 0, varied "baseline"), never again as a grid point, so a list of the grid points
alone misses it. The expected figures are read here by hand from results.parquet.

And the swept parameters come in the order the sweep gave them (``swept_dims``), not in
the alphabetical order of the ``dims`` column's sorted keys."""
import itertools
import json

import pandas as pd
import pytest

from lotr_sim import api
from lotr_sim.experiments.verdict import swept_dims, verdict
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


GRIDS = {
    # 3 x 2, baseline strength=5, mode=fair: mode=fair pools three cells, strength=5 two
    "two": {"strength": [3, 5, 7], "mode": ["fair", "tilted"]},
    # 2 x 2 x 2 with a boolean: strength=5 pools four cells, one of them the baseline's
    "three": {"strength": [3, 5], "mode": ["fair", "tilted"], "bonus": [False, True]},
    # a side's player as a dimension (baseline good=greedy)
    "player": {"good": ["random", "greedy"], "strength": [3, 5]},
}


@pytest.mark.parametrize("name", list(GRIDS))
def test_grid_cells_count_the_baseline_cell_once(fake, tmp_path, name):
    """Every cell of the grid is in the verdict's ``cells`` once, with its own games: the
    baseline's cell (played only as point 0) among them."""
    params = GRIDS[name]
    df, manifest = _sweep(fake, tmp_path, params)
    # the baseline's cell is not played twice: one point fewer than the cells
    ncells = 1
    for vs in params.values():
        ncells *= len(vs)
    assert (df["varied"] == "grid").sum() == ncells - 1
    cells = _cells(df, params)
    assert len(cells) == ncells
    got = {tuple(c["set"][k] for k in params): c for c in verdict(df, manifest)["cells"]}
    assert len(got) == ncells
    for c, r in cells:
        e = got[tuple(c[k] for k in params)]
        assert (e["games"], e["point"]) == (N, int(r["point"]))
        assert e["rate"] == pytest.approx(int(r["wins_good"]) / N)


def test_closest_to_parity_is_a_cell_not_a_row_average(fake, tmp_path):
    """mode=fair is Good's 40%, 50% (the baseline) and 60% at strength 3, 5, 7: the closest
    cell is named with its own games, never a value's games pooled over the other dimension."""
    params = GRIDS["two"]
    df, manifest = _sweep(fake, tmp_path, params)
    v = verdict(df, manifest)
    best = min((abs(int(r["wins_good"]) / N - 0.5), int(r["point"]), c) for c, r in _cells(df, params))
    assert v["cells"][0]["set"] == {k: best[2][k] for k in params}
    assert v["cells"][0]["games"] == N
    line = next(ln for ln in v["lines"] if ln.startswith("- Closest cell"))
    assert v["cells"][0]["label"] in line
    assert all(p["at"] and p["param"] in params for p in v["parity"])


def test_baseline_outside_the_grid_is_no_cell(fake, tmp_path):
    """The baseline (strength=5) is no cell of a strength=4,6 grid: the cells are the four
    grid points."""
    params = {"strength": [4, 6], "mode": ["fair", "tilted"]}
    df, manifest = _sweep(fake, tmp_path, params)
    assert (df["varied"] == "grid").sum() == 4
    cells = verdict(df, manifest)["cells"]
    assert sorted(c["point"] for c in cells) == sorted(int(p) for p in df.loc[df["varied"] == "grid", "point"])


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
    if grid:      # a grid's cells name every dimension in the order given
        assert all(list(c["set"]) == GIVEN for c in v["cells"])
        assert v["cells"][0]["label"].split(", ")[0].startswith("strength=")
    else:
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
