"""``lotr-sim play``: one game with a readable turn-by-turn account (and a JSONL trace)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import List, Optional

import typer

from lotr_sim.cli._common import cli_errors, config_option, evil_option, game_option, good_option, parse_path, policy_option, players_option, players_sets, seat_policies, seed_option, sets_option
from lotr_sim.errors import LotrSimError

MAX_INDEX = 2**63 - 1  # a game index is a stream index: int64 (lotr_sim.kernels.rng)


def _compile_spinner(game):
    """The spinner the other commands show while numba compiles the engine on first use
    (lotr_sim.experiments.progress.warm_up), on stderr and only on a terminal, so that stdout
    (the account, or JSON) is never touched; a no-op context otherwise."""
    import contextlib
    import sys

    from rich.console import Console

    from lotr_sim.experiments.progress import compile_status

    if not Console(file=sys.stderr).is_terminal:
        return contextlib.nullcontext()
    return compile_status(game)


@cli_errors
def play(
    game: str = game_option(),
    seed: int = seed_option(),
    index: int = typer.Option(0, "--index", "-i", help="Game index within the seed's run."),
    good: Optional[str] = good_option(),
    evil: Optional[str] = evil_option(),
    policy: List[str] = policy_option(),
    sets: List[str] = sets_option(),
    players: Optional[int] = players_option(),
    config: Optional[Path] = config_option(),
    trace: Optional[Path] = typer.Option(None, "--trace", "-t", parser=parse_path, help="Write the events as JSON Lines."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print only the result."),
) -> None:
    """Play one game of --game and print a readable turn-by-turn account, its end and its score.

    The dice, moves, battles and cards are the game's own (--trace writes them as events).

    Sides: Good and Evil (minas-tirith; lotr-risk, seats p1-p4), Frodo and Sam (the-search)."""
    from lotr_sim.games.registry import get_game
    from lotr_sim.kernels.rng import check_seed
    check_seed(seed)  # a SeedError is a LotrSimError: one error line
    if not 0 <= index <= MAX_INDEX:
        raise LotrSimError(f"--index must be in 0..{MAX_INDEX} (2**63 - 1), got {index}")
    g = get_game(game)
    pols = g.check_policies(seat_policies(policy, good, evil))
    cfg = g.load(str(config) if config else None, players_sets(game, sets, players))
    comp = g.compile(cfg)
    with _compile_spinner(g):
        row, events = g.play(comp, pols, seed, index)
    if trace is not None:
        try:
            with open(trace, "w") as f:
                for e in events:
                    f.write(json.dumps(e) + "\n")
        except OSError as e:
            raise LotrSimError(f"cannot write trace {trace}: {e.strerror}") from None
    if not quiet:
        typer.echo(g.account(events))     # header line first, end line last (lotr_sim.games.account)
    else:
        end = [e for e in events if e["event"] == "game_end"]
        if end:
            from lotr_sim.games.account import end_line
            typer.echo(end_line(end[-1]).strip())
    if trace is not None:
        typer.echo(f"wrote {len(events)} events to {trace}")
