"""``lotr-sim report DIR``: rebuild report.md/report.html and plots from the Parquet files."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from lotr_sim.cli._common import cli_errors, parse_path


@cli_errors
def report(folder: Path = typer.Argument(..., parser=parse_path, help="A sweep (or skill) output folder."),
           target: Optional[str] = typer.Option(None, "--target", help="Parity of the verdict: good50 (the first "
                                                "side, Good or Frodo, wins 50% of games) or equal (first = second); "
                                                "default: the sweep's. Another parity than the sweep's writes "
                                                "report-<target>.md/.html beside its report."),
           csv: bool = typer.Option(False, "--csv", help="Also write results.csv (the results table, one row "
                                    "per point)."),
           quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress on stderr."),
           ) -> None:
    """Rebuild a sweep's report (verdict, tables and plots) from its results.parquet."""
    from lotr_sim import api
    if target is not None:
        from lotr_sim.experiments.verdict import check_target
        target = check_target(target)
    out = api.report(folder, target, progress=not quiet)
    typer.echo(f"wrote {out['md']}, {out['html']} and {len(out['plots'])} plots")
    if out.get("own_report"):
        typer.echo(f"(the sweep's own report, {out['own_report']}, parity {out['own_target']}, is unchanged)")
    if csv:
        typer.echo(f"wrote {api.export_csv(folder)}")
    if out.get("verdict"):
        typer.echo(f"verdict: {out['verdict']['sentence']}")
