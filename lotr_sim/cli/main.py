"""Root Typer app. Each command lives in its own module (spaCy style) and imports the
heavy machinery (numba, pandas, matplotlib, dask) only when it runs."""
from __future__ import annotations

import difflib
import importlib
import inspect
import os
import sys
from typing import Any

import typer
from typer.core import TyperGroup

try:  # Typer >= 0.2x carries its own copy of click; its errors are that copy's classes
    from typer import _click as click
except ImportError:  # pragma: no cover - older Typer on the real click
    import click

from lotr_sim import __version__


def _close_option(name: str, ctx: Any) -> str | None:
    """The one option of the command genuinely close to a mistyped ``name`` (a typo of a
    few letters: ``--atackers`` -> ``--attackers``), else None. Click's own suggestion
    compares whole strings with the dashes, so ``--foo`` "resembles" ``--good``."""
    if ctx is None or not name.startswith("--") or len(name) < 4:
        return None
    longs = [o for p in ctx.command.params for o in getattr(p, "opts", []) + getattr(p, "secondary_opts", [])
             if o.startswith("--")]
    bare = {o[2:]: o for o in longs}
    hit = difflib.get_close_matches(name[2:], list(bare), n=1, cutoff=0.8)
    return bare[hit[0]] if hit else None


def usage_line(e: Exception) -> str:
    """A click/Typer error (unknown option or command, bad or missing value) as the one
    line every lotr-sim error uses (without the ``lotr-sim: error:`` prefix)."""
    ctx = getattr(e, "ctx", None)
    if isinstance(e, click.exceptions.NoSuchOption):
        msg = f"no such option: {e.option_name}"
        close = _close_option(e.option_name, ctx)
        if close:
            msg += f" (did you mean {close}?)"
    elif isinstance(e, click.exceptions.UsageError) and e.message.startswith("No such command"):
        typo = e.message.split("'")[1] if e.message.count("'") >= 2 else ""
        cmds = [name for name, _ in COMMANDS]
        hit = difflib.get_close_matches(typo, cmds, n=1, cutoff=0.8)
        msg = f"no such command '{typo}'" + (f" (did you mean '{hit[0]}'?)" if hit else "")
    else:
        msg = " ".join(e.format_message().split()).rstrip(".")
        msg = msg[:1].lower() + msg[1:]
    if ctx is not None:
        msg += f"; see '{ctx.command_path} --help'"
    return msg


class LotrSimGroup(TyperGroup):
    """The root group: every usage error (Typer's boxed panels) becomes the single line
    ``lotr-sim: error: ...`` on stderr with exit code 2, in the real program and under
    ``typer.testing.CliRunner`` alike."""

    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:
        from lotr_sim.cli._common import ascii_safe_output
        ascii_safe_output()
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            rv = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.exceptions.NoArgsIsHelpError as e:   # bare `lotr-sim`: the help, exit 0
            click.echo(e.ctx.get_help())
            sys.exit(0)
        except click.exceptions.ClickException as e:
            click.echo(f"lotr-sim: error: {usage_line(e)}", err=True)
            sys.exit(2)
        except (getattr(click.exceptions, "Abort", typer.Abort), typer.Abort):
            click.echo("lotr-sim: error: aborted", err=True)
            sys.exit(1)
        sys.exit(rv if isinstance(rv, int) else 0)


app = typer.Typer(
    name="lotr-sim",
    cls=LotrSimGroup,
    help="Monte Carlo balance analysis for Lord of the Rings board games.",
    no_args_is_help=True,
    add_completion=False,
    suggest_commands=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)

# (command name, "module:function"): one module per command.
COMMANDS = [
    ("battle", "lotr_sim.cli.battle:battle"),
    ("bombard", "lotr_sim.cli.battle:bombard"),
    ("bench", "lotr_sim.cli.bench:bench"),
    ("run", "lotr_sim.cli.run:run"),
    ("sweep", "lotr_sim.cli.sweep:sweep"),
    ("compare", "lotr_sim.cli.compare:compare"),
    ("balance", "lotr_sim.cli.balance:balance"),
    ("fix", "lotr_sim.cli.fix:fix"),
    ("skill", "lotr_sim.cli.skill:skill"),
    ("tune", "lotr_sim.cli.tune:tune"),
    ("learn", "lotr_sim.cli.learn:learn"),
    ("report", "lotr_sim.cli.report:report"),
    ("play", "lotr_sim.cli.play:play"),
    ("replay", "lotr_sim.cli.replay:replay"),
    ("params", "lotr_sim.cli.params:params"),
    ("fellowship", "lotr_sim.cli.fellowship:fellowship"),
    ("tiles", "lotr_sim.cli.tiles:tiles"),
]


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"lotr-sim {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: bool = typer.Option(False, "--version", "-V", callback=_version_callback,
                                 is_eager=True, help="Print the version and exit."),
    verbose: bool = typer.Option(False, "--verbose", "-v",
                                 help="Say on stderr, in one line, how the numba first-run compile machinery is set "
                                      "up (a helper process and lean callees; skipped on a numba release it is not "
                                      "known to work on). LOTR_SIM_COMPILE_HELPER=0 and LOTR_SIM_LEAN_CALLEES=0 "
                                      "switch its parts off."),
) -> None:
    """Monte Carlo balance analysis for Lord of the Rings board games."""
    from lotr_sim import _numba
    _numba.set_verbose(verbose)


def flowed_help(doc: str | None) -> str | None:
    """A command's docstring as help text that flows: the lines of each paragraph joined, so
    the terminal wraps them at its own width (Typer prints the docstring's own line breaks,
    which cut sentences in half at 80 columns). A paragraph that is a list (lines starting
    "* " or "- ") keeps its lines."""
    if not doc:
        return doc
    paras = inspect.cleandoc(doc).split("\n\n")
    out = []
    for p in paras:
        lines = p.splitlines()
        if any(x.lstrip().startswith(("* ", "- ", "\b")) for x in lines):
            out.append(p)
        else:
            out.append(" ".join(x.strip() for x in lines))
    return "\n\n".join(out)


for _name, _target in COMMANDS:
    _mod, _fn = _target.split(":")
    _func = getattr(importlib.import_module(_mod), _fn)
    app.command(_name, help=flowed_help(_func.__doc__))(_func)


def main() -> None:
    """The ``lotr-sim`` program. A bug escaping a command (never bad input: that is a
    ``LotrSimError``) still prints one line, with exit code 1; ``LOTR_SIM_TRACEBACK=1``
    shows the traceback for a bug report."""
    from lotr_sim import _numba
    _numba.want()       # the first-run compile machinery and notice (lotr_sim/_numba), here only
    try:
        app()
    except (Exception, MemoryError) as e:  # noqa: BLE001 - the last net under every command
        if os.environ.get("LOTR_SIM_TRACEBACK"):
            raise
        what = " ".join(str(e).split()) or "(no message)"
        typer.echo(f"lotr-sim: error: internal error {type(e).__name__}: {what} "
                   f"(a bug: please report it; LOTR_SIM_TRACEBACK=1 shows the traceback)", err=True)
        sys.exit(1)


if __name__ == "__main__":
    main()
