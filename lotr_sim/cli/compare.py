"""``lotr-sim compare``: does variant A move Good's win rate by at least δ either way? Paired games
and a sequential test valid from the first pair (``lotr_sim.experiments.sequential``)."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from lotr_sim.cli._common import cli_errors, config_option, evil_option, game_option, good_option, parse_count, policy_option, print_json, players_option, players_sets, seat_policies, seed_option, threads_option


@cli_errors
def compare(
    game: str = game_option(),
    set_a: List[str] = typer.Option([], "--set", help="Variant A: name=value (repeatable; SIDE=NAME, e.g. good=greedy or frodo=racer, for a player)."),
    set_b: List[str] = typer.Option([], "--vs", help="Variant B: name=value (repeatable)."),
    base: List[str] = typer.Option([], "--base", help="Common override for both variants (repeatable)."),
    players: Optional[int] = players_option(),
    good: Optional[str] = good_option(),
    evil: Optional[str] = evil_option(),
    policy: List[str] = policy_option(),
    config: Optional[Path] = config_option(),
    alpha: float = typer.Option(0.05, "--alpha", help="P(announcing a change, either way, when there is none)."),
    beta: float = typer.Option(0.05, "--beta", help="P(missing a change of --delta)."),
    p0: Optional[float] = typer.Option(None, "--p0", hidden=True, help="Gone: use --delta."),
    p1: Optional[float] = typer.Option(None, "--p1", hidden=True, help="Gone: use --delta."),
    delta: float = typer.Option(0.02, "--delta", help="The change of the first side's win rate (Good's; "
                                "Frodo's in the-search) that matters (0.02 = 2 percentage points)."),
    min_games: int = typer.Option(100, "--min-games", parser=parse_count, help="No decision before this many pairs."),
    max_games: int = typer.Option(200000, "--max-games", parser=parse_count, help="Stop undecided after this many pairs."),
    seed: int = seed_option(),
    threads: Optional[int] = threads_option(),
    unpaired: bool = typer.Option(False, "--unpaired", help="Independent streams for B (to see what pairing saves)."),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
) -> None:
    """Does variant A move the first side's win rate (Good's; Frodo's in the-search) by at least
    --delta either way, compared with B?

    Paired games (game i of both variants uses stream i) and two sequential likelihood-ratio
    tests on the paired win/draw/loss outcomes; stops when the evidence decides (raises /
    lowers / no change as large as --delta) and the printed interval agrees."""
    from lotr_sim import api
    pol = seat_policies(policy, good, evil)
    r = api.compare(game, set_a, set_b, sets=players_sets(game, base, players), policies=pol, config=str(config) if config else None,
                    seed=seed, alpha=alpha, beta=beta, p0=p0, p1=p1, delta=delta, max_games=max_games,
                    min_games=min_games,
                    threads=threads, paired=not unpaired, progress=not quiet and not as_json)
    if as_json:
        print_json(r.to_dict())
        return
    o = r["outcome"]
    typer.echo(f"A: {r['a']}   B: {r['b']}   ({'paired' if r['paired'] else 'unpaired'}, seed {r['seed']})")
    word = "answer" if r["decision"] is not None else "no answer"
    typer.echo(f"{word} after {r['games']} games: {r['verdict']}")
    typer.echo(f"{o} win rate A {100 * r['rate_a']:.2f}% [{100 * r['ci95_a'][0]:.2f}, {100 * r['ci95_a'][1]:.2f}]"
               f"   B {100 * r['rate_b']:.2f}% [{100 * r['ci95_b'][0]:.2f}, {100 * r['ci95_b'][1]:.2f}]")
    d = r["delta_ci95"]
    typer.echo(f"A - B: {100 * r['delta']:+.2f} percentage points, 95% interval [{100 * d[0]:+.2f}, {100 * d[1]:+.2f}] "
               f"({r['a_only']} games won by {o} under A only, {r['b_only']} under B only)")
    t = r["test"]
    typer.echo(f"test: change of ±{100 * t['delta']:g} percentage points vs none, alpha={t['alpha']:g} "
               f"beta={t['beta']:g}; log-likelihood ratios {t['llr_raise']:+.2f} (rise), {t['llr_lower']:+.2f} (fall), "
               f"bounds [{t['lower']:.2f}, {t['upper']:.2f}]")
