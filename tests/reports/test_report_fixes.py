"""The sweep report's "Suggested fixes" block: with fix figures shipped for the baseline's
rules and players (``experiments.fixfig``), right under the verdict's headline, the fixes'
table and the best pair's picture (``plots/best-pair.png``) in report.md and report.html;
with none shipped, the verdict's one line pointing to ``lotr-sim fix`` and no picture."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from lotr_sim.experiments import fixfig
from lotr_sim.reports.build import build_report
from sweepfolder import write_sweep

SAMPLE = Path(__file__).resolve().parents[1] / "experiments" / "fixtures" / "fixes-minas-tirith.json"


def _ship(tmp_path, monkeypatch) -> dict:
    fig = {**json.loads(SAMPLE.read_text()), "game": "fake", "rules_hash": "r1",
           "players": {"good": "greedy", "evil": "greedy"}}
    path = fixfig.write(tmp_path / "shipped.json", fig)
    monkeypatch.setattr(fixfig, "shipped_path", lambda game: path)
    return fig


def _folder(tmp_path):
    return write_sweep(tmp_path / "s", config={"hashes": {"baseline": "r1"}})


@pytest.mark.slow
def test_report_gives_the_fixes_table_and_the_best_pair_under_the_headline(tmp_path, monkeypatch):
    fig = _ship(tmp_path, monkeypatch)
    assert fig["best_pair"] and fig["best_pair"]["cells"], "the sample has a two-lever fix"
    out = build_report(_folder(tmp_path))
    md, h = out["md"].read_text(), out["html"].read_text()
    pic = out["md"].parent / "plots" / "best-pair.png"
    assert pic.is_file() and pic.stat().st_size > 1000
    head = "| change | Good [95% CI], default players | after adaptation (holds?) |"
    for text in (md, h.replace("</th><th>", " | ")):
        assert "Suggested fixes" in text
    pos = [md.find(x) for x in ("**" + out["verdict"]["sentence"] + "**", "AI players:", "### Suggested fixes",
                                head, f"| {fig['fixes'][0]['change']} | ", "](plots/best-pair.png)",
                                "## Tornado chart")]
    assert -1 not in pos and pos == sorted(pos), pos
    assert "Suggested fixes for these rules and players" not in md    # the table stands for the lines
    assert h.find("<h3>Suggested fixes</h3>") < h.find("data-plot='best_pair'") < h.find("</section>")
    assert f"<td>{fig['fixes'][0]['change']}</td>" in h


@pytest.mark.slow
def test_report_without_shipped_fixes_has_the_one_line_and_no_picture(tmp_path, monkeypatch):
    """(an earlier build's picture, of fixes shipped then, is not left behind)"""
    folder = _folder(tmp_path)
    (folder / "plots").mkdir()
    (folder / "plots" / "best-pair.png").write_bytes(b"stale")
    monkeypatch.setattr(fixfig, "shipped_path", lambda game: tmp_path / "none.json")
    out = build_report(folder)
    md = out["md"].read_text()
    assert "Suggested fixes: no fixes shipped for fake (lotr-sim fix --game fake finds them)." in md
    assert "### Suggested fixes" not in md and "best-pair" not in md
    assert not (out["md"].parent / "plots" / "best-pair.png").exists()


def test_best_pair_picture_stars_the_fix_and_frames_the_default():
    """The best pair's picture (``plots.best_pair_plot``, which ``lotr-sim fix`` draws too):
    a cell per rule set played with its rate, the levers' values in their own order, the
    default framed, the fix starred, no parity contour guessed across unplayed cells, and
    parity at the fix's target."""
    from matplotlib.contour import ContourSet

    from lotr_sim.reports.plots import best_pair_plot
    pair = json.loads(SAMPLE.read_text())["best_pair"]
    x, y = pair["levers"]
    fig = best_pair_plot(pair, "good", 0.45)
    ax = fig.axes[0]
    assert sorted(t.get_text() for t in ax.texts) == sorted(f"{100 * c['wins'] / c['games']:.1f}%"
                                                            for c in pair["cells"])
    xs = [t.get_text() for t in ax.get_xticklabels()]
    played = {str(c["set"][x]) for c in pair["cells"]}
    assert xs == [str(v) for v in pair["values"][x] if str(v) in played]      # the rules' order
    ys = [t.get_text() for t in ax.get_yticklabels()]
    (star,) = [ln for ln in ax.lines if ln.get_marker() == "*"]
    assert star.get_xdata()[0] == xs.index(str(pair["fix"][x]))
    assert round(star.get_ydata()[0]) == ys.index(str(pair["fix"][y]))
    assert len(pair["cells"]) < len(xs) * len(ys) and not any(isinstance(c, ContourSet) for c in ax.collections)
    assert "parity: Good wins 45%" in ax.get_title()
    assert [t.get_text() for t in fig.legends[0].get_texts()][:2] == ["rulebook default", "the fix"]


def test_best_pair_picture_of_integer_levers(tmp_path):
    """Integer lever values (a data frame's rows hold NumPy integers, its columns' values
    Python ones) land on their cells: every played cell written, the default framed."""
    from lotr_sim.reports.plots import best_pair_plot
    vals = {"a": [0, 1, 2], "b": [4, 5, 6]}
    cells = [{"set": {"a": a, "b": b}, "wins": 40 + 3 * a + b, "games": 100, "rate": (40 + 3 * a + b) / 100,
              "lo": 0.0, "hi": 1.0} for a in vals["a"] for b in vals["b"]]
    pair = {"levers": ["a", "b"], "change": "a=2,b=5", "fix": {"a": 2, "b": 5}, "defaults": {"a": 1, "b": 6},
            "values": vals, "cells": cells}
    fig = best_pair_plot(pair, path=tmp_path / "p.png")
    texts = sorted(t.get_text() for t in fig.axes[0].texts)
    assert texts == sorted(f"{c['wins']:.1f}%" for c in cells)
    assert (tmp_path / "p.png").stat().st_size > 0
