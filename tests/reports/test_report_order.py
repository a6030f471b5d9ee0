"""The sweep report answers first, in report.md and report.html alike: the verdict,
then the tornado chart and the AI-pairing heat map, then the compact "closest to parity"
table, and only then the win rate against each parameter and the full results table. No
piece of the former report is lost on the way."""
from __future__ import annotations

import re

import pytest

from framebuild import MANIFEST, frame, row
from lotr_sim.experiments.verdict import verdict
from lotr_sim.reports.build import build_report
from lotr_sim.reports.verdict_text import parity_rows
from sweepfolder import N, sweep_frame, write_sweep


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = build_report(write_sweep(tmp_path_factory.mktemp("rep") / "s"))
    return dict(md=out["md"].read_text(), html=out["html"].read_text(), verdict=out["verdict"], out=out)


def _md_sections(md: str) -> list[str]:
    return re.findall(r"^## (.+)$", md, flags=re.M)


def _html_sections(h: str) -> list[str]:
    import html
    return [html.unescape(t) for t in re.findall(r"<h2>(.*?)</h2>", h)]


def _md_plots(md: str) -> list[str]:
    return re.findall(r"!\[[^\]]*\]\(plots/([^)]+)\.png\)", md)


def _html_plots(h: str) -> list[str]:
    return re.findall(r"<img data-plot='([^']+)'", h)


def _before(text: str, *markers: str) -> None:
    """Each marker occurs, and each before the next."""
    pos = [text.find(m) for m in markers]
    assert all(p >= 0 for p in pos), dict(zip(markers, pos))
    assert pos == sorted(pos), dict(zip(markers, pos))


@pytest.mark.slow
def test_markdown_answers_first(report):
    md = report["md"]
    first_param_plot = next(m.start() for m in re.finditer(r"plots/winrate_", md))
    _before(md, "## Verdict", "plots/tornado.png", "plots/pairings.png", "## Closest to parity")
    assert md.find("## Closest to parity") < first_param_plot < md.find("## Results")
    assert md.find("plots/tornado.png") < first_param_plot
    # the full results table comes after every per-parameter plot, the particulars at the end
    last_param_plot = max(m.start() for m in re.finditer(r"plots/winrate_", md))
    assert last_param_plot < md.find("| point | games |")
    assert _md_sections(md)[-1] == "Sweep"


def test_html_answers_first(report):
    h = report["html"]
    plots = _html_plots(h)
    assert plots[:2] == ["tornado", "pairings"], plots
    assert all(p.startswith("winrate_") for p in plots[2:5]), plots
    _before(h, "<h2>Verdict</h2>", "data-plot='tornado'", "data-plot='pairings'", "<h2>Closest to parity</h2>",
            "data-plot='winrate_", "<h2>Results</h2>", "<th>point</th><th>games</th>", "data-plot='reasons'",
            "<h2>Sweep</h2>")


def test_markdown_and_html_in_the_same_order(report):
    md, h = report["md"], report["html"]
    assert _md_plots(md) == _html_plots(h)
    assert _md_sections(md) == _html_sections(h)
    assert len(_md_plots(md)) == len(report["out"]["plots"])


