"""Root Typer app. Each command lives in its own module (spaCy style) and imports the
heavy machinery (numba, pandas, matplotlib, dask) only when it runs."""
from __future__ import annotations

import importlib

import typer

from lotr_sim import __version__

app = typer.Typer(
    name="lotr-sim",
    help="Monte Carlo balance analysis for Lord of the Rings board games.",
    no_args_is_help=True,
    add_completion=False,
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
    ("report", "lotr_sim.cli.report:report"),
    ("play", "lotr_sim.cli.play:play"),
    ("params", "lotr_sim.cli.params:params"),
]


def _version_callback(value: bool) -> None:
    if value:
        typer.echo(f"lotr-sim {__version__}")
        raise typer.Exit()


@app.callback()
def root(
    version: bool = typer.Option(False, "--version", "-V", callback=_version_callback,
                                 is_eager=True, help="Print the version and exit."),
) -> None:
    """Monte Carlo balance analysis for Lord of the Rings board games."""


for _name, _target in COMMANDS:
    _mod, _fn = _target.split(":")
    app.command(_name)(getattr(importlib.import_module(_mod), _fn))


def main() -> None:
    app()


if __name__ == "__main__":
    main()
