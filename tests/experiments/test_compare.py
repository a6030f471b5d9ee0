"""`lotr-sim compare` (paired SPRT) and `lotr-sim balance` (bisection on paired runs)."""
import json
import math
import re

import pytest
from typer.testing import CliRunner

from lotr_sim import api
from lotr_sim.cli.main import app

runner = CliRunner()


def test_compare_decides_and_pairing_needs_fewer_games(fake):
    """The sequential test against a fixed-count one: the same question (a change of at least
    delta either way?), same alpha/beta, reaches the same verdict with far fewer games on
    paired games."""
    # A: strength 6 (Good 55%), B: strength 5 (Good 50%): A raises Good's win rate by 5 points.
    used_p = used_u = 0
    for seed in (1, 2, 3):
        kw = dict(a={"strength": 6}, b={"strength": 5}, seed=seed, max_games=100_000, delta=0.02)
        paired = api.compare(fake, **kw)
        unpaired = api.compare(fake, paired=False, **kw)
        assert paired["decision"] == "raises" and paired["favours"] == "A" and paired["changed"] is True
        assert unpaired["decision"] == "raises"
        lo, hi = paired["delta_ci95"]
        assert lo > 0 and hi >= 0.02
        # with common random numbers every discordant game favours A
        assert paired["b_only"] == 0 and unpaired["b_only"] > 0
        used_p += paired["games"]
        used_u += unpaired["games"]
    assert used_p * 3 < used_u, (used_p, used_u)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_compare_picks_the_right_side_both_ways(fake, seed):
    r = api.compare(fake, {"edge": -0.03}, {"edge": 0.0}, seed=seed, alpha=0.01, beta=0.01)
    assert r["decision"] == "lowers" and r["favours"] == "B" and r["delta"] < 0 and r["delta_ci95"][1] < 0
    assert abs(r["delta"] + 0.03) < 4 * math.sqrt(0.03 / r["games"])
    assert "lowers good's win rate" in r["verdict"].lower()


@pytest.mark.parametrize("paired", [True, False])
def test_compare_no_effect_says_no_change(fake, paired):
    """with no effect the answer is "no change as large as delta" (the old SPRT
    could only say that one variant favours Good). Fails on the old code."""
    for seed in (1, 2, 3, 4):
        r = api.compare(fake, {"edge": 0.0005}, {"edge": 0.0}, seed=seed, paired=paired)
        assert r["decision"] == "no_change" and r["favours"] is None and r["changed"] is False, r["verdict"]
        lo, hi = r["delta_ci95"]
        assert -0.02 < lo <= hi < 0.02
        assert r["verdict"].startswith("no change as large as 2 percentage points")


def test_compare_json_describes_the_test(fake):
    r = api.compare(fake, {"edge": 0.05}, {"edge": 0.0}, seed=5, delta=0.03, alpha=0.1, beta=0.02, min_games=50)
    t = r["test"]
    assert "GSPRT" in t["test"] and t["delta"] == 0.03 and t["alpha"] == 0.1 and t["beta"] == 0.02
    assert t["upper"] == pytest.approx(math.log(0.98 / 0.05)) and t["lower"] == pytest.approx(math.log(0.02 / 0.95))
    assert t["llr_raise"] >= t["upper"] and r["decision"] == "raises" and r["games"] >= 50
    assert r["rate_a"] - r["rate_b"] == pytest.approx(r["delta"])


def test_compare_undecided_reports_only_the_interval(fake):
    # a change of exactly delta/2 with few games allowed: no verdict, the interval only
    r = api.compare(fake, {"edge": 0.01}, {"edge": 0.0}, seed=1, paired=False, max_games=3000)
    assert r["decision"] is None and r["favours"] is None and r["changed"] is None and r["games"] == 3000
    assert r["verdict"] == "undecided within 3000 games (the interval below is the answer)"


def test_compare_policy_variants_and_cli(tmp_path):
    res = runner.invoke(app, ["compare", "-g", "fake", "--set", "good=greedy", "--vs", "good=random", "-q"])
    assert res.exit_code == 0, res.output
    assert "A (good=greedy) raises Good's win rate" in res.stdout and "or more" not in res.stdout
    assert "95% interval" in res.stdout
    js = runner.invoke(app, ["compare", "-g", "fake", "--set", "bonus=true", "--vs", "bonus=false", "--json",
                             "--delta", "0.05"])
    r = json.loads(js.stdout)
    assert r["favours"] == "A" and r["test"]["delta"] == 0.05 and r["games"] > 0


