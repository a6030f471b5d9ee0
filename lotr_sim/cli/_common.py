"""Helpers shared by the command modules: one-line errors, JSON output, common options."""
from __future__ import annotations

import contextlib
import functools
import json
import sys
from pathlib import Path
from typing import Any, Callable

import typer

from lotr_sim._json import json_default
from lotr_sim.errors import Interrupted, LotrSimError


def fail(message: str, code: int = 2) -> "typer.Exit":
    typer.echo(f"lotr-sim: error: {message}", err=True)
    return typer.Exit(code)


#: Exit code of a command stopped by SIGTERM (128 + 15, as the shell reports a kill).
SIGTERM_EXIT = 143


def cli_errors(func: Callable) -> Callable:
    """Turn a LotrSimError (or an interrupted run) into one line on stderr and exit != 0.
    SIGTERM stops a command as Ctrl-C does (``_sigterm_as_interrupt``): finished work is
    kept, and the line starts "terminated (SIGTERM)", exit code 143."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        problem = numba_cache_problem()
        if problem:
            typer.echo(f"lotr-sim: warning: {problem}", err=True)
        with _sigterm_as_interrupt() as term:
            try:
                with _setup_warnings_printed():
                    return func(*args, **kwargs)
            except LotrSimError as e:
                msg, code = str(e), getattr(e, "exit_code", 2)
                if term and isinstance(e, Interrupted):
                    msg, code = f"terminated (SIGTERM): {msg}", SIGTERM_EXIT
                raise fail(msg, code=code) from None
            except KeyboardInterrupt:
                raise (fail("terminated (SIGTERM)", code=SIGTERM_EXIT) if term
                       else fail("interrupted", code=130)) from None

    return wrapper


def numba_cache_problem() -> str | None:
    """What is wrong with ``NUMBA_CACHE_DIR`` as a place for numba's cache, or None. When it is
    unset lotr-sim's kernels cache in a folder lotr-sim checked (``lotr_sim._numba.cache``); a
    user's value is used as given, and numba quietly falls back
    (beside the installed package, or no cache and a compile every run) when it is a file, a
    path through a file or a folder it cannot write."""
    import os

    from lotr_sim._numba.cache import checked_cache_dir
    value = os.environ.get("NUMBA_CACHE_DIR")
    if not value or value == checked_cache_dir():
        return None
    from lotr_sim.experiments.store import write_blocker
    blocked = write_blocker(Path(value))
    if blocked is None:
        return None
    where, why = blocked
    if why is not None:
        why = f"is not writable ({why})"
    elif where == Path(os.path.abspath(value)):
        why = "is a file, not a folder"
    else:
        why = f"cannot be made: {where} is a file"
    return (f"NUMBA_CACHE_DIR={value} {why}: numba cannot keep the compiled engines there and compiles "
            "them again (about a minute a game) or caches them elsewhere; unset NUMBA_CACHE_DIR or point "
            "it at a writable folder")


@contextlib.contextmanager
def _sigterm_as_interrupt():
    """While a command runs, SIGTERM (``kill``, a job scheduler's stop) raises
    KeyboardInterrupt in the main thread, as Ctrl-C does, so a run finishes its bookkeeping
    (a run's finished games and summary, a sweep's manifest) instead of dying with a temp
    file; a repeated SIGTERM is ignored while that is done. Yields a list that holds the
    signal once it came. Outside the main thread (no handler can be set) it does nothing."""
    import signal
    import threading
    got: list[int] = []
    if threading.current_thread() is not threading.main_thread():
        yield got
        return

    def handler(signum, frame):
        if not got:
            got.append(signum)
            raise KeyboardInterrupt

    try:
        old = signal.signal(signal.SIGTERM, handler)
    except (ValueError, OSError):
        yield got
        return
    try:
        yield got
    finally:
        signal.signal(signal.SIGTERM, old)


def _setup_warnings_printed():
    """While a command runs, print each set-up warning a game's ``load`` issues
    (``Game.setup_warnings``) once, as ``lotr-sim: warning: ...`` on stderr."""
    from lotr_sim.games.base import setup_warnings_printed
    return setup_warnings_printed()


# What a character the terminal cannot show is written as (others: their unaccented letters,
# else "?"), for a stream whose encoding is ASCII or another narrow one (PYTHONIOENCODING).
ASCII_FALLBACKS = {
    "\u2013": "-", "\u2014": "--", "\u2212": "-", "\u00b1": "+/-", "\u00d7": "x", "\u2265": ">=",
    "\u2264": "<=", "\u2260": "!=", "\u2248": "~", "\u2192": "->", "\u2190": "<-", "\u00b7": ".",
    "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2026": "...", "\u221e": "inf",
    "\u2713": "v", "\u2717": "x", "\u2501": "-", "\u2500": "-", "\u2502": "|", "\u2503": "|",
    "\u2588": "#", "\u00a0": " ",
}
_FALLBACK_ERRORS = "lotr_sim_fallback"
_ASCII_CODEC = "lotr_sim_ascii"


def _fallback(err: UnicodeError) -> tuple[str, int]:
    import unicodedata
    if not isinstance(err, UnicodeEncodeError):
        raise err
    out = []
    for ch in err.object[err.start:err.end]:
        alt = ASCII_FALLBACKS.get(ch)
        if alt is None:
            alt = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode() or "?"
        out.append(alt)
    return "".join(out), err.end


def _ascii_codec(name: str):
    """A codec named ``lotr_sim_ascii``: ASCII with the fallbacks. Click treats a stream
    whose codec is plain ``ascii`` as misconfigured and writes UTF-8 bytes to it instead;
    under this name it writes through the stream, and rich draws ASCII boxes."""
    import codecs
    if name != _ASCII_CODEC:
        return None
    ascii_info = codecs.lookup("ascii")

    def encode(text: str, errors: str = "strict"):
        return codecs.ascii_encode(text, _FALLBACK_ERRORS)

    class Writer(codecs.StreamWriter):
        def encode(self, text, errors="strict"):
            return encode(text)

    class IncEncoder(codecs.IncrementalEncoder):
        def encode(self, text, final=False):
            return encode(text)[0]

    return codecs.CodecInfo(encode, ascii_info.decode, streamwriter=Writer, streamreader=ascii_info.streamreader,
                            incrementalencoder=IncEncoder, incrementaldecoder=ascii_info.incrementaldecoder,
                            name=_ASCII_CODEC)


def ascii_safe_output() -> None:
    """Let stdout and stderr degrade instead of failing when their encoding cannot show the
    characters lotr-sim prints (en dashes, +/-, box drawing): an ASCII stream gets the
    ``lotr_sim_ascii`` codec, another narrow one (latin-1, ...) the fallback error handler.
    A UTF-8 stream is left alone."""
    import codecs
    try:
        codecs.lookup_error(_FALLBACK_ERRORS)
    except LookupError:
        codecs.register_error(_FALLBACK_ERRORS, _fallback)
        codecs.register(_ascii_codec)
    for stream in (sys.stdout, sys.stderr):
        enc = getattr(stream, "encoding", None)
        if not enc or not hasattr(stream, "reconfigure"):
            continue
        try:
            "\u2013\u2501\u00b1".encode(enc)
            continue                      # it shows them: nothing to do
        except (UnicodeEncodeError, LookupError):
            pass
        try:
            if codecs.lookup(enc).name == "ascii":
                stream.reconfigure(encoding=_ASCII_CODEC)
            else:
                stream.reconfigure(errors=_FALLBACK_ERRORS)
        except (ValueError, OSError, LookupError):   # a stream that cannot change: leave it
            pass


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


def parse_path(value: Any) -> Path:
    """A file or folder option's value as a Path. An empty (or blank) value is refused here
    with one line: ``Path("")`` is the current folder, so ``--out ""`` would write there."""
    if isinstance(value, Path):
        return value
    text = "" if value is None else str(value)
    if not text.strip():
        raise typer.BadParameter("an empty path; give a file or folder name")
    return Path(text)


def plot_file(path: Path) -> Path:
    """The file a ``--plot`` option writes: a folder or a format matplotlib cannot write is
    refused (one line), and a name without a suffix gets ``.png``, as matplotlib would add,
    so the message names the file that is really written."""
    path = Path(path)
    if path.is_dir():
        raise LotrSimError(f"--plot {path} is a folder; give a file name such as {path / 'plot.png'}")
    if not path.suffix:
        return path.with_name(path.name + ".png")
    from matplotlib.backend_bases import FigureCanvasBase
    kinds = FigureCanvasBase.get_supported_filetypes()
    if path.suffix[1:].lower() not in kinds:
        raise LotrSimError(f"--plot {path}: matplotlib cannot write '{path.suffix}' files "
                           f"(use .png, .pdf or .svg; all: {', '.join(sorted(kinds))})")
    return path


def print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, indent=2, default=json_default) + "\n")


# --- options shared by the commands that play games: one declaration, one help text ---------

# The sides (and seats) of every game, for help texts, which cannot depend on --game (click
# prints --help before it parses the other options). tests/cli/test_help.py checks it against
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
    return typer.Option(None, "--config", "-c", parser=parse_path, help="Game config TOML, merged over the game's default "
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


def game_or_resumed(game: str | None, resume: Path | None) -> str:
    """The game a command runs: ``--game`` when given, else the game of the run in the
    ``--resume`` folder (its manifest), else minas-tirith."""
    if game is not None:
        return game
    if resume is not None:
        from lotr_sim.experiments.store import Store
        return Store(resume).read_manifest().get("game")
    return "minas-tirith"


def games_played_line(manifest: dict) -> str:
    """How many games a finished run holds and how many this invocation played, in how long:
    ``N games in S s (G games/s)``, led by ``T games in all;`` when a resumed or extended run
    holds more games than it played now."""
    lr = manifest["last_run"]
    played = int(lr["games_played"])
    gps = lr.get("games_per_second")
    line = f"{played:,} games in {lr['elapsed_s']:.1f} s" + (f" ({gps:,.0f} games/s)" if gps else "")
    total = manifest.get("games_total")
    if isinstance(total, int) and total > played:
        line = f"{total:,} games in all; {line} in this run"
    return line


def scheduler_option() -> Any:
    return typer.Option(None, "--scheduler", help="Dask scheduler tcp://HOST:PORT.")


def cluster_option() -> Any:
    return typer.Option(None, "--cluster", help="'local': start a Dask LocalCluster.")


def workers_option() -> Any:
    return typer.Option(None, "--workers", help="Workers of --cluster local.")


def threads_option() -> Any:
    return typer.Option(None, "--threads", "-j", help="Threads, 1 to 4 x the cores (default: all cores).")
