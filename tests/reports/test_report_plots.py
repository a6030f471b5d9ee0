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


@pytest.mark.slow
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
    rate with its 95% Wilson interval under it."""
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
    assert ax.get_xlabel() == "Sam's AI (weak to strong)" and ax.get_ylabel() == "Frodo's AI (weak to strong)"
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


def _pairings_frame(players, good_wins, draws=lambda g, e: 0, baseline=("greedy", "greedy")):
    """The baseline and the pairings ``players`` x ``players``: Good wins ``good_wins(g, e)``
    of 1,000 games, ``draws(g, e)`` are drawn."""
    def r(i, label, varied, g, e):
        k, d = good_wins(g, e), draws(g, e)
        return row(i, label, varied, {}, 1000, (k, 1000 - k - d, d), policies={"good": g, "evil": e})
    rows = [r(0, "baseline", "baseline", *baseline)]
    for g in players:
        for e in players:
            rows.append(r(len(rows), f"good={g},evil={e}", "pairings", g, e))
    return frame(rows)


def _axis_players(fig):
    ax = _ax(fig)
    return [t.get_text() for t in ax.get_yticklabels()], [t.get_text() for t in ax.get_xticklabels()]


def test_pairings_heat_map_orders_players_by_measured_strength():
    """Rows and columns weak to strong by each player's mean score over the pairings on both
    sides, not alphabetically (aggressive, cautious, greedy, random) and not by the ladder's
    guess (random, greedy, aggressive, cautious): here greedy beats both presets, as in
    LOTR Risk. Good wins 60% at every even pairing: the first side's edge counts the same
    for every player."""
    strength = {"random": 0, "cautious": 1, "aggressive": 2, "greedy": 3}
    players = sorted(strength)
    df = _pairings_frame(players, lambda g, e: 600 + 100 * (strength[g] - strength[e]))
    rows_, cols = _axis_players(plots.plot_pairings(df, "good", ["good", "evil"]))
    assert rows_ == cols == ["random", "cautious", "aggressive", "greedy"], (rows_, cols)
    # every cell in its place: Good's rate at (row, column) is that pairing's
    ax = _ax(plots.plot_pairings(df, "good", ["good", "evil"]))
    im = ax.get_images()[0].get_array()
    for i, g in enumerate(rows_):
        for j, e in enumerate(cols):
            assert im[i, j] == pytest.approx((600 + 100 * (strength[g] - strength[e])) / 10)


def test_pairings_heat_map_draws_count_half():
    """The Search's pairings may end in draws: a draw counts half a game for each side.
    greedy beats racer 55% to 45% on either side and draws 40% against itself: it is the
    stronger (mean score 52.5% v 47.5%), though it wins fewer of its games (42.5% v 47.5%),
    and though the ladder and the alphabet put it first."""
    def wins(g, e):
        return {("greedy", "greedy"): 300, ("racer", "racer"): 500, ("greedy", "racer"): 550,
                ("racer", "greedy"): 450}[g, e]

    def draws(g, e):
        return 400 if g == e == "greedy" else 0
    df = _pairings_frame(["greedy", "racer"], wins, draws)
    rows_, cols = _axis_players(plots.plot_pairings(df, "good", ["good", "evil"]))
    assert rows_ == cols == ["racer", "greedy"]


def test_pairings_heat_map_without_every_pairing_follows_the_skill_ladder():
    """With pairings missing (here Good's player swept against Evil's greedy only), strength
    cannot be compared on equal terms: the rows follow the skill ladder, random, greedy, the
    presets, tuned, tuned weights, then the search players (search-fast before search)."""
    goods = ["search", "tuned:my.toml", "tuned", "racer", "random", "search-fast", "greedy"]
    rows = [row(0, "baseline", "baseline", {}, 1000, (500, 500, 0))]
    for i, g in enumerate(goods, start=1):
        k = 990 if g == "random" else 10 * i     # rates that would order them otherwise
        rows.append(row(i, f"good={g}", "good", {"good": g}, 1000, (k, 1000 - k, 0),
                        policies={"good": g, "evil": "greedy"}))
    rows_, cols = _axis_players(plots.plot_pairings(frame(rows), "good", ["good", "evil"]))
    assert rows_ == ["random", "greedy", "racer", "tuned", "tuned:my.toml", "search-fast", "search"], rows_
    assert cols == ["greedy"]


def _grid2():
    """A 3 x 2 grid over x (numeric) and mode (a choice) whose baseline (x=1, mode=fair) is
    one of its cells: the sweep plays that cell once, as the baseline. Good wins
    400 + 50 x + (100 if tilted) of 1,000 games."""
    rows = [row(0, "baseline", "baseline", {"x": 1, "mode": "fair"}, 1000, (450, 500, 50))]
    for x in (0, 1, 2):
        for mode in ("fair", "tilted"):
            if (x, mode) == (1, "fair"):
                continue
            k = 400 + 50 * x + (100 if mode == "tilted" else 0)
            rows.append(row(len(rows), f"x={x},mode={mode}", "grid", {"x": x, "mode": mode}, 1000,
                            (k, 950 - k, 50)))
    return frame(rows)


def _legend(ax):
    leg = ax.get_legend()
    assert leg is not None
    return leg.get_title().get_text(), [t.get_text() for t in leg.get_texts()]


def test_grid_plot_has_a_line_per_value_of_the_other_parameter_named_in_the_legend():
    figs = {name: (fig, cap) for name, fig, cap in plots.figures(_grid2(), OUTCOMES, REASONS, ["good", "evil"])}
    # x is numeric: one line per value of mode, with every cell's rate, the baseline's included
    fig, cap = figs["winrate_x"]
    ax = _ax(fig)
    title, entries = _legend(ax)
    assert title.splitlines()[0] == "mode" and entries == ["mode=fair", "mode=tilted", "baseline", "50%"]
    lines = {ln.get_label(): ln for ln in ax.lines if ln.get_linestyle() == "-"}
    assert sorted(lines) == ["mode=fair", "mode=tilted"]
    assert list(lines["mode=fair"].get_xdata()) == [0, 1, 2]
    assert list(lines["mode=fair"].get_ydata()) == pytest.approx([40.0, 45.0, 50.0])     # 45.0: the baseline
    assert list(lines["mode=tilted"].get_ydata()) == pytest.approx([50.0, 55.0, 60.0])
    assert cap == "Good win rate vs x, one line per mode"
    # mode is a choice: one series of points per value of x, named in the legend
    ax = _ax(figs["winrate_mode"][0])
    title, entries = _legend(ax)
    assert title.splitlines()[0] == "x" and entries == ["x=0", "x=1", "x=2", "baseline", "50%"]
    assert [t.get_text() for t in ax.get_xticklabels()] == ["fair", "tilted"]


def test_grid_plot_of_three_parameters_pools_the_third():
    from sweepfolder import grid_frame
    figs = {name: fig for name, fig, _ in plots.figures(grid_frame(), OUTCOMES, REASONS, ["good", "evil"])}
    ax = _ax(figs["winrate_leader_bonus"])
    title, entries = _legend(ax)
    assert title.splitlines()[0] == "end_on_last_card"
    assert entries == ["end_on_last_card=immediately", "end_on_last_card=end_of_turn", "50%"]
    assert "pooled over siege_towers_per_side" in ax.get_title()
    # end_of_turn at leader_bonus=0: Good 1,650 + 60 + (0, 40) of 2 x 4,000 games
    ys = {ln.get_label(): list(ln.get_ydata()) for ln in ax.lines if ln.get_linestyle() == "-"}
    assert ys["end_on_last_card=end_of_turn"][0] == pytest.approx(100 * (2 * 1710 + 40) / 8000)


def test_grid_plot_legend_is_outside_the_axes():
    fig = dict((n, f) for n, f, _ in plots.figures(_grid2(), OUTCOMES, REASONS, ["good", "evil"]))["winrate_x"]
    FigureCanvasAgg(fig).draw()
    ax = _ax(fig)
    lb, ab = ax.get_legend().get_window_extent(), ax.get_window_extent()
    assert lb.x0 >= ab.x1 - 1, (lb, ab)
