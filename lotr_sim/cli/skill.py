"""``lotr-sim skill``: does the verdict hold for stronger play? Every pairing of players
(the game's own and the search player) on the baseline rules, with intervals."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from lotr_sim.cli._common import (cli_errors, config_option, game_option, parse_count, parse_path, print_json,
                                  seed_option, sets_option, threads_option, scheduler_option, cluster_option, workers_option,
                                  game_or_resumed, games_played_line)


@cli_errors
def skill(
    game: Optional[str] = game_option(None, " Default minas-tirith; taken from the folder with --resume."),
    players: Optional[str] = typer.Option(None, "--players", help="Comma-separated players to pair "
                                          "(default: random, greedy, tuned where the game ships tuned weights, search)."),
    games: Optional[int] = typer.Option(None, "--games", "-n", parser=parse_count,
                                        help="A fixed number of games per pairing, instead of playing until "
                                             "each gain is known to --half-width."),
    half_width: Optional[float] = typer.Option(None, "--half-width", help="Play until the 95% interval of the "
                                               "judge's gain on each side has at most this half-width, in "
                                               "percentage points (default 3)."),
    max_games: Optional[int] = typer.Option(None, "--max-games", parser=parse_count,
                                            help="At most this many games a pairing (default 4,000)."),
    chunk: Optional[int] = typer.Option(None, "--chunk", parser=parse_count,
                                        help="Games per chunk: the unit of work and of --resume (default 50)."),
    judge: Optional[str] = typer.Option(None, "--judge", help="The player whose gains measure exploitability "
                                        "(default search-wide, the wide search)."),
    sets: List[str] = sets_option(),
    config: Optional[Path] = config_option(),
    seed: Optional[int] = seed_option(None),
    target: Optional[str] = typer.Option(None, "--target", help="Parity of the verdict: good50 or equal."),
    threads: Optional[int] = threads_option(),
    out: Optional[Path] = typer.Option(None, "--out", "-o", parser=parse_path, help="Output folder (default reports/<game>/<timestamp>/)."),
    resume: Optional[Path] = typer.Option(None, "--resume", parser=parse_path, help="Continue the killed run in this folder."),
    scheduler: Optional[str] = scheduler_option(),
    cluster: Optional[str] = cluster_option(),
    workers: Optional[int] = workers_option(),
    csv: bool = typer.Option(False, "--csv", help="Also write results.csv (the results table, one row per pairing)."),
    as_json: bool = typer.Option(False, "--json", help="Print the pairings and the verdict as JSON."),
    best_response: bool = typer.Option(False, "--best-response", help="Also tune each side's weights against "
                                       "each player with weights (greedy, tuned) and measure their paired gain: "
                                       "the best response in the player's own family (costs a short tune each)."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
) -> None:
    """Play the baseline under every pairing of players, weak to strong, and say whether the
    verdict (who is favoured) holds when the search player takes every seat.

    Also says how much the judge (the wide search) gains against each player on each side
    (how exploitable it is), each side played until that gain is known to --half-width points
    (or --max-games), the verdict under the least exploitable player, and the skill ladder
    (the first side's win rate with the same player on every seat). Until the gains are known
    that well (and rest on at least 100 games), the headline says the run is not yet an answer."""
    from lotr_sim import api
    from lotr_sim.errors import LotrSimError
    if resume is not None and out is not None:
        raise LotrSimError("give either --resume DIR or --out DIR, not both")
    if half_width is not None and not 0 < half_width < 50:
        raise LotrSimError(f"--half-width must be above 0 and below 50 points, got {half_width:g}")
    if resume is not None and any(x is not None for x in (games, half_width, max_games, chunk, judge, players)):
        raise LotrSimError("--resume continues a run as it was started: give no --games, --half-width, "
                           "--max-games, --chunk, --judge or --players with it")
    game = game_or_resumed(game, resume)
    names = [p.strip() for p in players.split(",") if p.strip()] if players else None
    res = api.skill(game, names, games, seed, sets or None, str(config) if config else None, threads,
                    out, resume, scheduler, cluster, workers, not quiet and not as_json, chunk, target,
                    half_width=None if half_width is None else half_width / 100.0, max_games=max_games,
                    judge=judge, best_response=best_response)
    v = res.verdict
    if csv:
        from lotr_sim.reports.build import export_csv
        export_csv(res.out)
    if as_json:
        d = res.to_dict()
        print_json({k: d[k] for k in ("out", "verdict", "results")})
        return
    from rich.console import Console
    from lotr_sim.reports.tables import console_summary
    g = api.get_game(game)
    con = Console()
    for item in console_summary(res.results, list(g.outcomes), list(g.sides), v,
                                title=f"skill {g.name}, seed {res.manifest['seed']}", width=con.width):
        con.print(item)
    if not v.get("skill"):
        con.print("no search player among the players: nothing says whether the verdict holds for stronger play")
    from lotr_sim.experiments import skillfig
    fig = skillfig.read(res.out / skillfig.FILE) or {}
    for p, sides in (fig.get("best_response") or {}).items():
        con.print(f"Best response to {p} in its own weight family (paired, fresh games): " + ", ".join(
            f"as {s} {100 * x['gain']:+.1f} [{100 * x['lo']:+.1f}, {100 * x['hi']:+.1f}] ({x['games']:,} games)"
            for s, x in sides.items()) + " points.")
    con.print(games_played_line(res.manifest) + f"; results in {res.out}/ (report.html"
              + (", results.csv" if csv else "") + ")")
