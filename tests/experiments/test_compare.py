"""`lotr-sim compare` (paired SPRT) and `lotr-sim balance` (bisection on paired runs)."""
import json
import math

import pytest
from typer.testing import CliRunner

from lotr_sim import api
from lotr_sim.cli.main import app

runner = CliRunner()


def test_compare_decides_and_pairing_needs_fewer_games(fake):
    """The benchmark of issue 4: the same SPRT (same hypotheses on the win-rate difference,
    same alpha/beta) reaches the same decision with far fewer games on paired games."""
    # A: strength 6 (Good 55%), B: strength 5 (Good 50%): A favours Good by 5 points.
    used_p = used_u = 0
    for seed in (1, 2, 3):
        kw = dict(a={"strength": 6}, b={"strength": 5}, seed=seed, max_games=100_000, delta=0.01)
        paired = api.compare(fake, **kw)
        unpaired = api.compare(fake, paired=False, **kw)
        assert paired["decision"] == "H1" and paired["favours"] == "A"
        assert unpaired["decision"] == "H1"
        lo, hi = paired["delta_ci95"]
        assert lo > 0
        # with common random numbers every discordant game favours A
        assert paired["b_only"] == 0 and unpaired["b_only"] > 0
        used_p += paired["games"]
        used_u += unpaired["games"]
    assert used_p * 3 < used_u, (used_p, used_u)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_compare_picks_the_right_side_both_ways(fake, seed):
    r = api.compare(fake, {"edge": -0.03}, {"edge": 0.0}, seed=seed, alpha=0.01, beta=0.01)
    assert r["favours"] == "B" and r["delta"] < 0 and r["delta_ci95"][1] < 0
    assert abs(r["delta"] + 0.03) < 4 * math.sqrt(0.03 / r["games"])


def test_compare_policy_variants_and_cli(tmp_path):
    res = runner.invoke(app, ["compare", "-g", "fake", "--set", "good=greedy", "--vs", "good=random", "-q"])
    assert res.exit_code == 0, res.output
    assert "A (good=greedy) favours good" in res.stdout and "95% interval" in res.stdout
    js = runner.invoke(app, ["compare", "-g", "fake", "--set", "bonus=true", "--vs", "bonus=false", "--json",
                             "--p0", "0", "--p1", "0.05"])
    r = json.loads(js.stdout)
    assert r["favours"] == "A" and r["sprt"]["p0"] == 0 and r["games"] > 0


@pytest.mark.parametrize("args,msg", [
    (["--set", "strength=5", "--vs", "strength=5"], "the same configuration"),
    (["--set", "strength=5"], "--vs"),
    (["--set", "strenth=5", "--vs", "strength=4"], "did you mean 'strength'"),
    (["--set", "strength=5", "--vs", "strength=4", "--p0", "0.06", "--p1", "0.04"], "p0 < p1"),
    (["--set", "strength=5", "--vs", "strength=4", "--delta", "0.1", "--p0", "0.4"], "not both"),
])
def test_compare_bad_input(args, msg):
    r = runner.invoke(app, ["compare", "-g", "fake", "-q"] + args)
    assert r.exit_code == 2 and msg in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_balance_int_brackets_the_crossing(fake):
    # P(Good) = 0.25 + 0.05*strength + edge (greedy vs greedy): with edge=0.02 the 50% line
    # is crossed at strength 4.6 -> bracket [4, 5].
    r = api.balance(fake, "strength", "0:10", sets={"edge": 0.02}, games=6000, seed=2)
    assert r["bracketed"]
    a, b = r["bracket"]
    assert (a["value"], b["value"]) == (4, 5)
    assert a["rate"] < 0.5 < b["rate"]
    assert len(r["evaluated"]) <= 2 + 4
    assert r["interval"][0] <= 4.6 <= r["interval"][1]


def test_balance_float_interval_covers_truth(fake):
    # strength=4: P(Good) = 0.45 + edge -> crosses 0.5 at edge = 0.05.
    r = api.balance(fake, "edge", "-0.2:0.2", sets={"strength": 4}, games=8000, seed=4, tol=0.01)
    assert r["bracketed"] and abs(r["estimate"] - 0.05) < 0.03
    assert r["interval"][0] <= 0.05 <= r["interval"][1]


def test_balance_cli_and_bad_input():
    r = runner.invoke(app, ["balance", "-g", "fake", "-p", "strength", "-r", "0:10", "-n", "2000", "-q"])
    assert r.exit_code == 0, r.output
    assert "crosses 0.5 between strength=" in r.stdout
    nb = runner.invoke(app, ["balance", "-g", "fake", "-p", "strength", "-r", "0:2", "-n", "1000", "-q"])
    assert nb.exit_code == 0 and "stays below" in nb.stdout
    for args, msg in [(["-p", "strength", "-r", "6:2"], "empty or inverted"),
                      (["-p", "strength", "-r", "3:3"], "empty or inverted"),
                      (["-p", "mode", "-r", "0:1"], "numeric parameter"),
                      (["-p", "strenght", "-r", "0:1"], "did you mean 'strength'"),
                      (["-p", "strength", "-r", "0:12"], "outside the allowed")]:
        e = runner.invoke(app, ["balance", "-g", "fake", "-q"] + args)
        assert e.exit_code == 2 and msg in e.stderr and len(e.stderr.strip().splitlines()) == 1, (args, e.stderr)
