"""Stress the numba cache the way a busy machine does, then check every game warm.

Many ``lotr-sim`` processes (runs, search games, ``tune``; every game; the compile helper on,
as users run it) compile into one fresh ``NUMBA_CACHE_DIR`` at the same time; some are killed at
random moments (SIGKILL, SIGTERM, SIGINT). Afterwards every game is run warm from that cache
(the command that crashed, a tuned run, a search game, a traced ``play``) and its output is
compared with the same commands run from a cache no other process touched. A crash (a negative
exit code, 139 from a shell) or a different output is a failure.

    python benchmarks/cache_stress.py --rounds 3 --workers 6 --out /tmp/stress

Prints one line per finished job and a summary; exits 1 on any crash or difference. It writes
nothing outside ``--out``.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

GAMES = ("minas-tirith", "lotr-risk", "the-search")


def _seat_args(game: str, player: str) -> list[str]:
    if game == "the-search":
        return ["--policy", f"frodo={player}", "--policy", f"sam={player}"]
    return ["--good", player, "--evil", player]


def stress_jobs(tmp: Path) -> list[list[str]]:
    """The commands the concurrent processes pick from: every game, every kind of entry point."""
    jobs = []
    for g in GAMES:
        jobs += [["run", "-g", g, "-n", "200", "-s", "1", "-q"],
                 ["run", "-g", g, "-n", "200", "-s", "2", "-q", *_seat_args(g, "tuned")],
                 ["run", "-g", g, "-n", "20", "-s", "11", "-j", "1", "-q"],
                 ["play", "-g", g, "-s", "3", "-q", *(["--policy", "frodo=search"] if g == "the-search"
                                                       else ["--good", "search"])],
                 ["run", "-g", g, "-n", "4", "-s", "5", "-q", *(["--policy", "sam=search-fast"]
                                                                if g == "the-search" else ["--evil", "search-fast"])],
                 ["tune", "-g", g, "-G", "1", "-n", "10", "--final-games", "20", "--popsize", "4",
                  "--out", str(tmp / f"tune-{g}-{{n}}")]]
    return jobs


def check_jobs() -> list[list[str]]:
    """The warm commands whose output must match a clean cache's."""
    out = []
    for g in GAMES:
        out += [["run", "-g", g, "-n", "20", "-s", "11", "-j", "1", "--json"],
                ["run", "-g", g, "-n", "300", "-s", "7", "--json", *_seat_args(g, "tuned")],
                ["play", "-g", g, "-s", "3", "-q", *(["--policy", "frodo=search"] if g == "the-search"
                                                       else ["--good", "search"])],
                ["play", "-g", g, "-s", "4"]]
    return out


