"""``lotr-sim fellowship``: the LOTR Risk Fellowship's journey (LR-10), exact law beside
Monte Carlo (a thin layer over ``lotr_sim.api.fellowship``)."""
from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from lotr_sim.games.lotr_risk.fellowship.analysis import SHOW_TAIL, plot_fellowship, shown_turns
from lotr_sim.cli._common import (cli_errors, config_option, game_option, parse_count, parse_path, plot_file, print_json,
                                  seed_option, sets_option, threads_option)

GAME = "lotr-risk"     # the one game with a Fellowship track (LR-10)


def check_game(game: str) -> None:
    """``fellowship`` is LOTR Risk's: any other game (or an unknown name) is one error line."""
    from lotr_sim.errors import LotrSimError
    from lotr_sim.games.registry import get_game
    if game == GAME:
        return
    get_game(game)      # an unknown name: its own error line, with a suggestion
    raise LotrSimError(f"fellowship is for {GAME} only (the Fellowship's journey, LR-10); "
                       f"{game} has no Fellowship track")


@cli_errors
def fellowship(
    game: str = game_option(GAME, extra=" The Fellowship is LOTR Risk's: only lotr-risk is accepted."),
    games: int = typer.Option(100_000, "--games", "-n", parser=parse_count,
                              help="Monte Carlo journeys (0: exact only; a whole number, at most 1e15)."),
    seed: int = seed_option(),
    config: Optional[str] = config_option(),
    sets: list[str] = sets_option(),
    players: int = typer.Option(2, "--players", "-p", help="Players (2-4, LR-2) for the game's length "
                                "in rounds: the Ring moves after every player's turn (LR-10.1)."),
    threads: Optional[int] = threads_option(),
    json_out: bool = typer.Option(False, "--json", help="Print one JSON object."),
    plot: Optional[Path] = typer.Option(None, "--plot", parser=parse_path, help="Write a bar chart (PNG) of the exact and "
                                        "Monte Carlo distributions of the number of turns."),
) -> None:
    """LOTR Risk only: player turns until the Fellowship leaves the Dead Marshes (LR-10), without
    cards: the exact law from the config's path and fellowship_roll_above, and Monte Carlo."""
    from lotr_sim.api import fellowship as api_fellowship
    check_game(game)
    if plot is not None:
        plot = plot_file(plot)

    res = api_fellowship(config=config, sets=sets, games=games, seed=seed, players=players,
                         threads=threads)
    rep = res.to_dict()
    if plot is not None:
        plot_fellowship(rep, plot)
        rep["plot"] = str(plot)
    if json_out:
        print_json(rep)
        return
    _print(rep)


def _print(rep: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    tr, ex, mc = rep["track"], rep["exact"], rep.get("monte_carlo")
    con = Console()
    marked = [n for n, m in zip(tr["names"], tr["marked"]) if m]
    p = (tr["die_sides"] - tr["roll_above"]) / tr["die_sides"]
    con.print(f"Fellowship path: {len(tr['names'])} territories, {tr['names'][0]} to {tr['names'][-1]}; "
              f"die territories: {', '.join(marked) or 'none'} (leave on a d{tr['die_sides']} above "
              f"{tr['roll_above']}: p = {p:.4g}, LR-10.2)")
    t = Table(title="player turns until the Ring leaves the path (LR-10.3)")
    t.add_column("turns", justify="right")
    t.add_column("exact P", justify="right")
    if mc:
        t.add_column(f"Monte Carlo ({mc['games']:,})", justify="right")
        t.add_column("95% Wilson", justify="right")
        t.add_column("z", justify="right")
    rows, pooled = shown_turns(ex)
    dist = {int(k): v for k, v in ex["distribution"].items()}
    mdist = {int(k): v for k, v in mc["distribution"].items()} if mc else {}

    for tt in rows:
        cells = [str(tt), f"{dist[tt]:.5f}"]
        if mc:
            m = mdist.get(tt)
            cells += [f"{m['p']:.5f}", f"[{m['ci95'][0]:.5f}, {m['ci95'][1]:.5f}]", f"{m['z']:+.2f}"] if m \
                else ["0.00000", "", ""]
        t.add_row(*cells)
    if pooled is not None:
        pe = sum(v for k, v in dist.items() if k >= pooled) + ex["tail"]
        cells = [f">= {pooled}", f"{pe:.5f}"]
        if mc:
            pm = sum(v["p"] for k, v in mdist.items() if k >= pooled)
            cells += [f"{pm:.5f}", "", ""]
        t.add_row(*cells)
    con.print(t)
    con.print(f"exact: min {ex['turns_min']} turns, mean {ex['mean']:.4f} ({ex['mean_exact']}), "
              f"sd {ex['sd']:.4f}; tail cut at {ex['turns_max']} turns, mass left out {ex['tail']:.1e}")
    if mc:
        lo, hi = mc["mean_ci95"]
        con.print(f"Monte Carlo: mean {mc['mean']:.4f} [{lo:.4f}, {hi:.4f}], z = {mc['mean_z']:+.2f} against "
                  f"the exact mean; chi-square {mc['chi2']:.2f} on {mc['chi2_df']} df (bins "
                  f"{mc['chi2_bins']['first']}..{mc['chi2_bins']['pooled_from']}+), p = {mc['chi2_p']:.3f}")
    rd = ex["rounds"]
    r = Table(title=f"rounds with {rep['players']} players (rounds = ceil(turns / players))")
    r.add_column("rounds", justify="right")
    r.add_column("exact P", justify="right")
    if mc:
        r.add_column("Monte Carlo", justify="right")
    rdist = {int(k): v for k, v in rd["distribution"].items()}
    mr = {int(k): v for k, v in mc["rounds"]["distribution"].items()} if mc else {}
    left = 1.0
    for k in sorted(rdist):
        r.add_row(str(k), f"{rdist[k]:.5f}", *([f"{mr.get(k, 0.0):.5f}"] if mc else []))
        left -= rdist[k]
        if left < SHOW_TAIL:
            break
    con.print(r)
    seats = ", ".join(f"seat {i + 1} {p:.3f}" for i, p in enumerate(rd["last_seat"]))
    con.print(f"rounds: exact mean {rd['mean']:.4f}" + (f", Monte Carlo {mc['rounds']['mean']:.4f}" if mc else "")
              + f"; the game ends after the turn of {seats}; last round cut short with "
                f"P = {rd['p_last_round_partial']:.4f}")
    if "plot" in rep:
        con.print(f"plot written to {rep['plot']}", soft_wrap=True)
