"""Golden outcomes and traces: the engine's results are pinned bit for bit.

A refactor of the Minas Tirith engine (the step-machine port, the shared kit, a faster
kernel) must leave every game unchanged unless a rule fix says why. Each case plays a
range of games and compares a SHA-256 of every outcome column, and of a whole trace,
with ``golden/outcomes.json``. After an intended change of results, regenerate with
``LOTR_SIM_UPDATE_GOLDEN=1 python -m pytest tests/games/minas_tirith/test_mt_golden.py`` and
say why in the commit message.

Trace version 3 only added events and fields: each golden trace is checked twice,
with those additions taken out against its version-2 digest ("trace/...", unchanged), and
whole ("trace_v3/...").
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np
import pytest

from lotr_sim.games.registry import get_game

GOLDEN = Path(__file__).parent / "golden" / "outcomes.json"
UPDATE = os.environ.get("LOTR_SIM_UPDATE_GOLDEN") == "1"

# (name, good, evil, seed, first, n, overrides)
CASES = [
    ("greedy-greedy", "greedy", "greedy", 1, 0, 3000, ()),
    ("random-random", "random", "random", 7, 1000, 3000, ()),
    ("aggressive-cautious", "aggressive", "cautious", 3, 0, 1500, ()),
    ("cautious-aggressive", "cautious", "aggressive", 5, 0, 1500, ()),
    ("greedy-random-shooter", "greedy", "random", 11, 0, 1500,
     ("bombard_loss_choice=shooter", "creature_hits=2", "end_on_last_card=immediate")),
    ("random-greedy-retreat-off", "random", "greedy", 13, 0, 1500, ("retreat_trigger=off",)),
]
TRACES = [("greedy-greedy", "greedy", "greedy", 1, 4), ("random-random", "random", "random", 2, 9)]


def _digest_columns(cols: dict) -> str:
    h = hashlib.sha256()
    for k in sorted(cols):
        h.update(k.encode())
        h.update(np.ascontiguousarray(cols[k]).astype(np.int64).tobytes())
    return h.hexdigest()


def _digest_events(events: list[dict]) -> str:
    body = [e for e in events if e.get("event") != "header"]
    return hashlib.sha256(json.dumps(body, sort_keys=True, default=str).encode()).hexdigest()


# What trace_version 3 added to the events of version 2: the "decision" events, and
# these fields of existing events. Nothing else may differ.
V3_EVENTS = ("decision",)
V3_FIELDS = {"setup": ("hands",), "turn_start": ("hands", "drawn_ids"), "trade": ("card_ids",),
             "discard": ("card_ids",), "load": ("hand_card",),
             "bombard": ("archers", "archers_fired_before", "archers_at", "catapult")}


def _v2_view(events: list[dict]) -> list[dict]:
    """A version-3 trace with its additions taken out: what version 2 wrote."""
    out = []
    for e in events:
        if e.get("event") in V3_EVENTS:
            continue
        drop = V3_FIELDS.get(e.get("event"), ())
        out.append({k: v for k, v in e.items() if k not in drop})
    return out


def _load() -> dict:
    return json.loads(GOLDEN.read_text()) if GOLDEN.exists() else {}


def _check(key: str, value: str) -> None:
    golden = _load()
    if UPDATE:
        golden[key] = value
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(json.dumps(golden, indent=1, sort_keys=True) + "\n")
        return
    assert key in golden, f"no golden value for {key}: regenerate with LOTR_SIM_UPDATE_GOLDEN=1"
    assert value == golden[key], f"{key}: results changed (golden digest differs)"


@pytest.mark.parametrize("name,good,evil,seed,first,n,sets", CASES, ids=[c[0] for c in CASES])
def test_golden_outcomes(name, good, evil, seed, first, n, sets):
    g = get_game("minas-tirith")
    comp = g.compile(g.load(None, list(sets)))
    cols = g.simulate(comp, {"good": good, "evil": evil}, seed, first, n, threads=2)
    _check(f"outcomes/{name}", _digest_columns(cols))


@pytest.mark.parametrize("name,good,evil,seed,index", TRACES, ids=[t[0] for t in TRACES])
def test_golden_traces(name, good, evil, seed, index):
    g = get_game("minas-tirith")
    comp = g.compile(g.load())
    _row, events = g.play(comp, {"good": good, "evil": evil}, seed, index)
    # trace_version 3 only added events and fields: without them, the trace is the pinned one
    # of version 2 (the "trace/" digests are unchanged since version 2), event for event
    _check(f"trace/{name}", _digest_events(_v2_view(events)))
    _check(f"trace_v3/{name}", _digest_events(events))
    assert sum(e["event"] == "decision" for e in events) > 0


def test_v2_view_can_fail(game, comp):
    """The version-2 view does not hide a change of an old field or an extra event."""
    _row, events = game.play(comp, {"good": "greedy", "evil": "greedy"}, 1, 4)
    base = _digest_events(_v2_view(events))
    i = next(k for k, e in enumerate(events) if e["event"] == "bombard")
    changed = [dict(e) for e in events]
    changed[i]["hits"] += 1
    assert _digest_events(_v2_view(changed)) != base
    extra = events[:i] + [dict(events[i], event="move")] + events[i:]
    assert _digest_events(_v2_view(extra)) != base
