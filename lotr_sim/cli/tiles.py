"""``lotr-sim tiles``: The Search's tile catalogue and tile-draw outcomes.

* ``lotr-sim tiles generate --seed S [--out FILE]`` writes a tile catalogue (TS-1.2 [R]) made
  by the documented, seeded generator (lotr_sim/games/the_search/catalogue.py), as a TOML
  file a designer can edit and pass back with ``--config``;
* ``lotr-sim tiles --games N [--out DIR]`` reports what the catalogue and the placing rules
  do over N games: unplaceable hands, neutral tiles, where Mount Doom ends up and how far it
  is from the Shire, token sites per colour, tokens never collected, phase lengths
  (lotr_sim/games/the_search/tiles.py), with 95% intervals, for any ``--config``/``--set``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from lotr_sim.cli._common import (
    cli_errors, config_option, fail, parse_count, parse_path, policy_option, seat_policies, sets_option, threads_option,
)


@cli_errors
def tiles(
    action: Optional[str] = typer.Argument(None, help="'generate' writes a tile catalogue; omit it for the "
                                                      "tile-draw report."),
    seed: Optional[int] = typer.Option(None, "--seed", "-s", help="generate: the generator's seed (default "
                                       "2026, the default catalogue's); report: the master seed (default 1)."),
    out: Optional[Path] = typer.Option(None, "--out", "-o", parser=parse_path, help="generate: the catalogue file (default: "
                                       "print it); report: a folder for tables and plots."),
    same_share: Optional[float] = typer.Option(None, "--same-share",
                                               help="generate: share of sections copying their neighbour's terrain."),
    games: int = typer.Option(2000, "--games", "-n", parser=parse_count, help="report: games to play."),
    config: Optional[str] = config_option(),
    sets: list[str] = sets_option(),
    policy: list[str] = policy_option(),
    threads: Optional[int] = threads_option(),
    force: bool = typer.Option(False, "--force", help="Replace an existing --out file or folder's files."),
) -> None:
    """The Search tiles: generate a catalogue, or report tile-draw outcomes over N games."""
    if action is not None and action != "generate":
        raise fail(f"unknown tiles action '{action}' (actions: generate; none for the tile-draw report)")
    if action == "generate":
        from lotr_sim.games.the_search.tiles import catalogue
        text, gen = catalogue(seed, same_share)
        if out is None:
            typer.echo(text, nl=False)
            return
        if out.exists() and not force:
            raise fail(f"{out} exists (use --force to replace it)")
        out.write_text(text, encoding="utf-8")
        typer.echo(f"wrote {out} (47 tiles, seed {gen['seed']}); use it with --config {out}")
        return
    from lotr_sim import api
    res = api.tiles(games=games, seed=1 if seed is None else seed, config=config, sets=sets,
                    policies=seat_policies(policy), threads=threads, out=out, force=force)
    typer.echo(res.text())
    if out is not None:
        typer.echo(f"wrote {', '.join(p.name for p in res.paths)} in {out}")
