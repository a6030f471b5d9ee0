"""The report plots: drawn on Figure objects without touching pyplot's backend (a notebook
keeps its inline backend), booleans and choices as categories (no line over 0.0-1.0),
integer parameters with integer ticks, legends outside the axes, percent units."""
import matplotlib
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from framebuild import OUTCOMES, REASONS, frame, row
from lotr_sim.reports import plots


def _df():
    d = lambda **k: {"x": 1, "flag": False, "mode": "fair", **k}  # noqa: E731
    return frame([
        row(0, "baseline", "baseline", d(), 1000, (450, 500, 50)),
        row(1, "x=0", "x", d(x=0), 1000, (400, 550, 50), delta=(0, 50)),
        row(2, "x=2", "x", d(x=2), 1000, (500, 450, 50), delta=(50, 0)),
        row(3, "x=3", "x", d(x=3), 1000, (550, 400, 50), delta=(100, 0)),
        row(4, "flag=true", "flag", d(flag=True), 1000, (480, 470, 50), delta=(30, 0)),
        row(5, "mode=tilted", "mode", d(mode="tilted"), 1000, (420, 530, 50), delta=(0, 30)),
        row(6, "good=random,evil=greedy", "pairings", d(), 1000, (30, 960, 10), delta=(0, 420),
            policies={"good": "random", "evil": "greedy"}),
    ])


@pytest.fixture
def figs():
    return {name: fig for name, fig, _ in plots.figures(_df(), OUTCOMES, REASONS, ["good", "evil"])}


def test_plots_do_not_switch_the_backend(tmp_path):
    old = matplotlib.get_backend()
    matplotlib.use("pdf")
    try:
        out = plots.all_plots(_df(), OUTCOMES, REASONS, tmp_path)
        assert matplotlib.get_backend() == "pdf"
        assert {p.name for _, p, _ in out} >= {"winrate_x.png", "winrate_flag.png", "tornado.png",
                                               "reasons.png", "pairings.png"}
        assert all(p.stat().st_size > 1000 for _, p, _ in out)
    finally:
        matplotlib.use(old)


def test_figures_are_figure_objects(figs):
    assert figs and all(isinstance(f, Figure) for f in figs.values())


def _ax(fig):
    return fig.axes[0]


def test_booleans_and_choices_are_categories_without_a_line(figs):
    for name in ("winrate_flag", "winrate_mode"):
        ax = _ax(figs[name])
        # no solid line joins the categories; the only line is the dashed 50% reference
        assert [ln for ln in ax.lines if ln.get_linestyle() == "-" and len(ln.get_xdata()) > 1] == []
        labels = [t.get_text() for t in ax.get_xticklabels()]
        assert labels in (["false", "true"], ["fair", "tilted"]), labels
        assert ax.get_xlim() == pytest.approx((-0.5, 1.5))


def test_integer_parameters_have_integer_ticks(figs):
    ax = _ax(figs["winrate_x"])
    ticks = ax.get_xticks()
    assert list(ticks) == [0, 1, 2, 3]
    # numeric: a line through the points with the interval band
    assert any(ln.get_linestyle() == "-" and len(ln.get_xdata()) == 4 for ln in ax.lines)


def test_units_are_percent_and_percentage_points(figs):
    ax = _ax(figs["winrate_x"])
    assert "% of games" in ax.get_ylabel()
    ys = [y for ln in ax.lines if len(ln.get_xdata()) == 4 for y in ln.get_ydata()]
    assert max(ys) == pytest.approx(55.0)               # percent, not a proportion
    assert "percentage points" in _ax(figs["tornado"]).get_xlabel()
    assert "% of games" in _ax(figs["reasons"]).get_xlabel()
    for f in figs.values():
        for ax in f.axes:
            assert "pts" not in ax.get_xlabel() + ax.get_ylabel() + ax.get_title()


