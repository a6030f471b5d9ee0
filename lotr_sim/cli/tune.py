"""``lotr-sim tune``: search a game's heuristic weights by self-play (CMA-ES); writes a
tuned-weights file that ``--policy SIDE=tuned:FILE`` plays."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from lotr_sim.cli._common import (cli_errors, config_option, game_option, parse_count, parse_path, players_option,
                                  players_sets, print_json, seed_option, sets_option, threads_option, scheduler_option, cluster_option, workers_option)


@cli_errors
def tune(
    game: str = game_option(),
    generations: Optional[int] = typer.Option(None, "--generations", "-G", parser=parse_count,
                                              help="CMA-ES generations (default 30; 8 a tune with --rounds)."),
    games: Optional[int] = typer.Option(None, "--games", "-n", parser=parse_count,
                                        help="Paired games per candidate, opponent and side in each generation "
                                             "(default 400; 200 with --rounds)."),
    final_games: Optional[int] = typer.Option(None, "--final-games", parser=parse_count,
                                              help="Fresh games per side for the final check against greedy "
                                                   "(default 2000); with --rounds, games per cell of the "
                                                   "payoff matrix (default 4000)."),
    rounds: Optional[int] = typer.Option(None, "--rounds", parser=parse_count,
                                         help="Fictitious play: this many rounds, each tuning every side "
                                              "against all weights the other side has had so far (from "
                                              "--start's; or their equilibrium mixture, --against nash); then every member against every other on "
                                              "fresh games, and each side's least exploitable member "
                                              "written as tuned.toml. Two-sided games."),
    against: str = typer.Option("all", "--against",
                                help="With --rounds: each round's tune meets every weights the other side "
                                     "has had alike ('all', fictitious play) or the other side's "
                                     "equilibrium mixture of the payoff matrix so far ('nash', the double "
                                     "oracle)."),
    popsize: Optional[int] = typer.Option(None, "--popsize", parser=parse_count,
                                          help="Candidates per generation (default CMA-ES's 4 + 3 ln d)."),
    sigma: float = typer.Option(0.2, "--sigma", help="Initial step, as a share of each weight's range."),
    sides: Optional[str] = typer.Option(None, "--sides",
                                        help="Tune only these sides' weights, comma-separated (default: "
                                             "every side); the candidates play only these sides."),
    start: Optional[str] = typer.Option(None, "--start",
                                        help="Start from this player's weights; the sides not tuned keep "
                                             "them (default greedy; e.g. tuned)."),
    opponents: Optional[str] = typer.Option(None, "--opponents",
                                            help="The pool each candidate meets, comma-separated (default "
                                                 "greedy,best: greedy and the best weights so far)."),
    seed: int = seed_option(),
    sets: List[str] = sets_option(),
    players: Optional[int] = players_option(),
    config: Optional[Path] = config_option(),
    threads: Optional[int] = threads_option(),
    out: Optional[Path] = typer.Option(None, "--out", "-o", parser=parse_path,
                                       help="Output folder (default reports/<game>/tune-<timestamp>/)."),
    resume: Optional[Path] = typer.Option(None, "--resume", parser=parse_path, help="Continue the killed run in this folder."),
    scheduler: Optional[str] = scheduler_option(),
    cluster: Optional[str] = cluster_option(),
    workers: Optional[int] = workers_option(),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress bar."),
) -> None:
    """Tune the game's heuristic weights (CMA-ES) by paired games against greedy and the best
    weights so far, on every side; then check the best against greedy on fresh games.

    Writes tuned.toml (the weights, their provenance and the rules hash) into --out: play it
    with --policy SIDE=tuned:DIR/tuned.toml; copied to configs/tuned/<game>.toml it is the
    built-in player 'tuned'. Re-tune after changing a default rule: it moves the optimum.
    Ctrl-C keeps every finished generation (--resume DIR)."""
    from lotr_sim import api
    from lotr_sim.errors import LotrSimError
    from lotr_sim.experiments.population import MANIFEST
    if resume is not None and out is not None:
        raise LotrSimError("give either --resume DIR or --out DIR, not both")
    g = api.get_game(game)
    if against != "all" and rounds is None and resume is None:
        raise LotrSimError("--against chooses what each round of --rounds tunes against: give --rounds")
    if rounds is not None or (resume is not None and (Path(resume) / MANIFEST).is_file()):
        if sides or opponents:
            raise LotrSimError("--rounds tunes every side against the other's population: leave out "
                               "--sides and --opponents")
        pres = api.fictitious_play(g, rounds=4 if rounds is None else rounds, seed=seed,
                                   generations=8 if generations is None else generations,
                                   games=200 if games is None else games,
                                   matrix_games=4000 if final_games is None else final_games, start=start,
                                   popsize=popsize, sigma=sigma, sets=players_sets(game, sets, players) or None,
                                   config=str(config) if config else None, threads=threads, out=out,
                                   resume=resume, scheduler=scheduler, cluster=cluster, workers=workers,
                                   progress=not quiet and not as_json, against=against)
        _print_population(g, pres, as_json)
        return
    generations = 30 if generations is None else generations
    games = 400 if games is None else games
    final_games = 2000 if final_games is None else final_games
    res = api.tune(g, generations=generations, games=games, seed=seed, popsize=popsize, sigma=sigma,
                   final_games=final_games, sets=players_sets(game, sets, players) or None,
                   config=str(config) if config else None, threads=threads, out=out, resume=resume,
                   scheduler=scheduler, cluster=cluster, workers=workers, progress=not quiet and not as_json,
                   sides=_names(sides), start=start, opponents=_names(opponents))
    table = g.policy_table
    weights = table.describe(res.name)
    f = res.final
    policy = policy_args(g, res.tuned_sides, res.path)
    if as_json:
        d = res.to_dict()
        print_json(dict(out=d["out"], file=d["file"], player=d["player"], weights=weights,
                        tuned_sides=d["tuned_sides"], start=d["start"], policy=policy,
                        worse=d["worse"], final=d["final"], history=d["history"]))
        return
    gens = len(res.history)
    typer.echo(f"tuned {g.name} for {_and(res.played_sides)}, from {res.start}'s weights: "
               f"{gens} generation{'s' if gens != 1 else ''}; weights in {res.path}")
    for s in table.sides:
        w = ", ".join(f"{k} {v:.3g}" for k, v in weights[s].items())
        kept = "" if s in res.played_sides else f" (not tuned: {res.start}'s weights)"
        typer.echo(f"  {s}: {w}{kept}")
    n = f["games_per_side"]
    for s in g.sides:
        x = f[s]
        start = f"; start {res.start} {100 * x['start_rate']:.1f}%" if res.start != "greedy" else ""
        typer.echo(f"  as {s} v greedy: {100 * x['rate']:.1f}% [{100 * x['lo']:.1f}, {100 * x['hi']:.1f}] "
                   f"of {n:,} games (greedy v greedy {100 * x['greedy_rate']:.1f}%{start})")
    for s, refs in f.get("worse", {}).items():
        x = f[s]
        names = [r if r == "greedy" else f"its start ({r})" for r in refs]
        rates = " and ".join(f"{r} won {100 * x['greedy_rate' if r == 'greedy' else 'start_rate']:.1f}%" for r in refs)
        typer.echo(f"lotr-sim: warning: as {s}, the tuned weights did worse than {' and than '.join(names)}: "
                   f"they won {100 * x['rate']:.1f}% of the same {n:,} games against greedy, where {rates}. This "
                   f"tune was too short to trust: run more --generations and --games (the shipped weights took "
                   f"-G 40 -n 500)", err=True)
    typer.echo("play it with: " + " ".join(f"--policy {p}" for p in policy))


def _print_population(g, res, as_json: bool) -> None:
    """The fictitious-play run's matrix, picks and exploitability (or its JSON)."""
    s0, s1 = res.sides
    i, j = res.pick[s0], res.pick[s1]
    if as_json:
        print_json(dict(res.to_dict(), weights=g.policy_table.describe(res.name)))
        return
    m = res.matrix
    what = "the double oracle" if res.manifest.get("args", {}).get("against") == "nash" else "fictitious play"
    typer.echo(f"{what} in {g.name}'s weight family: {m.shape[0]} {s0} and {m.shape[1]} {s1} weights "
               f"(the start's and one a round); {s0}'s share of games won, {res.matrix_games:,} games a cell:")
    typer.echo("        " + "".join(f"{s1[:4]} {c:<3d}" for c in range(m.shape[1])))
    for r in range(m.shape[0]):
        typer.echo(f"{s0[:4]} {r:<3d}" + "".join(f"{100 * v:7.1f} " for v in m[r]))
    typer.echo(f"least exploitable: {s0} {i} (worst {100 * m[i].min():.1f}%), {s1} {j} ({s0}'s best "
               f"{100 * m[:, j].max():.1f}%); together {s0} {100 * m[i, j]:.1f}%; the matrix's value "
               f"{100 * res.value:.1f}%")
    typer.echo(f"inside the population the best answer gains {s0} {res.exploit[s0]:+.1f} points and "
               f"{s1} {res.exploit[s1]:+.1f} points against this pair")
    typer.echo(f"weights in {res.path}; play it with: --policy {s0}=tuned:{res.path} --policy {s1}=tuned:{res.path}")


def policy_args(game, tuned_sides, path) -> list[str]:
    """``SIDE=tuned:PATH`` (``--policy`` values) for each side that plays the weights tuned
    for ``tuned_sides``: those sides, or every side when the sides share one tuned row."""
    table = game.policy_table
    sides = game.sides if table is not None and table.tie_sides else tuned_sides
    return [f"{s}=tuned:{path}" for s in game.sides if s in sides]


def _and(names) -> str:
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _names(text: Optional[str]) -> Optional[list[str]]:
    """A comma-separated option as a list (None when not given)."""
    return [t.strip() for t in text.split(",") if t.strip()] if text else None
