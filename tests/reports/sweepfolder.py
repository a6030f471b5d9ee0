"""A finished sweep folder (``results.parquet`` + ``manifest.json``) written from a hand-made
results frame, so the report tests build real reports without playing a game: three rule
dimensions (a number, a boolean, a choice), a 2x2 table of AI pairings and a note."""
from __future__ import annotations

import json
from pathlib import Path

from framebuild import MANIFEST, frame, row

N = 4000


def _dims(**k) -> dict:
    return {"strength": 5, "bonus": False, "mode": "fair", **k}


def sweep_frame(pairings: bool = True):
    """Baseline Good 45%; strength 3..7 moves it most, then mode, then bonus; 2x2 pairings."""
    rows = [
        row(0, "baseline", "baseline", _dims(), N, (1800, 2000, 200)),
        row(1, "strength=3", "strength", _dims(strength=3), N, (1400, 2400, 200), delta=(0, 400)),
        row(2, "strength=7", "strength", _dims(strength=7), N, (2300, 1500, 200), delta=(500, 0)),
        row(3, "bonus=true", "bonus", _dims(bonus=True), N, (1900, 1900, 200), delta=(100, 0)),
        row(4, "mode=tilted", "mode", _dims(mode="tilted"), N, (1600, 2200, 200), delta=(0, 200)),
    ]
    if pairings:
        for i, (g, e, k) in enumerate([("greedy", "random", 3500), ("random", "greedy", 150),
                                       ("random", "random", 1900)], start=5):
            rows.append(row(i, f"good={g},evil={e}", "pairings", _dims(), N, (k, N - k - 100, 100),
                            policies={"good": g, "evil": e}))
    return frame(rows)


def grid_frame():
    """A 2x2x2 grid over three long-named rules: its labels are long and have no space
    ("leader_bonus=2,end_on_last_card=end_of_turn,siege_towers_per_side=3"), the widest
    table cells a real sweep writes."""
    import itertools
    base = {"leader_bonus": 1, "end_on_last_card": "immediately", "siege_towers_per_side": 2}
    rows = [row(0, "baseline", "baseline", base, N, (1800, 2000, 200))]
    values = itertools.product([0, 2], ["immediately", "end_of_turn"], [2, 3])
    for i, (lb, end, st) in enumerate(values, start=1):
        dims = {"leader_bonus": lb, "end_on_last_card": end, "siege_towers_per_side": st}
        label = ",".join(f"{k}={v}" for k, v in dims.items())
        k = 1800 + 150 * (lb - 1) + (60 if end == "end_of_turn" else 0) + 40 * (st - 2)
        d = k - 1800
        rows.append(row(i, label, "grid", dims, N, (k, N - k - 200, 200), delta=(max(d, 0), max(-d, 0))))
    return frame(rows)


SKILL_PLAYERS = ("random", "greedy", "search")


def skill_frame():
    """A skill run: the baseline (greedy v greedy) and every pairing of random, greedy and
    the search player; Good's rate rises with the players' strength on both seats."""
    strength = {p: i for i, p in enumerate(SKILL_PLAYERS)}
    rows = [row(0, "baseline", "baseline", {}, N, (1800, 2000, 200))]
    for g in SKILL_PLAYERS:
        for e in SKILL_PLAYERS:
            k = 1800 + 700 * (strength[g] - strength[e]) + (100 if g == e == "search" else 0)
            rows.append(row(len(rows), f"good={g},evil={e}", "pairings", {}, N, (k, N - k - 200, 200),
                            policies={"good": g, "evil": e}))
    return frame(rows)


def write_sweep(folder: Path, pairings: bool = True, df=None, **manifest_keys) -> Path:
    """Write a finished sweep folder (``manifest_keys`` added to its manifest); returns it."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (sweep_frame(pairings) if df is None else df).to_parquet(folder / "results.parquet")
    manifest = {**MANIFEST, "seed": 7, "package_version": "test", "started": "2026-01-01T00:00:00",
                "finished": "2026-01-01T00:01:00", "spec_hash": "abc123", "machine": {"hostname": "test"},
                "notes": ["The board is a RECONSTRUCTED default, not the printed game."], **manifest_keys}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    return folder
