"""A finished sweep extended with ``--resume DIR`` and another stopping rule (more games, or
a precision) keeps the games it has, plays only the missing ones (game i on stream i) and
ends with exactly the rows of a fresh run with that rule; any other changed option is
refused in one line naming it."""
import json

import pandas as pd
import pytest
from typer.testing import CliRunner

from lotr_sim import api
from lotr_sim.cli.main import app
from lotr_sim.experiments.sweep import missing

runner = CliRunner()
PARAMS = ["strength=3,7", "mode=fair,tilted"]


def _count_games(monkeypatch) -> list:
    """Record the number of games of every simulate call of the fake game."""
    import fakegame
    played: list = []
    sim = fakegame.FakeGame.simulate

    def counting(self, compiled, policies, seed, first, n, *a, **k):
        played.append(n)
        return sim(self, compiled, policies, seed, first, n, *a, **k)
    monkeypatch.setattr(fakegame.FakeGame, "simulate", counting)
    return played


def test_missing_parts_of_a_range():
    assert missing(0, 600, [(0, 300)]) == [(300, 300)]
    assert missing(0, 600, [(0, 250), (250, 250)]) == [(500, 100)]
    assert missing(200, 200, [(0, 250)]) == [(250, 150)]
    assert missing(0, 500, [(100, 100), (300, 100)]) == [(0, 100), (200, 100), (400, 100)]
    assert missing(0, 300, [(0, 300)]) == []
    assert missing(0, 300, []) == [(0, 300)]


@pytest.mark.parametrize("grid", [False, True])
def test_more_games_equal_a_fresh_run_and_replay_none(fake, tmp_path, monkeypatch, grid):
    """-n 300, then --resume -n 700 (chunks of 250: the old chunk file 0..299 does not end
    on a chunk boundary): bit for bit the rows of a fresh -n 700 run, with 400 new games a
    point played and none of the first 300 again."""
    kw = dict(params=PARAMS, grid=grid, chunk=250, seed=4, report=False)
    ref = api.sweep(fake, games=700, out=tmp_path / "ref", **kw)
    out = tmp_path / "ext"
    first = api.sweep(fake, games=300, out=out, **kw)
    assert (first.results["games"] == 300).all()
    played = _count_games(monkeypatch)
    res = api.sweep(fake, resume=out, games=700, report=False)
    assert sum(played) == 400 * len(ref.results)
    pd.testing.assert_frame_equal(res.results, ref.results)
    pd.testing.assert_frame_equal(pd.read_parquet(out / "results.parquet"), ref.results)
    m = json.loads((out / "manifest.json").read_text())
    assert m["spec"]["games"] == 700 and m["spec_hash"] == ref.manifest["spec_hash"]
    # resumed again with the same rule: nothing to play
    played.clear()
    again = api.sweep(fake, resume=out, report=False)
    assert played == []
    pd.testing.assert_frame_equal(again.results, ref.results)


def test_a_precision_extends_a_fixed_sweep_as_a_fresh_precision_run(fake, tmp_path, monkeypatch):
    """-n 300, then --resume --precision 0.02: the batches are a function of the games
    played, so the result is a fresh --precision 0.02 run's, and the first 300 games of
    every point are not played again."""
    kw = dict(params=["strength=0,9"], chunk=300, seed=3, report=False)
    ref = api.sweep(fake, precision=0.02, out=tmp_path / "ref", **kw)
    assert ref.results["games"].nunique() > 1 and (ref.results["games"] > 300).all()
    out = tmp_path / "ext"
    api.sweep(fake, games=300, out=out, **kw)
    played = _count_games(monkeypatch)
    res = api.sweep(fake, resume=out, precision=0.02, report=False)
    pd.testing.assert_frame_equal(res.results, ref.results)
    assert sum(played) == int(ref.results["games"].sum()) - 300 * len(ref.results)


def test_cli_resume_with_more_games(fake, tmp_path):
    """The CLI: `sweep --resume DIR -n N` extends the sweep (it used to be refused as
    another configuration), with no other option repeated."""
    out = tmp_path / "s"
    r = runner.invoke(app, ["sweep", "-g", "fake", "-q", "-p", "strength=3,7", "-n", "200", "-s", "5",
                            "-o", str(out)])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["sweep", "-q", "--resume", str(out), "-n", "500"])
    assert r.exit_code == 0, r.output
    assert "900 games in" in r.stdout            # 3 points x 300 new games
    df = pd.read_parquet(out / "results.parquet")
    assert (df["games"] == 500).all()


@pytest.mark.parametrize("args,named", [
    (["-p", "strength=3,8"], "the swept parameters (--param): strength=3,7 there, strength=3,8 now"),
    (["-s", "6"], "--seed: 5 there, 6 now"),
    (["--set", "mode=tilted"], "the rules (--set): none there, mode=tilted now"),
    (["--good", "random"], "the players: "),
])
def test_resume_with_another_option_is_refused_naming_it(fake, tmp_path, args, named):
    out = tmp_path / "s"
    r = runner.invoke(app, ["sweep", "-g", "fake", "-q", "-p", "strength=3,7", "-n", "200", "-s", "5",
                            "-o", str(out)])
    assert r.exit_code == 0, r.output
    r = runner.invoke(app, ["sweep", "-q", "--resume", str(out), "-n", "400"] + args)
    err = r.stderr.strip().splitlines()
    assert r.exit_code == 2 and len(err) == 1, r.output
    assert "another configuration" in err[0] and named in err[0], err[0]
    assert (pd.read_parquet(out / "results.parquet")["games"] == 200).all()     # untouched
