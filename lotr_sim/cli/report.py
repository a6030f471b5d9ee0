"""``lotr-sim report DIR``: rebuild report.md/report.html and plots from the Parquet files."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from lotr_sim.cli._common import cli_errors, parse_path


@cli_errors
def report(folder: Path = typer.Argument(..., parser=parse_path, help="A sweep output folder."),
           target: Optional[str] = typer.Option(None, "--target", help="Parity of the verdict: good50 (the first "
                                                "side, Good or Frodo, wins 50% of games) or equal (first = second); default: the sweep's.")
           ) -> None:
    """Rebuild a sweep's report (verdict, tables and plots) from its results.parquet."""
    from lotr_sim import api
    if target is None:
        out = api.report(folder)
    else:
        from lotr_sim.experiments.verdict import check_target
        from lotr_sim.reports.build import build_report
        out = build_report(folder, check_target(target))
    typer.echo(f"wrote {out['md']}, {out['html']} and {len(out['plots'])} plots")
    if out.get("verdict"):
        typer.echo(f"verdict: {out['verdict']['sentence']}")
