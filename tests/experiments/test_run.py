"""`lotr-sim run` and api.run_games against the fake game (exact win rates known)."""
import json
import math

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from fakegame import win_probability
from lotr_sim import api
from lotr_sim.cli.main import app

runner = CliRunner()


def z(k, n, p):
    return (k - n * p) / math.sqrt(n * p * (1 - p))


@pytest.mark.parametrize("sets,pol", [({}, {}), ({"strength": 2}, {}), ({"mode": "tilted", "bonus": True},
                                                                       {"good": "random"})])
def test_run_win_rates_match_exact(fake, sets, pol):
    n = 20000
    r = api.run_games(fake, games=n, seed=11, sets=sets, policies=pol)
    cfg = fake.load(None, sets)
    pg, pd_ = win_probability(cfg.params, fake.check_policies(pol))
    s = r.summary
    assert s["games"] == n and sum(s["wins"].values()) == n
    assert abs(z(s["wins"]["good"], n, pg)) < 4
    assert abs(z(s["wins"]["draw"], n, pd_)) < 4
    lo, hi = s["good_ci95"]
    assert lo < s["good_win_rate"] < hi
    assert abs(s["rounds_mean"] - 10.5) < 4 * 5.77 / math.sqrt(n)
    assert sum(s["reasons"].values()) == n


def test_run_identical_for_any_chunking_and_threads(fake):
    from lotr_sim.experiments.run import run_games
    a = run_games(fake, 5000, seed=3, chunk=5000).games
    b = run_games(fake, 5000, seed=3, chunk=777, threads=1).games
    pd.testing.assert_frame_equal(a, b)


def test_cli_run_json_out_and_trace(tmp_path):
    out = tmp_path / "o"
    tr = tmp_path / "t.jsonl"
    res = runner.invoke(app, ["run", "-g", "fake", "-n", "300", "-s", "2", "--json", "-o", str(out),
                              "--trace", str(tr), "--set", "strength=6", "--good", "random"])
    assert res.exit_code == 0, res.output
    s = json.loads(res.stdout)
    for key in ("games", "wins", "good_win_rate", "good_ci95", "reasons", "rounds_mean"):
        assert key in s
    assert s["games"] == 300 and set(s["wins"]) == {"good", "evil", "draw"}
    assert s["policies"]["good"] == "random" and s["params"]["strength"] == 6
    g = pd.read_parquet(out / "games.parquet")
    assert len(g) == 300 and (g["game"].to_numpy() == np.arange(300)).all()
    assert int((g["winner"] == 0).sum()) == s["wins"]["good"]
    assert json.loads((out / "summary.json").read_text())["wins"] == s["wins"]
    lines = [json.loads(x) for x in tr.read_text().splitlines()]
    ends = [e for e in lines if e["event"] == "game_end"]
    assert len(ends) == 300 and sum(e["winner"] == "good" for e in ends) == s["wins"]["good"]


def test_cli_run_table(tmp_path):
    res = runner.invoke(app, ["run", "-g", "fake", "-n", "500", "-q"])
    assert res.exit_code == 0, res.output
    assert "good" in res.stdout and "95% Wilson" in res.stdout and "rounds: mean" in res.stdout


@pytest.mark.parametrize("args,msg", [
    (["--set", "strenght=3"], "did you mean 'strength'"),
    (["--set", "strength=11"], "outside the allowed"),
    (["--set", "mode=wobbly"], "is not one of fair|tilted"),
    (["--good", "clever"], "unknown policy"),
    (["-n", "0"], "at least 1"),
])
def test_cli_run_bad_input_one_line(args, msg):
    res = runner.invoke(app, ["run", "-g", "fake", "-n", "10", "-q"] + args)
    assert res.exit_code == 2
    err = res.stderr.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("lotr-sim: error:") and msg in err[0], res.stderr
    assert "Traceback" not in res.output


def test_cli_run_unwritable_out(tmp_path):
    f = tmp_path / "afile"
    f.write_text("x")
    res = runner.invoke(app, ["run", "-g", "fake", "-n", "10", "-q", "-o", str(f / "sub")])
    assert res.exit_code == 2 and "cannot write to output folder" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1


