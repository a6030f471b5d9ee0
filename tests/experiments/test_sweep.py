"""`lotr-sim sweep` / `report` against the fake game: exact rates per point, paired deltas,
precision batches, grid, policies as a dimension, report rebuild, bad input."""
import json
import math
import shutil
import time

import pandas as pd
import pytest
from typer.testing import CliRunner

from fakegame import win_probability
from lotr_sim import api
from lotr_sim.cli.main import app

runner = CliRunner()


def _exact(fake, row, base_sets=None):
    sets = {**(base_sets or {}), **json.loads(row["params"])}
    pol = json.loads(row["policies"])
    return win_probability(fake.load(None, sets).params, pol)


@pytest.mark.slow
def test_sweep_rates_and_paired_deltas_match_exact(fake, tmp_path):
    n = 8000
    res = api.sweep(fake, params=["strength=3:7:2", "mode=fair,tilted", "good=random,greedy"], games=n,
                    seed=4, out=tmp_path / "s", chunk=3000)
    df = res.results
    assert df["label"].tolist() == ["baseline", "strength=3", "strength=7", "mode=tilted", "good=random"]
    assert (df["games"] == n).all()
    p_base = _exact(fake, df.iloc[0])[0]
    for _, r in df.iterrows():
        pg, pdraw = _exact(fake, r)
        k = r["wins_good"]
        assert abs(k - n * pg) / math.sqrt(n * pg * (1 - pg)) < 4
        assert r["lo_good"] <= r["rate_good"] <= r["hi_good"]
        assert r["wins_good"] + r["wins_evil"] + r["wins_draw"] == n
        if r["point"] == 0:
            assert r["delta_good"] == 0
            continue
        # the fake game's first draw decides the winner: with common random numbers the
        # paired difference is exactly the share of u between the two thresholds.
        true = pg - p_base
        sd = math.sqrt(abs(true) * (1 - abs(true)) / n)
        assert abs(r["delta_good"] - true) <= 4 * sd + 1e-12
        assert r["delta_good_lo"] <= r["delta_good"] <= r["delta_good_hi"]
        # pairing: the interval is far narrower than an unpaired one would be
        assert (r["delta_good_hi"] - r["delta_good_lo"]) < 0.5 * 2 * 1.96 * math.sqrt(0.5 / n)
    out = res.out
    for f in ("results.parquet", "manifest.json", "report.md", "report.html", "plots/tornado.png",
              "plots/winrate_strength.png", "plots/lengths_strength.png", "plots/reasons.png",
              "plots/winrate_good.png"):
        assert (out / f).is_file(), f
    m = json.loads((out / "manifest.json").read_text())
    assert m["status"] == "complete" and m["game"] == "fake" and m["seed"] == 4
    assert set(m["games"].values()) == {n} and m["package_version"] and m["machine"]["cpus"]
    assert m["started"] and m["finished"] and m["spec_hash"]
    html = (out / "report.html").read_text()
    assert html.count("data:image/png;base64,") >= 5
    md = (out / "report.md").read_text()
    assert "![" in md and "strength=7" in md


def test_report_rebuilds_from_parquet(fake, tmp_path):
    res = api.sweep(fake, params=["edge=-0.1:0.1:0.1"], games=500, out=tmp_path / "r", report=False)
    assert not (res.out / "report.md").exists()
    shutil.rmtree(res.out / "chunks")
    (res.out / "manifest.json").unlink()  # Parquet alone
    r = runner.invoke(app, ["report", str(res.out)])
    assert r.exit_code == 0, r.output
    assert (res.out / "report.html").is_file() and (res.out / "plots" / "winrate_edge.png").is_file()
    bad = runner.invoke(app, ["report", str(tmp_path)])
    assert bad.exit_code == 2 and "no results.parquet" in bad.stderr


