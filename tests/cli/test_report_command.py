"""`lotr-sim report DIR`: progress on stderr while it works (one line per stage when stderr is
not a terminal), `--target` writes a report beside the sweep's own instead of over it, a skill
run is called a skill run, and a large grid's report draws without matplotlib warnings."""
from __future__ import annotations

import itertools
import json
import sys
import warnings

import pytest
from typer.testing import CliRunner

from lotr_sim.cli.main import app

runner = CliRunner()


def _sweep(tmp_path, name="s"):
    out = tmp_path / name
    r = runner.invoke(app, ["sweep", "-g", "fake", "-q", "-n", "100", "-p", "strength=1,3", "-o", str(out)])
    assert r.exit_code == 0, r.output
    return out


def test_report_prints_one_line_per_stage_when_not_a_terminal(fake, tmp_path):
    out = _sweep(tmp_path)
    r = runner.invoke(app, ["report", str(out)])
    assert r.exit_code == 0, r.output
    lines = [x for x in r.stderr.splitlines() if x.startswith("report: ")]
    assert len(lines) >= 3, r.stderr                      # verdict, plots, writing
    assert any("plots" in x for x in lines) and any("verdict" in x for x in lines), lines
    assert len(lines) == len(set(lines)), lines          # a line per stage, not per plot
    assert "\r" not in r.stderr
    quiet = runner.invoke(app, ["report", str(out), "-q"])
    assert quiet.exit_code == 0 and not quiet.stderr.strip(), quiet.stderr


def test_report_target_writes_beside_the_sweeps_report(fake, tmp_path):
    out = _sweep(tmp_path)
    own = (out / "report.html").read_bytes(), (out / "report.md").read_bytes()
    r = runner.invoke(app, ["report", str(out), "--target", "equal", "-q"])
    assert r.exit_code == 0, r.output
    assert ((out / "report.html").read_bytes(), (out / "report.md").read_bytes()) == own
    assert "parity = Good wins as often as Evil" in (out / "report-equal.md").read_text()
    assert (out / "report-equal.html").is_file()
    assert "report-equal.html" in r.stdout and "report.html" in r.stdout, r.stdout   # says both
    # the sweep's own parity rebuilds the sweep's own report
    r = runner.invoke(app, ["report", str(out), "--target", "good50", "-q"])
    assert r.exit_code == 0 and not (out / "report-good50.md").exists(), r.output


def test_skill_run_is_labelled_skill(fake, tmp_path, monkeypatch):
    from lotr_sim.experiments import sweep as S
    seen = []
    real = S.make_progress

    def spy(show, description, total):
        seen.append(description)
        return real(False, description, total)

    monkeypatch.setattr(S, "make_progress", spy)
    out = tmp_path / "k"
    r = runner.invoke(app, ["skill", "-g", "fake", "--players", "random,greedy", "-n", "20", "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert [d for d in seen if d.endswith(" fake")] == ["skill fake"], seen   # (and preparing/compiling bars)
    md = (out / "report.md").read_text()
    assert md.startswith("# lotr-sim skill report: fake") and "sweep report" not in md
    assert json.loads((out / "manifest.json").read_text())["command"] == "skill"
    r = runner.invoke(app, ["report", str(out), "-q"])
    assert r.exit_code == 0 and (out / "report.md").read_text().startswith("# lotr-sim skill report")


def test_report_of_a_336_point_grid_has_no_matplotlib_warning(tmp_path):
    """A 7 x 6 x 8 grid: one game-length line per point made a legend taller than the figure
    ("constrained_layout not applied because axes sizes collapsed to zero")."""
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "experiments"))
    from framebuild import MANIFEST, frame, row

    from lotr_sim.reports.build import build_report
    base = {"a": 0, "b": 0, "c": 0}
    rows = [row(0, "baseline", "baseline", base, 100, (45, 50, 5))]
    for i, (a, b, c) in enumerate(itertools.product(range(7), range(6), range(8)), start=1):
        k = 20 + 3 * a + 2 * b + c
        rows.append(row(i, f"a={a},b={b},c={c}", "grid", {"a": a, "b": b, "c": c}, 100, (k, 95 - k, 5),
                        rounds_hist=(0, a, b, c, 1)))
    out = tmp_path / "g"
    out.mkdir()
    frame(rows).to_parquet(out / "results.parquet")
    (out / "manifest.json").write_text(json.dumps(dict(MANIFEST, spec={"grid": True, "dims": [["a", []]]})))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        res = build_report(out)
    from PIL import Image
    for p in res["plots"]:
        w, h = Image.open(p).size
        assert h <= 4000, (p.name, w, h)       # a picture a browser shows, not 10,000 px tall


@pytest.mark.parametrize("n", [3, 40])
def test_game_length_plot_names_each_point_only_when_it_can(n):
    from lotr_sim.reports.plots import plot_lengths
    items = [(v, {"rounds_hist": [0, 1, v + 1, 1], "point": v}) for v in range(n)]
    fig = plot_lengths("x", items)
    labels = fig.axes[0].get_legend_handles_labels()[1]
    assert len(labels) == (n if n <= 12 else 2), labels
