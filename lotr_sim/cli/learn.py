"""``lotr-sim learn``: learn a fast player from a wide search's decisions (expert iteration);
writes a weights file that ``--policy SIDE=tuned:FILE`` plays."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from lotr_sim.cli._common import (cli_errors, config_option, game_option, parse_count, parse_path, players_option,
                                  players_sets, print_json, seed_option, sets_option, threads_option)


@cli_errors
def learn(
    game: str = game_option(),
    iterations: Optional[int] = typer.Option(None, "--iterations", "-I", parser=parse_count,
                                             help="Rounds of search data, fit and paired check (default 3; "
                                                  "stops early when a round gains nothing). With --resume: "
                                                  "raise the run's rounds to this many."),
    games: int = typer.Option(100, "--games", "-n", parser=parse_count,
                              help="Search games per side and round (default 100)."),
    budget: int = typer.Option(1024, "--budget", parser=parse_count,
                               help="The search's playouts per decision (default 1024)."),
    check_games: int = typer.Option(20_000, "--check-games", parser=parse_count,
                                    help="Paired games per side checking each round's player (default 20,000)."),
    start: str = typer.Option("tuned", "--start", help="The player to improve (default the shipped tuned)."),
    l2: float = typer.Option(1.0, "--l2", help="L2 penalty of the fit (default 1)."),
    target: str = typer.Option("choice", "--target", help="What the fit follows: the search's chosen "
                               "rows (choice, default) or its playouts' values of every row (value)."),
    states: str = typer.Option("search", "--states", help="Whose play the search games follow: the "
                               "search's (search, default; also measures its gain) or the current player's "
                               "(player: the search only labels the positions the fast player reaches)."),
    sides: Optional[str] = typer.Option(None, "--sides",
                                        help="Learn only these sides, comma-separated (default every side): "
                                             "the search plays and the fit is checked only there."),
    chunk: int = typer.Option(10, "--chunk", parser=parse_count,
                              help="Search games saved at a time (what Ctrl-C can lose at most; default 10)."),
    seed: int = seed_option(),
    sets: List[str] = sets_option(),
    players: Optional[int] = players_option(),
    config: Optional[Path] = config_option(),
    threads: Optional[int] = threads_option(),
    out: Optional[Path] = typer.Option(None, "--out", "-o", parser=parse_path,
                                       help="Output folder (default reports/<game>/learn-<timestamp>/)."),
    resume: Optional[Path] = typer.Option(None, "--resume", parser=parse_path, help="Continue the killed run in this folder."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
) -> None:
    """Learn a fast player from a wide search: the search (every legal action screened on
    playouts, then raced) plays one side against the current player; a conditional logit fits
    the learned term's weights to its choices; paired games check the new player against the
    current one on each side. Repeats with the new player until a round gains nothing.

    Writes learned.toml into --out: play it with --policy SIDE=tuned:DIR/learned.toml; copied
    to configs/tuned/<game>.toml it is the built-in player 'tuned'. Ctrl-C keeps every
    finished chunk of games (--resume DIR)."""
    from lotr_sim import api
    from lotr_sim.errors import LotrSimError
    if resume is not None and out is not None:
        raise LotrSimError("give either --resume DIR or --out DIR, not both")
    g = api.get_game(game)
    res = api.learn(g, iterations=3 if iterations is None else iterations, games=games, budget=budget,
                    check_games=check_games, start=start, l2=l2, chunk=chunk, seed=seed,
                    sets=players_sets(game, sets, players) or None,
                    config=str(config) if config else None, threads=threads, out=out, resume=resume,
                    progress=not quiet and not as_json, target=target,
                    extend_to=iterations if resume is not None else None,
                    sides=[x.strip() for x in sides.split(",") if x.strip()] if sides else None, states=states)
    if as_json:
        print_json(res.to_dict())
        return
    for it in res.iterations:
        sg = ", ".join(f"{s} {100 * x['gain']:+.1f} [{100 * x['lo']:+.1f}, {100 * x['hi']:+.1f}]"
                       for s, x in it["search_gain"].items())
        ck = ", ".join(f"{s} {100 * x['gain']:+.2f} [{100 * x['lo']:+.2f}, {100 * x['hi']:+.2f}]"
                       for s, x in it["check"].items())
        sg = f"the search gained {sg} points over the player it searched on" if sg else \
            "the search labelled the player's own games (its gain not measured)"
        typer.echo(f"round {it['iteration']}: {sg}; "
                   f"the fitted player gains {ck} over it on paired games (kept: {', '.join(it['kept']) or 'none'}; "
                   f"{it['seconds']:.0f} s)")
    if res.path is None:
        typer.echo(f"no round improved on {res.iterations[0]['searched_on'] if res.iterations else 'the start'}: "
                   f"nothing written (the rounds are in {res.out}/learn.json)")
        return
    typer.echo(f"learned weights in {res.path}; play them with: "
               + " ".join(f"--policy {s}=tuned:{res.path}" for s in g.sides))