def _stop_run(tmp_path, sig, after: float, delay_ms: int = 1000):
    """Start ``run -g fake -n 20000 -o OUT`` (chunks of 1000 games, one a ``delay_ms``),
    send ``sig`` ``after`` seconds after its games start, and return (exit code, stderr's
    last line, OUT)."""
    import os
    import signal
    import subprocess
    import sys
    import time
    from pathlib import Path

    cli = [sys.executable, str(Path(__file__).resolve().parent / "fake_cli.py")]
    out = tmp_path / "run"
    p = subprocess.Popen(cli + ["run", "-g", "fake", "-n", "20000", "--set", f"delay_ms={delay_ms}", "-o", str(out)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         # SIGINT as from a terminal, even when the suite runs in a background job
                         # (started with SIGINT ignored: Python then installs no handler)
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    # games.parquet is written into a temp file that appears when the games start (after
    # start-up and the engine's warm-up, whose length depends on the machine's load): from
    # then on a 1000-game chunk ends every delay_ms
    t_end = time.monotonic() + 120
    while not list(out.glob(".tmp-games-*")) and time.monotonic() < t_end and p.poll() is None:
        time.sleep(0.05)
    time.sleep(after)
    os.kill(p.pid, sig)
    err = p.communicate(timeout=60)[1].decode()
    assert "Traceback" not in err, err
    return p.returncode, [ln for ln in err.splitlines() if ln.strip()][-1], out


@pytest.mark.slow
@pytest.mark.parametrize("sig, code, words", [("SIGINT", 130, "interrupted after"),
                                              ("SIGTERM", 143, "terminated (SIGTERM): interrupted after")])
def test_stopped_run_with_out_saves_finished_games_marked_incomplete(tmp_path, sig, code, words):
    """A run stopped by Ctrl-C, or by SIGTERM (a job scheduler, ``kill``) alike, keeps the
    finished games when --out is given, with a summary marked incomplete (never presented
    as complete), and exits non-zero (130, 143) with one line saying what was kept."""
    import json
    import signal

    import pandas as pd

    rc, last, out = _stop_run(tmp_path, getattr(signal, sig), after=3)
    assert rc == code, last
    assert last.startswith(f"lotr-sim: error: {words}") and "marked incomplete" in last and str(out) in last
    s = json.loads((out / "summary.json").read_text())
    assert s["complete"] is False and 0 < s["games"] < 20000 and s["games_requested"] == 20000
    g = pd.read_parquet(out / "games.parquet")
    assert len(g) == s["games"] and (g["game"].to_numpy() == range(len(g))).all()
    assert not list(out.glob(".tmp-*"))


@pytest.mark.slow
def test_ctrl_c_before_the_first_chunk_with_out_says_nothing_was_saved_there(tmp_path):
    """Stopped before any chunk finished: the line says nothing was saved in OUT (not 'use
    --out DIR', which was given), and no temp file is left."""
    import signal
    rc, last, out = _stop_run(tmp_path, signal.SIGINT, after=0.3, delay_ms=5000)
    assert rc == 130, last
    assert "use --out" not in last and f"nothing saved in {out}" in last, last
    assert not list(out.glob(".tmp-*")) and not (out / "games.parquet").exists()


# --- memory-bounded runs, games frames (§4), notebook progress (§4) -------------

def test_games_frame_winner_and_reason_are_named_categoricals(fake):
    r = api.run_games(fake, games=500, seed=4)
    g = r.games
    assert isinstance(g["winner"].dtype, pd.CategoricalDtype)
    assert list(g["winner"].cat.categories) == list(fake.outcomes)
    assert list(g["reason"].cat.categories) == list(fake.reasons)
    assert int((g["winner"] == "good").sum()) == r.summary["wins"]["good"]
    assert g["reason"].value_counts().to_dict() == r.summary["reasons"]


def test_summary_and_parquet_independent_of_chunking(fake, tmp_path):
    """Chunks folded into a Tally and written to games.parquet one by one: the same summary
    and the same file rows whatever the chunk size (and row groups split inside a chunk)."""
    from lotr_sim.experiments import run as R
    a = R.run_games(fake, 7000, seed=9, out=tmp_path / "a", chunk=7000)
    old = R.ROW_GROUP
    R.ROW_GROUP = 1500
    try:
        b = R.run_games(fake, 7000, seed=9, out=tmp_path / "b", chunk=613, keep_games=False)
    finally:
        R.ROW_GROUP = old
    drop = ("elapsed_s", "games_per_second", "started", "finished")
    assert {k: v for k, v in a.summary.items() if k not in drop} == \
        {k: v for k, v in b.summary.items() if k not in drop}
    assert b.games is None
    ga, gb = pd.read_parquet(tmp_path / "a" / "games.parquet"), pd.read_parquet(tmp_path / "b" / "games.parquet")
    pd.testing.assert_frame_equal(ga, gb)
    assert (gb["game"].to_numpy() == np.arange(7000)).all()
    assert list(gb["winner_label"].cat.categories) == list(fake.outcomes)
    import pyarrow.parquet as pq
    assert pq.ParquetFile(tmp_path / "b" / "games.parquet").num_row_groups >= 4
    # the frame of the API is the file's rows with labelled categories
    assert (a.games["winner"].cat.codes.to_numpy() == ga["winner"].to_numpy()).all()


def test_run_keeps_no_per_game_rows_beyond_the_limit(fake, monkeypatch):
    from lotr_sim.experiments import run as R
    monkeypatch.setattr(R, "KEEP_GAMES_MAX", 999)
    assert R.run_games(fake, 1000, seed=1).games is None
    assert len(R.run_games(fake, 999, seed=1).games) == 999
    assert len(R.run_games(fake, 1000, seed=1, keep_games=True).games) == 1000


def test_run_tasks_are_generated_lazily(fake, monkeypatch):
    """A billion-game run must not build its list of chunks up front."""
    from lotr_sim.experiments import backends
    from lotr_sim.experiments import run as R
    seen = {}

    def run(self, game, compiled, policies, seed, tasks, keep, on_done):
        seen["type"] = type(tasks)
        for t in tasks:
            on_done(t, game.simulate(compiled[t[0]], policies[t[0]], seed, t[1], t[2], 1))
    monkeypatch.setattr(backends.LocalBackend, "run", run)
    r = R.run_games(fake, 3000, seed=2, chunk=1000)
    assert r.summary["games"] == 3000 and seen["type"] is not list
    assert list(R.iter_split(10**15 - 5, 5, 50_000)) == [(10**15 - 5, 5)]


def test_notebook_progress_is_plain_lines_without_widgets(monkeypatch, capsys):
    from lotr_sim.experiments import progress as P
    assert not P.in_notebook()          # under pytest: a terminal-less process
    monkeypatch.setattr(P, "in_notebook", lambda: True)
    bar = P.make_progress(True, "fake", 1000)
    assert isinstance(bar, P.PlainProgress)
    bar._every = 0.0
    with bar:
        bar.advance(400)
        bar.advance(600)
    err = capsys.readouterr().err.splitlines()
    assert err[0].startswith("fake: 400/1,000 (40%)") and "ETA" in err[0]
    assert err[-1].startswith("fake: 1,000/1,000 (100%)")
    assert isinstance(P.make_progress(False, "x", 1), P.NullProgress)
    monkeypatch.setattr(P, "in_notebook", lambda: False)
    assert isinstance(P.make_progress(True, "x", 1), P.RichProgress)


def test_in_notebook_detects_a_jupyter_kernel(monkeypatch):
    import sys
    import types

    from lotr_sim.experiments import progress as P

    class ZMQInteractiveShell:
        pass

    class TerminalInteractiveShell:
        pass
    fake_ipython = types.SimpleNamespace(get_ipython=lambda: ZMQInteractiveShell())
    monkeypatch.setitem(sys.modules, "IPython", fake_ipython)
    assert P.in_notebook()
    fake_ipython.get_ipython = lambda: TerminalInteractiveShell()
    assert not P.in_notebook()
    fake_ipython.get_ipython = lambda: None
    assert not P.in_notebook()


# --- the numba cache: an unusable NUMBA_CACHE_DIR, and compile time kept out of the rate ----

@pytest.mark.parametrize("what", ["file", "under_a_file"])
def test_numba_cache_dir_that_is_no_folder_is_one_warning(tmp_path, what):
    """NUMBA_CACHE_DIR naming a file (or a path through one): one warning line naming the
    variable (numba silently caches elsewhere, or not at all), and the command still runs."""
    import os
    import subprocess
    import sys
    from pathlib import Path
    f = tmp_path / "afile"
    f.write_text("x")
    bad = f if what == "file" else f / "cache"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(bad))
    cli = [sys.executable, str(Path(__file__).resolve().parent / "fake_cli.py")]
    p = subprocess.run(cli + ["run", "-g", "fake", "-n", "100", "-q", "--json"], capture_output=True, text=True,
                       env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    lines = [ln for ln in p.stderr.splitlines() if ln.strip() and not ln.startswith("lotr-sim: compiling")]
    assert len(lines) == 1 and lines[0].startswith("lotr-sim: warning: NUMBA_CACHE_DIR="), p.stderr
    assert str(bad) in lines[0] and "a file" in lines[0]
    assert json.loads(p.stdout)["games"] == 100


def test_run_rate_excludes_the_first_call_compile_also_when_quiet(fake, monkeypatch):
    """The first call of a game's engine compiles it (a minute on a cold cache); the rate a
    run reports is of the games alone, with or without a progress display (-q, --json)."""
    import time

    import fakegame
    orig = fakegame.FakeGame.simulate
    first = []

    def sim(self, *a, **k):
        if not first:
            first.append(1)
            time.sleep(1.5)               # the first call: a compile
        return orig(self, *a, **k)
    monkeypatch.setattr(fakegame.FakeGame, "simulate", sim)
    s = api.run_games(fake, games=2000, seed=1, progress=False).summary
    assert s["elapsed_s"] < 1.0, s["elapsed_s"]
