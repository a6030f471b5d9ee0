"""``lotr-sim replay``: a traced game as one self-contained HTML page of the board, step by step."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from lotr_sim.cli._common import cli_errors, parse_path


@cli_errors
def replay(
    trace: Path = typer.Argument(..., help="A JSON Lines trace (lotr-sim play --trace, lotr-sim run --trace)."),
    out: Path = typer.Option(..., "--out", "-o", parser=parse_path, help="The HTML file to write."),
    index: Optional[int] = typer.Option(None, "--index", "-i",
                                        help="The game index to replay from a trace of several games (default: the first)."),
) -> None:
    """Write one game of a trace as a self-contained HTML page: the board at every event, what
    happened (decisions with their number of options, dice, losses, retreats, cards), the points,
    and a slider and arrow keys to step through it. No server or network needed to open it."""
    from lotr_sim.api import replay_html
    r = replay_html(trace, out, index=index)
    typer.echo(f"wrote {r['path']} ({r['steps']} steps, {r['bytes'] / 1024:.0f} KiB)")