def test_sweep_crn_same_games_every_point(fake, tmp_path):
    res = api.sweep(fake, params=["bonus=true,false"], games=1000, out=tmp_path / "c", save_games=True)
    g = pd.read_parquet(res.out / "games.parquet")
    a = g[g.point == 0].reset_index(drop=True)
    b = g[g.point == 1].reset_index(drop=True)
    # same streams: everything except the winner (shifted threshold) is identical
    for c in ("rounds", "reason", "points_good", "lost_good_infantry"):
        assert (a[c] == b[c]).all()
    # bonus only moves games from evil/draw to good
    assert ((a.winner == 0) <= (b.winner == 0)).all()


@pytest.mark.slow
def test_sweep_precision_batches(fake, tmp_path):
    res = api.sweep(fake, params=["strength=0,5"], precision=0.02, out=tmp_path / "p", chunk=500)
    df = res.results
    hw = (df["hi_good"] - df["lo_good"]) / 2
    assert (hw <= 0.02).all()
    # strength=0 (p=0.2) needs fewer games than the baseline (p=0.5)
    n = dict(zip(df["label"], df["games"]))
    assert n["strength=0"] < n["baseline"]
    res2 = api.sweep(fake, params=["strength=0,5"], precision=0.001, max_games=1500, out=tmp_path / "p2",
                     report=False)
    assert (res2.results["games"] == 1500).all()


def test_sweep_grid(fake, tmp_path):
    res = api.sweep(fake, params={"strength": [4, 6], "mode": ["fair", "tilted"]}, grid=True, games=400,
                    out=tmp_path / "g")
    assert len(res.results) == 5  # baseline + 4 combinations
    assert (res.results["varied"].iloc[1:] == "grid").all()
    assert (res.out / "plots" / "winrate_mode.png").is_file()


@pytest.mark.slow
def test_cli_sweep_default_file_and_table(tmp_path, monkeypatch):
    cfgs = tmp_path / "configs" / "sweeps"
    cfgs.mkdir(parents=True)
    (cfgs / "fake.toml").write_text('game = "fake"\nseed = 3\ngames = 600\nchunk = 250\n'
                                    '[params]\nstrength = [4, 6]\nbonus = [true]\n')
    monkeypatch.setenv("LOTR_SIM_CONFIGS", str(tmp_path / "configs"))
    monkeypatch.chdir(tmp_path)
    r = runner.invoke(app, ["sweep", "-g", "fake", "-q"])
    assert r.exit_code == 0, r.output
    assert "strength=6" in r.stdout and "bonus=true" in r.stdout
    outs = list((tmp_path / "reports" / "fake").iterdir())
    assert len(outs) == 1 and (outs[0] / "results.parquet").is_file()
    df = pd.read_parquet(outs[0] / "results.parquet")
    assert (df["games"] == 600).all() and len(df) == 4
    r = runner.invoke(app, ["sweep", "-g", "fake", "-q", "--json", "-o", str(tmp_path / "j"), "-n", "100"])
    assert r.exit_code == 0, r.output
    js = json.loads(r.stdout)
    assert len(js["results"]) == 4 and js["results"][0]["games"] == 100


BAD_POINTS = [
    (["-p", "strenght=1,2"], "did you mean 'strength'"),
    (["-p", "strength=5:2"], "inverted range"),
    (["-p", "strength=1:3:0"], "step must be positive"),
    (["-p", "strength="], "empty"),
    (["-p", "strength=1,,2"], "empty value"),
    (["-p", "strength=3,12"], "outside the allowed"),
    (["-p", "mode=fair,wobbly"], "is not one of"),
    (["-p", "good=random,clever"], "unknown policy"),
    (["-p", "strength=1,2", "--set", "strenght=1"], "unknown parameter"),
]