@pytest.mark.parametrize("name", ["winrate_x", "winrate_flag", "reasons", "lengths_x"])
def test_legends_do_not_cover_the_axes(figs, name):
    fig = figs[name]
    FigureCanvasAgg(fig).draw()
    ax = _ax(fig)
    leg = ax.get_legend()
    assert leg is not None
    lb, ab = leg.get_window_extent(), ax.get_window_extent()
    assert lb.x0 >= ab.x1 - 1 or lb.y1 <= ab.y0 + 1, (lb, ab)   # right of or below the axes


def test_pairings_heat_map_writes_rates_in_cells(figs):
    """Good's rate in each cell and, draws being 1% and 5% here (not negligible), the draw
    rate with its 95% Wilson interval under it (issue 18)."""
    ax = _ax(figs["pairings"])
    texts = sorted(t.get_text() for t in ax.texts)
    assert texts == ["3.0%\ndraw 1.0%\n[0.5, 1.8]", "45.0%\ndraw 5.0%\n[3.8, 6.5]"]
    assert "draws" in ax.get_title()


def test_pairings_heat_map_without_draws_gives_the_rate_only():
    df = frame([row(0, "baseline", "baseline", {"x": 1}, 1000, (450, 548, 2)),
                row(1, "good=random,evil=greedy", "pairings", {"x": 1}, 1000, (30, 966, 4), delta=(0, 420),
                    policies={"good": "random", "evil": "greedy"})])
    fig = plots.plot_pairings(df, "good", ["good", "evil"])
    ax = _ax(fig)
    assert sorted(t.get_text() for t in ax.texts) == ["3.0%", "45.0%"]      # draws 0.2%, 0.4%: negligible
    assert "draw" not in ax.get_title()


def test_side_names_are_capitalised_for_every_game():
    """The Search's sides are frodo and sam: the pictures and tables say "Frodo" and "Sam"
    as they say "Good" and "Evil" (the verdict already did), and "draw" stays a word."""
    import json

    from lotr_sim.reports import tables

    def ts(c):
        return c.replace("good", "frodo").replace("evil", "sam") if isinstance(c, str) else c
    df = _df().rename(columns=ts)
    df["policies"] = [json.dumps({ts(k): v for k, v in json.loads(p).items()}) for p in df["policies"]]
    outcomes = ["frodo", "sam", "draw"]
    figs = {n: (f, c) for n, f, c in plots.figures(df, outcomes, REASONS, ["frodo", "sam"])}
    assert figs["pairings"][1] == "Frodo win rate by AI pairing"
    ax = _ax(figs["pairings"][0])
    assert ax.get_xlabel() == "Sam's AI" and ax.get_ylabel() == "Frodo's AI"
    assert "Frodo's win rate" in figs["tornado"][1] and _ax(figs["winrate_x"][0]).get_title() == "Frodo win rate vs x"
    head, _ = tables.rows(df, outcomes, REASONS)
    assert head[2:6] == ["Frodo % [95% CI]", "Sam % [95% CI]", "draw % [95% CI]",
                         "ΔFrodo, percentage points [95% CI]"]


def test_skill_ladder_plot_climbs_in_the_given_order():
    ladder = [dict(player="random", rate=0.10, lo=0.08, hi=0.12), dict(player="greedy", rate=0.45, lo=0.43, hi=0.47),
              dict(player="search", rate=0.55, lo=0.52, hi=0.58)]
    ax = _ax(plots.plot_ladder(ladder, "good"))
    assert [t.get_text() for t in ax.get_xticklabels()] == ["random", "greedy", "search"]
    pts = [ln for ln in ax.lines if ln.get_marker() == "o"]
    assert len(pts) == 1 and list(pts[0].get_ydata()) == pytest.approx([10.0, 45.0, 55.0])   # percent
    assert pts[0].get_linestyle() in ("None", "none", "")                                    # categories: no line
    assert sorted(t.get_text() for t in ax.texts) == ["10.0%", "45.0%", "55.0%"]
    assert "% of games" in ax.get_ylabel()
