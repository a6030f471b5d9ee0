#!/usr/bin/env python
"""Where a heuristic leaves wins on the table: its alternatives valued by fair playouts.

For games ``--first .. --first+N-1`` of ``--seed``, ``--player`` (a heuristic the engine plays:
``tuned``, ``greedy``, ``weights:...``) holds ``--side`` against ``--against``. At each of that
side's decisions of kind ``--kind`` (``State.decision_kind``; default "action") that has more than
one legal row, the heuristic's own choice and its next best rows by its own scores (``--width``
rows in all) are each valued by ``--playouts`` paired playouts (``State.playouts``: what the seat
cannot know dealt again from its point of view, the rest of the game played by the same
heuristics, the same deals and dice for every candidate). The game then goes on with the
heuristic's own choice, so every position is one the heuristic reaches itself.

The table groups the alternatives by (the decision's kind, the own row's code, the alternative's
code), a code being the first entry of the game's action rows (Minas Tirith prints its ``A_*``
names), and gives the mean
change of the side's score (win 1, draw 1/2) from taking the alternative once instead, with its
standard error and z. A group with a large positive z is a kind of decision where the heuristic
loses wins. It is a lead, not a measured gain: a one-off deviation's value counts every decision
at which the same opportunity was open, and need not add up over a game. Check a lead with a
paired ``lotr-sim compare`` of the changed heuristic (docs/players.md, "Tuned players", has examples).

  python benchmarks/action_values.py -g minas-tirith -n 100 [--side good] [--player tuned]
      [--against greedy] [--kind action|all|...] [--width 6] [--playouts 32] [--seed 1000]
      [--first 0] [--min-count 100]

Run from the repository root (it puts the checkout first on ``sys.path``). About 3.5 CPU-s a
Minas Tirith game at the defaults. Nothing here is part of the test suite.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lotr_sim.api import get_game  # noqa: E402
from lotr_sim.games.step import winner_scores  # noqa: E402
from lotr_sim.kernels.rng import _mix64_py as mix64_py  # noqa: E402

# a seat held by a player from lotr_sim.players exposes every decision of its side (the engine
# plays the others); the heuristic under study then makes each choice through the step API
_EXPOSE = "search"


def row_labels(game) -> dict[int, str]:
    """Names of the first entry of a game's action rows, where its layout names them."""
    if game.name != "minas-tirith":
        return {}
    from lotr_sim.games.minas_tirith import layout
    return {v: k[2:] for k, v in vars(layout).items()
            if k.startswith("A_") and isinstance(v, int) and not isinstance(v, bool)}


def action_values(game_name: str, games: int, side: str, player: str, against: str, width: int,
                  playouts: int, seed: int, first: int, kind: str) -> tuple[dict, dict]:
    """{(decision kind, own code, alternative code): [score changes]} over the side's
    decisions of ``kind`` ("all": every kind), and counts of what was seen."""
    g = get_game(game_name)
    comp = g.compile(g.load())
    if side not in g.sides:
        raise SystemExit(f"action_values: {game_name} has no side {side!r} (sides: {', '.join(g.sides)})")
    side_code = g.sides.index(side)
    pols = {side: _EXPOSE, **{s: against for s in g.sides if s != side}}
    seats = g.seat_policies(comp, pols)
    mine = [i for i in range(len(seats)) if g.seat_side(comp, i) == side_code]
    # who plays each seat in the playouts
    models = [player if i in mine else p for i, p in enumerate(seats.values())]
    rows = g.heuristic_rows(comp, models)
    acc: dict = defaultdict(list)
    seen = {"games": 0, "decisions": 0, "valued": 0, "wins": 0.0}
    for idx in range(first, first + games):
        st = g.bind(comp).new_state(pols, seed, idx)
        nd = 0
        while True:
            if st.run_builtin(mine) < 0:
                break
            st.use_heuristic(rows)
            own = st.heuristic_choice()
            seen["decisions"] += 1
            dk = st.decision_kind()
            if kind in ("all", dk):
                act = st.legal_actions()
                if act.shape[0] > 1:
                    sc = st.action_scores()
                    order = [own] + [int(i) for i in np.argsort(-sc, kind="stable") if int(i) != own]
                    cand = np.array(order[:width], dtype=np.int64)
                    nd += 1
                    key = mix64_py(mix64_py(mix64_py(seed ^ 0x6176) ^ idx) ^ nd) & ((1 << 63) - 1)
                    w = st.playouts(cand, playouts, key)
                    q = winner_scores(g, w, side_code).mean(axis=1)
                    seen["valued"] += 1
                    for j in range(1, len(cand)):
                        acc[(dk, int(act[cand[0], 0]), int(act[cand[j], 0]))].append(q[j] - q[0])
            st.apply(own)
        seen["wins"] += float(winner_scores(g, st.result()["winner"][:1], side_code)[0])
        seen["games"] += 1
    return acc, seen


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("-g", "--game", default="minas-tirith")
    ap.add_argument("-n", "--games", type=int, default=100)
    ap.add_argument("--side", default=None, help="the side studied (default: the game's first)")
    ap.add_argument("--player", default="tuned")
    ap.add_argument("--against", default="greedy")
    ap.add_argument("--width", type=int, default=6)
    ap.add_argument("--playouts", type=int, default=32)
    ap.add_argument("--seed", type=int, default=1000)
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--kind", default="action", help='a decision kind (State.decision_kind) or "all"')
    ap.add_argument("--min-count", type=int, default=100)
    a = ap.parse_args(argv)
    if a.games < 1 or a.width < 2 or a.playouts < 2:
        raise SystemExit("action_values: --games must be at least 1, --width and --playouts at least 2")
    side = a.side or get_game(a.game).sides[0]
    t0 = time.process_time()
    acc, seen = action_values(a.game, a.games, side, a.player, a.against, a.width, a.playouts,
                              a.seed, a.first, a.kind)
    labels = row_labels(get_game(a.game))
    print(f"{a.game}: {a.player} as {side} v {a.against}, games {a.first}..{a.first + a.games - 1} of seed "
          f"{a.seed}: {side} scored {seen['wins'] / seen['games']:.3f}; {seen['valued']} of "
          f"{seen['decisions']} decisions valued ({a.width} rows, {a.playouts} playouts each); "
          f"{time.process_time() - t0:.0f} CPU-s")
    print()
    print("| decision | own | alternative | n | change (points) | s.e. | z |")
    print("|---|---|---|---:|---:|---:|---:|")
    out = []
    for (dk, k0, k1), v in acc.items():
        if len(v) < max(2, a.min_count):
            continue
        v = np.asarray(v)
        se = v.std(ddof=1) / np.sqrt(len(v))
        out.append((v.mean() / se if se > 0 else 0.0, dk, k0, k1, len(v), v.mean(), se))
    for z, dk, k0, k1, n, m, se in sorted(out, key=lambda t: -t[0]):
        print(f"| {dk} | {labels.get(k0, k0)} | {labels.get(k1, k1)} | {n} | {100 * m:+.2f} | {100 * se:.2f} "
              f"| {z:+.1f} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