@pytest.mark.parametrize("args,msg", BAD_POINTS + [
    (["-p", "strength=1,2", "--games", "0"], "at least 1"),
    (["-p", "strength=1,2", "--scheduler", "tcp://127.0.0.1:1", "--connect-timeout", "1"], "cannot reach Dask scheduler"),
    (["-p", "strength=1,2", "--max-games", "5"], "--max-games 5 is below --games 10"),
    (["-p", "strength=1,2", "--scheduler", "tcp://[::1"], "scheduler address must look like tcp://HOST:PORT"),
    (["-p", "strength=1,2", "--scheduler", "tcp://host:99999"], "scheduler address must look like tcp://HOST:PORT"),
])
def test_cli_sweep_bad_input_one_line(tmp_path, args, msg):
    r = runner.invoke(app, ["sweep", "-g", "fake", "-q", "-n", "10", "-o", str(tmp_path / "x")] + args)
    assert r.exit_code == 2, r.output
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("lotr-sim: error:") and msg in err[0], r.stderr


@pytest.mark.parametrize("args,msg", BAD_POINTS)
def test_cli_sweep_bad_point_is_the_only_line_without_quiet(tmp_path, args, msg):
    """Without -q a sweep says how many points and games it plays: only once every point is
    checked, so a bad name, value or player is still the one line on stderr."""
    r = runner.invoke(app, ["sweep", "-g", "fake", "-n", "10", "-o", str(tmp_path / "x")] + args)
    assert r.exit_code == 2, r.output
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("lotr-sim: error:") and msg in err[0], r.stderr


def test_cli_sweep_unwritable_and_existing_out(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    r = runner.invoke(app, ["sweep", "-g", "fake", "-q", "-n", "10", "-p", "strength=1", "-o", str(f / "d")])
    assert r.exit_code == 2 and "cannot write to output folder" in r.stderr
    ok = runner.invoke(app, ["sweep", "-g", "fake", "-q", "-n", "10", "-p", "strength=1", "-o", str(tmp_path / "d")])
    assert ok.exit_code == 0, ok.output
    again = runner.invoke(app, ["sweep", "-g", "fake", "-q", "-n", "10", "-p", "strength=1", "-o", str(tmp_path / "d")])
    assert again.exit_code == 2 and "already holds results" in again.stderr


def test_resume_refuses_other_game_or_config(fake, tmp_path):
    api.sweep(fake, params=["strength=1,2"], games=100, out=tmp_path / "a", report=False)
    r = runner.invoke(app, ["sweep", "-g", "fake", "-q", "-p", "strength=1,3", "-n", "100", "--resume", str(tmp_path / "a")])
    assert r.exit_code == 2 and "another configuration" in r.stderr, r.stderr
    m = json.loads((tmp_path / "a" / "manifest.json").read_text())
    m["game"] = "other-game"
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "manifest.json").write_text(json.dumps(m))
    r = runner.invoke(app, ["sweep", "-g", "fake", "-q", "--resume", str(tmp_path / "b")])
    assert r.exit_code == 2 and "holds a sweep of game 'other-game'" in r.stderr, r.stderr
    r = runner.invoke(app, ["sweep", "-g", "fake", "-q", "--resume", str(tmp_path / "nothing")])
    assert r.exit_code == 2 and "not a lotr-sim result folder" in r.stderr
    # resuming a complete sweep with the same options is a no-op that gives the same table
    r = runner.invoke(app, ["sweep", "-q", "--resume", str(tmp_path / "a")])
    assert r.exit_code == 0, r.output


@pytest.mark.slow
def test_minas_tirith_smoke(tmp_path):
    """The layer on the real game, when its engine is present (tiny counts)."""
    import importlib.util
    if importlib.util.find_spec("lotr_sim.games.minas_tirith.game") is None:
        pytest.skip("minas-tirith engine not available")
    r = api.run_games("minas-tirith", games=200, seed=1)
    assert r.summary["games"] == 200 and set(r.summary["wins"]) == {"good", "evil", "draw"}
    res = api.sweep("minas-tirith", params=["leader_bonus=0,2"], games=200, chunk=100, out=tmp_path / "mt")
    assert len(res.results) == 3 and (res.results["games"] == 200).all()
    assert (res.out / "report.html").is_file()


# --- verdict, pairings, target, 80 columns, file modes, precision, bad input --------

def _run_cli(args, env=None):
    return runner.invoke(app, args, env=env)


