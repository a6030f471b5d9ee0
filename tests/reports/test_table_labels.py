"""The terminal table of `sweep`/`skill` at 80 columns: a point's label breaks between words,
never inside a parameter name or value ("retreat_trigger=modified" / "6" was printed when the
games column took room), and the table never outgrows the terminal."""
from __future__ import annotations

import itertools
import re

import pytest
from rich.console import Console

from framebuild import OUTCOMES, frame, row
from lotr_sim.reports import tables


def _render(renderable, width: int) -> str:
    con = Console(width=width, record=True, file=open("/dev/null", "w"))
    con.print(renderable)
    return con.export_text()


def _tokens_whole(text: str, labels: list[str]) -> None:
    """Every name and value of every label appears whole (on one line) in the text."""
    for label in labels:
        for tok in re.split(r"[=,]", label):
            assert re.search(rf"(^|[\s=,]){re.escape(tok)}([\s=,]|$)", text, re.M), (tok, label)


def _one_at_a_time(games_differ: bool):
    labels = ["retreat_trigger=modified6", "retreat_trigger=off", "banner_defence_bonus=0",
              "end_on_last_card=end_of_turn", "evil_banner_divisor=3"]
    rows = [row(0, "baseline", "baseline", {"x": 1}, 9604, (3200, 6200, 204))]
    for i, lb in enumerate(labels, start=1):
        n = 9604 + (1297 * i if games_differ else 0)
        rows.append(row(i, lb, lb.split("=")[0], {"x": 1}, n, (3000 + 50 * i, n - 3200 - 50 * i, 200),
                        delta=(400 + i, 300), precision_met=True if games_differ else None))
    return frame(rows), labels


@pytest.mark.parametrize("games_differ", [False, True])
@pytest.mark.parametrize("width", [80, 100])
def test_labels_break_between_words_at_80_columns(games_differ, width):
    df, labels = _one_at_a_time(games_differ)
    text = _render(tables.compact_rich(df, OUTCOMES, "sweep minas-tirith, seed 1", width), width)
    assert max(len(x) for x in text.splitlines()) <= width, text
    assert "…" not in text
    _tokens_whole(text, labels)
    if width == 100:     # room to spare: every label whole on its line
        for lb in labels:
            assert lb in text, (lb, text)


def test_grid_labels_break_between_settings():
    rows = [row(0, "baseline", "baseline", {}, 100, (45, 50, 5))]
    labels = []
    for i, (a, b, c) in enumerate(itertools.product([0, 1], [-0.2, 0.04], [0.0, 0.35]), start=1):
        lb = f"strength={a},edge={b},draw_rate={c}"
        labels.append(lb)
        rows.append(row(i, lb, "grid", {}, 100, (40 + i, 55 - i, 5), delta=(i, 0)))
    text = _render(tables.compact_rich(frame(rows), OUTCOMES, "sweep fake, seed 1", 80), 80)
    assert max(len(x) for x in text.splitlines()) <= 80, text
    _tokens_whole(text, labels)
    assert "draw_ra\n" not in text and not re.search(r"draw_ra\s*$", text, re.M)
