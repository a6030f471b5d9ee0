"""``lotr-sim replay`` / ``api.replay_html`` without a browser: a trace of each game becomes a
page whose steps follow the trace's own snapshots, whose last step shows the game's end and
points, and bad trace files are one error line (tests/reports/test_replay_browser.py opens
the pages in Chromium)."""
from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from lotr_sim import api
from lotr_sim.replay import TraceError, read_trace, walker_for
from lotr_sim.replay.page import page_data
from tracefiles import GAMES, write_trace


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    d = tmp_path_factory.mktemp("traces")
    return {g: (d / f"{g}.jsonl", write_trace(g, d / f"{g}.jsonl")) for g in GAMES}


def _data(html: str) -> dict:
    m = re.search(r"<script id='data' type='application/json'>(.*?)</script>", html, flags=re.S)
    assert m, "no step data in the page"
    return json.loads(m.group(1).replace("<\\/", "</"))


def _replayed(data: dict, n: int) -> dict:
    """The spots the page's script shows at step ``n``: the base, then each step's changes."""
    spots = dict(data["base_spots"])
    for s in data["steps"][: n + 1]:
        spots.update(s.get("s", {}))
    return spots


@pytest.mark.parametrize("game", GAMES)
def test_replay_page_of_each_game(traces, tmp_path, game):
    path, events = traces[game]
    out = tmp_path / "replay.html"
    r = api.replay_html(path, out)
    html = out.read_text()
    assert r["bytes"] == len(html.encode()) and r["steps"] > 50
    assert "<svg" in html and "http://" not in html.replace("http://www.w3.org/2000/svg", "")
    assert "<script src" not in html and "<link" not in html      # self-contained
    data = _data(html)
    assert len(data["steps"]) == r["steps"]
    end = events[-1]
    final = data["scores"][data["steps"][-1]["sc"]]
    assert final.startswith("Final:") and all(f"{v}" in final for v in end["points"].values()), final
    assert data["steps"][0]["sc"] != data["steps"][-1]["sc"]
    # every decision is a step that says how many options there were
    n_dec = sum(1 for e in events if e["event"] == "decision")
    lines = [s["l"] for s in data["steps"]]
    assert sum(1 for x in lines if re.search(r"decides \(.*\): option \d+ of \d+", x)) == n_dec
    # the last step's board is the position the walker reaches; its labels are not all empty
    spots = _replayed(data, len(data["steps"]) - 1)
    assert any(v[1] for v in spots.values())


def _snapshot_units(game: str, e: dict) -> dict[str, str] | None:
    """A snapshot's unit count per territory, as the page labels them (for the check below)."""
    from lotr_sim.replay import slug
    if game == "minas-tirith" and e["event"] in ("setup", "turn_start"):
        return {slug(t): (str(sum(d.get("good", {}).values()) or ""), str(sum(d.get("evil", {}).values()) or ""))
                for t, d in e["units"].items()}
    if game == "lotr-risk" and e["event"] == "turn_start":
        return {slug(t): (str(n or ""), None) for t, n in e["battalions"].items()}
    return None


@pytest.mark.parametrize("game", ["minas-tirith", "lotr-risk"])
def test_replayed_board_agrees_with_every_snapshot(traces, tmp_path, game):
    """Walking the events from one snapshot to the next (the page's board just before a
    ``turn_start``) gives that snapshot's counts: the page's diffs and the game's replay agree."""
    path, events = traces[game]
    out = tmp_path / "replay.html"
    api.replay_html(path, out)
    data = _data(out.read_text())
    steps = [e for e in events[1:]]
    checked = 0
    for k, e in enumerate(steps):
        want = _snapshot_units(game, e)
        if want is None or k == 0:
            continue
        spots = _replayed(data, k - 1)      # the board before this snapshot's step
        for sid, (a, b) in want.items():
            assert spots[sid][1].rstrip("\u2605") == a, (e["turn"], sid, spots[sid], a)
            if b is not None:
                assert spots[sid][2].rstrip("\u2605") == b, (e["turn"], sid, spots[sid], b)
        checked += 1
    assert checked >= 5


def test_minas_tirith_points_follow_the_rules(traces):
    """The running points (MT-10.3, the engine's points_nb in Python) reach the game's own."""
    path, events = traces["minas-tirith"]
    w = walker_for(events)
    for e in events[1:]:
        w.apply(e)
    assert w.points() == events[-1]["points"]


def test_page_diffs_rebuild_every_step():
    from lotr_sim.replay import Step
    steps = [Step("h", f"l{i}", "x", i, {"a": ("red", str(i), "", ""), "b": ("blue", "", "", "")},
                  {"m": (i, i) if i % 2 else None}) for i in range(6)]
    d = page_data(steps)
    assert "b" not in d["steps"][3].get("s", {})       # unchanged spots are not repeated
    for n in range(6):
        assert _replayed(d, n)["a"] == ["red", str(n), "", ""]


@pytest.mark.parametrize("edit, message", [
    (lambda ev: ev[0].update(trace_version=4), "trace version 4"),
    (lambda ev: ev.pop(), "no game_end"),
    (lambda ev: ev.pop(0), "does not start with a header"),
])
def test_bad_traces_are_one_error(traces, tmp_path, edit, message):
    _, events = traces["the-search"]
    ev = [dict(e) for e in events]
    edit(ev)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("".join(json.dumps(e) + "\n" for e in ev))
    with pytest.raises(TraceError, match=message):
        read_trace(bad)


def test_cli_errors_are_one_line(traces, tmp_path):
    path, _ = traces["the-search"]
    cut = tmp_path / "cut.jsonl"
    cut.write_text(path.read_text()[:3000])
    edited = tmp_path / "edited.jsonl"
    ev = [json.loads(x) for x in path.read_text().splitlines()]
    for e in ev:
        if e["event"] == "place":
            del e["cell"]
    edited.write_text("".join(json.dumps(e) + "\n" for e in ev))
    for args, want in (([str(cut)], "not JSON"), ([str(tmp_path / "none.jsonl")], "not found"),
                       ([str(edited)], "do not follow each other"), ([str(path), "--index", "7"], "no game 7")):
        r = subprocess.run([sys.executable, "-m", "lotr_sim.cli.main", "replay", *args, "--out",
                            str(tmp_path / "x.html")], capture_output=True, text=True)
        assert r.returncode != 0
        assert r.stderr.strip().count("\n") == 0 and want in r.stderr, r.stderr
        assert r.stderr.startswith("lotr-sim: error:")


def test_a_trace_of_several_games(tmp_path):
    """``run --trace`` writes many games in one file; ``--index`` picks one."""
    a = write_trace("the-search", tmp_path / "a.jsonl", index=3)
    b = write_trace("the-search", tmp_path / "b.jsonl", index=4)
    both = tmp_path / "both.jsonl"
    both.write_text((tmp_path / "a.jsonl").read_text() + (tmp_path / "b.jsonl").read_text())
    assert read_trace(both) == a
    assert read_trace(both, 4) == b