def _cli_interval(out: str) -> tuple[float, float, float]:
    m = re.search(r"A - B: ([+-][0-9.]+) percentage points, 95% interval \[([+-][0-9.]+), ([+-][0-9.]+)\]", out)
    assert m, out
    return tuple(float(g) / 100 for g in m.groups())


@pytest.mark.parametrize("a,b,extra", [
    ("edge=0.02", "edge=0", []), ("edge=0", "edge=0.02", []), ("edge=0.01", "edge=0", ["--unpaired"]),
    ("edge=0.001", "edge=0", ["--unpaired"]), ("edge=-0.01", "edge=0", ["--max-games", "2000", "--unpaired"]),
    ("strength=6", "strength=5", ["--delta", "0.1"]), ("edge=0.03", "edge=0", ["--seed", "9", "--alpha", "0.2"]),
])
def test_cli_headline_agrees_with_the_printed_interval(a, b, extra):
    """The printed headline never contradicts the printed interval under it."""
    r = runner.invoke(app, ["compare", "-g", "fake", "-q", "--set", a, "--vs", b] + extra)
    assert r.exit_code == 0, r.output
    mean, lo, hi = _cli_interval(r.stdout)
    delta = 0.1 if "--delta" in extra else 0.02
    head = r.stdout.splitlines()[1]
    # "at least delta" only when the interval excludes every smaller change
    assert ("at least" in head) == (lo >= delta - 5e-5 or hi <= -delta + 5e-5) or "raises" not in head \
        and "lowers" not in head, r.stdout
    assert "or more" not in head
    if "raises" in head:
        assert lo > 0 and hi >= delta - 5e-5, r.stdout
    elif "lowers" in head:
        assert hi < 0 and lo <= -delta + 5e-5, r.stdout
    elif "no change" in head:
        assert -delta < lo and hi < delta, r.stdout
    else:
        assert "undecided" in head, r.stdout


