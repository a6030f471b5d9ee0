"""The first-run compile helper (lotr_sim/kernels/warmup.py, issue 21): its plan names kernels
that exist with types that parse, matches what a cold compile really does, starts a helper only
for a cold planned entry point, and changes nothing in the results."""
from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from numba.core.dispatcher import Dispatcher

import lotr_sim
from lotr_sim.games.adapter import FULLY_OPTIMISED
from lotr_sim.kernels import warmup

ROOT = Path(lotr_sim.__file__).resolve().parent.parent
PLAN = warmup.load_plan()
GAMES = {"minas_tirith": "minas-tirith", "lotr_risk": "lotr-risk", "the_search": "the-search"}


def _game_of(entry: str) -> str:
    return GAMES[entry.split(".")[2]]


def test_plan_covers_every_games_run_path_and_parses():
    """Each game's simulate entry point is planned; every planned callee is a numba
    dispatcher and its types come back from their repr."""
    assert {_game_of(e) for e in PLAN if e.endswith(".simulate_nb")} == set(GAMES.values())
    for entry, e in PLAN.items():
        assert warmup.helper_order(e), entry
        assert len(e["order"]) == len(e["order_seconds"])
        for mod, name, reprs in e["order"] + e.get("then", []):
            disp = getattr(importlib.import_module(mod), name)
            assert isinstance(disp, Dispatcher), f"{mod}.{name}"
            ts = warmup.parse_types(reprs)
            assert [repr(t) for t in ts] == reprs


def test_helper_order_goes_backwards_and_leaves_the_big_callees_to_the_main_process():
    """Reversed finish order; a callee over 30% of the entry's time is left out (its own
    callees, finished before it, are still taken); a kernel met twice is compiled once."""
    a, b, big, c, d = (["m", n, ["int64"]] for n in "a b big c d".split())
    entry = dict(seconds=10.0, order=[a, b, c, big, d, a], order_seconds=[1.0, 2.0, 1.0, 5.0, 1.5, 1.0])
    assert warmup.helper_order(entry) == [a, d, c, b]
    assert warmup.helper_order(entry, share=0.6) == [a, d, big, c, b]


class _FakeDispatcher:
    def __init__(self, qualname: str):
        mod, _, name = qualname.rpartition(".")
        self.py_func = type("F", (), {"__module__": mod, "__qualname__": name})


class _FakeProc:
    def __init__(self):
        self.terminated = False

    def poll(self):
        return None if not self.terminated else -15

    def terminate(self):
        self.terminated = True

    def wait(self, timeout=None):
        return -15


def test_listener_starts_one_helper_for_a_cold_planned_entry_and_stops_it(monkeypatch):
    """A planned entry's compile (only a cache miss fires the event) starts one helper; its
    callees' nested compiles do not start another; the helper stops when the entry is done;
    an unplanned kernel or a second compile of the same entry starts none."""
    started = []
    monkeypatch.setattr(warmup, "_spawn", lambda entry: started.append(entry) or _FakeProc())
    monkeypatch.setitem(warmup._state, "then", False)
    monkeypatch.setitem(warmup._state, "plan", {"pkg.mod.entry_nb": {"seconds": 9.0, "order": [["pkg.mod", "a_nb", []]],
                                                                  "order_seconds": [5.0]}})
    monkeypatch.setitem(warmup._state, "started", set())
    monkeypatch.setitem(warmup._state, "stack", [])
    monkeypatch.setitem(warmup._state, "role", None)
    monkeypatch.setattr(warmup, "wrap_loaded_dispatchers", lambda: 0)
    monkeypatch.setenv(warmup.ENV_SWITCH, "1")
    warmup._on_start(_FakeDispatcher("pkg.mod.other_nb"))
    warmup._on_end()
    assert started == []
    warmup._on_start(_FakeDispatcher("pkg.mod.entry_nb"))
    proc = warmup._state["helper"]
    warmup._on_start(_FakeDispatcher("pkg.mod.entry_nb"))   # nested (a callee) compile
    warmup._on_end()
    assert started == ["pkg.mod.entry_nb"] and not proc.terminated
    warmup._on_end()
    assert proc.terminated and warmup._state["helper"] is None
    warmup._on_start(_FakeDispatcher("pkg.mod.entry_nb"))
    warmup._on_end()
    assert started == ["pkg.mod.entry_nb"]
    # an entry with entry points to follow (``then``) keeps its helper until the next planned
    # entry point starts its own
    warmup._state["plan"]["pkg.mod.first_nb"] = dict(warmup._state["plan"]["pkg.mod.entry_nb"],
                                                     then=[["pkg.mod", "later_nb", []]])
    warmup._state["plan"]["pkg.mod.second_nb"] = warmup._state["plan"]["pkg.mod.entry_nb"]
    warmup._on_start(_FakeDispatcher("pkg.mod.first_nb"))
    first = warmup._state["helper"]
    warmup._on_end()
    assert not first.terminated and warmup._state["helper"] is first
    warmup._on_start(_FakeDispatcher("pkg.mod.second_nb"))
    assert first.terminated and started[-2:] == ["pkg.mod.first_nb", "pkg.mod.second_nb"]
    warmup._on_end()
    assert warmup._state["helper"] is None
    monkeypatch.setenv(warmup.ENV_SWITCH, "0")
    monkeypatch.setitem(warmup._state, "started", set())
    warmup._on_start(_FakeDispatcher("pkg.mod.entry_nb"))
    warmup._on_end()
    assert len(started) == 3