def test_cli_sweep_pairings_target_verdict_json(fake, tmp_path):
    from fakegame import win_probability
    r = _run_cli(["sweep", "-g", "fake", "-q", "--json", "-p", "strength=3,7", "-n", "4000", "--pairings",
                  "--target", "equal", "-o", str(tmp_path / "pj")])
    assert r.exit_code == 0, r.output
    js = json.loads(r.stdout)
    v = js["verdict"]
    assert js["manifest"]["target"] == "equal" and v["target"] == "equal"
    rows = {x["label"]: x for x in js["results"]}
    pair = [x for x in js["results"] if x["varied"] == "pairings"]
    # 2 policies x 2 sides = 4 pairings; greedy v greedy is the baseline itself
    assert len(pair) == 3 and "good=greedy,evil=greedy" not in rows
    cells = v["pairings"]["cells"]
    assert len(cells) == 4
    params = fake.load(None, {}).params
    for c in cells:
        pg, _ = win_probability(params, c["policies"])
        assert abs(c["rate"] - pg) < 4 * math.sqrt(pg * (1 - pg) / 4000)
    assert v["pairings"]["min"] == min(c["rate"] for c in cells)
    assert (tmp_path / "pj" / "plots" / "pairings.png").is_file()
    md = (tmp_path / "pj" / "report.md").read_text()
    assert md.index("## Verdict") < md.index("| point")
    assert "Depends on the AI" in md and "parity = Good wins as often as Evil" in md
    assert "(--target equal)" in md
    # the levers only rank rule parameters, not the pairings
    assert {x["param"] for x in v["levers"]} == {"strength"}


@pytest.mark.slow
def test_sweep_file_pairings_and_target_keys(tmp_path, monkeypatch):
    cfgs = tmp_path / "configs" / "sweeps"
    cfgs.mkdir(parents=True)
    (cfgs / "fake.toml").write_text('game = "fake"\ngames = 300\npairings = true\ntarget = "equal"\n'
                                    '[params]\nstrength = [4, 6]\n')
    monkeypatch.setenv("LOTR_SIM_CONFIGS", str(tmp_path / "configs"))
    r = _run_cli(["sweep", "-g", "fake", "-q", "-o", str(tmp_path / "f")])
    assert r.exit_code == 0, r.output
    m = json.loads((tmp_path / "f" / "manifest.json").read_text())
    assert m["target"] == "equal" and m["spec"]["pairings"] is True
    df = pd.read_parquet(tmp_path / "f" / "results.parquet")
    assert (df["varied"] == "pairings").sum() == 3
    # --no-pairings overrides the file; --param alone does not read the default file
    r = _run_cli(["sweep", "-g", "fake", "-q", "--no-pairings", "-o", str(tmp_path / "g")])
    assert r.exit_code == 0 and "pairings" not in json.loads((tmp_path / "g" / "manifest.json").read_text())["spec"]
    (cfgs / "fake.toml").write_text('game = "fake"\ngames = 300\npairings = "yes"\n[params]\nstrength = [4]\n')
    r = _run_cli(["sweep", "-g", "fake", "-q", "-o", str(tmp_path / "h")])
    assert r.exit_code == 2 and "pairings must be true, false or a list of player names" in r.stderr


def test_default_sweep_file_plays_the_pairings():
    from lotr_sim.config import configs_dir
    from lotr_sim.experiments.spec import load_sweep_file
    d = load_sweep_file(configs_dir() / "sweeps" / "minas-tirith.toml")
    assert d["pairings"] is True


