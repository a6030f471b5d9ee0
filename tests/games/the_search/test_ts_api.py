"""``lotr_sim.api.tiles``: The Search's tile-draw outcomes as a public API result (tables as
DataFrames, figures as ``matplotlib.figure.Figure`` without pyplot), the same numbers the
CLI ``lotr-sim tiles`` prints, and bad input as one clear error."""
from __future__ import annotations

import matplotlib
import numpy as np
import pytest
from matplotlib.figure import Figure
from typer.testing import CliRunner

from lotr_sim import api
from lotr_sim.cli.main import app
from lotr_sim.errors import ConfigError, LotrSimError

N = 200


@pytest.fixture(scope="module")
def res():
    return api.tiles(games=N, seed=3, threads=1)


def test_tiles_table_has_intervals_around_each_value(res):
    """Every row (TS-3.4 unplaceable hands and neutral tiles, TS-4.3 sites, TS-5 phases) has a
    95% interval around its value; the share of unplaceable turns is a share."""
    t = res.table
    assert list(t.columns) == ["quantity", "value", "lo", "hi"]
    assert len(t) == 12 and t["quantity"].is_unique
    assert (t["lo"] <= t["value"]).all() and (t["value"] <= t["hi"]).all()
    share = t.set_index("quantity").loc["share of turns with an unplaceable hand"]
    assert 0.0 <= share["lo"] and share["hi"] <= 1.0


def test_ts_5_3_doom_heat_counts_each_game_once_where_the_engine_put_mount_doom(res, game, comp):
    """TS-5.3: the 6 x 8 heat map is the share of games with Mount Doom on each cell, the same
    cells the engine's games record (played again here on their streams)."""
    cells = game.simulate(comp, game.default_policies, 3, 0, N, threads=1)["doom_cell"]
    expect = np.bincount(cells[cells >= 0], minlength=48).reshape(6, 8) / N
    heat = res.doom_heat
    assert heat.shape == (6, 8)
    np.testing.assert_allclose(heat.to_numpy(), expect)


def test_ts_3_4_neutral_tile_shares_match_the_table_mean(res):
    """TS-3.4: the neutral-tiles distribution sums to one game in one and its mean is the
    table's neutral tiles per game."""
    s = res.neutral_tiles
    assert s.sum() == pytest.approx(1.0)
    mean = float((s.index.to_numpy() * s.to_numpy()).sum())
    assert mean == pytest.approx(res.table.set_index("quantity").loc["neutral tiles per game", "value"])


def test_tiles_figures_are_figures_and_leave_the_backend_alone(res):
    """The plots are Figure objects a notebook shows inline: no pyplot state, no backend
    switch; the heat map draws the table's shares (in percent)."""
    old = matplotlib.get_backend()
    matplotlib.use("pdf")
    try:
        figs = {name: fig for name, fig, _ in res.figures()}
        assert matplotlib.get_backend() == "pdf"
    finally:
        matplotlib.use(old)
    assert set(figs) == {"doom_heat", "neutral_tiles"}
    assert all(isinstance(f, Figure) for f in figs.values())
    hm = res.heatmap()
    assert isinstance(hm, Figure)
    img = hm.axes[0].images[0].get_array()
    np.testing.assert_allclose(np.asarray(img), 100 * res.doom_heat.to_numpy())


def test_tiles_cli_prints_the_api_text_and_threads_do_not_change_it(res):
    """``lotr-sim tiles`` is a thin layer over ``api.tiles``; results are bit-identical
    whatever the thread count."""
    r = CliRunner().invoke(app, ["tiles", "--games", str(N), "--seed", "3", "--threads", "2"])
    assert r.exit_code == 0, r.output
    assert r.output.rstrip("\n") == res.text()
    assert api.tiles(games=N, seed=3, threads=2).report == res.report


def test_tiles_sets_and_policies_reach_the_games():
    """``sets`` and ``policies`` are the run's: the report names them, and TS-9.2's redraw
    variant changes the neutral tiles."""
    a = api.tiles(games=50, seed=2, sets=["unplaceable_hand=redraw"], policies={"frodo": "random"})
    assert a.report["params"].get("unplaceable_hand") == "redraw"
    assert a.report["policies"] == {"frodo": "random", "sam": api.get_game("the-search").default_policies["sam"]}
    b = api.tiles(games=50, seed=2, policies={"frodo": "random"})
    assert a.report["rows"] != b.report["rows"]


def test_tiles_out_writes_files_and_refuses_a_used_folder(tmp_path):
    out = tmp_path / "t"
    r = api.tiles(games=20, seed=1, out=out)
    assert r.out == out and {p.name for p in r.paths} == {
        "report.json", "summary.csv", "doom_heat.csv", "doom_heat.png", "neutral_tiles.png"}
    assert all(p.stat().st_size > 0 for p in r.paths)
    with pytest.raises(LotrSimError, match="not empty"):
        api.tiles(games=20, seed=1, out=out)
    api.tiles(games=20, seed=1, out=out, force=True)
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(LotrSimError, match="not a folder"):
        api.tiles(games=20, out=f)


@pytest.mark.parametrize("kw, msg", [
    ({"games": 0}, "at least 1"),
    ({"games": 2.5}, "whole number"),
    ({"games": True}, "whole number"),
    ({"policies": {"gandalf": "greedy"}}, "no side 'gandalf'"),
    ({"policies": {"frodo": "wizard"}}, "unknown policy"),
    ({"sets": ["no_such_param=1"]}, "no_such_param"),
])
def test_tiles_bad_input_is_one_config_error(kw, msg):
    with pytest.raises(ConfigError, match=msg):
        api.tiles(**kw)


def test_tiles_bad_seed_is_refused():
    with pytest.raises(LotrSimError, match="seed"):
        api.tiles(games=5, seed=-1)


def test_tiles_text_names_the_players_and_rules_not_python_dicts():
    """TS-2.3: the first line says "Frodo random v Sam tuned" and the changed rules as name=value,
    not a Python dict."""
    a = api.tiles(games=20, seed=2, sets=["unplaceable_hand=redraw"], policies={"frodo": "random"})
    first = a.text().splitlines()[0]
    sam = api.get_game("the-search").default_policies["sam"]
    assert f"Frodo random v Sam {sam}; unplaceable_hand=redraw" in first, first
    assert "{" not in first
