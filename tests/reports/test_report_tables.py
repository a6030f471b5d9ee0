"""The values in the report tables: each outcome's column shows that outcome's own rate and
interval, Δ its own paired change (a frame where every rate differs), precision misses are
marked, and the terminal summary fits 80 columns without "…"."""
import re

import pytest
from rich.console import Console

from framebuild import OUTCOMES, REASONS, frame, row
from lotr_sim.reports import tables


def _df():
    # good 11.1%, evil 22.2%, draw 66.7% at the baseline; other rates at point 1; all differ
    return frame([
        row(0, "baseline", "baseline", {"x": 1}, 1000, (111, 222, 667), reasons=(0.123, 0.345, 0.532)),
        row(1, "x=2", "x", {"x": 2}, 1000, (432, 321, 247), delta=(330, 9), reasons=(0.05, 0.15, 0.8)),
        row(2, "end_on_last_card=end_of_turn", "end_on_last_card", {"x": 1}, 1000, (100, 500, 400),
            delta=(0, 11)),
    ])


def _cells(md: str) -> tuple[list[str], list[list[str]]]:
    lines = [ln for ln in md.splitlines() if ln.startswith("|")]
    split = [[c.strip() for c in ln.strip("|").split("|")] for ln in lines]
    return split[0], [r for r in split[2:]]


def test_markdown_outcome_columns_show_their_own_rates():
    df = _df()
    head, body = _cells(tables.results_markdown(df, OUTCOMES, REASONS))
    col = {h: i for i, h in enumerate(head)}
    for r, (_, src) in zip(body, df.iterrows()):
        for o in OUTCOMES:
            cell = r[col[f"{o.capitalize() if o != 'draw' else o} % [95% CI]"]]
            want = (f"{100 * src[f'rate_{o}']:.1f} [{100 * src[f'lo_{o}']:.1f}, "
                    f"{100 * src[f'hi_{o}']:.1f}]")
            assert cell == want, (o, cell, want)
        for reason in REASONS:
            assert r[col[f"{reason} %"]] == f"{100 * src[f'reason_{reason}']:.1f}"
    assert body[0][col["Good % [95% CI]"]].startswith("11.1 ")
    assert body[0][col["Evil % [95% CI]"]].startswith("22.2 ")
    assert body[0][col["draw % [95% CI]"]].startswith("66.7 ")
    dcol = col["ΔGood, percentage points [95% CI]"]
    assert body[0][dcol] == "baseline"
    assert body[1][dcol].startswith("+32.10 [")      # (330 - 9) / 1000
    assert body[2][dcol].startswith("-1.10 [")
    assert "pts" not in " ".join(head)


def test_html_cells_match_markdown():
    df = _df()
    md_head, md_body = _cells(tables.results_markdown(df, OUTCOMES, REASONS))
    h = tables.results_html(df, OUTCOMES, REASONS)
    tds = re.findall(r"<td>(.*?)</td>", h)
    assert tds == [c.replace("&", "&amp;") for r in md_body for c in r]


def test_precision_misses_are_marked():
    df = frame([row(0, "baseline", "baseline", {"x": 1}, 100, (45, 50, 5), precision_met=False),
                row(1, "x=2", "x", {"x": 2}, 2000, (1000, 900, 100), precision_met=True)])
    md = tables.results_markdown(df, OUTCOMES, REASONS)
    _, body = _cells(md)
    assert body[0][1] == "100*" and body[1][1] == "2000"
    assert "stopped at --max-games" in md
    out = _render(tables.compact_rich(df, OUTCOMES, "t"))
    assert "100*" in out


def _render(renderable, width=80) -> str:
    con = Console(width=width, record=True, file=open("/dev/null", "w"))
    con.print(renderable)
    return con.export_text()


