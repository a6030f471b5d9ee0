"""`lotr-sim fix`: the smallest rule changes that reach parity, on the fake game whose win
probability is known exactly (fakegame.win_probability): P(Good) = 0.25 + 0.05*strength +
edge + 0.05*bonus + 0.10*[mode == tilted] under greedy v greedy."""
import json

import numpy as np
import pytest
from typer.testing import CliRunner

from lotr_sim import api
from lotr_sim.cli.main import app
from lotr_sim.errors import Interrupted, LotrSimError
from lotr_sim.experiments import fix as fixmod
from lotr_sim.experiments.backends import LocalBackend

from fakegame import FIX_SWEEP, win_probability

runner = CliRunner()

SWEEP = FIX_SWEEP
FAST = dict(games=2000, confirm_games=10_000, final_games=20_000, adapt=False, threads=1)


@pytest.fixture
def sweep_file(tmp_path):
    p = tmp_path / "fake.toml"
    p.write_text(SWEEP)
    return p


def _exact(changes):
    params = {"strength": 2, "edge": 0.0, "bonus": False, "mode": "fair", "draw_rate": 0.1, **changes}
    return win_probability(params, {"good": "greedy", "evil": "greedy"})[0]


def test_fix_ranks_by_levers_then_cost_and_meets_the_target(fake, sweep_file, tmp_path):
    r = api.fix(fake, sweep_file=sweep_file, out=tmp_path / "out", **FAST)
    assert [f["set"] for f in r.fixes] == [{"edge": 0.15}, {"mode": "tilted", "edge": 0.05}]
    assert [f["levers"] for f in r.fixes] == [1, 2]
    assert r.fixes[1]["cost"] == pytest.approx(1 + 1 / 3)
    for f in r.fixes:
        p = _exact(f["set"])
        assert abs(p - 0.5) <= 0.01                         # really a fix
        g = f["good"]                                       # fresh games: unbiased for p
        z = (g["rate"] - p) / np.sqrt(p * (1 - p) / g["games"])
        assert abs(z) < 4 and g["games"] == 20_000 and g["confirmed"]
        assert abs(f["screen"]["rate"] - 0.5) <= 0.01
    # the single changes that miss the target are played and reported as such
    played = {r_["change"]: r_ for r_ in r.played}
    assert played["(defaults)"]["rate"] == pytest.approx(r.baseline["rate"])
    assert abs(played["mode=tilted"]["rate"] - _exact({"mode": "tilted"})) < 4 * np.sqrt(0.25 / 2000)
    # no three-lever fix (55% and 65%): the nearest triple stands in
    assert [c["set"] for c in r.closest] == [{"bonus": True, "mode": "tilted", "edge": 0.05}]
    assert "edge=0.15" in r.message
    for name in ("fix.json", "report.md", "report.html", "best-pair.png", fixmod.STATE):
        assert (tmp_path / "out" / name).is_file(), name
    md = (tmp_path / "out" / "report.md").read_text()
    assert md.index("Suggested fixes") < md.index("mode=tilted,edge=0.05 |")


def test_designer_costs_change_the_ranking(fake, sweep_file, tmp_path):
    sweep_file.write_text(SWEEP + "[fix.cost]\nedge = 5\n")
    r = api.fix(fake, sweep_file=sweep_file, out=tmp_path / "out", max_levers=2, **FAST)
    # edge now costs 5/3 a step: bonus + tilted (2) is cheaper than tilted + edge=0.05 (2.67)
    assert [f["set"] for f in r.fixes] == [{"edge": 0.15}, {"bonus": True, "mode": "tilted"}]
    assert r.fixes[0]["cost"] == pytest.approx(5.0)


def test_value_costs_from_the_sweep_file(fake, sweep_file, tmp_path):
    sweep_file.write_text(SWEEP + "[fix.cost]\nedge = { '0.15' = 9 }\n")
    levers, _, base = fixmod.make_levers(fake, None, sweep_file, {})
    lv = {x.name: x for x in levers}
    assert lv["edge"].cost(0.15) == 9 and lv["edge"].cost(0.05) == pytest.approx(1 / 3)
    assert lv["mode"].cost("tilted") == 1 and base == {"strength": 2}