def test_parity_table_is_compact_one_row_per_parameter(report):
    """One row per swept parameter: the value whose Good rate is closest to 50% (found here
    from the frame, not from the verdict) with that rate and its Wilson interval."""
    md = report["md"]
    section = md[md.index("## Closest to parity"):]
    section = section[:section.index("\n## ")]
    lines = [ln for ln in section.splitlines() if ln.startswith("|")]
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    body = [[c.strip() for c in ln.strip("|").split("|")] for ln in lines[2:]]
    assert head[:3] == ["parameter", "closest value", "Good % [95% CI]"]
    df = sweep_frame()
    dims = ["strength", "bonus", "mode"]   # in sweep order: the frame's points (its dims keys are sorted)
    assert [b[0] for b in body] == dims
    base = df[df["point"] == 0].iloc[0]
    for b, d in zip(body, dims):
        cand = [(base, "baseline")] + [(r, r["label"]) for _, r in df[df["varied"] == d].iterrows()]
        best, _ = min(cand, key=lambda t: abs(t[0]["rate_good"] - 0.5))
        want = f"{100 * best['rate_good']:.1f} [{100 * best['lo_good']:.1f}, {100 * best['hi_good']:.1f}]"
        assert b[2] == want, (d, b, want)
    # strength 5 -> 45%, 7 -> 57.5%: parity crossed in between, linearly at 5 + 2 * 5 / 12.5
    strength = body[0]
    assert strength[1] == "5" and f"≈ {5 + 2 * 5 / 12.5:.2f} [" in strength[3]
    assert strength[4] == "none: overshoots"
    # the long parity sentences no longer sit in the verdict section
    verdict_md = md[:md.index("\n## ", md.index("## Verdict") + 1)]
    assert "Closest to parity" not in verdict_md and "closest swept value" not in verdict_md


def test_nothing_of_the_former_report_is_lost(report):
    """Every verdict line (sentence, baseline, players, pairings, levers, parity) and every
    particular of the sweep is still in both reports, as text or as a table row."""
    v = report["verdict"]
    for text in (report["md"], report["html"].replace("&#x27;", "'")):
        for ln in v["summary"]:
            assert ln in text or ln.replace("**", "") in text, ln
        assert v["levers_title"] in text
        for x in v["levers"]:
            assert x["label"] in text
        for p in v["parity"]:
            c = p["closest"]
            assert f"{100 * c['rate']:.1f} [{100 * c['lo']:.1f}, {100 * c['hi']:.1f}]" in text
        for key in ("package version", "seed", "games in total", "config hash", "machine", "started / finished",
                    "parity used by the verdict", "AI players (baseline)"):
            assert key in text, key
        assert MANIFEST["policies"]["baseline"]["good"] in text
        assert "RECONSTRUCTED default" in text                      # the game's note
        assert "common random numbers" in text


def test_levers_table_matches_the_verdict(report):
    md = report["md"]
    section = md[md.index("## Levers"):md.index("## Closest to parity")]
    rows_ = [[c.strip() for c in ln.strip("|").split("|")] for ln in section.splitlines()
             if ln.startswith("|")][2:]
    df = sweep_frame().set_index("label")
    assert [r[0] for r in rows_] == ["strength=7", "mode=tilted", "bonus=true"]    # |Δ| 12.5, 5, 2.5
    for label, cell in rows_:
        assert cell.startswith(f"{100 * df.loc[label, 'delta_good']:+.1f} ["), (label, cell)
    assert len(rows_) == 3


def test_every_picture_resolves(report):
    """Each picture in report.md is a file in plots/; each in report.html is embedded as
    exactly that file's bytes and links to it."""
    import base64
    folder = report["out"]["md"].parent
    files = {p.name: p.read_bytes() for p in (folder / "plots").glob("*.png")}
    md_names = [f"{n}.png" for n in _md_plots(report["md"])]
    assert md_names and set(md_names) <= set(files)
    found = re.findall(r"<a href='plots/([^']+)'><img data-plot='([^']+)' alt='[^']*' "
                       r"src='data:image/png;base64,([^']+)'></a>", report["html"])
    assert [f"{name}.png" for _, name, _ in found] == md_names
    for href, name, b64 in found:
        assert href == f"{name}.png" and base64.b64decode(b64) == files[href], href
    assert report["html"].count("<img") == len(found)


def test_every_html_table_scrolls_in_its_box(report):
    h = report["html"]
    assert h.count("<table") == 3                       # levers, parity, results (no seats here)
    assert h.count("<table") == h.count("<div class='wide'><table")


