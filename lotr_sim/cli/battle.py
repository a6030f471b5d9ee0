"""``lotr-sim battle`` and ``lotr-sim bombard``: exact odds beside Monte Carlo."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from lotr_sim.cli._common import cli_errors, parse_count, parse_path, plot_file, print_json, seed_option


@cli_errors
def battle(
    rules: str = typer.Option("minas-tirith", "--rules", "-r",
                              help="Rule set: classic, lotr-risk or minas-tirith."),
    attackers: int = typer.Option(..., "--attackers", "-a",
                                  help="All the attacker's units in the attacking territory "
                                       "(including the one that stays home under classic "
                                       "and lotr-risk rules; at most 70 under minas-tirith, 500 otherwise)."),
    defenders: int = typer.Option(..., "--defenders", "-d",
                                  help="Defending units (at most 70 under minas-tirith, 500 otherwise)."),
    attack_bonus: int = typer.Option(0, "--attack-bonus", help="Added to the attacker's highest die (-3..3)."),
    defence_bonus: int = typer.Option(0, "--defence-bonus", help="Added to the defender's highest die (-3..3)."),
    good: str = typer.Option("attacker", "--good", help="minas-tirith: which side is Good (attacker|defender)."),
    witch_king: bool = typer.Option(False, "--witch-king", help="minas-tirith: the Witch-king is in the battle (MT-7.5)."),
    stop_at: int = typer.Option(0, "--stop-at", help="The attacker stops when down to this many units."),
    games: int = typer.Option(100_000, "--games", "-n", parser=parse_count,
                              help="Monte Carlo battles (0: exact only; a whole number, at most 1e15)."),
    seed: int = seed_option(),
    json_out: bool = typer.Option(False, "--json", help="Print one JSON object."),
    plot: Optional[Path] = typer.Option(None, "--plot", parser=parse_path, help="Write a bar chart of the survivor distribution (PNG)."),
) -> None:
    """Odds of one battle fought to the end: exact (Markov chain) and Monte Carlo."""
    from lotr_sim.analyses.battles import battle_report
    if plot is not None:
        plot = plot_file(plot)

    rep = battle_report(rules, attackers, defenders, attack_bonus, defence_bonus, good,
                        witch_king, stop_at, games, seed)
    if plot is not None:
        from lotr_sim.analyses.battles import plot_survivors
        plot_survivors(rep, plot)
        rep["plot"] = str(plot)
    if json_out:
        print_json(rep)
        return
    _print_battle(rep)


def _print_battle(rep: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    b, ex, mc = rep["battle"], rep["exact"], rep.get("monte_carlo")
    con = Console()
    title = (f"{b['rules']}: {b['attackers']} attacking {b['defenders']}, bonus "
             f"+{b['attack_bonus']}/+{b['defence_bonus']}")
    if b["rules"] == "minas-tirith":
        title += f", Good {'attacks' if b['good'] == 'attacker' else 'defends'}"
        title += ", Witch-king present" if b["witch_king"] else ""
    t = Table(title=title)
    t.add_column("")
    t.add_column("exact", justify="right")
    if mc:
        t.add_column(f"Monte Carlo ({mc['games']:,} battles)", justify="right")
    # the first three rows are exclusive and add up to 1 (a defenders' retreat is a taking)
    rows = [("attacker takes territory", "attacker_wins"), ("defender holds", "defender_wins"),
            ("attackers retreat", "attacker_retreats"),
            ("attacker survivors (mean)", "attacker_survivors_mean"),
            ("defender survivors (mean)", "defender_survivors_mean"), ("rolls (mean)", "rolls_mean")]
    for label, key in rows:
        mcv = None
        if mc:
            if key == "defender_wins":
                mcv = mc["outcomes"]["defender_held"]
            elif key == "attacker_retreats":
                mcv = mc["outcomes"]["attacker_retreated"]
            else:
                mcv = mc[key]
        cells = [label, f"{ex[key]:.4f}"] + ([f"{mcv:.4f}"] if mc else [])
        t.add_row(*cells)
    con.print(t)
    if mc:
        lo, hi = mc["ci95"]
        con.print(f"P(attacker takes) Monte Carlo {mc['attacker_wins']:.4f}, 95% Wilson "
                  f"[{lo:.4f}, {hi:.4f}], z = {mc['z']:+.2f} against the exact {ex['attacker_wins']:.4f}")
    s = Table(title="survivor distribution (exact" + (" / Monte Carlo)" if mc else ")"))
    s.add_column("units left", justify="right")
    s.add_column("attacker", justify="right")
    s.add_column("defender", justify="right")
    n = max(len(ex["attacker_survivors"]), len(ex["defender_survivors"]))
    def cell(side: str, k: int) -> str:
        arr = ex[f"{side}_survivors"]
        if k >= len(arr):
            return ""
        txt = f"{arr[k]:.4f}"
        return txt + (f" / {mc[f'{side}_survivors'][k]:.4f}" if mc else "")

    for k in range(n):
        s.add_row(str(k), cell("attacker", k), cell("defender", k))
    con.print(s)
    if "plot" in rep:
        con.print(f"plot written to {rep['plot']}", soft_wrap=True)


@cli_errors
def bombard(
    shooters: int = typer.Option(..., "--shooters", "-k",
                                 help="Archers/crossbowmen/catapults firing (1..17: every ranged unit one side owns)."),
    banner: bool = typer.Option(False, "--banner", help="Evil firing at a Gondor banner territory: "
                                                        "one die per --divisor shooters (MT-7.2)."),
    divisor: int = typer.Option(2, "--divisor", help="Shooters per die for Evil at a banner."),
    games: int = typer.Option(100_000, "--games", "-n", parser=parse_count,
                              help="Monte Carlo bombardments (0: exact only; a whole number, at most 1e15)."),
    seed: int = seed_option(),
    json_out: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Hits of one bombardment (MT-7.2): exact binomial law and Monte Carlo."""
    from lotr_sim.analyses.battles import bombard_report

    rep = bombard_report(shooters, banner, divisor, games, seed)
    if json_out:
        print_json(rep)
        return
    from rich.console import Console
    from rich.table import Table

    b, ex, mc = rep["bombard"], rep["exact"], rep.get("monte_carlo")
    t = Table(title=f"{b['shooters']} shooters{' at a banner (Evil)' if banner else ''}: {b['dice']} dice")
    t.add_column("hits", justify="right")
    t.add_column("exact", justify="right")
    if mc:
        t.add_column("Monte Carlo", justify="right")
    for k, p in enumerate(ex["hits"]):
        t.add_row(str(k), f"{p:.4f}", *([f"{mc['hits'][k]:.4f}"] if mc else []))
    con = Console()
    con.print(t)
    if mc:
        lo, hi = mc["ci95"]
        con.print(f"P(at least one hit): exact {ex['p_at_least_one']:.4f}, Monte Carlo "
                  f"{mc['p_at_least_one']:.4f} [{lo:.4f}, {hi:.4f}], z = {mc['z']:+.2f}")