def test_no_fix_in_the_ranges_gives_the_closest(fake, tmp_path):
    r = api.fix(fake, ["bonus", "mode"], sets={"strength": 1}, out=tmp_path / "out", **FAST)
    # 30% at the defaults, 45% with both: nothing reaches 49%
    assert r.fixes == []
    assert [c["set"] for c in r.closest] == [{"mode": "tilted"}, {"bonus": True, "mode": "tilted"}]
    assert "no rule set" in r.message and "bonus=true,mode=tilted" in r.message


def test_target_and_tolerance_are_honoured(fake, sweep_file, tmp_path):
    # 40% is reached by one change: bonus (cost 1) or edge=0.05 (cost 1/3, cheaper)
    r = api.fix(fake, sweep_file=sweep_file, target=0.40, out=tmp_path / "out", max_levers=1, **FAST)
    assert [f["set"] for f in r.fixes] == [{"edge": 0.05}]
    assert abs(r.fixes[0]["good"]["rate"] - 0.40) < 0.015
    r = api.fix(fake, sweep_file=sweep_file, target=0.55, out=tmp_path / "out2", max_levers=2, **FAST)
    # 55%: tilted + edge=0.05 + bonus would do it, but that is three levers; edge=0.15 + bonus (cost 2)
    # and tilted + edge=0.15 (60%: no). Singles reach 50% at most: the closest single is edge=0.15.
    assert [f["set"] for f in r.fixes] == [{"bonus": True, "edge": 0.15}]
    assert [c["set"] for c in r.closest] == [{"edge": 0.15}]


def test_response_model_recovers_additive_effects(fake):
    levers, _, _ = fixmod.make_levers(fake, ["bonus", "mode"], None, {})
    rng = np.random.default_rng(3)
    sets = [{}, {"bonus": True}, {"mode": "tilted"}, {"bonus": True, "mode": "tilted"}]
    logit = np.array([-1.0, -0.5, 0.0, 0.5])          # +0.5 bonus, +1.0 tilted
    n = np.full(4, 20_000.0)
    wins = rng.binomial(20_000, 1 / (1 + np.exp(-logit))).astype(float)
    m = fixmod.ResponseModel(levers, l2=1e-6).fit(sets, wins, n)
    assert m.beta == pytest.approx([-1.0, 0.5, 1.0, 0.0], abs=0.05)     # the pair's term: none
    assert m.predict([{"bonus": True, "mode": "tilted"}])[0] == pytest.approx(1 / (1 + np.exp(-0.5)), abs=0.01)
    # a pair that interacts: its own term takes the interaction; sets never played together stay additive
    logit[3] = 1.5
    wins = rng.binomial(20_000, 1 / (1 + np.exp(-logit))).astype(float)
    m = fixmod.ResponseModel(levers, l2=1e-6).fit(sets, wins, n)
    assert m.beta[3] == pytest.approx(1.0, abs=0.06)
    m = fixmod.ResponseModel(levers, l2=1e-6).fit(sets[:3], wins[:3], n[:3])
    assert len(m.beta) == 3 and m.predict([sets[3]])[0] == pytest.approx(1 / (1 + np.exp(-0.5)), abs=0.02)


def test_interrupted_run_resumes_to_the_same_answer(fake, sweep_file, tmp_path, monkeypatch):
    whole = api.fix(fake, sweep_file=sweep_file, out=tmp_path / "whole", **FAST)
    real = LocalBackend.run
    calls = [0]

    def dies(self, *a, **k):
        calls[0] += 1
        if calls[0] > 4:
            raise KeyboardInterrupt
        return real(self, *a, **k)
    monkeypatch.setattr(LocalBackend, "run", dies)
    with pytest.raises(Interrupted, match="--resume"):
        api.fix(fake, sweep_file=sweep_file, out=tmp_path / "cut", **FAST)
    monkeypatch.setattr(LocalBackend, "run", real)
    res = api.fix(fake, resume=tmp_path / "cut", threads=2)
    assert res.games_reused > 0
    assert res.fixes == whole.fixes and res.played == whole.played
    assert res.games_played == whole.games_played
    with pytest.raises(LotrSimError, match="already holds a fix run"):
        api.fix(fake, sweep_file=sweep_file, out=tmp_path / "cut", **FAST)