def _env(cache: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["NUMBA_CACHE_DIR"] = str(cache)
    env.pop("LOTR_SIM_COMPILE_HELPER", None)      # the helper on, as a user runs it
    return env


def _exe() -> str:
    return str(Path(sys.executable).with_name("lotr-sim"))


def run_checks(cache: Path, label: str) -> list[tuple[list[str], int, str]]:
    """Each check job once, in order, from ``cache``: (command, exit code, stdout)."""
    res = []
    for cmd in check_jobs():
        t0 = time.time()
        p = subprocess.run([_exe(), *cmd], env=_env(cache), capture_output=True, text=True)
        print(f"[{label}] exit {p.returncode:4d} {time.time() - t0:6.1f}s  {' '.join(cmd)}", flush=True)
        if p.returncode != 0:
            print("   stderr:", p.stderr.strip().splitlines()[-3:] if p.stderr.strip() else "", flush=True)
        res.append((cmd, p.returncode, _normalise(p.stdout)))
    return res


def _normalise(out: str) -> str:
    """Drop what legitimately differs between runs (timings, speeds)."""
    try:
        d = json.loads(out)
    except ValueError:
        return out
    for k in ("elapsed_s", "games_per_second", "started", "finished"):
        d.pop(k, None)
    return json.dumps(d, sort_keys=True)


def stress(cache: Path, tmp: Path, rounds: int, workers: int, kill_share: float,
           max_kill_after: float, rng: random.Random) -> dict[str, int]:
    """``rounds`` waves of ``workers`` concurrent jobs into ``cache``; returns counts."""
    counts = {"jobs": 0, "killed": 0, "crashed": 0, "failed": 0}
    jobs = stress_jobs(tmp)
    n = 0
    for r in range(rounds):
        procs = []
        for _ in range(workers):
            cmd = [a.replace("{n}", str(n)) for a in rng.choice(jobs)]
            n += 1
            kill_at = time.time() + rng.uniform(0.5, max_kill_after) if rng.random() < kill_share else None
            sig = rng.choice([signal.SIGKILL, signal.SIGTERM, signal.SIGINT])
            p = subprocess.Popen([_exe(), *cmd], env=_env(cache), stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE, text=True, start_new_session=True)
            procs.append([p, cmd, kill_at, sig, False])
        while any(x[0].poll() is None for x in procs):
            now = time.time()
            for x in procs:
                p, cmd, kill_at, sig, done = x
                if p.poll() is None and kill_at is not None and now >= kill_at and not done:
                    try:
                        os.killpg(p.pid, sig)        # the helper goes with its main process
                    except ProcessLookupError:
                        pass
                    x[4] = True
            time.sleep(0.1)
        for p, cmd, kill_at, sig, killed in procs:
            counts["jobs"] += 1
            err = p.stderr.read() if p.stderr else ""
            rc = p.returncode
            if killed:
                counts["killed"] += 1
                what = f"killed ({signal.Signals(sig).name})"
            elif rc < 0 or rc == 139:
                counts["crashed"] += 1
                what = "CRASHED"
            elif rc != 0:
                counts["failed"] += 1
                what = "failed"
            else:
                what = "ok"
            print(f"[round {r}] exit {rc:4d} {what:16s} {' '.join(cmd)}", flush=True)
            if what in ("CRASHED", "failed"):
                print("   stderr:", err.strip().splitlines()[-3:], flush=True)
    return counts


def check_cache(root: Path) -> dict[str, int]:
    """Every index entry of a cache folder against its data file: how many indexes, how many
    hold more than one signature, and how many entries name a data file that is missing or
    holds another signature (or that another entry names too)."""
    import collections
    import pickle

    n = {"indexes": 0, "multi_signature": 0, "wrong_data": 0, "missing_data": 0}
    for idx in Path(root).rglob("*.nbi"):
        n["indexes"] += 1
        with open(idx, "rb") as f:
            pickle.load(f)                       # numba's version
            _, overloads = pickle.loads(f.read())
        n["multi_signature"] += len(overloads) > 1
        names = collections.Counter(overloads.values())
        for key, name in overloads.items():
            try:
                payload = pickle.loads((idx.parent / name).read_bytes())
            except FileNotFoundError:
                n["missing_data"] += 1
                continue
            if tuple(payload[3].args) != tuple(key[0]) or names[name] > 1:
                n["wrong_data"] += 1
    return n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--workers", type=int, default=6)
    ap.add_argument("--kill-share", type=float, default=0.4, help="share of jobs killed")
    ap.add_argument("--max-kill-after", type=float, default=60.0, help="seconds")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--reference", type=Path, help="a clean cache folder to reuse (else built in --out)")
    a = ap.parse_args(argv)
    rng = random.Random(a.seed)
    a.out.mkdir(parents=True, exist_ok=True)
    cache, tmp = a.out / "stressed-cache", a.out / "tmp"
    shutil.rmtree(cache, ignore_errors=True)
    tmp.mkdir(exist_ok=True)
    t0 = time.time()
    counts = stress(cache, tmp, a.rounds, a.workers, a.kill_share, a.max_kill_after, rng)
    print(f"stress: {counts} in {time.time() - t0:.0f} s", flush=True)
    entries = check_cache(cache)
    print(f"cache entries: {entries}", flush=True)
    warm = run_checks(cache, "stressed")
    ref = run_checks(a.reference or (a.out / "clean-cache"), "clean")
    bad = 0
    for (cmd, rc, out), (_, rc0, out0) in zip(warm, ref):
        if rc != rc0 or out != out0:
            bad += 1
            print(f"DIFFERENT: {' '.join(cmd)}: exit {rc} (clean {rc0})", flush=True)
    crashed = counts["crashed"] + sum(rc < 0 or rc == 139 for _, rc, _ in warm)
    print(f"summary: {counts['jobs']} stress jobs ({counts['killed']} killed, {counts['crashed']} crashed, "
          f"{counts['failed']} failed); warm checks: {len(warm)} run, {bad} different, "
          f"{sum(rc < 0 for _, rc, _ in warm)} crashed", flush=True)
    return 1 if bad or crashed or entries["wrong_data"] else 0


if __name__ == "__main__":
    sys.exit(main())
