"""``lotr-sim run``: N games of one configuration; win rates with 95% Wilson intervals."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from lotr_sim.cli._common import cli_errors, config_option, evil_option, game_option, good_option, parse_count, parse_path, policy_option, print_json, players_option, players_sets, seat_policies, seed_option, sets_option, threads_option


def print_summary(game, s: dict) -> None:
    from rich.console import Console
    from rich.table import Table
    con = Console()
    if not con.is_terminal:
        con = Console(width=200)
    n = s["games"]
    t = Table(title=f"{s['game']}: {n} games, seed {s['seed']}, "
                    + ", ".join(f"{k} {v}" for k, v in s["policies"].items()))
    t.add_column("outcome")
    t.add_column("games", justify="right")
    t.add_column("rate %", justify="right")
    t.add_column("95% Wilson", justify="right")
    for o in game.outcomes:
        lo, hi = s[f"{o}_ci95"]
        t.add_row(o, str(s["wins"][o]), f"{100 * s[f'{o}_win_rate']:.2f}", f"[{100 * lo:.2f}, {100 * hi:.2f}]")
    con.print(t)
    r = Table(title="end reasons")
    r.add_column("reason")
    r.add_column("games", justify="right")
    r.add_column("share %", justify="right")
    for k, v in s["reasons"].items():
        r.add_row(k, str(v), f"{100 * v / n:.2f}" if n else "-")
    con.print(r)
    lines = []
    for key in ("rounds", "turns"):
        if f"{key}_mean" in s:
            q = s[f"{key}_quantiles"]
            lines.append(f"{key}: mean {s[f'{key}_mean']:.2f}, sd {s[f'{key}_sd']:.2f}, "
                         f"median {q['q50']:g}, 5–95% [{q['q05']:g}, {q['q95']:g}]")
    if s.get("seats"):
        st = Table(title="per seat")
        for c in ("seat", "side", "AI player", "wins", "rate %", "95% Wilson", "points mean"):
            st.add_column(c, justify="left" if c in ("seat", "side", "AI player") else "right")
        for x in s["seats"]:
            ci = x.get("ci95")
            st.add_row(x["seat"], x["side"], str(x["policy"]), str(x.get("wins", "-")),
                       f"{100 * x['win_rate']:.2f}" if "win_rate" in x else "-",
                       f"[{100 * ci[0]:.2f}, {100 * ci[1]:.2f}]" if ci else "-",
                       f"{x['points_mean']:.2f}" if "points_mean" in x else "-")
        con.print(st)
    for side, p in s.get("points", {}).items():
        lines.append(f"points {side}: mean {p['mean']:.2f}, sd {p['sd']:.2f}")
    gps = s.get("games_per_second")
    lines.append(f"time {s['elapsed_s']:.2f} s" + (f", {gps:,.0f} games/s" if gps else ""))
    for line in lines:
        con.print(line)


@cli_errors
def run(
    game: str = game_option(),
    games: int = typer.Option(10000, "--games", "-n", parser=parse_count,
                              help="Number of games (a whole number: 20000, 2e4; at most 1e15)."),
    seed: int = seed_option(),
    good: Optional[str] = good_option(),
    evil: Optional[str] = evil_option(),
    policy: List[str] = policy_option(),
    sets: List[str] = sets_option(),
    players: Optional[int] = players_option(),
    config: Optional[Path] = config_option(),
    threads: Optional[int] = threads_option(),
    out: Optional[Path] = typer.Option(None, "--out", "-o", parser=parse_path, help="Write games.parquet and summary.json here (a new folder, or --force)."),
    as_json: bool = typer.Option(False, "--json", help="Print the summary as one JSON object."),
    trace: Optional[Path] = typer.Option(None, "--trace", parser=parse_path, help="Write every game's event trace (JSON Lines)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    force: bool = typer.Option(False, "--force", help="Replace an earlier run's files in --out."),
) -> None:
    """Play N games of one configuration: win rates with 95% Wilson intervals.

    Also prints end reasons, points and game-length statistics; --out writes one row per
    game (games.parquet, written chunk by chunk) and summary.json; --json prints the summary.
    Memory does not grow with --games: a long run is only long (progress with ETA; Ctrl-C
    keeps the finished games when --out is given)."""
    from lotr_sim import api
    g = api.get_game(game)
    res = api.run_games(g, games=games, seed=seed, policies=seat_policies(policy, good, evil),
                        sets=players_sets(game, sets, players),
                        config=str(config) if config else None, threads=threads, out=out,
                        trace=trace, progress=not quiet and not as_json, keep_games=False, force=force)
    if as_json:
        print_json(res.to_dict())
    else:
        print_summary(g, res.summary)
        if out is not None:
            typer.echo(f"wrote {Path(out) / 'games.parquet'} and {Path(out) / 'summary.json'}")
        if trace is not None:
            typer.echo(f"wrote {res.summary['trace']['events']} events to {trace}")
