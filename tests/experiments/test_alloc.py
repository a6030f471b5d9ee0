"""The paired mode of `sweep` (the default sweep's): every point plays until what it
is for is known to its goal — the baseline's own rate, each lever's paired change against the
baseline, each pairing's own rate — then stops; the allocation is a pure function of whole
batches, so it is the same on any thread count (resume: test_resume.py, Dask: test_dask.py).

The fake game's first draw decides the winner (u < p), so a lever that moves p by e changes
exactly the games with u between the two thresholds: its paired discordance is |e| and the
games its ±1-point goal needs are known, n = z^2 (|e| - e^2) / 0.01^2."""
import json
import math

import pandas as pd
import pytest
from typer.testing import CliRunner

from lotr_sim import api
from lotr_sim.cli.main import app
from lotr_sim.experiments.spec import SweepSpec, make_spec
from lotr_sim.experiments.sweep import (PAIRED, RATE, default_max_games, first_targets, half_width,
                                        next_targets)
from lotr_sim.stats import z_value

Z2 = z_value() ** 2


def _need(e: float, goal: float = 0.01) -> float:
    """Paired games a lever moving Good's win chance by e needs for a ±goal half-width."""
    return Z2 * (abs(e) - e * e) / goal ** 2


def test_paired_mode_stops_each_point_at_its_goal(fake, tmp_path):
    res = api.sweep(fake, params=["edge=0.002", "strength=3,7"], paired_precision=0.01, pairings=True,
                    seed=11, chunk=1000, out=tmp_path / "a", report=False)
    df = res.results.set_index("label")
    n = df["games"].to_dict()
    # every point met its goal, on the quantity it is for
    assert df["precision_met"].all()
    assert (df["half_width"] <= df["target_half_width"]).all()
    assert df.loc["baseline", "precision_on"] == RATE and df.loc["baseline", "target_half_width"] == 0.01
    levers = df[df["varied"].isin(["edge", "strength"])]
    pairings = df[df["varied"] == "pairings"]
    assert (levers["precision_on"] == PAIRED).all() and (levers["target_half_width"] == 0.01).all()
    assert len(pairings) == 3 and (pairings["precision_on"] == RATE).all()
    assert (pairings["target_half_width"] == 0.02).all()
    # the half-width stated is the one of the games played: Wilson (own rate) or the paired interval
    b = df.loc["baseline"]
    assert b["half_width"] == pytest.approx((b["hi_good"] - b["lo_good"]) / 2, abs=1e-12)
    for lab, r in levers.iterrows():
        assert r["paired_games"] == r["games"]                  # every lever game has its pair
        t_half = (r["delta_good_hi"] - r["delta_good_lo"]) / 2  # the row's t interval
        # Bonett-Price adds a game to each discordant cell: wider when few games differ,
        # the same to 0.5% when hundreds do
        assert r["half_width"] >= t_half
        if lab != "edge=0.002":
            assert r["half_width"] == pytest.approx(t_half, rel=5e-3)
    # a lever that changes few games (0.2%) stops after the first batch (1,300 games) ...
    assert n["edge=0.002"] == 1300
    # ... one that changes 10% of them plays about what its goal needs (3,457): the estimate of
    # the discordance after 1,300 games is within ±3 standard errors (±25%) of 0.1
    for lab in ("strength=3", "strength=7"):
        assert 0.75 * _need(0.1) <= n[lab] <= 1.3 * _need(0.1), (lab, n[lab])
    # the baseline needs ~9,604 for its own ±1 point at p = 0.5, and covers every lever
    assert 9500 <= n["baseline"] <= 1.1 * 9604
    assert n["baseline"] >= max(levers["games"])
    # a pairing needs at most 2,401 for ±2 points (random v greedy: p = 0.45 or 0.55)
    assert (pairings["games"] <= 1.1 * 2401).all()
    # the fixed mode would have played 9,604 a point
    assert sum(n.values()) < 0.6 * 9604 * len(n)
    # manifest and verdict state each point's games and half-width
    m = res.manifest["precision"]
    assert m["mode"] == "paired" and (m["baseline"], m["paired"], m["pairings"]) == (0.01, 0.01, 0.02)
    assert m["max_games"] == 4 * 9604 and res.manifest["games"] == n
    assert {k: v["games"] for k, v in m["points"].items()} == n
    assert m["largest"]["levers"] == max(levers["half_width"]) and m["largest"]["baseline"] == b["half_width"]
    assert m["largest"]["pairings"] == max(pairings["half_width"])
    v = res.verdict["precision"]
    assert v["missed"] == [] and v["text"] in res.verdict["lines"] and "±1 " not in v["text"]
    assert "every lever's paired change against the baseline within ±0." in v["text"]
    assert "every AI pairing's win rate within ±1." in v["text"] and "baseline Good's win rate ±0." in v["text"]
    assert f"within ±{math.floor(10000 * max(pairings['half_width'])) / 100:.2f} (goal ±2;" in v["text"]


