"""``lotr-sim sweep``: win rates over rule parameters (and policies), paired, with a report."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from lotr_sim.cli._common import cli_errors, config_option, evil_option, game_or_resumed, games_played_line, good_option, parse_count, parse_path, policy_option, print_json, players_option, players_sets, seat_policies, seed_option, sets_option, threads_option, scheduler_option, cluster_option, workers_option


@cli_errors
def sweep(
    game: Optional[str] = typer.Option(None, "--game", "-g", help="Game name (default minas-tirith; "
                                       "taken from the folder with --resume)."),
    param: List[str] = typer.Option([], "--param", "-p", help="name=v1,v2,... or name=start:stop:step "
                                    "(stop included; repeatable). A side name (good/evil; frodo/sam in the-search) sweeps its player."),
    grid: Optional[bool] = typer.Option(None, "--grid/--one-at-a-time", help="Full factorial instead of one-at-a-time."),
    games: Optional[int] = typer.Option(None, "--games", "-n", parser=parse_count, help="Games per point "
                                        "(a fixed count instead of the default sweep's --paired-precision)."),
    precision: Optional[float] = typer.Option(None, "--precision", help="Run in batches until every point's "
                                              "95% half-width on the first side's (Good's; Frodo's) win rate is at most this."),
    paired_precision: Optional[float] = typer.Option(None, "--paired-precision", help="Run in batches until "
                                                     "every lever's paired change of the first side's win rate "
                                                     "against the baseline has a 95% half-width of at most this "
                                                     "(the default sweep: 0.01)."),
    baseline_precision: Optional[float] = typer.Option(None, "--baseline-precision", help="With "
                                                       "--paired-precision: the baseline's own rate to within "
                                                       "this (default: the --paired-precision)."),
    pairings_precision: Optional[float] = typer.Option(None, "--pairings-precision", help="With "
                                                       "--paired-precision: each AI pairing's own rate to within "
                                                       "this (default: twice the --paired-precision)."),
    max_games: Optional[int] = typer.Option(None, "--max-games", parser=parse_count, help="Cap per point with "
                                            "--precision or --paired-precision (default: 4 x the games the "
                                            "smallest half-width needs at p = 0.5)."),
    good: Optional[str] = good_option(),
    evil: Optional[str] = evil_option(),
    policy: List[str] = policy_option(),
    sets: List[str] = sets_option(),
    players: Optional[int] = players_option(short=False),
    config: Optional[Path] = config_option(),
    sweep_file: Optional[Path] = typer.Option(None, "--sweep-file", parser=parse_path, help="Sweep TOML (default: configs/sweeps/<game>.toml)."),
    pairings: Optional[bool] = typer.Option(None, "--pairings/--no-pairings", help="Also play the baseline under "
                                            "every pairing of the game's policies (default: the sweep file's "
                                            "`pairings`, which the default sweep sets)."),
    adapt: Optional[int] = typer.Option(None, "--adapt", parser=parse_count, metavar="K",
                                        help="Also measure the K largest levers after both sides' players "
                                             "adapt to them (their weights re-tuned to the lever's rules; default: "
                                             "the sweep file's adapt_levers, which the default Minas Tirith sweep "
                                             "sets to 3; else 0)."),
    no_adapt: bool = typer.Option(False, "--no-adapt", help="No \"after adaptation\" figures (--adapt 0)."),
    target: Optional[str] = typer.Option(None, "--target", help="Parity of the verdict: good50 (the first side, "
                                         "Good or Frodo, wins 50% of games, default) or equal (it wins as often as the second)."),
    seed: Optional[int] = seed_option(None),
    threads: Optional[int] = threads_option(),
    chunk: Optional[int] = typer.Option(None, "--chunk", help="Games per chunk/task (default 2000)."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", parser=parse_path, help="Output folder (default reports/<game>/<timestamp>/)."),
    resume: Optional[Path] = typer.Option(None, "--resume", parser=parse_path, help="Continue the killed sweep in this folder; "
                                          "with --games N or --precision P, extend a finished one (its games are kept)."),
    scheduler: Optional[str] = scheduler_option(),
    cluster: Optional[str] = cluster_option(),
    workers: Optional[int] = workers_option(),
    connect_timeout: float = typer.Option(5.0, "--connect-timeout", help="Seconds to reach the scheduler."),
    save_games: bool = typer.Option(False, "--save-games", help="Also write games.parquet (one row per game)."),
    csv: bool = typer.Option(False, "--csv", help="Also write results.csv (the results table, one row per point)."),
    as_json: bool = typer.Option(False, "--json", help="Print the results and the verdict as JSON."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
    yes: bool = typer.Option(False, "--yes", "-y", help="Run a sweep of more than 1,000 points (a large "
                             "--grid), which is otherwise refused up front."),
) -> None:
    """Sweep rule parameters (or players) and report the win rates (Good's and Evil's; Frodo's and
    Sam's in the-search) at each point.

    One at a time around the baseline (or --grid), common random numbers (game i of every
    point uses stream i); writes results.parquet, manifest.json and report.md/html with
    plots, each opening with a verdict. With no option: the game's default sweep file
    (every game's plays each point until its 95% interval is narrow enough: the baseline's
    rate ±1 point, every lever's paired change against the baseline ±1, every AI pairing ±2;
    --games N plays a fixed number instead)."""
    from lotr_sim import api
    from lotr_sim.errors import LotrSimError
    from lotr_sim.experiments.sweep import MAX_POINTS
    if resume is not None and out is not None:
        raise LotrSimError("give either --resume DIR or --out DIR, not both")
    if adapt is not None and no_adapt:
        raise LotrSimError("give either --adapt K or --no-adapt, not both")
    if adapt is not None and adapt < 0:
        raise LotrSimError(f"--adapt must be at least 0, got {adapt}")
    for name, v in (("--chunk", chunk), ("--games", games), ("--max-games", max_games)):
        if v is not None and v < 1:
            raise LotrSimError(f"{name} must be at least 1, got {v}")
    game = game_or_resumed(game, resume)
    g = api.get_game(game)
    sets = players_sets(game, sets, players)
    stop = api.StopRule(precision=precision, paired_precision=paired_precision,
                        baseline_precision=baseline_precision, pairings_precision=pairings_precision,
                        max_games=max_games, chunk=chunk)
    run = api.RunOptions(threads=threads, scheduler=scheduler, cluster=cluster, workers=workers,
                         connect_timeout=connect_timeout, progress=not quiet and not as_json,
                         save_games=save_games, max_points=None if yes else MAX_POINTS)
    res = api.sweep(g, param or None, games=games, seed=seed, sets=sets or None,
                    policies=seat_policies(policy, good, evil) or None, config=str(config) if config else None,
                    grid=grid, sweep_file=sweep_file, target=target, pairings=pairings, out=out, resume=resume,
                    stop=stop, run=run, adapt_levers=0 if no_adapt else adapt)
    csv_path = None
    if csv:
        from lotr_sim.reports.build import export_csv
        csv_path = export_csv(res.out)
    if as_json:
        d = res.to_dict()
        print_json(dict(out=d.pop("out"), **({"csv": str(csv_path)} if csv_path else {}), **d))
        return
    from rich.console import Console
    from lotr_sim.reports.tables import console_summary
    con = Console()  # the terminal's width, else $COLUMNS or 80: the summary fits 80 columns
    for item in console_summary(res.results, list(g.outcomes), list(g.sides), res.verdict,
                                title=f"sweep {g.name}, seed {res.manifest['seed']}", width=con.width):
        con.print(item)
    ad = res.manifest.get("adaptation") or {}
    adapted = (f"; adapting the players to {len(ad['levers'])} lever{'s' if len(ad['levers']) != 1 else ''}: "
               f"{ad['played']:,} games in {ad['elapsed_s']:.1f} s") if ad.get("levers") else ""
    con.print(games_played_line(res.manifest) + adapted + f"; results in {res.out}/ (report.html"
              + (", results.csv" if csv_path else "") + ")")
