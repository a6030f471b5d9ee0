"""A fourth game needs its own package and one registry line, nothing copied: the
fake game (``fakegame.py``, registered by this folder's conftest) goes through every
game command of the CLI in-process. A command that needs something the game lacks (weights
to tune) says so in one error line; every other command answers."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from lotr_sim.cli.main import COMMANDS, app

runner = CliRunner()

# Commands that are not about one registered game (analyses of one game's own rules, combat).
# replay draws a trace with its game's own board picture (lotr_sim/games/<game>/picture.py): a game
# without one is refused by it, as the fake game is here
NOT_GAME_COMMANDS = {"battle", "bombard", "fellowship", "tiles", "replay"}


def _run(*args: str):
    return runner.invoke(app, list(args))


def _cases(tmp) -> dict[str, list[list[str]]]:
    sweep = str(tmp / "sweep")
    return {
        "run": [["run", "-g", "fake", "-n", "200", "--json"]],
        "play": [["play", "-g", "fake", "--policy", "good=search-fast"]],
        "params": [["params", "-g", "fake"]],
        "compare": [["compare", "-g", "fake", "--set", "edge=0.2", "--vs", "edge=0.0", "--max-games", "400", "-q"]],
        "sweep": [["sweep", "-g", "fake", "--param", "strength=2,8", "-n", "200", "-o", sweep, "-q"]],
        "report": [["report", sweep]],
        "balance": [["balance", "-g", "fake", "--param", "edge", "--range", "-0.2:0.2", "-n", "300"]],
        "skill": [["skill", "-g", "fake", "-n", "20", "-o", str(tmp / "skill"), "-q"]],
        "bench": [["bench", "-g", "fake", "-n", "100"], ["bench", "search", "-g", "fake", "-n", "5", "-L", "search-fast"]],
        "tune": [["tune", "-g", "fake", "-G", "1", "-n", "10"]],
        "learn": [["learn", "-g", "fake", "-n", "2"]],
        "fix": [["fix", "-g", "fake", "--param", "bonus", "--param", "mode", "-n", "200", "--budget", "2000",
                 "-o", str(tmp / "fix"), "-q"]],
    }


def test_every_game_command_is_covered():
    """A new command must be added to this test (or to NOT_GAME_COMMANDS)."""
    names = {n for n, _ in COMMANDS}
    assert names - NOT_GAME_COMMANDS == set(_cases(Path("/x")))


@pytest.mark.slow
def test_the_fake_game_goes_through_every_game_command(tmp_path):
    outputs = {}
    for cmd, calls in _cases(tmp_path).items():
        for args in calls:
            r = _run(*args)
            outputs[" ".join(args)] = r
            if cmd in ("tune", "learn"):
                # the fake game has no weight table: one error line, not a traceback
                assert r.exit_code != 0, r.output
                lines = [ln for ln in r.output.splitlines() if ln.strip()]
                want = "no tunable heuristic weights" if cmd == "tune" else "no learned player"
                assert len(lines) == 1 and want in lines[0], r.output
                continue
            assert r.exit_code == 0, (args, r.output)
            assert "Traceback" not in r.output
    run = json.loads(outputs["run -g fake -n 200 --json"].output)
    assert run["games"] == 200 and sum(run["wins"].values()) == 200
    assert "strength" in outputs["params -g fake"].output
    assert (tmp_path / "sweep" / "report.html").is_file() and (tmp_path / "skill" / "report.html").is_file()
    assert "search-fast" in outputs["bench search -g fake -n 5 -L search-fast"].output


@pytest.mark.parametrize("bad,why", [(["run", "-g", "fake", "--set", "strength=11"], "strength"),
                                     (["run", "-g", "fake", "--policy", "good=nobody"], "nobody")])
def test_bad_input_on_the_fourth_game_is_one_line(bad, why):
    r = _run(*bad)
    assert r.exit_code != 0 and why in r.output and "Traceback" not in r.output
