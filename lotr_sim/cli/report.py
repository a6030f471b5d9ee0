"""``lotr-sim report DIR``: rebuild report.md/report.html and plots from the Parquet files."""
from __future__ import annotations

from pathlib import Path

import typer

from lotr_sim.cli._common import cli_errors


@cli_errors
def report(folder: Path = typer.Argument(..., help="A sweep output folder.")) -> None:
    """Rebuild a sweep's report (tables and plots) from its results.parquet."""
    from lotr_sim import api
    out = api.report(folder)
    typer.echo(f"wrote {out['md']}, {out['html']} and {len(out['plots'])} plots")