def test_console_summary_fits_80_columns_without_ellipsis():
    df = _df()
    from lotr_sim.experiments.verdict import verdict
    from framebuild import MANIFEST
    v = verdict(df, MANIFEST)
    text = "".join(_render(x) for x in tables.console_summary(df, OUTCOMES, ["good", "evil"], v, "sweep fake"))
    lines = text.splitlines()
    assert max(len(ln) for ln in lines) <= 80
    assert "…" not in text
    assert "end_on_last_card=end_of_turn" in text          # the longest label whole, on one line
    assert "+32.1 [" in text and "percentage" in text and "pts" not in text
    # each outcome in its own column: x=2 has Good 43.2%, Evil 32.1%, draw 24.7%
    # (draws are 24.7-66.7% here: each interval goes under its rate, draw's too)
    i2 = next(i for i, ln in enumerate(lines) if ln.startswith("x=2 "))
    row2 = lines[i2].split()
    assert row2[1:4] == ["43.2", "32.1", "24.7"], row2
    assert lines[i2 + 1].split() == ["[40.2,", "46.3]", "[22.1,", "27.5]"], lines[i2 + 1]
    assert "Evil is favoured by" in text


@pytest.mark.parametrize("width", [80, 100])
def test_pairings_matrix_cells(width):
    rows = [row(0, "baseline", "baseline", {"x": 1}, 1000, (450, 550, 0))]
    for i, (g, e, k) in enumerate([("greedy", "random", 960), ("random", "greedy", 35),
                                   ("random", "random", 450)], start=1):
        rows.append(row(i, f"good={g},evil={e}", "pairings", {"x": 1}, 1000, (k, 1000 - k, 0),
                        policies={"good": g, "evil": e}))
    out = _render(tables.pairings_rich(frame(rows), OUTCOMES, ["good", "evil"]), width)
    lines = {ln.split()[0]: ln.split()[1:] for ln in out.splitlines() if ln.split() and ln.split()[0] in
             ("greedy", "random")}
    # rows and columns weak to strong (as the heat map): random, then greedy
    assert lines["greedy"] == ["96.0", "45.0"] and lines["random"] == ["45.0", "3.5"]
    assert out.index("random") < out.index("greedy")


def test_pairings_matrix_shows_draws_when_not_negligible():
    """The Search's pairing table gave Frodo's rate only, hiding 57% draws. With
    draws above 0.5% anywhere, each cell gives the draw rate and its 95% interval too."""
    rows = [row(0, "baseline", "baseline", {"x": 1}, 1000, (200, 230, 570))]
    for i, (g, e, w) in enumerate([("greedy", "random", (600, 100, 300)), ("random", "greedy", (35, 960, 5)),
                                   ("random", "random", (430, 430, 140))], start=1):
        rows.append(row(i, f"good={g},evil={e}", "pairings", {"x": 1}, 1000, w, policies={"good": g, "evil": e}))
    df = frame(rows)
    assert tables.draws_shown(df, OUTCOMES)
    out = _render(tables.pairings_rich(df, OUTCOMES, ["good", "evil"]), 100)
    assert "draw 57.0 [53.9, 60.0]" in out and "draw 30.0 [27.2, 32.9]" in out and "draw 0.5 [" in out
    assert "draws % [95% CI]" in out
    from framebuild import MANIFEST
    from lotr_sim.experiments.verdict import verdict
    text = verdict(df, MANIFEST)["pairings"]["text"]
    assert "Draws: 0.5%–57.0% across the pairings (most with Good greedy v Evil greedy: 57.0% [53.9, 60.0])" \
        in text, text


def test_negligible_draws_are_not_shown():
    rows = [row(0, "baseline", "baseline", {"x": 1}, 1000, (450, 546, 4)),
            row(1, "good=random,evil=greedy", "pairings", {"x": 1}, 1000, (35, 960, 5),
                policies={"good": "random", "evil": "greedy"})]
    df = frame(rows)
    assert not tables.draws_shown(df, OUTCOMES)
    out = _render(tables.pairings_rich(df, OUTCOMES, ["good", "evil"]), 100)
    assert "draw" not in out
    assert not tables.draws_shown(df, ["good", "evil"])      # a game without draws (LOTR Risk)
