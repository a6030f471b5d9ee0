"""The paired effect of a code change on a game's headline: the same games under two installs.

Game i always plays on random stream (seed, i), so two versions of the engine that agree on a
game give it the same outcome; a rules fix moves only the games where the fix matters. This runs
``lotr-sim run`` from two installs (two virtualenvs, e.g. one on a worktree at the commit before
the change) on the same seed, games and players, and compares game by game:

    python benchmarks/paired_versions.py --a /work/wt-base/.venv/bin/lotr-sim \\
        --b .venv/bin/lotr-sim --game the-search --games 20000 --seed 5 --tuned

It prints each version's win rate of the first side, the paired difference (b - a) with its 95%
interval from the per-game differences, how many games changed winner, and the mean points
per side in each.
"""
from __future__ import annotations

import argparse
import math
import subprocess
import sys
import tempfile
from pathlib import Path

SIDES = {"minas-tirith": ("good", "evil"), "lotr-risk": ("good", "evil"), "the-search": ("frodo", "sam")}


def _run(exe: str, game: str, games: int, seed: int, policies: list[str], out: Path,
         sets: list[str]) -> None:
    cmd = [exe, "run", "-g", game, "-n", str(games), "-s", str(seed), "-q", "--out", str(out)]
    for p in policies:
        cmd += ["--policy", p]
    for s in sets:
        cmd += ["--set", s]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def paired(a_dir: Path, b_dir: Path, game: str) -> dict:
    """Per-game comparison of two runs' ``games.parquet`` (same seed and games)."""
    import pandas as pd

    a = pd.read_parquet(a_dir / "games.parquet").set_index("game").sort_index()
    b = pd.read_parquet(b_dir / "games.parquet").set_index("game").sort_index()
    if not a.index.equals(b.index):
        raise SystemExit("the two runs hold different games")
    first = SIDES[game][0]
    wa = (a["winner_label"] == first).astype(float)
    wb = (b["winner_label"] == first).astype(float)
    d = wb - wa
    n = len(d)
    se = float(d.std(ddof=1)) / math.sqrt(n) if n > 1 else float("nan")
    out = {"games": n, "side": first, "a_rate": float(wa.mean()), "b_rate": float(wb.mean()),
           "delta": float(d.mean()), "ci95": (float(d.mean()) - 1.96 * se, float(d.mean()) + 1.96 * se),
           "changed_winner": int((a["winner_label"] != b["winner_label"]).sum()),
           "changed_any": int(a.ne(b.reindex(columns=a.columns)).any(axis=1).sum())}
    for s in SIDES[game]:
        col = f"points_{s}"
        if col in a and col in b:
            out[f"points_{s}"] = (float(a[col].mean()), float(b[col].mean()))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--a", required=True, help="lotr-sim executable of version A (before)")
    ap.add_argument("--b", required=True, help="lotr-sim executable of version B (after)")
    ap.add_argument("--game", required=True, choices=sorted(SIDES))
    ap.add_argument("--games", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--tuned", action="store_true", help="tuned on every side (the headline)")
    ap.add_argument("--policy", action="append", default=[], help="SEAT=PLAYER, repeatable")
    ap.add_argument("--set", dest="sets", action="append", default=[], help="name=value, repeatable")
    a = ap.parse_args(argv)
    pols = list(a.policy) + ([f"{s}=tuned" for s in SIDES[a.game]] if a.tuned else [])
    with tempfile.TemporaryDirectory() as tmp:
        da, db = Path(tmp) / "a", Path(tmp) / "b"
        _run(a.a, a.game, a.games, a.seed, pols, da, a.sets)
        _run(a.b, a.game, a.games, a.seed, pols, db, a.sets)
        r = paired(da, db, a.game)
    lo, hi = r["ci95"]
    print(f"{a.game}, {r['games']} games, seed {a.seed}, {' '.join(pols) or 'default players'}")
    print(f"  {r['side']} wins: A {100 * r['a_rate']:.2f}%, B {100 * r['b_rate']:.2f}%; "
          f"paired B - A {100 * r['delta']:+.2f} points [{100 * lo:+.2f}, {100 * hi:+.2f}]")
    print(f"  games with another winner: {r['changed_winner']}; games with any outcome column changed: "
          f"{r['changed_any']}")
    for s in SIDES[a.game]:
        if f"points_{s}" in r:
            pa, pb = r[f"points_{s}"]
            print(f"  mean points {s}: A {pa:.3f}, B {pb:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