def test_paired_mode_cap_flags_the_points_short_of_their_goal(fake, tmp_path):
    res = api.sweep(fake, params=["strength=4,8"], paired_precision=0.005, max_games=2000, seed=2,
                    out=tmp_path / "c", report=False)
    df = res.results
    assert (df["games"] == 2000).all() and not df["precision_met"].any()
    assert "Goal missed at 3 of 3 points (stopped at --max-games 2000)" in res.verdict["precision"]["text"]


@pytest.mark.slow
def test_paired_allocation_same_on_one_and_two_threads(tmp_path):
    """The real engine (its rows do not depend on the thread split): the same batches, the
    same targets, the same rows."""
    g = api.get_game("minas-tirith")
    # end_on_last_card changes ~3% of games, retreat_trigger=off ~29%: they stop far apart
    kw = dict(params=["end_on_last_card=end_of_turn", "retreat_trigger=off"], paired_precision=0.03,
              seed=5, chunk=150, report=False)
    one = api.sweep(g, threads=1, out=tmp_path / "t1", **kw)
    two = api.sweep(g, threads=2, out=tmp_path / "t2", **kw)
    n = one.manifest["games"]
    # the lever that changes few games reaches its target in a fraction of the other's games
    # (300 against 900 with the tuned players of 2026-12-03)
    assert 2 * n["end_on_last_card=end_of_turn"] <= n["retreat_trigger=off"] <= n["baseline"]
    assert one.manifest["games"] == two.manifest["games"]
    assert one.manifest["precision"] == two.manifest["precision"]
    pd.testing.assert_frame_equal(one.results, two.results)


def test_next_targets_is_a_pure_function_of_the_counts():
    goals = {0: (RATE, 0.01), 1: (PAIRED, 0.01), 2: (PAIRED, 0.01), 3: (RATE, 0.02)}
    t = first_targets(goals, 38416)
    assert t == {0: 1300, 1: 1300, 2: 1300, 3: 400}
    counts = {0: (1300, 650, 0, 0),            # p = 0.5: needs ~9,604
              1: (1300, 500, 1, 1),            # 2 discordant games: already within ±1 point
              2: (1300, 600, 300, 200),        # discordance 0.38: ~14,900 games
              3: (400, 200, 0, 0)}             # ±2 points at p = 0.5: ~2,401
    a = next_targets(goals, t, counts, 38416)
    assert a == next_targets(goals, dict(t), dict(counts), 38416)      # no hidden state
    assert a[1] == 1300                                                 # done: keeps its games
    qp, qm = 301 / 1302, 201 / 1302
    need = Z2 * (qp + qm - (qp - qm) ** 2) / 1e-4
    assert a[2] == math.ceil(need * 0.9 / 100) * 100          # far from it: 0.9 x, then estimate again
    near = next_targets(goals, {**t, 2: 13000, 0: 13000}, {**counts, 2: (13000, 6000, 3000, 2000)}, 38416)
    need = Z2 * (3001 / 13002 + 2001 / 13002 - (1000 / 13002) ** 2) / 1e-4
    assert near[2] == max(math.ceil(need / 100) * 100, 13300)  # near it: the need, at least +2%
    assert a[0] == a[2] > 9604                  # the baseline covers the longest lever
    assert 0.9 * 2401 <= a[3] <= 0.9 * 2401 + 100
    # never fewer games than before, never more than the cap
    capped = next_targets(goals, t, counts, 5000)
    assert capped[2] == capped[0] == 5000 and capped[1] == 1300
    done = {0: (10000, 5000, 0, 0), 1: (1300, 500, 1, 1), 2: (10000, 5000, 10, 10), 3: (2500, 1250, 0, 0)}
    tt = {0: 10000, 1: 1300, 2: 10000, 3: 2500}
    assert next_targets(goals, tt, done, 38416) == tt
    assert half_width(RATE, 10000, 5000, 0, 0) < 0.01 < half_width(RATE, 9000, 4500, 0, 0)


