"""``lotr-sim fix``: the smallest rule change that balances the game, checked with players
that adapt to it (the logic is ``lotr_sim.experiments.fix``)."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from lotr_sim.cli._common import (cli_errors, config_option, evil_option, game_option, good_option, parse_count,
                                  parse_path, policy_option, print_json, seat_policies, seed_option, sets_option,
                                  threads_option, scheduler_option, cluster_option, workers_option)


@cli_errors
def fix(
    game: str = game_option(),
    param: List[str] = typer.Option([], "--param", "-p",
                                    help="A lever: NAME (its whole range), NAME=v1,v2,... or NAME=a:b; repeat "
                                         "(default: the game's sweep levers, configs/sweeps/<game>.toml)."),
    sweep_file: Optional[Path] = typer.Option(None, "--sweep-file", help="Levers and their costs (table fix.cost) "
                                              "from this sweep TOML instead of the game's."),
    target: float = typer.Option(0.5, "--target", "-t", help="The first side's win rate to reach (Good's; "
                                 "Frodo's in the-search), in (0, 1)."),
    tol: float = typer.Option(0.01, "--tol", help="A fix is within ± this of the target (default 0.01)."),
    games: int = typer.Option(2000, "--games", "-n", parser=parse_count,
                              help="Paired screening games per rule set (default 2000)."),
    budget: int = typer.Option(1_000_000, "--budget", parser=parse_count,
                               help="Games for screening and refining at most (default 1,000,000)."),
    max_levers: int = typer.Option(3, "--max-levers", parser=parse_count, help="Levers changed at most (1-3)."),
    top: int = typer.Option(1, "--top", parser=parse_count, help="Fixes reported per number of levers."),
    adapt: bool = typer.Option(True, "--adapt/--no-adapt", help="Re-check each fix with players tuned to it."),
    tune_generations: int = typer.Option(8, "--tune-generations", parser=parse_count,
                                         help="Generations of each fix's warm-started tune (default 8)."),
    tune_games: int = typer.Option(300, "--tune-games", parser=parse_count,
                                   help="Games per candidate, opponent and side in that tune (default 300)."),
    search_games: int = typer.Option(60, "--search-games", parser=parse_count,
                                     help="Games a side of the search player against the adapted players "
                                          "(default 60; 0: none)."),
    sets: List[str] = sets_option(),
    good: Optional[str] = good_option(),
    evil: Optional[str] = evil_option(),
    policy: List[str] = policy_option(),
    config: Optional[Path] = config_option(),
    seed: int = seed_option(),
    threads: Optional[int] = threads_option(),
    out: Optional[Path] = typer.Option(None, "--out", "-o", parser=parse_path,
                                       help="Report folder (default reports/<game>/fix-<timestamp>/)."),
    resume: Optional[Path] = typer.Option(None, "--resume", parser=parse_path,
                                          help="Continue the interrupted run in this folder."),
    scheduler: Optional[str] = scheduler_option(),
    cluster: Optional[str] = cluster_option(),
    workers: Optional[int] = workers_option(),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON ({\"fixes\": [...], ...})."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
) -> None:
    """Find the smallest rule changes (fewest levers, then least departure from the rulebook)
    that bring Good's win rate within --tol of --target, and re-check each with players adapted
    to it.

    Screens every single change and the two- and three-lever combinations a response model
    proposes on paired games, refines the promising ones, checks each fix on fresh games, then
    tunes both sides' default players to its rules (warm start) and plays it with them and with
    the search player. Writes fix.json, fixes.json (copied to configs/fixes/<game>.json, the
    sweep's verdict suggests the fixes), report.md and report.html into --out; Ctrl-C keeps the
    games played (--resume DIR)."""
    from lotr_sim import api
    from lotr_sim.errors import LotrSimError
    if resume is not None and out is not None:
        raise LotrSimError("give either --out or --resume, not both")
    pol = seat_policies(policy, good, evil)
    r = api.fix(game, param or None, sweep_file=str(sweep_file) if sweep_file else None, sets=sets,
                config=str(config) if config else None, policies=pol, target=target, tol=tol, seed=seed,
                games=games, budget=budget, max_levers=max_levers, top=top, adapt=adapt,
                tune_generations=tune_generations, tune_games=tune_games, search_games=search_games,
                threads=threads, scheduler=scheduler, cluster=cluster, workers=workers, out=out, resume=resume,
                progress=not quiet and not as_json)
    if as_json:
        print_json(r.to_dict())
        return
    from lotr_sim.experiments.fix import fix_table
    typer.echo(r.message)
    rows = fix_table(r)
    o = r.outcome.capitalize()
    if rows:
        typer.echo(f"Suggested fixes (best first): change | levers | cost | {o} with the default players | "
                   f"after adaptation | under search (search {o} / search other side)")
        for row in rows:
            typer.echo("  " + " | ".join(row))
    for n in r.notes:
        typer.echo(f"note: {n}")
    typer.echo(f"{r.games_played:,} games, {r.elapsed_s:.0f} s; report: {r.out}/report.md")