def test_pairings_only_run_opens_with_the_heat_map(tmp_path):
    """A skill-like run (pairings, no rule swept): the heat map follows the verdict; no
    tornado, no parity table."""
    rows = [row(0, "baseline", "baseline", {}, N, (1800, 2000, 200))]
    for i, (g, e, k) in enumerate([("greedy", "random", 3500), ("random", "greedy", 150)], start=1):
        rows.append(row(i, f"good={g},evil={e}", "pairings", {}, N, (k, N - k - 100, 100),
                        policies={"good": g, "evil": e}))
    out = build_report(write_sweep(tmp_path / "p", df=frame(rows)))
    md, h = out["md"].read_text(), out["html"].read_text()
    assert _md_plots(md)[0] == "pairings" and _html_plots(h)[0] == "pairings"
    _before(md, "## Verdict", "plots/pairings.png", "## Results")
    assert "tornado" not in md and "Closest to parity" not in md
    assert _md_sections(md) == _html_sections(h)


def test_skill_run_opens_with_the_ladder_and_the_heat_map(tmp_path):
    """A skill run (pairings with the search player, no rule swept): the skill ladder and the
    heat map follow the verdict, before the results table; the ladder climbs weak to strong."""
    from sweepfolder import SKILL_PLAYERS, skill_frame
    # as api.skill writes it: the players weak to strong are the sweep's pairings
    out = build_report(write_sweep(tmp_path / "k", df=skill_frame(), spec={"pairings": list(SKILL_PLAYERS)}))
    md, h = out["md"].read_text(), out["html"].read_text()
    assert _md_plots(md)[:2] == ["ladder", "pairings"] and _html_plots(h)[:2] == ["ladder", "pairings"]
    _before(md, "## Verdict", "plots/ladder.png", "plots/pairings.png", "## Results")
    assert _md_sections(md) == _html_sections(h)
    ladder = out["verdict"]["skill"]["ladder"]
    assert [x["player"] for x in ladder] == list(SKILL_PLAYERS)
    assert "Skill ladder" in md                                  # the verdict's sentence stays too


@pytest.mark.slow
def test_grid_sweep_opens_with_the_levers(tmp_path):
    """A grid draws no tornado: the levers' table (every grid point, largest change first)
    follows the verdict, then the parity table, then the per-parameter plots."""
    from sweepfolder import grid_frame
    out = build_report(write_sweep(tmp_path / "g", df=grid_frame()))
    md, h = out["md"].read_text(), out["html"].read_text()
    _before(md, "## Verdict", "## Levers", "## Closest to parity", "plots/winrate_", "## Results")
    assert "tornado" not in md and _md_sections(md) == _html_sections(h)
    levers = md[md.index("## Levers"):md.index("## Closest to parity")]
    assert levers.count("\n| leader_bonus=") == 8


def test_equal_target_gives_the_gap_column():
    df = sweep_frame()
    head, body = parity_rows(verdict(df, MANIFEST, "equal"))
    assert head[3] == "Good − Evil, percentage points [95% CI]"
    # bonus=true: Good 47.5%, Evil 47.5%: the closest value, no gap, parity within its interval
    bonus = body[[b[0] for b in body].index("bonus")]
    assert bonus[1] == "true" and bonus[3].startswith("+0.0 [") and bonus[-1] == "true"
    assert len(body) == 3


@pytest.mark.slow
def test_games_per_point_listed_in_numeric_order(tmp_path):
    """With points of different lengths (the paired allocation), the particulars list the
    games per point as numbers in increasing order, not as text (where 10,700 < 1,300)."""
    df = sweep_frame()
    df.loc[1, "games"], df.loc[2, "games"], df.loc[3, "games"] = 10700, 1300, 400
    md = build_report(write_sweep(tmp_path / "s", df=df))["md"].read_text()
    line = [x for x in md.splitlines() if "games per point" in x][0]
    assert "400, 1,300, 4,000, 10,700" in line, line
