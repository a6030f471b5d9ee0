"""Play games in which some seats are taken by players from ``lotr_sim.players``.

The engine plays its built-in policies inside numba until a seat held by a registered
player is to move (``Game.run_builtin``); that player picks one of the legal actions in
Python, ``Game.apply`` applies it, and so on to the end. Game ``i`` always uses the game's
stream (seed, i) for chance and the player's own streams for its look-ahead, so results are
bit-identical whatever the threads or chunking."""
from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Mapping

from lotr_sim.games.step import State
from lotr_sim.kernels.runner import split_range
from lotr_sim.players.registry import generic_player, is_generic


def play_state(game, compiled, policies: Mapping[str, str], seed: int, index: int,
               trace: bool = False, debug: bool = False, stats: dict | None = None) -> State:
    """One whole game; returns its final state (``game.result`` gives the row). ``policies``
    name sides and/or seats (``Game.seat_policies``); each seat held by a registered player
    gets its own player object, indexed by seat as ``Game.to_move`` reports it."""
    seats = game.seat_policies(compiled, policies)
    players = {seat: generic_player(p, game, seed) for seat, p in enumerate(seats.values()) if is_generic(p)}
    state = game.new_state(compiled, policies, seed, index, trace=trace, debug=debug)
    stop = sorted(players)
    t0 = time.perf_counter()
    while True:
        seat = game.run_builtin(compiled, state, stop)
        if seat < 0:
            break
        game.apply(compiled, state, players[seat].choose(compiled, state))
    if stats is not None:
        stats["seconds"] = stats.get("seconds", 0.0) + time.perf_counter() - t0
        for seat, p in players.items():
            stats["decisions"] = stats.get("decisions", 0) + p.decisions
            stats["playouts"] = stats.get("playouts", 0) + getattr(p, "playouts", 0)
    return state


def simulate_with_players(game, compiled, policies: Mapping[str, str], seed: int, first: int,
                          n: int, threads: int, record: Callable[[State, int], None]) -> dict:
    """Games first..first+n-1 on ``threads`` threads (the kernels release the GIL);
    ``record(state, row)`` stores game first+row's result. Returns time and search counts
    (also kept as ``game.last_player_stats``, so no game has to store them itself)."""
    stats: list[dict] = [{} for _ in range(max(1, threads))]

    def work(c: int, lo: int, hi: int) -> None:
        for i in range(lo, hi):
            record(play_state(game, compiled, policies, seed, first + i, stats=stats[c]), i)

    if n <= 0:
        return {}
    chunks = split_range(n, max(1, min(threads, n)))
    if len(chunks) == 1:
        work(0, 0, n)
    else:
        with ThreadPoolExecutor(max_workers=len(chunks)) as ex:
            for f in [ex.submit(work, c, lo, hi) for c, (lo, hi) in enumerate(chunks)]:
                f.result()
    out: dict = {}
    for s in stats:
        for k, v in s.items():
            out[k] = out.get(k, 0) + v
    out["games"] = n
    game.last_player_stats = out   # what `lotr-sim bench` reports of the players' search
    return out
