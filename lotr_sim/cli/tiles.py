"""``lotr-sim tiles generate``: write a The Search tile catalogue (TS-1.2 [R]) made by the
documented, seeded generator (lotr_sim/games/the_search/catalogue.py), as a TOML file a
designer can edit and pass back with ``--config``."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from lotr_sim.cli._common import cli_errors, fail


@cli_errors
def tiles(
    action: str = typer.Argument(..., help="What to do: 'generate' (write a tile catalogue)."),
    seed: int = typer.Option(2026, "--seed", "-s", help="The generator's seed (the default catalogue is seed 2026)."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", help="Write the catalogue here (default: print it)."),
    same_share: Optional[float] = typer.Option(None, "--same-share",
                                               help="Share of sections copying their neighbour's terrain (0..1)."),
    force: bool = typer.Option(False, "--force", help="Replace an existing --out file."),
) -> None:
    """Generate a The Search tile catalogue (47 tiles, sections N E S W over W/M/F/D)."""
    if action != "generate":
        raise fail(f"unknown tiles action '{action}' (actions: generate)")
    from lotr_sim.games.the_search.catalogue import catalogue_toml
    gen: dict = {"seed": seed}
    if same_share is not None:
        gen["same_share"] = same_share
    text = catalogue_toml(gen)
    if out is None:
        typer.echo(text, nl=False)
        return
    if out.exists() and not force:
        raise fail(f"{out} exists (use --force to replace it)")
    out.write_text(text, encoding="utf-8")
    typer.echo(f"wrote {out} (47 tiles, seed {seed}); use it with --config {out}")
