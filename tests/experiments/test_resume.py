"""Reliability: a sweep SIGKILLed mid-run and resumed with --resume ends with exactly the
result of an uninterrupted run (nothing lost, nothing counted twice)."""
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from lotr_sim import api

HERE = Path(__file__).resolve().parent
CLI = [sys.executable, str(HERE / "fake_cli.py")]
ARGS = ["sweep", "-g", "fake", "-q", "-p", "strength=3,7", "-p", "good=random", "-n", "2000",
        "--chunk", "200", "--set", "delay_ms=100", "-s", "9"]


def _drop_volatile(df):
    return df.reset_index(drop=True)


def _kill_after_six_chunks(args, out: Path) -> int:
    """Start ``lotr-sim ARGS -o OUT`` (the fake game's CLI), SIGKILL it once six chunk files
    are on disk, and return how many there were."""
    p = subprocess.Popen(CLI + args + ["-o", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    chunks = out / "chunks"
    deadline = time.time() + 60
    while time.time() < deadline and not (chunks.is_dir() and len(list(chunks.glob("p*.parquet"))) >= 6):
        if p.poll() is not None:
            raise AssertionError(f"sweep ended early: {p.stderr.read().decode()}")
        time.sleep(0.05)
    os.kill(p.pid, signal.SIGKILL)
    p.wait()
    return len(list(chunks.glob("p*.parquet")))


@pytest.mark.slow
def test_sigkill_then_resume_equals_uninterrupted(tmp_path, fake):
    out = tmp_path / "killed"
    n_before = _kill_after_six_chunks(ARGS, out)
    chunks = out / "chunks"
    assert 6 <= n_before < 40, n_before           # really interrupted: 4 points x 10 chunks
    assert not (out / "results.parquet").exists()
    r = subprocess.run(CLI + ["sweep", "-q", "--resume", str(out)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert len(list(chunks.glob("p*.parquet"))) == 40
    assert not list(chunks.glob(".tmp-*"))
    # the uninterrupted reference run
    ref = api.sweep(fake, params=["strength=3,7", "good=random"], games=2000, chunk=200,
                    sets=["delay_ms=100"], seed=9, out=tmp_path / "ref", report=False)
    got = pd.read_parquet(out / "results.parquet")
    pd.testing.assert_frame_equal(_drop_volatile(got), _drop_volatile(ref.results))
    assert (got["games"] == 2000).all()


@pytest.mark.slow
def test_precision_sweep_resume_replays_batches(tmp_path, fake):
    """With --precision the batch targets depend on the games already played; a resumed
    sweep (here: chunk files removed as if the run died) replays the same decisions."""
    kw = dict(params=["strength=0,9"], precision=0.015, chunk=300, seed=3, report=False)
    ref = api.sweep(fake, out=tmp_path / "ref", **kw)
    assert ref.results["games"].nunique() > 1          # the points stopped at different sizes
    out = tmp_path / "cut"
    api.sweep(fake, out=out, **kw)
    files = sorted((out / "chunks").glob("p*.parquet"))
    for f in files[len(files) // 3:]:
        f.unlink()
    (out / "results.parquet").unlink()
    (out / "chunks" / ".tmp-leftover.parquet").write_bytes(b"partial")
    res = api.sweep(fake, resume=out)
    pd.testing.assert_frame_equal(res.results, ref.results)
    assert len(list((out / "chunks").glob("p*.parquet"))) == len(files)
    assert not list((out / "chunks").glob(".tmp-*"))


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.mark.slow
@pytest.mark.parametrize("sig, code, first", [("SIGINT", 130, "interrupted"),
                                              ("SIGTERM", 143, "terminated (SIGTERM): interrupted")])
def test_ctrl_c_keeps_finished_chunks_and_says_how_to_resume(tmp_path, fake, sig, code, first):
    """Ctrl-C (SIGINT), or SIGTERM alike, ends a sweep with one line naming the resume
    command, exit 130 (143), the finished chunks kept and the manifest marked interrupted."""
    import json

    out = tmp_path / "int"
    # a Ctrl-C reaches the run as it would from a terminal even when this test runs in a
    # background job (which starts with SIGINT ignored, and then Python never installs its handler)
    p = subprocess.Popen(CLI + ARGS + ["-o", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         preexec_fn=_default_sigint)
    chunks = out / "chunks"
    deadline = time.time() + 60
    while time.time() < deadline and not (chunks.is_dir() and len(list(chunks.glob("p*.parquet"))) >= 3):
        assert p.poll() is None, p.stderr.read().decode()
        time.sleep(0.05)
    os.kill(p.pid, getattr(signal, sig))
    err = p.communicate(timeout=60)[1].decode()
    assert p.returncode == code, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    assert lines[-1].startswith(f"lotr-sim: error: {first}") and f"--resume {out}" in lines[-1]
    assert "Traceback" not in err
    assert json.loads((out / "manifest.json").read_text())["status"] == "interrupted"
    kept = len(list(chunks.glob("p*.parquet")))
    assert 3 <= kept < 40
    r = subprocess.run(CLI + ["sweep", "-q", "--resume", str(out)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert len(list(chunks.glob("p*.parquet"))) == 40


def _count_games(monkeypatch):
    """Count the games the fake game plays (every simulate call, any caller)."""
    import fakegame
    played = []
    orig = fakegame.FakeGame.simulate

    def sim(self, compiled, policies, seed, first, n, threads=None):
        played.append(n)
        return orig(self, compiled, policies, seed, first, n, threads)
    monkeypatch.setattr(fakegame.FakeGame, "simulate", sim)
    return played


@pytest.mark.slow
def test_resume_of_a_finished_sweep_replays_no_game(tmp_path, fake, monkeypatch):
    """--resume on a finished sweep must not re-run finished chunks (a mutation that made
    it re-run 5,400 of 6,000 games kept the answer right and went unnoticed)."""
    played = _count_games(monkeypatch)
    out = tmp_path / "done"
    ref = api.sweep(fake, params=["strength=3,7"], games=2000, chunk=200, seed=9, out=out, report=False)
    assert sum(played) == 6000
    played.clear()
    res = api.sweep(fake, resume=out, report=False)
    assert played == []
    pd.testing.assert_frame_equal(res.results, ref.results)
    # the CLI path, options repeated or not
    from typer.testing import CliRunner
    from lotr_sim.cli.main import app
    for args in (["sweep", "-q", "--resume", str(out)],
                 ["sweep", "-g", "fake", "-q", "-p", "strength=3,7", "-n", "2000", "--chunk", "200", "-s", "9",
                  "--resume", str(out)]):
        r = CliRunner().invoke(app, args)
        assert r.exit_code == 0, r.output
        assert played == [], args
        assert "0 games in" in r.stdout


@pytest.mark.slow
def test_resume_of_a_finished_precision_sweep_replays_no_game(tmp_path, fake, monkeypatch):
    played = _count_games(monkeypatch)
    kw = dict(params=["strength=0,9"], precision=0.015, chunk=300, seed=3, report=False)
    ref = api.sweep(fake, out=tmp_path / "p", **kw)
    assert ref.results["games"].nunique() > 1
    played.clear()
    res = api.sweep(fake, resume=tmp_path / "p")
    assert played == []
    pd.testing.assert_frame_equal(res.results, ref.results)


@pytest.mark.slow
@pytest.mark.parametrize("die_after", [5, 14])
def test_paired_sweep_interrupted_mid_batch_resumes_to_the_same_rows(tmp_path, fake, monkeypatch, die_after):
    """The paired mode (the default sweep's): its later batches depend on the earlier ones'
    winners; a run stopped after 5 chunk files (inside its first batch) or 14 (inside its
    second) and resumed replays the same batches and ends with the rows of an uninterrupted
    run, playing only the games that were missing."""
    from lotr_sim.errors import Interrupted
    from lotr_sim.experiments.store import Store

    kw = dict(params=["edge=0.002", "strength=3,7"], paired_precision=0.015, pairings=True, chunk=400,
              seed=8, report=False)
    played = _count_games(monkeypatch)
    ref = api.sweep(fake, out=tmp_path / "ref", **kw)
    total = sum(played)
    assert total == sum(ref.manifest["games"].values())
    first_batch = 4 * 600 + 3 * 200      # baseline and levers 600 games each, pairings 200 (11 files)
    assert ref.results["games"].nunique() > 2 and total > first_batch + 2000
    orig = Store.write_chunk
    writes = []

    def dying(self, point, first, n, cols):
        if len(writes) == die_after:
            raise KeyboardInterrupt
        writes.append(n)
        orig(self, point, first, n, cols)
    monkeypatch.setattr(Store, "write_chunk", dying)
    with pytest.raises(Interrupted, match="--resume"):
        api.sweep(fake, out=tmp_path / "cut", **kw)
    monkeypatch.setattr(Store, "write_chunk", orig)
    assert (sum(writes) < first_batch) == (die_after == 5)
    played.clear()
    res = api.sweep(fake, resume=tmp_path / "cut", report=False)
    pd.testing.assert_frame_equal(res.results, ref.results)
    assert res.manifest["games"] == ref.manifest["games"]
    assert res.manifest["precision"] == ref.manifest["precision"]
    assert sum(played) == total - sum(writes)            # nothing played twice


@pytest.mark.slow
def test_paired_sweep_sigkilled_then_resumed_equals_uninterrupted(tmp_path, fake):
    """The paired mode through the CLI: SIGKILL after a few chunk files, --resume, and the
    rows, games and half-widths of an uninterrupted run."""
    import json
    args = ["sweep", "-g", "fake", "-q", "-p", "strength=3,7", "-p", "edge=0.002", "--paired-precision", "0.02",
            "--chunk", "200", "--set", "delay_ms=100", "-s", "9"]
    out = tmp_path / "killed"
    n_before = _kill_after_six_chunks(args, out)
    chunks = out / "chunks"
    assert not (out / "results.parquet").exists()
    r = subprocess.run(CLI + ["sweep", "-q", "--resume", str(out)], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    ref = api.sweep(fake, params=["strength=3,7", "edge=0.002"], paired_precision=0.02, chunk=200,
                    sets=["delay_ms=100"], seed=9, out=tmp_path / "ref", report=False)
    got = pd.read_parquet(out / "results.parquet")
    pd.testing.assert_frame_equal(got, ref.results)
    m = json.loads((out / "manifest.json").read_text())
    assert m["games"] == ref.manifest["games"] and m["precision"] == ref.manifest["precision"]
    n = len(list(chunks.glob("p*.parquet")))
    assert n == len(list((tmp_path / "ref" / "chunks").glob("p*.parquet"))) > n_before >= 6   # really cut


@pytest.mark.slow
def test_two_resumes_at_once_the_second_is_refused_naming_the_first(tmp_path, fake):
    """Two `sweep --resume DIR` at once: the second is refused with one line naming the
    process that holds the folder (it used to delete the first one's temp files: a
    FileNotFoundError); the lock a SIGKILLed sweep leaves behind is taken over, and the
    resumed sweep ends with the rows of an uninterrupted run."""
    from typer.testing import CliRunner

    from lotr_sim.cli.main import app
    from lotr_sim.experiments.store import LOCK
    out = tmp_path / "killed"
    _kill_after_six_chunks(ARGS, out)
    chunks = out / "chunks"
    p = subprocess.Popen(CLI + ["sweep", "-q", "--resume", str(out)], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    lock = out / LOCK
    deadline = time.time() + 60
    while time.time() < deadline:          # the resumed sweep holds the folder and plays
        assert p.poll() is None, p.stderr.read().decode()
        try:
            if json.loads(lock.read_text()).get("pid") == p.pid:
                break
        except (OSError, ValueError):
            pass
        time.sleep(0.05)
    n0 = len(list(chunks.glob("p*.parquet")))
    r = CliRunner().invoke(app, ["sweep", "-q", "--resume", str(out)])
    assert p.poll() is None                # the first was still running
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert r.exit_code == 2 and len(lines) == 1, r.output
    assert lines[0].startswith("lotr-sim: error: ") and "in use by another lotr-sim process" in lines[0]
    assert f"pid {p.pid}" in lines[0] and "Traceback" not in r.output
    assert p.wait(timeout=120) == 0, p.stderr.read().decode()
    assert len(list(chunks.glob("p*.parquet"))) == 40 > n0
    assert not lock.exists()
    ref = api.sweep(fake, params=["strength=3,7", "good=random"], games=2000, chunk=200,
                    sets=["delay_ms=100"], seed=9, out=tmp_path / "ref", report=False)
    pd.testing.assert_frame_equal(pd.read_parquet(out / "results.parquet"), ref.results)


def test_folder_lock_refuses_a_second_holder_and_is_taken_over_after_release(tmp_path):
    from lotr_sim.errors import LotrSimError
    from lotr_sim.experiments.store import LOCK, folder_lock
    with folder_lock(tmp_path, "sweep"):
        info = json.loads((tmp_path / LOCK).read_text())
        assert info["pid"] == os.getpid() and info["what"] == "sweep"
        with pytest.raises(LotrSimError, match=f"in use by another lotr-sim process \\(sweep, pid {os.getpid()}"):
            with folder_lock(tmp_path, "tune"):
                pass
    assert not (tmp_path / LOCK).exists()
    (tmp_path / LOCK).write_text('{"pid": 999999999}')     # left by a killed process: no flock held
    with folder_lock(tmp_path, "run"):
        assert json.loads((tmp_path / LOCK).read_text())["pid"] == os.getpid()
