"""The two-lever picture (``plots.two_lever_plot``): Good's win rate over two levers as a
heat map with the rate in every cell, the parity contour, the cells whose interval holds
parity and the rulebook default's cell marked; a grid sweep's report draws it for its pair
of levers with the largest effect; no grid plot's title runs off its figure."""
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.contour import ContourSet
from matplotlib.patches import Rectangle

from framebuild import OUTCOMES, REASONS, frame, row
from lotr_sim.reports import plots

N = 4000


def _cells(rate) -> pd.DataFrame:
    """One row per rule set of x in 1, 2, 3 and mode fair, tilted; Good wins ``rate(x, mode)``."""
    out = []
    for x in (1, 2, 3):
        for mode in ("fair", "tilted"):
            k = round(rate(x, mode) * N)
            out.append(dict(x=x, mode=mode, games=N, wins_good=k, wins_evil=N - k))
    return pd.DataFrame(out)


def _rect(ax, lw):
    return [p for p in ax.patches if isinstance(p, Rectangle) and p.get_linewidth() == lw]


def test_heat_map_contour_default_and_cells_at_parity():
    # Good 30%, 40%, 50% (fair) and 40%, 50%, 60% (tilted): parity at (3, fair) and (2, tilted)
    df = _cells(lambda x, mode: 0.2 + 0.1 * x + (0.1 if mode == "tilted" else 0.0))
    fig = plots.two_lever_plot(df, "x", "mode", default={"x": 1, "mode": "fair"})
    ax = fig.axes[0]
    texts = sorted(t.get_text() for t in ax.texts)
    assert texts == sorted(["30.0%", "40.0%", "50.0%", "40.0%", "50.0%", "60.0%"])
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "2", "3"]
    assert [t.get_text() for t in ax.get_yticklabels()] == ["fair", "tilted"]
    assert any(isinstance(c, ContourSet) for c in ax.collections)          # the parity contour
    (default,) = _rect(ax, 2.5)
    assert default.get_xy() == (-0.5, -0.5)                                  # x=1 (column 0), fair (row 0)
    green = sorted(p.get_xy() for p in _rect(ax, 2.0))
    assert green == [(pytest.approx(0.55), pytest.approx(0.55)), (pytest.approx(1.55), pytest.approx(-0.45))]
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["parity", "rulebook default",
                                                                  "95% interval holds parity"]


def test_no_contour_when_every_cell_is_on_one_side():
    fig = plots.two_lever_plot(_cells(lambda x, mode: 0.1 * x), "x", "mode")
    ax = fig.axes[0]
    assert not any(isinstance(c, ContourSet) for c in ax.collections)
    assert not _rect(ax, 2.5) and not _rect(ax, 2.0)


def test_equal_target_draws_parity_where_good_wins_as_often_as_evil():
    # with draws Good 40% v Evil 40% is parity for "equal" though not for 50%
    df = _cells(lambda x, mode: 0.3 + 0.1 * (x - 1))
    df["wins_evil"] = round(0.4 * N)
    ax = plots.two_lever_plot(df, "x", "mode", target="equal").axes[0]
    assert sorted(p.get_xy()[0] for p in _rect(ax, 2.0)) == [pytest.approx(0.55)] * 2     # x=2, both modes
    assert "as often as Evil" in ax.get_title()


def _grid2():
    """A 3 x 2 grid over x and mode, the baseline (x=1, mode=fair) one of its cells."""
    rows = [row(0, "baseline", "baseline", {"x": 1, "mode": "fair"}, 1000, (450, 500, 50))]
    for x in (0, 1, 2):
        for mode in ("fair", "tilted"):
            if (x, mode) != (1, "fair"):
                k = 400 + 50 * x + (100 if mode == "tilted" else 0)
                rows.append(row(len(rows), f"x={x},mode={mode}", "grid", {"x": x, "mode": mode}, 1000,
                                (k, 950 - k, 50)))
    return frame(rows)


def test_grid_report_answers_with_the_two_lever_picture():
    figs = plots.figures(_grid2(), OUTCOMES, REASONS, ["good", "evil"])
    answers, _, _ = plots.report_sections([(n, None, c) for n, _, c in figs])
    assert [n for n, _, _ in answers] == ["two_levers"]
    ax = dict((n, f) for n, f, _ in figs)["two_levers"].axes[0]
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("x", "mode")
    (default,) = _rect(ax, 2.5)
    assert default.get_xy() == (0.5, -0.5)                                   # x=1, fair: the baseline
    assert "45.0%" in [t.get_text() for t in ax.texts]                       # its own games


def test_three_levers_draw_the_pair_with_the_largest_effect():
    from sweepfolder import grid_frame
    df = grid_frame()
    x, y, held, cells = plots.grid_pair(df, ["leader_bonus", "end_on_last_card", "siege_towers_per_side"])
    assert (x, y, held) == ("leader_bonus", "end_on_last_card", {"siege_towers_per_side": 2})
    assert len(cells) == 4 and all(c["siege_towers_per_side"] == 2 for c, _ in cells)
    ax = dict((n, f) for n, f, _ in plots.figures(df, OUTCOMES, REASONS, ["good", "evil"]))["two_levers"].axes[0]
    assert "siege_towers_per_side=2" in ax.get_title()


@pytest.mark.parametrize("make", ["grid2", "long"])
def test_grid_plot_titles_stay_inside_their_figures(make):
    from sweepfolder import grid_frame
    df = _grid2() if make == "grid2" else grid_frame()
    for name, fig, _ in plots.figures(df, OUTCOMES, REASONS, ["good", "evil"]):
        FigureCanvasAgg(fig).draw()
        for ax in fig.axes:
            if ax.get_title():
                tb = ax.title.get_window_extent()
                assert tb.x0 >= 0 and tb.x1 <= fig.bbox.x1 + 0.5, (name, ax.get_title(), tb, fig.bbox)


def test_grid_report_lists_cells_and_where_parity_crosses(tmp_path):
    """The report of a grid: the two-lever picture among the answering pictures, the
    "closest to parity" table one row per cell (closest first) and the lines through the
    cells that cross parity, never a value's average over the other parameter's cells."""
    from sweepfolder import write_sweep
    from lotr_sim.reports.build import build_report
    folder = write_sweep(tmp_path / "g", df=_grid2(),
                         spec={"dims": [["x", [0, 1, 2]], ["mode", ["fair", "tilted"]]]})
    out = build_report(folder)
    md = out["md"].read_text()
    assert md.index("plots/two_levers.png") < md.index("## Closest to parity")
    table = md[md.index("## Closest to parity"):md.index("Where parity lies")]
    rows = [ln for ln in table.splitlines() if ln.startswith("| ")]
    assert rows[0] == "| x | mode | Good % [95% CI] | within the interval of parity |"
    # Good 45% (the baseline, x=1 fair), 50% (x=0 tilted, x=2 fair): closest first
    assert rows[1].startswith("| 0 | tilted | 50.0") and rows[2].startswith("| 2 | fair | 50.0")
    assert len(rows) == 1 + 6
    assert "- x at mode=fair: parity at ≈ 2.00" in md
    assert "<li>x at mode=fair: parity at ≈ 2.00" in out["html"].read_text()