def test_default_sweep_is_the_paired_mode_and_games_the_fixed_one():
    g = api.get_game("minas-tirith")
    spec = make_spec(g)
    assert spec.games is None and spec.precision is None
    assert (spec.paired_precision, spec.baseline_precision, spec.pairings_precision) == (0.01, 0.01, 0.02)
    assert default_max_games(spec) == 38416
    fixed = make_spec(g, games=2000)
    assert fixed.games == 2000 and fixed.paired_precision is None and default_max_games(fixed) is None
    own = make_spec(g, precision=0.02)
    assert own.precision == 0.02 and own.paired_precision is None
    finer = make_spec(g, pairings_precision=0.015)          # refines the file's paired mode
    assert (finer.paired_precision, finer.pairings_precision) == (0.01, 0.015)
    # a spec written before the paired mode existed hashes (and resumes) as before
    old = SweepSpec(game="fake", dims=[("strength", [1])], games=100)
    assert "paired_precision" not in old.as_dict()
    back = SweepSpec.from_dict(json.loads(json.dumps(spec.as_dict())))
    assert back == spec


@pytest.mark.parametrize("args,msg", [
    (["--paired-precision", "0.5"], "--paired-precision must be in (0, 0.5), got 0.5"),
    (["--paired-precision", "0.01", "--pairings-precision", "0"], "--pairings-precision must be in (0, 0.5)"),
    (["--paired-precision", "0.01", "-n", "100"], "give one of --games, --precision and --paired-precision"),
    (["-n", "100", "--baseline-precision", "0.01"], "go with --paired-precision"),
    (["--baseline-precision", "0.01"], "need --paired-precision"),
])
def test_cli_paired_mode_bad_input_one_line(fake, tmp_path, args, msg):
    r = CliRunner().invoke(app, ["sweep", "-g", "fake", "-q", "-p", "strength=1,2", "-o", str(tmp_path / "x")] + args)
    assert r.exit_code == 2, r.output
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("lotr-sim: error:") and msg in err[0], r.stderr
    assert not (tmp_path / "x" / "chunks").exists()


def test_cli_paired_mode_json_states_games_and_half_widths(fake, tmp_path):
    r = CliRunner().invoke(app, ["sweep", "-g", "fake", "-q", "--json", "-p", "edge=0.002", "--paired-precision",
                                 "0.02", "-o", str(tmp_path / "j")])
    assert r.exit_code == 0, r.output
    js = json.loads(r.stdout)
    p = js["manifest"]["precision"]
    assert p["points"]["edge=0.002"]["games"] == js["manifest"]["games"]["edge=0.002"] == 400
    assert p["points"]["baseline"]["half_width"] <= 0.02 and p["baseline"] == 0.02 and p["pairings"] == 0.04


@pytest.mark.parametrize("line,msg", [
    ('paired_precision = "abc"', "paired_precision must be a number in (0, 0.5), got 'abc'"),
    ("paired_precision = 0.5", "paired_precision must be a number in (0, 0.5), got 0.5"),
    ("paired_precision = true", "paired_precision must be a number in (0, 0.5), got True"),
    ("pairings_precision = 0.02", "need paired_precision"),
])
def test_sweep_file_paired_keys_are_checked(tmp_path, line, msg):
    from lotr_sim.errors import ConfigError
    from lotr_sim.experiments.spec import load_sweep_file
    p = tmp_path / "s.toml"
    p.write_text(f'game = "fake"\n{line}\n[params]\nstrength = [1]\n')
    with pytest.raises(ConfigError) as e:
        load_sweep_file(p)
    assert msg in str(e.value) and "\n" not in str(e.value)


@pytest.mark.slow
def test_a_game_default_sweep_file_in_the_paired_mode(tmp_path, monkeypatch):
    """A bare `lotr-sim sweep -g GAME` with a sweep file that sets paired_precision runs the
    paired mode; `-n` on the command line replaces it with the fixed count."""
    cfgs = tmp_path / "configs" / "sweeps"
    cfgs.mkdir(parents=True)
    (cfgs / "fake.toml").write_text('game = "fake"\nseed = 3\npaired_precision = 0.02\nchunk = 250\n'
                                    '[params]\nedge = [0.002]\nstrength = [7]\n')
    monkeypatch.setenv("LOTR_SIM_CONFIGS", str(tmp_path / "configs"))
    r = CliRunner().invoke(app, ["sweep", "-g", "fake", "-q", "-o", str(tmp_path / "a")])
    assert r.exit_code == 0, r.output
    m = json.loads((tmp_path / "a" / "manifest.json").read_text())
    assert m["spec"]["paired_precision"] == 0.02 and m["precision"]["pairings"] == 0.04
    assert m["games"]["edge=0.002"] == 400 < m["games"]["strength=7"] <= m["games"]["baseline"]
    r = CliRunner().invoke(app, ["sweep", "-g", "fake", "-q", "-n", "300", "-o", str(tmp_path / "b")])
    assert r.exit_code == 0, r.output
    m = json.loads((tmp_path / "b" / "manifest.json").read_text())
    assert set(m["games"].values()) == {300} and "precision" not in m and "paired_precision" not in m["spec"]
