"""Helpers shared by the command modules: one-line errors, JSON output, common options."""
from __future__ import annotations

import functools
import json
import sys
from typing import Any, Callable

import typer

from lotr_sim._json import json_default
from lotr_sim.errors import LotrSimError


def fail(message: str, code: int = 2) -> "typer.Exit":
    typer.echo(f"lotr-sim: error: {message}", err=True)
    return typer.Exit(code)


def cli_errors(func: Callable) -> Callable:
    """Turn a LotrSimError (or an interrupted run) into one line on stderr and exit != 0."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            with _setup_warnings_printed():
                return func(*args, **kwargs)
        except LotrSimError as e:
            raise fail(str(e), code=getattr(e, "exit_code", 2)) from None
        except KeyboardInterrupt:
            raise fail("interrupted", code=130) from None

    return wrapper


def _setup_warnings_printed():
    """While a command runs, print each set-up warning a game's ``load`` issues
    (``Game.setup_warnings``) once, as ``lotr-sim: warning: ...`` on stderr."""
    from lotr_sim.games.base import setup_warnings_printed
    return setup_warnings_printed()


def parse_count(value: Any) -> int:
    """A count of games, battles, ...: a whole number written ``20000``, ``20_000``, ``2e4``
    or ``1e12``. Fractions (``1.5``, ``1e-3``), ``inf``/``nan`` and text are refused here with
    one line; each command checks the range (at least 1, at most its stated bound)."""
    if isinstance(value, bool):
        raise typer.BadParameter(f"{value!r} is not a whole number")
    if isinstance(value, int):
        return value
    from decimal import Decimal, InvalidOperation
    text = str(value).strip()
    try:
        d = Decimal(text.replace("_", "") if "__" not in text else "x")
    except InvalidOperation:
        raise typer.BadParameter(f"{text!r} is not a whole number (e.g. 20000, 2e4)") from None
    if not d.is_finite():
        raise typer.BadParameter(f"{text!r} is not a whole number (e.g. 20000, 2e4)")
    if abs(d) > Decimal(10) ** 30:   # far above every bound; keeps int() cheap for 1e999999
        raise typer.BadParameter(f"{text!r} is far too large")
    if d != d.to_integral_value():
        raise typer.BadParameter(f"{text!r} is not a whole number (e.g. 20000, 2e4)")
    return int(d)


def print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, indent=2, default=json_default) + "\n")


# --- options shared by the commands that play games: one declaration, one help text ---------

# The sides (and seats) of every game, for help texts, which cannot depend on --game (click
# prints --help before it parses the other options). tests/test_cli_help.py checks it against
# the games' own sides and seats.
SIDES_HELP = "good/evil in minas-tirith, good/evil or seats p1-p4 in lotr-risk, frodo/sam in the-search"


def policy_option() -> Any:
    """``--policy SEAT=NAME`` (repeatable): the AI player of a seat, for any number of seats."""
    return typer.Option([], "--policy", "-P", help="A side's or seat's AI player as SIDE=NAME (repeatable, "
                        f"e.g. --policy frodo=greedy --policy sam=random). Sides: {SIDES_HELP}; "
                        "`lotr-sim params -g GAME` lists them and the players.")


def good_option() -> Any:
    return typer.Option(None, "--good", help="Good's AI player, for the games with a Good side (minas-tirith, "
                        "lotr-risk): the same as --policy good=NAME. The Search: --policy frodo=NAME.")


def evil_option() -> Any:
    return typer.Option(None, "--evil", help="Evil's AI player, for the games with an Evil side (minas-tirith, "
                        "lotr-risk): the same as --policy evil=NAME. The Search: --policy sam=NAME.")


def seat_policies(policy: list[str] | None, good: str | None = None, evil: str | None = None) -> dict[str, str]:
    """The seats' AI players from ``--policy SEAT=NAME`` and the ``--good``/``--evil`` aliases;
    a seat named twice, or by both with different players, is an error line. The game checks
    the seat and player names (``Game.check_policies``)."""
    from lotr_sim.config import parse_overrides
    out = parse_overrides(policy or [], option="--policy")
    for seat, name in (("good", good), ("evil", evil)):
        if name is None:
            continue
        if seat in out and out[seat] != name:
            raise LotrSimError(f"--{seat} {name} and --policy {seat}={out[seat]} disagree; give one of them")
        out[seat] = name
    return out


def game_option(default: str | None = "minas-tirith", extra: str = "") -> Any:
    return typer.Option(default, "--game", "-g", help="The game: minas-tirith, lotr-risk or the-search."
                        + extra)


def seed_option(default: int | None = 1) -> Any:
    return typer.Option(default, "--seed", "-s", help="Master seed in [0, 2**63): game (or battle) i uses "
                        "random stream (seed, i), so results are reproducible whatever the threads. Default 1.")


def config_option() -> Any:
    return typer.Option(None, "--config", "-c", help="Game config TOML, merged over the game's default "
                        "(any of its tables may be given, the params table included).")


def sets_option() -> Any:
    return typer.Option([], "--set", help="Rule parameter override name=value (repeatable; "
                        "`lotr-sim params` lists them).")


def players_option(short: bool = True) -> Any:
    """``--players N`` (``-p`` where the command has no other ``-p``): sugar for
    ``--set players=N``."""
    names = ["--players", "-p"] if short else ["--players"]
    return typer.Option(None, *names, help="Number of players, for a game with a `players` parameter "
                        "(LOTR Risk: 2, 3 or 4, LR-2.1); the same as --set players=N.")


def players_sets(game: str, sets: list[str] | None, players: int | None) -> list[str]:
    """``sets`` with ``players=N`` added for ``--players N``. One error line for a game with no
    ``players`` parameter or a ``--set players=`` that disagrees; the game's own check refuses
    an impossible number (``Game.load``)."""
    out = list(sets or [])
    if players is None:
        return out
    from lotr_sim.config import parse_overrides
    from lotr_sim.games.registry import get_game
    g = get_game(game)
    if "players" not in {p.name for p in g.params()}:
        raise LotrSimError(f"game '{g.name}' has no players parameter: --players is for games with "
                           "a choice of player count (e.g. lotr-risk)")
    given = parse_overrides(out, option="--set").get("players")
    if given is not None:
        try:
            same = int(str(given).strip()) == players
        except ValueError:
            same = False
        if not same:
            raise LotrSimError(f"--players {players} and --set players={given} disagree; give one of them")
        return out
    return out + [f"players={players}"]


def threads_option() -> Any:
    return typer.Option(None, "--threads", "-j", help="Threads, 1 to 4 x the cores (default: all cores).")