@pytest.mark.parametrize("args,msg", [
    (["--set", "strength=5", "--vs", "strength=5"], "the same configuration"),
    (["--set", "strength=5"], "--vs"),
    (["--set", "strenth=5", "--vs", "strength=4"], "did you mean 'strength'"),
    (["--set", "strength=5", "--vs", "strength=4", "--p0", "0.06", "--p1", "0.04"], "--p0/--p1 are gone"),
    (["--set", "strength=5", "--vs", "strength=4", "--p1", "0.04"], "--p0/--p1 are gone"),
    (["--set", "strength=5", "--vs", "strength=4", "--delta", "0"], "--delta must be in (0, 0.5)"),
    (["--set", "strength=5", "--vs", "strength=4", "--delta", "0.7"], "--delta must be in (0, 0.5)"),
    (["--set", "strength=5", "--vs", "strength=4", "--alpha", "0.5"], "--alpha and --beta must be in (0, 0.5)"),
    (["--set", "strength=5", "--vs", "strength=4", "--min-games", "500", "--max-games", "100"],
     "--min-games (500) is larger than --max-games (100)"),
    (["--set", "strength=5", "--vs", "strength=4", "--max-games", "0"], "--max-games must be at least 1"),
    (["--set", "strength=5", "--vs", "strength=4", "--min-games", "0"], "--min-games must be at least 1"),
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


def test_balance_bracket_delta_is_upper_minus_lower(fake):
    """the bracket delta is Good's win rate at the upper bracket value minus at
    the lower one (paired on the same games, so exactly the difference of the two rates) and
    has their sign; the CLI prints that number, naming the direction."""
    r = api.balance(fake, "strength", "0:10", sets={"edge": 0.02}, games=3000, seed=2)
    lo, hi = r["bracket"]
    d = r["bracket_delta"]
    assert (d["lower"], d["upper"]) == (lo["value"], hi["value"]) == (4, 5)
    assert d["delta"] == pytest.approx(hi["rate"] - lo["rate"], abs=1e-12)
    assert d["delta"] > 0 and d["ci95"][0] < d["delta"] < d["ci95"][1]
    assert abs(d["delta"] - 0.05) < 4 * math.sqrt(0.05 / 3000)       # the truth: +5 points
    out = runner.invoke(app, ["balance", "-g", "fake", "-p", "strength", "-r", "0:10", "-n", "3000", "-s", "2",
                              "--set", "edge=0.02", "-q"])
    assert out.exit_code == 0, out.output
    m = re.search(r"paired change of good's win rate from strength=4 to strength=5: ([+-][0-9.]+) percentage",
                  out.stdout)
    assert m, out.stdout
    assert float(m.group(1)) == pytest.approx(round(100 * (hi["rate"] - lo["rate"]), 2))


def test_balance_target_equal_good_equals_evil(fake):
    """--target equal: Good's win rate = Evil's. With 20% draws, P(Good) = 0.26 + 0.05 s and
    P(Evil) = 0.8 - P(Good): equal at strength 2.8 (bracket [2, 3]); the default target 0.5
    is crossed at strength 4.8 (bracket [4, 5])."""
    kw = dict(sets={"edge": 0.01, "draw_rate": 0.2}, games=6000, seed=3)
    eq = api.balance(fake, "strength", "0:10", target="equal", **kw)
    half = api.balance(fake, "strength", "0:10", **kw)
    assert eq["target"] == "equal" and eq["parity"] == "good's win rate = evil's win rate"
    assert half["target"] == 0.5 and half["parity"] == "good's win rate = 50%"
    assert [e["value"] for e in eq["bracket"]] == [2, 3]
    assert [e["value"] for e in half["bracket"]] == [4, 5]
    a, b = eq["bracket"]
    assert a["rate"] < a["rate_second"] and b["rate"] > b["rate_second"]
    assert a["score"] == pytest.approx(a["rate"] - a["rate_second"])
    assert eq["interval"][0] <= 2.8 <= eq["interval"][1]
    f = api.balance(fake, "edge", "-0.2:0.2", target="equal", sets={"strength": 4, "draw_rate": 0.2}, games=8000,
                    seed=4, tol=0.01)
    # P(Good) = 0.45 + edge = P(Evil) = 0.35 - edge at edge = -0.05
    assert f["bracketed"] and f["interval"][0] <= -0.05 <= f["interval"][1] and abs(f["estimate"] + 0.05) < 0.03
    out = runner.invoke(app, ["balance", "-g", "fake", "-p", "strength", "-r", "0:10", "-n", "2000", "-q",
                              "--target", "equal", "--set", "draw_rate=0.2"])
    assert out.exit_code == 0, out.output
    assert "parity: good's win rate = evil's win rate" in out.stdout and "reaches evil's" in out.stdout
    out = runner.invoke(app, ["balance", "-g", "fake", "-p", "strength", "-r", "0:10", "-n", "2000", "-q"])
    assert "parity: good's win rate = 50%" in out.stdout


@pytest.mark.parametrize("args,msg", [
    (["-p", "strength", "-r", "0:10", "--set", "strength=3"], "--set strength=3 clashes with --param strength"),
    (["-p", "strength", "-r", "0:10", "--target", "abc"], "--target must be a number in (0, 1) or 'equal'"),
    (["-p", "strength", "-r", "0:10", "--target", "1.5"], "--target must be a number in (0, 1) or 'equal'"),
    (["-p", "strength", "-r", "0:10", "--target", "0"], "--target must be a number in (0, 1) or 'equal'"),
    (["-p", "strength", "-r", "0:10", "--target", "nan"], "--target must be a number in (0, 1) or 'equal'"),
])
def test_balance_more_bad_input(args, msg):
    e = runner.invoke(app, ["balance", "-g", "fake", "-q", "-n", "100"] + args)
    assert e.exit_code == 2 and msg in e.stderr and len(e.stderr.strip().splitlines()) == 1, (args, e.stderr)


@pytest.mark.parametrize("a,paired", [({"edge": 0.02}, True), ({"edge": 0.01}, False), ({"edge": 0.0005}, False)])
def test_compare_batching_does_not_change_the_answer(fake, a, paired):
    """Prefix-exact: the first batch size (then doubling) changes neither the verdict nor the
    number of games."""
    from lotr_sim.experiments.compare import compare as _cmp
    rs = [_cmp(fake, a, {"edge": 0.0}, seed=4, paired=paired, batch=bt, max_games=60_000) for bt in (97, 2000, 60_000)]
    keys = ("decision", "verdict", "games", "a_only", "b_only", "delta", "delta_ci95")
    assert [{k: r[k] for k in keys} for r in rs[1:]] == [{k: rs[0][k] for k in keys}] * 2
    assert rs[0]["games"] < 60_000 and rs[0]["decision"] is not None