def test_cli_json_shape(sweep_file, tmp_path):
    r = runner.invoke(app, ["fix", "-g", "fake", "--sweep-file", str(sweep_file), "--no-adapt", "--json",
                            "--out", str(tmp_path / "o"), "--threads", "1"])
    assert r.exit_code == 0, r.stderr
    d = json.loads(r.stdout)
    assert list(d)[0] == "fixes" and len(d["fixes"]) == 2
    for f in d["fixes"]:
        assert {"set", "good", "adapted", "search"} <= set(f)
        assert {"rate", "lo", "hi", "games"} <= set(f["good"])
    assert d["fixes"][0]["set"] == {"edge": 0.15}
    assert json.loads((tmp_path / "o" / "fix.json").read_text())["fixes"] == d["fixes"]


@pytest.mark.parametrize("args,msg", [
    (["--param", "nosuch"], "unknown parameter 'nosuch'"),
    (["--param", "edge"], "too wide to take whole"),
    (["--param", "good"], "changes rule parameters, not players"),
    (["--param", "bonus", "--target", "1.5"], "--target must be a number in (0, 1)"),
    (["--param", "bonus", "--max-levers", "4"], "--max-levers must be at most 3"),
    (["--param", "bonus", "--games", "5"], "--games must be at least 10"),
    (["--param", "bonus", "--param", "bonus"], "given twice"),
    (["--param", "bonus", "--set", "strength=99"], "strength"),
])
def test_cli_bad_input_is_one_line(args, msg, tmp_path):
    r = runner.invoke(app, ["fix", "-g", "fake", "-q", "--no-adapt", "--out", str(tmp_path / "o")] + args)
    assert r.exit_code == 2 and msg in r.stderr and len(r.stderr.strip().splitlines()) == 1, r.stderr


def test_cli_resume_of_a_folder_without_a_run(tmp_path):
    r = runner.invoke(app, ["fix", "-g", "fake", "-q", "--resume", str(tmp_path)])
    assert r.exit_code == 2 and "holds no fix run" in r.stderr


def test_other_commands_folders_are_refused_both_ways(sweep_file, tmp_path):
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "summary.json").write_text("{}")
    r = runner.invoke(app, ["fix", "-g", "fake", "-q", "--no-adapt", "--param", "bonus", "--out", str(tmp_path / "run")])
    assert r.exit_code == 2 and "holds a run's games" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    r = runner.invoke(app, ["fix", "-g", "fake", "-q", "--no-adapt", "--param", "bonus", "--out", str(tmp_path / "f")])
    assert r.exit_code == 0, r.stderr
    r = runner.invoke(app, ["run", "-g", "fake", "-q", "-n", "100", "--out", str(tmp_path / "f")])
    assert r.exit_code == 2 and "holds a fix run" in r.stderr, r.stderr


@pytest.mark.slow
def test_adaptation_and_search_on_a_real_game(tmp_path):
    """Minas Tirith, one lever, a tiny budget: each fix is re-checked with both sides' weights
    tuned to its rules (warm start from tuned) and with the search player against them."""
    # MT-7.2's divisor 1 takes Good from about 79% to 46% with the shipped players; 3 leaves it near 81%
    r = api.fix("minas-tirith", ["evil_banner_divisor"], target=0.46, tol=0.05, games=300, confirm_games=600,
                final_games=600, tune_generations=1, tune_games=10, adapt_games=300, search_games=2,
                threads=2, out=tmp_path / "o")
    assert [f["set"] for f in r.fixes] == [{"evil_banner_divisor": 1}]
    f = r.fixes[0]
    ad = f["adapted"]
    assert ad["games"] == 300 and ad["lo"] <= ad["rate"] <= ad["hi"]
    assert ad["holds"] == (abs(ad["rate"] - 0.46) <= 0.02)
    assert ad["tune"]["start"] == "tuned" and ad["tune"]["player"].startswith("weights:")
    assert (tmp_path / "o" / ad["tune"]["folder"] / "tuned.toml").is_file()
    # a side keeps its re-tuned weights only when they beat its start on the same games
    for i, side in enumerate(("good", "evil")):
        if side not in ad["checks"]:                      # its tune never left the start weights
            assert not ad["kept"][side] and ad["players"][side] == "tuned"
            continue
        c = ad["checks"][side]
        assert c["tuned"]["games"] == c["start"]["games"] == 150
        better = c["tuned"]["rate"] > c["start"]["rate"] if i == 0 else c["tuned"]["rate"] < c["start"]["rate"]
        assert ad["kept"][side] == better
        assert ad["players"][side] == (ad["tune"]["player"] if better else "tuned")
    assert set(f["search"]) == {"games_per_side", "good_search", "evil_search", "flag"}
    assert f["search"]["good_search"]["games"] == 2
    md = (tmp_path / "o" / "report.md").read_text()
    assert "after adaptation" in md and "evil_banner_divisor=1 |" in md


