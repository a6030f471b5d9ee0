"""Benchmarks (speed is shown here, never by timed tests).

``bench_kernels``: 10 v 10 battles fought to the end (classic rules: 11 units in the
attacking territory, one stays home, so all 10 attacking units may be lost) — numba on
one thread, on all threads, the plain-Python twin of the same rules and stream, and a C
reference (``lotr_sim/kernels/battle_ref.c``, compiled at bench time with ``cc -O3
-march=native``) that plays the same battles with the same draws in the same run; a
checksum of every battle's result shows whether C and numba agree bit for bit.
``bench_game``: full games of a registered game, default policies, 1 thread and all.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

#: How the C reference is compiled (the compiler is $CC, else the first of C_COMPILERS found).
C_FLAGS = ("-O3", "-march=native")
C_COMPILERS = ("cc", "gcc", "clang")


def _timed(fn, min_seconds: float) -> tuple[float, int, Any]:
    """Call fn(reps) with growing reps until it takes min_seconds; (seconds, reps, result)."""
    reps = 1
    while True:
        t0 = time.perf_counter()
        res = fn(reps)
        dt = time.perf_counter() - t0
        if dt >= min_seconds:
            return dt, reps, res
        reps *= 2 if dt * 2 >= min_seconds else max(2, int(min_seconds / max(dt, 1e-3)))


def battle_checksum(outcome: np.ndarray, attackers_left: np.ndarray, defenders_left: np.ndarray,
                    rolls: np.ndarray, first: int = 0) -> str:
    """Order-sensitive checksum of battles ``first ..``, as 16 hex digits; the C reference
    computes the same: sum of ``(outcome | a << 8 | d << 24 | rolls << 40) * (2 * index + 1)``
    modulo 2**64, over battle ``index`` with ``a``/``d`` the units left."""
    u = np.uint64
    packed = (outcome.astype(np.uint8).astype(u)
              | (attackers_left.astype(np.uint32).astype(u) << u(8))
              | (defenders_left.astype(np.uint32).astype(u) << u(24))
              | (rolls.astype(np.uint32).astype(u) << u(40)))
    weight = np.arange(len(outcome), dtype=u) * u(2) + u(2 * first + 1)
    return f"{int((packed * weight).sum(dtype=u)):016x}"


def c_reference_source() -> Path:
    """Path of the C reference of the battle kernel (package data)."""
    return Path(__file__).resolve().parent / "kernels" / "battle_ref.c"


def find_c_compiler() -> str | None:
    """``$CC`` if set and found, else the first of ``C_COMPILERS`` on PATH, else None."""
    for name in ((os.environ["CC"],) if os.environ.get("CC") else ()) + C_COMPILERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def build_c_reference(out_dir: str | Path) -> tuple[Path | None, str]:
    """Compile ``battle_ref.c`` into ``out_dir``; returns (executable, command line) or
    (None, why it was skipped)."""
    cc = find_c_compiler()
    if cc is None:
        return None, "no C compiler"
    exe = Path(out_dir) / "battle_ref"
    cmd = [cc, *C_FLAGS, "-o", str(exe), str(c_reference_source())]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, f"{Path(cc).name} failed: {e}"
    if p.returncode != 0 or not exe.exists():
        first = (p.stderr.strip().splitlines() or [f"exit code {p.returncode}"])[0]
        return None, f"{Path(cc).name} {' '.join(C_FLAGS)} failed: {first}"
    return exe, " ".join([Path(cc).name, *C_FLAGS])


def run_c_reference(exe: str | Path, seed: int, first: int, n: int, attackers: int, defenders: int,
                    rules: int, stop_at: int = 0, a_bonus: int = 0, d_bonus: int = 0,
                    good_attacks: bool = True, witch_king: bool = False,
                    min_seconds: float = 1.0) -> dict:
    """Run the compiled C reference on battles ``first .. first+n-1`` of ``seed`` (one
    thread, repeated until ``min_seconds``). Returns its JSON: battles_per_s, rolls (of one
    repetition), checksum (``battle_checksum``), outcomes (counts)."""
    args = [seed, first, n, attackers, defenders, rules, stop_at, a_bonus, d_bonus,
            int(good_attacks), int(witch_king)]
    p = subprocess.run([str(exe), *map(str, args), repr(float(min_seconds))],
                       capture_output=True, text=True, check=True)
    return json.loads(p.stdout)


def bench_kernels(battles: int = 2_000_000, python_battles: int = 20_000, seed: int = 1,
                  min_seconds: float = 1.0, rounds: int = 3) -> dict:
    """Battles/s of the classic 11 v 10 battle: numba on 1 thread and on all threads, the
    C reference on 1 thread, the plain-Python twin, and their ratios.

    Numba on 1 thread and the C reference are timed in alternation, ``rounds`` times each
    for at least ``min_seconds``, and the best of each is kept (other work on the machine
    only ever slows a round down). ``c_reference`` says how C was built (or why it was
    skipped), its speed, and whether its checksum equals numba's on the same battles.
    """
    import numba

    from lotr_sim.kernels.combat import RULES, simulate_battles
    from lotr_sim.kernels.reference import battles_py

    attackers, defenders, rules = 11, 10, "classic"
    t0 = time.perf_counter()
    simulate_battles(rules, attackers, defenders, 1000, seed)  # compile or load the cache
    load_s = time.perf_counter() - t0
    all_threads = numba.config.NUMBA_NUM_THREADS
    res: dict = {"battle": "classic 11 v 10 (10 attack, one stays home), fought to the end",
                 "threads_available": all_threads, "kernel_load_or_compile_s": load_s}
    bps, rps = {}, {}

    def numba_run(threads: int) -> tuple[float, float, dict]:
        numba.set_num_threads(threads)
        try:
            dt, reps, r = _timed(lambda k: [simulate_battles(rules, attackers, defenders, battles, seed)
                                            for _ in range(k)][-1], min_seconds)
        finally:
            numba.set_num_threads(all_threads)
        return battles * reps / dt, float(r["rolls"].sum()) * reps / dt, r

    with tempfile.TemporaryDirectory(prefix="lotr-sim-bench-") as tmp:
        exe, how = build_c_reference(tmp)
        c_runs: list[dict] = []
        one_thread: list[tuple[float, float]] = []
        for _ in range(max(1, rounds)):
            b1, r1, last = numba_run(1)
            one_thread.append((b1, r1))
            if exe is not None:
                try:
                    c_runs.append(run_c_reference(exe, seed, 0, battles, attackers, defenders, RULES[rules],
                                                  min_seconds=min_seconds))
                except (OSError, ValueError, subprocess.CalledProcessError) as e:
                    exe, how, c_runs = None, f"the compiled C reference failed: {e}", []
    bps["numba_1_thread"], rps["numba_1_thread"] = max(one_thread)
    bps["numba_all_threads"], rps["numba_all_threads"], _ = numba_run(all_threads)
    dt, reps, r = _timed(lambda k: [battles_py(seed, 0, python_battles, attackers, defenders,
                                               RULES[rules]) for _ in range(k)][-1], min_seconds)
    bps["python_reference"] = python_battles * reps / dt
    rps["python_reference"] = sum(x[3] for x in r) * reps / dt
    res["battles_per_s"] = bps
    res["rolls_per_s"] = rps
    res["rounds"] = max(1, rounds)
    res["numba_1_thread_rounds_battles_per_s"] = [b for b, _ in one_thread]
    numba_sum = battle_checksum(last["outcome"], last["attackers_left"], last["defenders_left"], last["rolls"])
    if exe is None:
        res["c_reference"] = {"available": False, "skipped": how, "numba_checksum": numba_sum}
    else:
        best = max(c_runs, key=lambda c: c["battles_per_s"])
        c_bps = best["battles_per_s"]
        res["c_reference"] = {
            "available": True, "build": how, "threads": 1,
            "battles_per_s": c_bps,
            "rolls_per_s": best["rolls"] * c_bps / best["battles"],
            "rounds_battles_per_s": [c["battles_per_s"] for c in c_runs],
            "checksum": best["checksum"], "numba_checksum": numba_sum,
            "checksums_agree": all(c["checksum"] == numba_sum for c in c_runs),
        }
    res["ratios"] = {
        "all_threads_over_1_thread": bps["numba_all_threads"] / bps["numba_1_thread"],
        "numba_1_thread_over_python": bps["numba_1_thread"] / bps["python_reference"],
        "numba_1_thread_over_c": (bps["numba_1_thread"] / res["c_reference"]["battles_per_s"]
                                  if exe is not None else None),
    }
    return res


def bench_game(game_name: str, games: int = 20_000, seed: int = 1, policies: dict | None = None,
               overrides: list[str] | None = None, min_seconds: float = 2.0) -> dict:
    import numba

    from lotr_sim.games import get_game

    game = get_game(game_name)
    pol = game.check_policies(policies)
    cfg = game.load(None, overrides)
    compiled = game.compile(cfg)
    t0 = time.perf_counter()
    game.simulate(compiled, pol, seed, 0, 10, threads=1)
    load_s = time.perf_counter() - t0
    all_threads = numba.config.NUMBA_NUM_THREADS
    gph = {}
    for label, threads in (("one_thread", 1), ("all_threads", all_threads)):
        dt, reps, _ = _timed(lambda k, t=threads: [game.simulate(compiled, pol, seed, 0, games, threads=t)
                                                   for _ in range(k)][-1], min_seconds)
        gph[label] = games * reps / dt * 3600.0
    res = {"game": game_name, "policies": pol,
           **({"seat_policies": game.seat_policies(compiled, pol)} if game.seat_keys else {}),
           "threads_available": all_threads,
           "kernel_load_or_compile_s": load_s, "games_per_hour": gph,
           "games_per_s": {k: v / 3600.0 for k, v in gph.items()},
           "seconds_per_game": {k: 3600.0 / v for k, v in gph.items()}}
    ps = getattr(game, "last_player_stats", None)
    if ps and any(p not in game.builtin_policies for p in pol.values()) and ps.get("games"):
        # the search player's own figures (last timed call): decisions and playouts per game
        res["search"] = {"decisions_per_game": ps.get("decisions", 0) / ps["games"],
                         "playouts_per_game": ps.get("playouts", 0) / ps["games"],
                         "thread_seconds_per_game": ps.get("seconds", 0.0) / ps["games"]}
    return res


def bench_search(game_name: str, players: list[str] | None = None, against: str = "greedy",
                 games: int = 100, seed: int = 1, overrides: list[str] | None = None,
                 threads: int = 1) -> dict:
    """Strength per CPU-second of search players, side by side: each of
    ``players`` plays games 0..games-1 of ``seed`` on every side against ``against``. For each
    player and side: its win rate (95% Wilson interval), its gain over ``against`` playing
    itself on the same games (paired), the process CPU-seconds per game (the playouts run on
    ``threads`` threads; CPU time, so a busy machine slows the clock, not the figure), the
    playouts per game, and the gain per CPU-second."""
    from lotr_sim.games import get_game
    from lotr_sim.stats import paired_diff, wilson

    game = get_game(game_name)
    players = list(players or ["search", "search-classic"])
    for p in players + [against]:
        game.check_policies({game.sides[0]: p})
    cfg = game.load(None, overrides)
    compiled = game.compile(cfg)
    game.simulate(compiled, {game.sides[0]: players[0], game.sides[1]: against}, seed, 0, 1, threads=1)  # compile
    rows = []
    for si, side in enumerate(game.sides):
        other = {s: against for s in game.sides if s != side}
        base = game.simulate(compiled, {side: against, **other}, seed, 0, games, threads=threads)
        base_win = np.asarray(base["winner"]) == si
        for p in players:
            game.last_player_stats = None     # set by a run with a player from lotr_sim.players
            t0 = time.process_time()
            res = game.simulate(compiled, {side: p, **other}, seed, 0, games, threads=threads)
            cpu = (time.process_time() - t0) / games
            win = np.asarray(res["winner"]) == si
            ps = getattr(game, "last_player_stats", None) or {}
            d = paired_diff(win, base_win)
            lo, hi = wilson(int(win.sum()), games)
            rows.append(dict(player=p, side=side, against=against, games=games, win_rate=float(win.mean()),
                             lo=lo, hi=hi, baseline=float(base_win.mean()), gain=d.mean, gain_lo=max(-1.0, d.lo),
                             gain_hi=min(1.0, d.hi), cpu_s_per_game=cpu,
                             playouts_per_game=ps.get("playouts", 0) / max(1, ps.get("games", games)),
                             gain_per_cpu_s=d.mean / cpu if cpu > 0 else float("nan")))
    return {"game": game_name, "seed": seed, "games_per_side": games, "against": against,
            "threads": threads, "rows": rows}
