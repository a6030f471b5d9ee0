"""What `lotr-sim tune` says when it ends: which sides it tuned, how to play exactly those,
and a warning when the weights it wrote do worse than where it started (or than greedy)."""
from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from lotr_sim.cli.main import app

runner = CliRunner()

LINE = re.compile(r"as (\w+) v greedy: ([\d.]+)% .*\(greedy v greedy ([\d.]+)%(?:; start (\S+) ([\d.]+)%)?\)")


def _sides_lines(out: str) -> dict[str, tuple[float, float]]:
    return {m.group(1): (float(m.group(2)), float(m.group(3))) for m in LINE.finditer(out)}


@pytest.mark.slow
def test_short_tune_that_loses_to_greedy_says_so(tmp_path):
    """Two generations of 50 games tune Minas Tirith's Good into a player that wins less
    against greedy Evil than greedy Good does on the same games: the command says so for that
    side, and for no side that did better."""
    r = runner.invoke(app, ["tune", "-g", "minas-tirith", "-G", "2", "-n", "50", "--final-games", "300",
                            "-s", "1", "-q", "-o", str(tmp_path / "t")])
    assert r.exit_code == 0, r.output
    rates = _sides_lines(r.output)
    assert set(rates) == {"good", "evil"}, r.output
    worse = {s for s, (x, greedy) in rates.items() if x < greedy}
    assert worse, f"the scenario should give a side worse than greedy: {r.output}"
    for s in ("good", "evil"):
        said = re.search(rf"^lotr-sim: warning: as {s}, the tuned weights did worse than", r.stderr, re.M) is not None
        assert said == (s in worse), (s, r.output)
    assert "too short" in r.output or "more --generations" in r.output


@pytest.mark.slow
def test_short_tune_worse_than_its_start_says_so(tmp_path):
    """Tuning Minas Tirith's Evil on top of the shipped weights for two generations of 20 games
    (seed 4) ends below where it started: the command says so, naming the start player."""
    r = runner.invoke(app, ["tune", "-g", "minas-tirith", "-G", "2", "-n", "20", "--final-games", "200",
                            "--sides", "evil", "--start", "tuned", "-s", "4", "-q", "-o", str(tmp_path / "t")])
    assert r.exit_code == 0, r.output
    m = re.search(r"as evil v greedy: ([\d.]+)% .*; start tuned ([\d.]+)%\)", r.output)
    assert m, r.output
    assert float(m.group(1)) < float(m.group(2)), f"the scenario should end below its start: {r.output}"
    assert re.search(r"^lotr-sim: warning: as evil, the tuned weights did worse than its start \(tuned\)", r.stderr, re.M), r.output
    assert "warning: as good" not in r.output      # Good was not tuned: nothing to judge


@pytest.mark.slow
def test_tune_of_one_side_names_it_and_suggests_that_side(tmp_path):
    """`--sides evil` tunes Evil alone: the summary says so, and the command it suggests plays
    the file as Evil (not as Good)."""
    r = runner.invoke(app, ["tune", "-g", "minas-tirith", "-G", "1", "-n", "20", "--final-games", "60",
                            "--sides", "evil", "--start", "tuned", "-q", "-o", str(tmp_path / "t")])
    assert r.exit_code == 0, r.output
    assert re.search(r"tuned minas-tirith for evil\b", r.output), r.output
    play = [x for x in r.output.splitlines() if x.startswith("play it with")]
    assert len(play) == 1 and "--policy evil=tuned:" in play[0] and "good=" not in play[0], r.output
    assert re.search(r"good: .*\(not tuned: tuned's weights\)", r.output), r.output
    # the start player is measured too: its rate is on the evil line
    assert re.search(r"as evil v greedy: .*; start tuned [\d.]+%\)", r.output), r.output
    rj = runner.invoke(app, ["tune", "-g", "minas-tirith", "-G", "1", "-n", "20", "--final-games", "60",
                             "--sides", "evil", "--start", "tuned", "--json", "-o", str(tmp_path / "j")])
    assert rj.exit_code == 0, rj.output
    out = json.loads(rj.output[rj.output.index("{"):])
    assert out["tuned_sides"] == ["evil"] and out["start"] == "tuned"
    assert out["policy"] == [f"evil=tuned:{out['file']}"]
    assert "worse" in out and set(out["worse"]) <= {"evil"}


@pytest.mark.slow
def test_tune_of_the_search_suggests_both_seats():
    """The Search's sides share one tuned row (TS-2.3: Frodo and Sam play the same role): the
    file is played on both seats."""
    from lotr_sim.cli.tune import policy_args
    from lotr_sim.games.registry import get_game
    g = get_game("the-search")
    assert policy_args(g, g.policy_table.tuned_sides, "F") == ["frodo=tuned:F", "sam=tuned:F"]
    g = get_game("minas-tirith")
    assert policy_args(g, ("good", "evil"), "F") == ["good=tuned:F", "evil=tuned:F"]
