"""Dask backend: results bit-identical to the local run with the same seed, and a worker
killed mid-sweep does not change the result (Dask re-runs its tasks)."""
import os
import signal
import threading
import time

import numpy as np
import pandas as pd
import pytest

from lotr_sim import api

PARAMS = ["strength=2,8", "mode=tilted"]


@pytest.fixture(scope="module")
def cluster():
    from distributed import LocalCluster
    c = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
    yield c
    c.close()


@pytest.mark.slow
def test_local_cluster_bit_identical_to_local(fake, tmp_path):
    local = api.sweep(fake, params=PARAMS, games=3000, chunk=1000, seed=5, out=tmp_path / "l", report=False)
    dask = api.sweep(fake, params=PARAMS, games=3000, chunk=1000, seed=5, out=tmp_path / "d", report=False,
                     cluster="local", workers=2, save_games=True)
    pd.testing.assert_frame_equal(local.results, dask.results)
    g = pd.read_parquet(tmp_path / "d" / "games.parquet")
    assert len(g) == 4 * 3000 and "lost_good_infantry" in g  # all columns came back from workers


@pytest.mark.slow
def test_worker_killed_mid_sweep_same_result(fake, tmp_path, cluster):
    kw = dict(params=PARAMS, games=2000, chunk=200, seed=6, sets=["delay_ms=150"], report=False)
    box = {}

    def go():
        try:
            box["res"] = api.sweep(fake, out=tmp_path / "k", scheduler=cluster.scheduler_address, **kw)
        except BaseException as e:  # pragma: no cover - reported below
            box["err"] = e

    t = threading.Thread(target=go)
    t.start()
    chunks = tmp_path / "k" / "chunks"
    deadline = time.time() + 60
    while time.time() < deadline and not (chunks.is_dir() and len(list(chunks.glob("p*.parquet"))) >= 4):
        time.sleep(0.05)
    nanny = next(iter(cluster.workers.values()))
    os.kill(nanny.process.process.pid, signal.SIGKILL)
    killed_at = len(list(chunks.glob("p*.parquet")))
    t.join(120)
    assert not t.is_alive()
    assert "err" not in box, box.get("err")
    assert killed_at < 30
    ref = api.sweep(fake, out=tmp_path / "ref", **kw)
    pd.testing.assert_frame_equal(box["res"].results, ref.results)


@pytest.mark.slow
def test_dask_submits_a_bounded_window_of_tasks(fake, cluster, monkeypatch):
    """Tasks are consumed lazily, at most window() in flight: a run of any length holds a
    bounded number of futures; the result equals the local run's, game for game."""
    from lotr_sim.experiments import backends
    from lotr_sim.experiments.run import iter_split, run_games
    monkeypatch.setattr(backends.DaskBackend, "window", lambda self: 3)
    pulled, at_done = [0], []

    def tasks():
        for a, n in iter_split(0, 4000, 250):
            pulled[0] += 1
            yield (0, a, n)

    got = {}

    def on_done(task, cols):
        at_done.append(pulled[0])
        got[task[1]] = cols
    comp = fake.compile(fake.load())
    pol = fake.check_policies(None)
    with backends.DaskBackend(scheduler=cluster.scheduler_address) as be:
        be.run(fake, {0: comp}, {0: pol}, 5, tasks(), None, on_done)
    assert len(got) == 16 and pulled[0] == 16
    # when result k (from 0) is handed over, its slot has been refilled: at most 3 + k + 1
    # tasks have been taken from the generator (all 16 at once before the window existed)
    assert all(p <= 3 + k + 1 for k, p in enumerate(at_done)), at_done
    winners = np.concatenate([got[a]["winner"] for a in sorted(got)])
    local = run_games(fake, 4000, seed=5, chunk=4000).games
    assert (winners == local["winner"].cat.codes.to_numpy()).all()


@pytest.mark.slow
def test_paired_mode_on_dask_same_batches_as_local(fake, tmp_path, cluster):
    """The paired mode's batches depend only on the winners of whole batches, never on which
    Dask task finished first: the same targets and rows as the local run."""
    kw = dict(params=["edge=0.002", "strength=3,7"], paired_precision=0.015, chunk=300, seed=5, report=False)
    local = api.sweep(fake, out=tmp_path / "l", **kw)
    dask = api.sweep(fake, out=tmp_path / "d", scheduler=cluster.scheduler_address, **kw)
    assert local.results["games"].nunique() > 2
    assert dask.manifest["games"] == local.manifest["games"]
    pd.testing.assert_frame_equal(local.results, dask.results)


@pytest.fixture
def silent_and_http_servers():
    """Two local addresses a Dask client can connect to that are no Dask scheduler: a port
    that accepts connections and never answers, and an HTTP server."""
    import socket
    import threading
    from http.server import HTTPServer, SimpleHTTPRequestHandler
    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)                                  # the kernel accepts; nobody ever reads
    http = HTTPServer(("127.0.0.1", 0), SimpleHTTPRequestHandler)
    t = threading.Thread(target=http.serve_forever, daemon=True)
    t.start()
    yield {"silent": silent.getsockname()[1], "http": http.server_address[1]}
    http.shutdown()
    http.server_close()
    silent.close()


@pytest.mark.slow
@pytest.mark.parametrize("server", ["silent", "http"])
def test_a_scheduler_address_that_is_no_scheduler_fails_within_the_timeout(tmp_path, silent_and_http_servers,
                                                                          server):
    """--scheduler at a port that accepts and never answers, or at an HTTP server: one line
    within --connect-timeout (plus start-up), never a hang."""
    import subprocess
    import sys
    from pathlib import Path
    port = silent_and_http_servers[server]
    cli = [sys.executable, str(Path(__file__).resolve().parent / "fake_cli.py")]
    t0 = time.monotonic()
    p = subprocess.run(cli + ["sweep", "-g", "fake", "-q", "-p", "strength=3", "-n", "10", "-o", str(tmp_path / "x"),
                              "--scheduler", f"tcp://127.0.0.1:{port}", "--connect-timeout", "2"],
                       capture_output=True, text=True, timeout=60)
    took = time.monotonic() - t0
    lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
    assert p.returncode == 2 and len(lines) == 1, p.stderr
    assert lines[0].startswith("lotr-sim: error: ") and f"tcp://127.0.0.1:{port}" in lines[0]
    assert "within 2 s" in lines[0]
    assert took < 2 + 15, took                       # the timeout, and the program's start-up
