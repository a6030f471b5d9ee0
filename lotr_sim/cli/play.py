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
    human: Optional[str] = typer.Option(None, "--human", help="Play this seat yourself (good/evil, p1..p4, frodo/sam) against the other seats' players."),
    board: Optional[Path] = typer.Option(None, "--board", parser=parse_path, help="With --human: write the board at each of your decisions to this file (.html: the replay so far; .svg: the board now)."),
    save: Optional[Path] = typer.Option(None, "--save", parser=parse_path, help="With --human: the save file q and Ctrl-D write (default: lotr-sim-<game>-<seed>-<index>.save.json)."),
    resume: Optional[Path] = typer.Option(None, "--resume", parser=parse_path, help="Go on with a game saved by --human (its game, seed, index, players and decisions)."),
) -> None:
    """Play one game of --game and print a readable turn-by-turn account, its end and its score.

    The dice, moves, battles and cards are the game's own (--trace writes them as events).

    Sides: Good and Evil (minas-tirith; lotr-risk, seats p1-p4), Frodo and Sam (the-search).

    --human SEAT plays that seat from the terminal: the position and the legal actions are shown
    at each of your decisions; type a number (Enter takes the suggested one, ? help, u undo, q
    save and quit; --resume FILE goes on)."""
    from lotr_sim.games.registry import get_game
    from lotr_sim.kernels.rng import check_seed
    check_seed(seed)  # a SeedError is a LotrSimError: one error line
    if not 0 <= index <= MAX_INDEX:
        raise LotrSimError(f"--index must be in 0..{MAX_INDEX} (2**63 - 1), got {index}")
    if human is not None or resume is not None:
        events = _play_human(game, seed, index, seat_policies(policy, good, evil), players_sets(game, sets, players),
                             str(config) if config else None, human, board, save, resume)
        if events is None:
            return
        g = get_game(events[0]["game_name"])
    else:
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


def _play_human(game: str, seed: int, index: int, policies: dict, sets: list, config: str | None,
                human: str | None, board: Optional[Path], save: Optional[Path], resume: Optional[Path]):
    """The game with a human seat (``lotr_sim.replay.human``): its events, or None when the
    human saved and quit (the save's line printed)."""
    from lotr_sim.games.registry import get_game
    from lotr_sim.replay.human import HumanGame, Saved, human_seat, load_save
    decisions: list = []
    if resume is not None:
        sv = load_save(resume)
        game, seed, index, sets, config = sv["game"], int(sv["seed"]), int(sv["index"]), list(sv["sets"]), sv["config"]
        policies, human, decisions = dict(sv["policies"]), sv["human"], list(sv["decisions"])
        save = save or resume
    g = get_game(game)
    cfg = g.load(config, sets)
    comp = g.compile(cfg)
    seat = human_seat(g, comp, str(human))
    pols = {k: v for k, v in g.check_policies(policies).items()}
    save = save or Path(f"lotr-sim-{g.name}-{seed}-{index}.save.json")
    session = HumanGame(g, cfg, comp, pols, seed, index, seat, save, board, decisions, sets, config,
                        say=lambda t: typer.echo(t))
    try:       # no spinner here: the prompts share the terminal
        _, events = session.play()
    except Saved as e:
        typer.echo(str(e))
        return None
    return events
