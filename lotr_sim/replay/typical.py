"""One typical baseline game of a sweep, as a replay page beside its report: how the
favoured side's win actually happens.

Which game: the first ``SAMPLE`` baseline games (the sweep's seed, configuration and players,
game i on stream i as in the sweep) are simulated, the side that won most of them is the
favoured one, and of its wins the one whose length in turns is the median is played again
traced and written as ``replay.html`` (its trace as ``replay.jsonl``). With a player from
``lotr_sim.players`` seated (a search player: seconds per game) only game 0 is played. The
whole costs about a second on the engine's players."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

from lotr_sim.errors import LotrSimError

SAMPLE = 41


def pick_game(game: Any, comp: Any, policies: Mapping[str, str], seed: int) -> tuple[int, str]:
    """The index of a typical baseline game and why it was chosen."""
    import numpy as np
    if game.has_generic(game.seat_policies(comp, policies)):
        return 0, "game 0 of the baseline (a search player is seated: one game only)"
    cols = game.simulate(comp, policies, seed, 0, SAMPLE, threads=1)
    winner = np.asarray(cols["winner"])
    turns = np.asarray(cols["turns"])
    sides = [k for k, o in enumerate(game.outcomes) if o in game.sides]
    counts = {k: int((winner == k).sum()) for k in sides}
    fav = max(counts, key=lambda k: counts[k])
    idx = np.flatnonzero(winner == fav)
    if idx.size == 0:
        return 0, "game 0 of the baseline (no side won any of the first games)"
    order = idx[np.argsort(turns[idx], kind="stable")]
    pick = int(order[(order.size - 1) // 2])
    return pick, (f"game {pick}: a win of {game.outcomes[fav]} (the side that won {counts[fav]} of the first "
                  f"{SAMPLE} baseline games) of median length among those wins, {int(turns[pick])} turns")


def write_typical_replay(folder: str | Path, manifest: Mapping) -> dict | None:
    """Write ``replay.html`` and ``replay.jsonl`` of a typical baseline game into a sweep
    folder; returns ``path``, ``index``, ``why`` and ``seconds``, or None when the folder's
    manifest does not describe a game this install can play and draw."""
    import time
    t0 = time.perf_counter()
    spec_d = manifest.get("spec")
    if not isinstance(spec_d, dict):
        return None
    from lotr_sim.experiments.spec import SweepSpec, check_spec
    from lotr_sim.games.registry import get_game
    from lotr_sim.replay import board_layout, picture_module
    from lotr_sim.replay.page import write_page
    try:
        spec = SweepSpec.from_dict(spec_d)
        game = get_game(spec.game)
        pic = picture_module(game)
        pols, cfg = check_spec(game, spec)
        comp = game.compile(cfg)
    except (LotrSimError, KeyError, TypeError, ValueError):
        return None
    folder = Path(folder)
    index, why = pick_game(game, comp, pols, int(spec.seed))
    _, events = game.play(comp, pols, int(spec.seed), index)
    try:
        (folder / "replay.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    except OSError as e:
        raise LotrSimError(f"cannot write {folder / 'replay.jsonl'}: {e.strerror or e}") from None
    w = pic.Walker(game, cfg, comp, board_layout(game.name))
    steps = w.steps(events)
    write_page(folder / "replay.html", game, events[0], w.svg(), steps)
    return {"path": folder / "replay.html", "index": index, "why": why, "seconds": time.perf_counter() - t0}
