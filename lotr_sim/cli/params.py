"""``lotr-sim params``: every rule parameter of a game (name, default, allowed, rule, help), then
its sides and the players each side may be given, then the heuristic weights ``lotr-sim tune``
searches (name, sides, range, greedy's and the shipped tuned value, help)."""
from __future__ import annotations

import typer

from lotr_sim.cli._common import cli_errors, game_option, print_json


@cli_errors
def params(
    game: str = game_option(),
    weights: bool = typer.Option(False, "--weights", help="Only the tuning weights (with --json: a JSON "
                                 "list of them)."),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON list (of the parameters; of the "
                                 "weights with --weights)."),
) -> None:
    """List every rule parameter (name, default, allowed values, rule ID and help), the sides
    and players, then the heuristic weights lotr-sim tune searches (name, sides, range,
    greedy's and the shipped tuned value)."""
    from lotr_sim.games.registry import get_game
    g = get_game(game)
    rows = g.describe_params()
    wrows = g.policy_table.describe_weights() if g.policy_table is not None else []
    if as_json:
        print_json(wrows if weights else rows)
        return
    width = _width()
    if weights:
        _print_weights(g, wrows, width)
        return
    defaults = ", ".join(f"{side} {pol}" for side, pol in g.default_policies.items())
    seats = (f"; seats: {', '.join(g.seat_keys)} (--policy SEAT=NAME, over its side's)" if g.seat_keys else "")
    tuned = (" and tuned:FILE (weights from lotr-sim tune)" if g.policy_table is not None else "")
    tail = (f"sides: {', '.join(g.sides)} (--policy SIDE=NAME){seats}; players: {', '.join(g.policies)}{tuned}; "
            f"default: {defaults}")
    if width < WIDE:
        _print_list(g.name, rows, tail, width)
    else:
        from rich.console import Console
        from rich.table import Table
        from rich.text import Text
        con = Console(width=width, soft_wrap=False)
        t = Table(title=f"{g.name}: {len(rows)} parameters (override with --set name=value)", expand=True)
        # names stay whole; the other columns wrap to fit the terminal, the help taking most room
        t.add_column("name", no_wrap=True)
        t.add_column("default", overflow="fold", ratio=1)
        t.add_column("allowed", overflow="fold", ratio=2)
        t.add_column("rule", overflow="fold", ratio=1)
        t.add_column("help", overflow="fold", ratio=5)
        for r in rows:
            t.add_row(*(Text(x) for x in (r["name"], _default(r["default"]), r["allowed"], r["rule"], r["help"])))
        con.print(t)
        con.print(Text(tail))
    if wrows:
        typer.echo("")
        _print_weights(g, wrows, width)


def _weights_title(g, n: int) -> str:
    one_row = " (the sides share one row)" if g.policy_table.tie_sides else ""
    return (f"{g.name}: {n} tuning weights{one_row}, read by the heuristic players; lotr-sim tune searches "
            f"each in its range; --policy SIDE=tuned:FILE plays a tuned file")


def _values(x: dict, player: str) -> str:
    """A weight's value(s) for ``player``: one number when every side has it, else per side."""
    v = x.get(player)
    if not v:
        return "-"
    if len(set(v.values())) == 1:
        return f"{next(iter(v.values())):.3g}"
    return " / ".join(f"{s} {val:.3g}" for s, val in v.items())


def _print_weights(g, wrows: list[dict], width: int) -> None:
    """The tuning weights: a table on a wide terminal, one short block per weight otherwise."""
    title = _weights_title(g, len(wrows))
    if width >= WIDE:
        from rich.console import Console
        from rich.table import Table
        from rich.text import Text
        t = Table(title=title, expand=True)
        t.add_column("weight", no_wrap=True)
        t.add_column("sides", overflow="fold", ratio=1)
        t.add_column("range", no_wrap=True)
        t.add_column("greedy", overflow="fold", ratio=1)
        t.add_column("tuned", overflow="fold", ratio=2)
        t.add_column("help", overflow="fold", ratio=4)
        for x in wrows:
            t.add_row(*(Text(c) for c in (x["name"], ", ".join(x["sides"]), f"{x['lo']:g} to {x['hi']:g}",
                                          _values(x, "greedy"), _values(x, "tuned"), x["help"])))
        Console(width=width, soft_wrap=False).print(t)
        return
    import textwrap
    out = textwrap.wrap(title, width, break_on_hyphens=False) + [""]
    for x in wrows:
        head = (f"{x['name']}  ({', '.join(x['sides'])}; {x['lo']:g} to {x['hi']:g})  greedy {_values(x, 'greedy')}; "
                f"tuned {_values(x, 'tuned')}")
        out += textwrap.wrap(head, width, subsequent_indent="      ", break_on_hyphens=False)
        out += textwrap.wrap(x["help"], width, initial_indent="    ", subsequent_indent="    ",
                             break_on_hyphens=False)
    typer.echo("\n".join(out))


WIDE = 140      # at least this many columns: a table; fewer: one short block per parameter


def _default(d) -> str:
    return str(d).lower() if isinstance(d, bool) else str(d)


def _print_list(game: str, rows: list[dict], tail: str, width: int) -> None:
    """One block per parameter for a narrow terminal: ``name = default  (allowed; rule)``, then
    the help indented, every line wrapped to ``width``."""
    import textwrap
    out = [f"{game}: {len(rows)} parameters (override with --set name=value)", ""]
    for r in rows:
        head = f"{r['name']} = {_default(r['default'])}  ({r['allowed']}; {r['rule'] or 'no rule ID'})"
        out += textwrap.wrap(head, width, subsequent_indent="      ", break_on_hyphens=False) or [head]
        out += textwrap.wrap(r["help"], width, initial_indent="    ", subsequent_indent="    ",
                             break_on_hyphens=False)
    out.append("")
    out += textwrap.wrap(tail, width, break_on_hyphens=False)
    typer.echo("\n".join(out))


def _width() -> int:
    """The terminal's width ($COLUMNS first); 120 when the output is not a terminal and no
    $COLUMNS says otherwise. Never below 60."""
    import shutil
    return max(60, shutil.get_terminal_size((120, 24)).columns)