class _FakeCache:
    """A dispatcher's numba cache: ``store`` is the disk."""

    def __init__(self, store):
        self.store = store

    def load_overload(self, sig, target_context):
        return self.store.get(sig)

    def save_overload(self, sig, cres):
        self.store[sig] = cres


def test_claims_make_a_process_wait_for_the_kernel_the_other_is_compiling(monkeypatch, tmp_path):
    """A cache miss on a kernel another live process has claimed waits until that process
    saves it, then loads it; a miss on an unclaimed kernel claims it until it is saved; a
    claim by a dead process, or by this one, is ignored."""
    import threading

    from numba.core import types

    monkeypatch.setattr(warmup, "_claim_dir", lambda: tmp_path)
    monkeypatch.setitem(warmup._state, "role", "helper")
    monkeypatch.setitem(warmup._state, "claims", set())
    store: dict = {}
    disp = _FakeDispatcher("pkg.mod.k_nb")
    disp._cache = _FakeCache(store)
    warmup._wrap_cache(disp)
    sig = (types.int64,)
    path = warmup._claim_path(disp, sig)
    # another live process (our parent) holds the claim and saves the kernel 0.3 s later
    path.write_text(str(os.getppid()))

    def other_saves():
        store[sig] = "compiled elsewhere"
        path.unlink()
    threading.Timer(0.3, other_saves).start()
    assert disp._cache.load_overload(sig, None) == "compiled elsewhere"
    assert warmup._state["claims"] == set()
    # unclaimed: this process claims it, and drops the claim once it is saved
    sig2 = (types.float64,)
    assert disp._cache.load_overload(sig2, None) is None
    p2 = warmup._claim_path(disp, sig2)
    assert p2.read_text() == str(os.getpid()) and not warmup._claimed_by_other(p2)
    disp._cache.save_overload(sig2, "compiled here")
    assert not p2.exists() and store[sig2] == "compiled here"
    # a dead owner's claim does not hold anyone up
    sig3 = (types.boolean,)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    warmup._claim_path(disp, sig3).write_text(dead.stdout.strip())
    assert not warmup._claimed_by_other(warmup._claim_path(disp, sig3))
    assert disp._cache.load_overload(sig3, None) is None
    warmup.drop_claims()
    assert not warmup._claim_path(disp, sig3).exists()


def test_a_top_level_kernels_claim_lasts_until_numba_saves_it(monkeypatch, tmp_path):
    """numba saves a kernel after its compile event ends, so the end of a top-level compile
    keeps that kernel's own claim (``save_overload`` drops it) and drops the others; after a
    failed compile every claim goes. (Dropping all of them at the event's end let the other
    process wake to an empty cache and compile The Search's run_until_nb a second time.)"""
    monkeypatch.setattr(warmup, "_claim_dir", lambda: tmp_path)
    monkeypatch.setitem(warmup._state, "claims", set())
    monkeypatch.setitem(warmup._state, "stack", [])
    monkeypatch.setitem(warmup._state, "helper", None)
    own_disp, other_disp = _FakeDispatcher("pkg.mod.entry_nb"), _FakeDispatcher("pkg.mod.inner_nb")
    for failed in (False, True):
        own, other = warmup._claim_path(own_disp, ()), warmup._claim_path(other_disp, ())
        warmup._claim(own)
        warmup._claim(other)
        monkeypatch.setitem(warmup._state, "stack", ["entry_nb"])
        warmup._on_end(own_disp, (), failed=failed)
        assert not other.exists() and other not in warmup._state["claims"]
        assert own.exists() == (not failed) and (own in warmup._state["claims"]) == (not failed)
        warmup.drop_claims()
        assert not own.exists()


