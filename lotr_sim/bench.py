"""Benchmarks (speed is shown here, never by timed tests).

``bench_kernels``: 10 v 10 battles fought to the end (classic rules: 11 units in the
attacking territory, one stays home, so all 10 attacking units may be lost) — numba on
one thread, on all threads, and the plain-Python twin of the same rules and stream.
``bench_game``: full games of a registered game, default policies, 1 thread and all.
"""
from __future__ import annotations

import time
from typing import Any


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


def bench_kernels(battles: int = 2_000_000, python_battles: int = 20_000, seed: int = 1,
                  min_seconds: float = 1.0) -> dict:
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
    for label, threads in (("numba_1_thread", 1), ("numba_all_threads", all_threads)):
        numba.set_num_threads(threads)
        try:
            dt, reps, r = _timed(lambda k: [simulate_battles(rules, attackers, defenders, battles, seed)
                                            for _ in range(k)][-1], min_seconds)
        finally:
            numba.set_num_threads(all_threads)
        bps[label] = battles * reps / dt
        rps[label] = float(r["rolls"].sum()) * reps / dt
    dt, reps, r = _timed(lambda k: [battles_py(seed, 0, python_battles, attackers, defenders,
                                               RULES[rules]) for _ in range(k)][-1], min_seconds)
    bps["python_reference"] = python_battles * reps / dt
    rps["python_reference"] = sum(x[3] for x in r) * reps / dt
    res["battles_per_s"] = bps
    res["rolls_per_s"] = rps
    res["ratios"] = {
        "all_threads_over_1_thread": bps["numba_all_threads"] / bps["numba_1_thread"],
        "numba_1_thread_over_python": bps["numba_1_thread"] / bps["python_reference"],
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
    return {"game": game_name, "policies": pol, "threads_available": all_threads,
            "kernel_load_or_compile_s": load_s, "games_per_hour": gph,
            "games_per_s": {k: v / 3600.0 for k, v in gph.items()}}
