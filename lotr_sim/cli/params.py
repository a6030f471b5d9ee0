"""``lotr-sim params``: every rule parameter of a game (name, default, allowed, rule, help), then
its sides and the players each side may be given."""
from __future__ import annotations

import typer

from lotr_sim.cli._common import cli_errors, game_option, print_json


@cli_errors
def params(
    game: str = game_option(),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON list."),
) -> None:
    """List every rule parameter: name, default, allowed values, rule ID and help."""
    from lotr_sim.games.registry import get_game
    g = get_game(game)
    rows = g.describe_params()
    if as_json:
        print_json(rows)
        return
    from rich.console import Console
    from rich.table import Table
    con = Console()
    if not con.is_terminal:
        con = Console(width=200)
    t = Table(title=f"{g.name}: {len(rows)} parameters (override with --set name=value)")
    for c in ("name", "default", "allowed", "rule", "help"):
        t.add_column(c)
    for r in rows:
        d = r["default"]
        t.add_row(r["name"], str(d).lower() if isinstance(d, bool) else str(d), r["allowed"], r["rule"], r["help"])
    con.print(t)
    defaults = ", ".join(f"{side} {pol}" for side, pol in g.default_policies.items())
    seats = (f"; seats: {', '.join(g.seat_keys)} (--policy SEAT=NAME, over its side's)" if g.seat_keys else "")
    con.print(f"sides: {', '.join(g.sides)} (--policy SIDE=NAME){seats}; players: {', '.join(g.policies)}; "
              f"default: {defaults}")