def test_a_kernel_compiled_inside_another_compile_is_lean_unless_kept(monkeypatch):
    """Lean callees: a kernel first compiled while its caller compiles skips LLVM's module
    passes (recorded in ``_state["lean"]``); the outer kernel, a kept name and everything
    with ``LOTR_SIM_LEAN_CALLEES=0`` get the full passes, and the results are the same."""
    from numba import njit

    monkeypatch.setenv(warmup.ENV_SWITCH, "0")
    warmup.install(keep=("kept_lean_probe_nb",))

    def build():
        @njit
        def inner_lean_probe_nb(x):
            return x * 3 + 1

        @njit
        def kept_lean_probe_nb(x):
            return x - 2

        @njit
        def outer_lean_probe_nb(x):
            return inner_lean_probe_nb(x) + kept_lean_probe_nb(x)

        return outer_lean_probe_nb

    names = {"inner_lean_probe_nb", "kept_lean_probe_nb", "outer_lean_probe_nb"}
    monkeypatch.setitem(warmup._state, "lean", set())
    monkeypatch.setenv(warmup.LEAN_SWITCH, "1")
    assert build()(5) == 19
    assert warmup._state["lean"] & names == {"inner_lean_probe_nb"}
    warmup._state["lean"].clear()
    monkeypatch.setenv(warmup.LEAN_SWITCH, "0")
    assert build()(5) == 19
    assert not warmup._state["lean"]


def test_planned_entry_points_and_their_followers_get_full_module_passes():
    """Every entry point the plan starts a helper for, and every one it compiles next
    (``then``: called from Python by the search player), is a kept kernel: the helper never
    compiles a kernel Python calls in a loop lean."""
    for entry, e in PLAN.items():
        assert entry.rsplit(".", 1)[1] in FULLY_OPTIMISED, entry
        for _, name, _ in e.get("then", []):
            assert name in FULLY_OPTIMISED, (entry, name)


def _child(code: str, cache: Path, helper: str = "0", lean: str = "1") -> str:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT))
    env[warmup.ENV_SWITCH] = helper
    env[warmup.LEAN_SWITCH] = lean
    p = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, cwd=str(ROOT),
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stderr[-3000:]
    return p.stdout.strip().splitlines()[-1]


@pytest.mark.slow
@pytest.mark.parametrize("game", sorted(GAMES.values()))
def test_plan_matches_a_cold_compile_of_the_run_path(game, tmp_path):
    """Recorded from an empty cache, the game's simulate entry point compiles exactly the
    planned callees (every depth), in the planned order, with the planned types. When this
    fails, re-record:
    ``python benchmarks/compile_times.py plan``."""
    entry = next(e for e in PLAN if e.endswith(".simulate_nb") and _game_of(e) == game)
    got = json.loads(_child(f"""
        import json
        from lotr_sim.kernels import warmup
        from lotr_sim.api import get_game
        g = get_game({game!r}); c = g.compile(g.load())
        pols = dict(g.default_policies) if getattr(g, "default_policies", None) else {{}}
        rec = warmup.record(lambda: g.simulate(c, pols, 1, 0, 2, threads=1))
        print(json.dumps(rec[{entry!r}]["order"]))
    """, tmp_path))
    assert got == PLAN[entry]["order"]


_RESULT = """
    import hashlib, importlib, json
    from lotr_sim import api
    from lotr_sim.kernels import warmup
    r = api.run_games("the-search", games=300, seed=5, threads=1)
    hits = misses = 0
    for mod, name, _ in warmup.helper_order(warmup.load_plan()[ENTRY]):
        st = getattr(importlib.import_module(mod), name).stats
        hits += sum(st.cache_hits.values())
        misses += sum(st.cache_misses.values())
    print(json.dumps(dict(games=hashlib.sha256(r.games.to_csv().encode()).hexdigest(), hits=hits, misses=misses,
                          lean=sorted(warmup._state["lean"]))))
"""


@pytest.mark.slow
def test_callees_compiled_by_the_helper_give_the_same_games(tmp_path):
    """The helper's work reaches the main process through the cache (the callees the entry
    point needs load instead of compiling; their own callees come linked inside them) and
    the games are bit-identical to an ordinary compile's, and to one where every kernel gets
    numba's full module passes (``LOTR_SIM_LEAN_CALLEES=0``)."""
    entry = next(e for e in PLAN if e.endswith(".simulate_nb") and _game_of(e) == "the-search")
    helper_cache = tmp_path / "helper"
    done = json.loads(_child(f"""
        import json
        from lotr_sim.kernels import warmup
        print(json.dumps(warmup.compile_callees({entry!r})))
    """, helper_cache))
    planned = len(warmup.helper_order(PLAN[entry]))
    assert len(done) == planned
    code = f"ENTRY = {entry!r}\n" + textwrap.dedent(_RESULT)
    with_helper = json.loads(_child(code, helper_cache))
    plain = json.loads(_child(code, tmp_path / "plain"))
    assert with_helper["hits"] > 0 and with_helper["misses"] == 0
    assert plain["hits"] == 0 and plain["misses"] == planned
    assert with_helper["games"] == plain["games"]
    full = json.loads(_child(code, tmp_path / "full", lean="0"))
    assert plain["lean"] and not full["lean"]
    assert not set(plain["lean"]) & set(FULLY_OPTIMISED)
    assert full["games"] == plain["games"]
