"""``lotr-sim bench kernels`` and ``lotr-sim bench --game NAME``."""
from __future__ import annotations

from typing import List, Optional

import typer

from lotr_sim.cli._common import (cli_errors, evil_option, good_option, parse_count, players_option, players_sets,
                                  policy_option, print_json,
                                  seat_policies, seed_option, sets_option)
from lotr_sim.errors import LotrSimError

#: One timed call holds all its games/battles in memory: these bounds keep it under ~150 MB.
MAX_BENCH_GAMES = 1_000_000
MAX_BENCH_BATTLES = 10_000_000


@cli_errors
def bench(
    what: Optional[str] = typer.Argument(None, help="'kernels' for the combat kernels; 'search' (with --game) "
                                         "for search players' strength per CPU-second; omit with --game "
                                         "for full games per hour."),
    game: Optional[str] = typer.Option(None, "--game", "-g", help="Benchmark full games of this game."),
    games: Optional[int] = typer.Option(None, "--games", "-n", parser=parse_count,
                                        help=f"Games per timed call (with --game; 10..{MAX_BENCH_GAMES:,}; "
                                        "default 20,000), or per side (search; default 100)."),
    search_players: str = typer.Option("search,search-classic", "--players-list", "-L",
                                       help="search: the players to compare, comma-separated."),
    against: str = typer.Option("greedy", "--against", "-a", help="search: the opponent on the other side(s)."),
    threads: int = typer.Option(1, "--threads", "-j", help="search: threads (CPU-seconds are counted "
                                "for the whole process)."),
    battles: int = typer.Option(2_000_000, "--battles", parser=parse_count,
                                help=f"Battles per timed call (kernels; 1000..{MAX_BENCH_BATTLES:,})."),
    seed: int = seed_option(),
    rounds: int = typer.Option(3, "--rounds", help="Kernels: numba on 1 thread and the C reference are timed "
                               "in alternation this many times (1..20), best kept."),
    good: Optional[str] = good_option(),
    evil: Optional[str] = evil_option(),
    policy: List[str] = policy_option(),
    sets: List[str] = sets_option(),
    players: Optional[int] = players_option(),
    json_out: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Throughput benchmarks: battles/s of the combat kernels, or full games per hour."""
    from lotr_sim import bench as b

    if what == "kernels" and game is None:
        if not 1000 <= battles <= MAX_BENCH_BATTLES:
            raise LotrSimError(f"--battles must be from 1000 to {MAX_BENCH_BATTLES:,} (one timed call "
                               f"holds them all in memory), got {battles}")
        if not 1 <= rounds <= 20:
            raise LotrSimError(f"--rounds must be from 1 to 20, got {rounds}")
        res = b.bench_kernels(battles=battles, seed=seed, rounds=rounds)
        if json_out:
            print_json(res)
            return
        bps, rps, c = res["battles_per_s"], res["rolls_per_s"], res["c_reference"]
        typer.echo(res["battle"])
        for k in ("numba_1_thread", "numba_all_threads", "python_reference"):
            typer.echo(f"  {k:<18} {bps[k] / 1e6:10.3f} M battles/s  {rps[k] / 1e6:10.2f} M rolls/s")
        if c["available"]:
            typer.echo(f"  {'c_reference':<18} {c['battles_per_s'] / 1e6:10.3f} M battles/s  "
                       f"{c['rolls_per_s'] / 1e6:10.2f} M rolls/s  (1 thread, {c['build']})")
        r = res["ratios"]
        typer.echo(f"  all threads ({res['threads_available']}) / 1 thread: {r['all_threads_over_1_thread']:.2f}x;"
                   f"  numba 1 thread / Python: {r['numba_1_thread_over_python']:.0f}x")
        if c["available"]:
            agree = ("checksums agree" if c["checksums_agree"] else
                     f"CHECKSUMS DIFFER (C {c['checksum']}, numba {c['numba_checksum']})")
            typer.echo(f"  numba 1 thread / C: {r['numba_1_thread_over_c']:.2f}x (best of {res['rounds']} "
                       f"alternating rounds each); {agree} ({c['numba_checksum']})")
        else:
            typer.echo(f"  C reference skipped: {c['skipped']}")
        return
    if what == "search" and game is not None:
        n = 100 if games is None else games
        if not 1 <= n <= 100_000:
            raise LotrSimError(f"--games must be from 1 to 100,000 per side, got {n}")
        if threads < 1:
            raise LotrSimError(f"--threads must be at least 1, got {threads}")
        names = [p.strip() for p in search_players.split(",") if p.strip()]
        if not names:
            raise LotrSimError("--players-list names no player")
        res = b.bench_search(game, names, against=against, games=n, seed=seed,
                             overrides=players_sets(game, sets, players) or None, threads=threads)
        if json_out:
            print_json(res)
            return
        typer.echo(f"{game}: search players against {against}, games 0..{n - 1} of seed {seed} per side "
                   f"(gain: paired, over {against} v {against} on the same games)")
        typer.echo(f"  {'player':<16}{'side':<7}{'wins':>7} {'95% interval':<17}{'gain':>7} {'95% interval':<17}"
                   f"{'CPU s/game':>11}{'playouts':>10}{'gain/CPU s':>11}")
        for r in res["rows"]:
            wi = f"[{r['lo']:.1%}, {r['hi']:.1%}]"
            gi = f"[{r['gain_lo']:+.1%}, {r['gain_hi']:+.1%}]"
            typer.echo(f"  {r['player']:<16}{r['side']:<7}{r['win_rate']:>7.1%} {wi:<17}{r['gain']:>+7.1%} {gi:<17}"
                       f"{r['cpu_s_per_game']:>11.3f}{r['playouts_per_game']:>10,.0f}{r['gain_per_cpu_s']:>+11.2f}")
        return
    if what is None and game is not None:
        games = 20_000 if games is None else games
        if not 10 <= games <= MAX_BENCH_GAMES:
            raise LotrSimError(f"--games must be from 10 to {MAX_BENCH_GAMES:,} (one timed call "
                               f"holds them all in memory), got {games}")
        res = b.bench_game(game, games=games, seed=seed, policies=seat_policies(policy, good, evil) or None,
                           overrides=players_sets(game, sets, players) or None)
        if json_out:
            print_json(res)
            return
        g = res["games_per_hour"]
        typer.echo(f"{game}, {res['policies']}" + (f", {' '.join(sets)}" if sets else "") + ":")
        typer.echo(f"  one thread   {g['one_thread'] / 1e6:8.3f} M games/h  ({g['one_thread'] / 3600:,.0f} games/s)")
        typer.echo(f"  all threads  {g['all_threads'] / 1e6:8.3f} M games/h  ({g['all_threads'] / 3600:,.0f} games/s)")
        if "search" in res:
            s = res["search"]
            typer.echo(f"  search: {res['seconds_per_game']['one_thread']:.2f} s per game on one thread; "
                       f"{s['decisions_per_game']:.0f} decisions and {s['playouts_per_game']:,.0f} playouts per game")
        return
    raise LotrSimError("say what to benchmark: 'lotr-sim bench kernels', 'lotr-sim bench --game NAME' or "
                       "'lotr-sim bench search --game NAME'")