def test_model_proposes_the_pairs_when_not_all_fit_the_budget(fake, sweep_file, tmp_path):
    # 5 rule sets screened (10,000 games) and edge=0.15 refined (8,000 more) leave 6,000 for
    # pairs: 3 of the 5 pairs at most.
    # The model, fitted on the singles, predicts tilted + edge=0.05 and bonus + tilted near
    # 50% and the other pairs far from it: the cheaper near one is played first, and it is the fix.
    r = api.fix(fake, sweep_file=sweep_file, out=tmp_path / "out", max_levers=2, budget=24_000, **FAST)
    pairs = [p["set"] for p in r.played if p["levers"] == 2]
    assert pairs[0] == {"mode": "tilted", "edge": 0.05} and len(pairs) < 5
    assert [f["set"] for f in r.fixes] == [{"edge": 0.15}, {"mode": "tilted", "edge": 0.05}]


@pytest.mark.slow
def test_fix_on_a_dask_cluster_equals_local_threads(fake, sweep_file, tmp_path):
    """The same seed gives the same fixes and the same rule sets played on a local Dask
    cluster as on one local thread (every game's stream is (seed, index))."""
    kw = dict(FAST, games=500, confirm_games=1000, final_games=1000, budget=8000)
    local = api.fix(fake, sweep_file=sweep_file, out=tmp_path / "l", **kw)
    dask = api.fix(fake, sweep_file=sweep_file, out=tmp_path / "d", **{**kw, "threads": 1},
                   cluster="local", workers=2)
    assert local.fixes == dask.fixes and local.played == dask.played
    assert local.games_played == dask.games_played > 0


def test_verdict_of_a_fix_the_fresh_games_do_not_confirm_says_so_first():
    """A candidate within the target on the search's games whose fresh games miss ±1.5 is not
    announced as a fix: the verdict says no change is confirmed, then gives the candidate's
    fresh-game rate and whether it holds after adaptation; a confirmed one keeps its claim."""
    base = {"rate": 0.795, "lo": 0.777, "hi": 0.812}
    fix = {"change": "a=1,b=2", "levers": 2,
           "good": {"rate": 0.4857, "lo": 0.4787, "hi": 0.4926, "games": 20000, "confirmed": False},
           "adapted": {"rate": 0.478, "lo": 0.468, "hi": 0.487, "holds": False}}
    msg = fixmod._message("good", 0.5, 0.01, [fix], [], base)
    assert "no change is confirmed within ±1 point of 50.0%" in msg, msg
    assert "brings it within" not in msg
    assert "a=1,b=2 (2 levers)" in msg and "48.6% [47.9%, 49.3%] on 20,000 fresh games" in msg, msg
    assert msg.endswith("after the players adapt to it 47.8% [46.8%, 48.7%]: it does not hold."), msg
    fix["good"] = {"rate": 0.501, "lo": 0.494, "hi": 0.508, "games": 20000, "confirmed": True}
    fix["adapted"]["holds"] = True
    msg = fixmod._message("good", 0.5, 0.01, [fix], [], base)
    assert "the smallest change found that brings it within ±1 point of 50.0%: a=1,b=2" in msg, msg
    assert msg.endswith(": it holds."), msg
