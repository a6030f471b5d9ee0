"""``lotr-sim balance``: where does Good's win rate cross the target?"""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from lotr_sim.cli._common import cli_errors, config_option, evil_option, game_option, good_option, parse_count, policy_option, print_json, players_option, players_sets, seat_policies, seed_option, sets_option, threads_option


@cli_errors
def balance(
    game: str = game_option(),
    param: str = typer.Option(..., "--param", "-p", help="A numeric rule parameter."),
    range_: str = typer.Option(..., "--range", "-r", help="a:b, the values to search between."),
    target: str = typer.Option("0.5", "--target", "-t", help="Parity: the first side's win rate (Good's; "
                               "Frodo's in the-search) = a number in (0, 1), or 'equal' (= the second side's)."),
    games: int = typer.Option(4000, "--games", "-n", parser=parse_count, help="Games per evaluated value."),
    sets: List[str] = sets_option(),
    players: Optional[int] = players_option(short=False),
    good: Optional[str] = good_option(),
    evil: Optional[str] = evil_option(),
    policy: List[str] = policy_option(),
    config: Optional[Path] = config_option(),
    tol: Optional[float] = typer.Option(None, "--tol", help="Stop width for a float parameter."),
    max_steps: int = typer.Option(12, "--max-steps", help="Bisection steps at most."),
    seed: int = seed_option(),
    threads: Optional[int] = threads_option(),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
) -> None:
    """Find the value of --param where the first side's win rate (Good's; Frodo's in the-search)
    crosses --target (or the second side's, with 'equal').

    Bisection on paired runs; for an integer parameter the two bracketing values."""
    from lotr_sim import api
    pol = seat_policies(policy, good, evil)
    r = api.balance(game, param, range_, target=target, games=games, sets=players_sets(game, sets, players), policies=pol,
                    config=str(config) if config else None, seed=seed, tol=tol, max_steps=max_steps,
                    threads=threads, progress=not quiet and not as_json)
    if as_json:
        print_json(r.to_dict())
        return
    o, o1, equal = r["outcome"], r["second_outcome"], r["target"] == "equal"
    typer.echo(f"parity: {r['parity']}")
    for e in r["evaluated"]:
        extra = f"; {o1} {100 * e['rate_second']:.2f}%" if equal else ""
        typer.echo(f"  {param}={e['value']}: {o} {100 * e['rate']:.2f}% "
                   f"[{100 * e['ci95'][0]:.2f}, {100 * e['ci95'][1]:.2f}]{extra} ({e['games']} games)")
    typer.echo(r["message"])
    if r["bracketed"]:
        d = r["bracket_delta"]
        typer.echo(f"paired change of {o}'s win rate from {param}={d['lower']} to {param}={d['upper']}: "
                   f"{100 * d['delta']:+.2f} percentage points [{100 * d['ci95'][0]:+.2f}, {100 * d['ci95'][1]:+.2f}]")
        if r["estimate"] is not None:
            typer.echo(f"interpolated crossing {r['estimate']:.4g}, 95% interval "
                       f"[{r['interval'][0]:.4g}, {r['interval'][1]:.4g}]")