@pytest.mark.slow
def test_cli_console_summary_fits_80_columns(fake, tmp_path):
    r = _run_cli(["sweep", "-g", "fake", "-q", "-p", "strength=3,7", "-p", "mode=tilted", "-p", "bonus=true",
                  "-n", "500", "--pairings", "-o", str(tmp_path / "w")], env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.output
    lines = r.stdout.splitlines()
    assert max(len(ln) for ln in lines) <= 80, max(lines, key=len)
    assert "…" not in r.stdout
    for label in ("baseline", "strength=7", "mode=tilted", "bonus=true"):
        assert any(ln.startswith(label + " ") for ln in lines), label
    assert "Verdict:" in r.stdout and "by AI pairing" in r.stdout and "percentage" in r.stdout


def test_written_files_have_normal_permissions(fake, tmp_path):
    import os
    import stat
    old = os.umask(0o022)
    try:
        res = api.sweep(fake, params=["strength=4"], games=200, chunk=100, out=tmp_path / "m", save_games=True)
    finally:
        os.umask(old)
    files = [res.out / f for f in ("manifest.json", "results.parquet", "games.parquet", "report.md",
                                   "report.html", "plots/reasons.png")]
    files += list((res.out / "chunks").glob("*.parquet"))
    assert len(files) > 6
    for f in files:
        assert stat.S_IMODE(f.stat().st_mode) == 0o644, (f, oct(f.stat().st_mode))
    # games.parquet, written chunk by chunk, holds every game of every point
    g = pd.read_parquet(res.out / "games.parquet")
    assert len(g) == 400 and g.groupby("point")["game"].apply(list).tolist() == [list(range(200))] * 2


def test_precision_misses_are_flagged(fake, tmp_path):
    r = _run_cli(["sweep", "-g", "fake", "-q", "-p", "strength=0,5", "--precision", "0.001", "--max-games", "100",
                  "-o", str(tmp_path / "pm")], env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.output
    df = pd.read_parquet(tmp_path / "pm" / "results.parquet")
    assert (df["games"] == 100).all() and not df["precision_met"].any()
    assert "100*" in r.stdout and "missed at 2 of 2 points" in r.stdout
    md = (tmp_path / "pm" / "report.md").read_text()
    assert "| 100* |" in md and "missed at 2 of 2 points" in md
    ok = api.sweep(fake, params=["strength=0"], precision=0.03, out=tmp_path / "ok", report=False)
    assert ok.results["precision_met"].all() and ok.verdict["precision"] is None


@pytest.mark.parametrize("args,msg", [
    (["--chunk", "0"], "--chunk must be at least 1, got 0"),
    (["--chunk", "-5"], "--chunk must be at least 1"),
    (["--games", "0"], "--games must be at least 1, got 0"),
    (["--precision", "0.01", "--max-games", "0"], "--max-games must be at least 1"),
    (["--target", "fifty"], "--target must be one of good50, equal"),
    (["--games", "1000000000000"], "free"),
])
def test_cli_sweep_more_bad_input_one_line(fake, tmp_path, args, msg):
    a = ["sweep", "-g", "fake", "-q", "-p", "strength=1,2", "-o", str(tmp_path / "x")]
    if "--games" not in args and "--precision" not in args:
        a += ["-n", "10"]
    r = runner.invoke(app, a + args)
    assert r.exit_code == 2, r.output
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("lotr-sim: error:") and msg in err[0], r.stderr
    assert not (tmp_path / "x" / "chunks").exists() or not list((tmp_path / "x" / "chunks").iterdir())


def test_huge_sweep_refused_before_any_game(fake, tmp_path, monkeypatch):
    import fakegame
    calls = []
    monkeypatch.setattr(fakegame.FakeGame, "simulate", lambda *a, **k: calls.append(1))
    r = runner.invoke(app, ["sweep", "-g", "fake", "-q", "-p", "strength=1", "--games", str(10 ** 12),
                            "-o", str(tmp_path / "huge")])
    assert r.exit_code == 2 and "needs about" in r.stderr and "free" in r.stderr, r.stderr
    assert calls == [] and not (tmp_path / "huge").exists()


def test_report_on_corrupt_manifest_is_one_line(fake, tmp_path):
    res = api.sweep(fake, params=["strength=4"], games=100, out=tmp_path / "c", report=False)
    mp = res.out / "manifest.json"
    mp.write_text('{"game": "fake", "outcomes": [')
    r = runner.invoke(app, ["report", str(res.out)])
    assert r.exit_code == 2
    err = r.stderr.strip().splitlines()
    assert len(err) == 1 and str(mp) in err[0] and "corrupt JSON" in err[0], r.stderr
    mp.write_bytes(b"\xff\xfe\x00binary")
    r = runner.invoke(app, ["report", str(res.out)])
    assert r.exit_code == 2 and str(mp) in r.stderr and len(r.stderr.strip().splitlines()) == 1
    for bad in ('{"outcomes": 5}', '{"policies": [1]}', '{"notes": [1, 2]}'):
        mp.write_text(bad)
        r = runner.invoke(app, ["report", str(res.out)])
        assert r.exit_code == 2 and str(mp) in r.stderr and "corrupt manifest" in r.stderr, (bad, r.stderr)
    mp.write_text("[1, 2]")
    r = runner.invoke(app, ["sweep", "-q", "--resume", str(res.out)])
    assert r.exit_code == 2 and "corrupt manifest" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_report_target_option(fake, tmp_path):
    res = api.sweep(fake, params=["strength=4"], games=300, out=tmp_path / "t", report=False)
    r = runner.invoke(app, ["report", str(res.out), "--target", "equal"])
    assert r.exit_code == 0 and "verdict:" in r.stdout
    assert "parity = Good wins as often as Evil" in (res.out / "report-equal.md").read_text()
    r = runner.invoke(app, ["report", str(res.out), "--target", "x"])
    assert r.exit_code == 2 and "--target must be one of" in r.stderr


def test_final_aggregation_reads_chunk_files_one_at_a_time(fake, tmp_path, monkeypatch):
    """Memory must not grow with the number of games: the results come from Tally/PairTally
    folded chunk by chunk, never from loading a point's games at once, and they equal the
    per-game computation."""
    from lotr_sim.experiments import store as store_mod
    from lotr_sim.experiments.aggregate import point_row

    def boom(*a, **k):
        raise AssertionError("load_games reads every game of a point at once")
    res_kw = dict(params=["strength=3,7", "good=random"], games=1500, chunk=400, seed=5, report=False)
    ref_dir = tmp_path / "ref"
    monkeypatch.setattr(store_mod.Store, "load_games", boom)
    res = api.sweep(fake, out=ref_dir, **res_kw)
    monkeypatch.undo()
    st = store_mod.Store(ref_dir)
    base = st.load_games(0)
    for p in res.points:
        want = point_row(fake, p, st.load_games(p.index), base)
        got = res.results.iloc[p.index]
        for k, v in want.items():
            if k == "rounds_hist":
                assert list(got[k]) == list(v)
            elif isinstance(v, float):
                assert got[k] == pytest.approx(v, nan_ok=True), k
            else:
                assert got[k] == v, k


@pytest.mark.slow
@pytest.mark.parametrize("dims", [["good=random,greedy"], ["good=random,greedy", "strength=5,7"],
                                  ["good=random,greedy", "evil=random,greedy"]],
                         ids=["players-only", "players-and-rule-at-default", "both-sides"])
def test_grid_cell_equal_to_a_pairing_is_in_the_pairings(fake, tmp_path, dims):
    """A grid over a player (with or without a rule at its default) plus --pairings: the
    grid cell Good random v Evil greedy on the baseline rules *is* that pairing. It is played
    once (its games serve both) and it is in the pairings table, the heat map and the
    verdict's cells; no pooled figure counts its games twice."""
    from lotr_sim.reports.tables import pairing_matrix
    args = ["sweep", "-g", "fake", "-q", "--json", "--grid", "-n", "1000", "--pairings", "-o", str(tmp_path / "g")]
    for d in dims:
        args += ["-p", d]
    r = _run_cli(args)
    assert r.exit_code == 0, r.output
    js = json.loads(r.stdout)
    rows = js["results"]
    grid_cell = [x for x in rows if x["varied"] == "grid"
                 and json.loads(x["policies"]) == {"good": "random", "evil": "greedy"}
                 and not {k: v for k, v in json.loads(x["params"]).items() if v != 5}]
    assert len(grid_cell) == 1
    grid_cell = grid_cell[0]
    assert grid_cell["pairing"] and grid_cell["baseline_rules"]
    # played once: no pairings point with the same players
    pair_pols = [json.loads(x["policies"]) for x in rows if x["varied"] == "pairings"]
    assert {"good": "random", "evil": "greedy"} not in pair_pols
    cells = js["verdict"]["pairings"]["cells"]
    assert len(cells) == 4, [c["policies"] for c in cells]
    c = [c for c in cells if c["policies"] == {"good": "random", "evil": "greedy"}]
    assert len(c) == 1 and c[0]["games"] == grid_cell["games"] and c[0]["rate"] == grid_cell["rate_good"]
    assert "across 4 pairings" in js["verdict"]["pairings"]["text"]
    df = pd.read_parquet(tmp_path / "g" / "results.parquet")
    rws, cols, m = pairing_matrix(df, ["good", "evil"])
    assert set(m) == {(a, b) for a in ("random", "greedy") for b in ("random", "greedy")}
    assert int(m[("random", "greedy")]["point"]) == grid_cell["point"]
    # no double counting: one row per played point, the total is the sum of the rows
    man = json.loads((tmp_path / "g" / "manifest.json").read_text())
    assert man["games_total"] == int(df["games"].sum()) == 1000 * len(df)
    assert len(df) == len(set(df["label"]))
    r = _run_cli(["report", str(tmp_path / "g")])
    assert r.exit_code == 0, r.output
    assert (tmp_path / "g" / "plots" / "pairings.png").is_file()
    # a folder written before the columns: the report reads the rules from the manifest's hashes
    from lotr_sim.reports.build import load_results
    df.drop(columns=["baseline_rules"]).to_parquet(tmp_path / "g" / "results.parquet")
    old, _ = load_results(tmp_path / "g")
    assert set(pairing_matrix(old, ["good", "evil"])[2]) == set(m)


# --- a large grid: said up front, refused above MAX_POINTS unless --yes -------------------

def test_large_grid_is_refused_up_front_without_yes(tmp_path):
    """A grid of 1,111 points (+ the baseline) is refused at once, before any point is
    built or any folder made, saying how many points and games it would play."""
    t0 = time.monotonic()
    r = runner.invoke(app, ["sweep", "-g", "fake", "-q", "--grid", "-p", "strength=0:10", "-p", "delay_ms=0:100",
                            "-n", "50", "-o", str(tmp_path / "big")])
    took = time.monotonic() - t0
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.exit_code == 2 and len(lines) == 1, r.output
    assert "1,112 points" in lines[0] and "55,600 games" in lines[0] and "--yes" in lines[0], lines[0]
    assert not (tmp_path / "big").exists() and took < 5, took


def test_sweep_says_its_points_and_games_first_and_yes_runs_a_large_grid(tmp_path, monkeypatch):
    """Without -q the first line on stderr is the plan (points, games a point, games in all);
    --yes runs a grid above the limit (here lowered to 4 points)."""
    from lotr_sim.experiments import sweep as S
    monkeypatch.setattr(S, "MAX_POINTS", 4)
    args = ["sweep", "-g", "fake", "--grid", "-p", "strength=3,7", "-p", "mode=fair,tilted", "-n", "100"]
    r = runner.invoke(app, args + ["-o", str(tmp_path / "no")])
    assert r.exit_code == 2 and "5 points" in r.stderr and "--yes" in r.stderr, r.output
    r = runner.invoke(app, args + ["--yes", "-o", str(tmp_path / "yes")])
    assert r.exit_code == 0, r.output
    first = [ln for ln in r.stderr.splitlines() if ln.strip()][0]
    assert first.startswith("sweep fake: 5 points") and "100 games each" in first and "500 games" in first, first
    assert (pd.read_parquet(tmp_path / "yes" / "results.parquet")["games"] == 100).all()
