"""The first-run compile helper (lotr_sim/_numba/warmup.py): its plan names kernels
that exist with types that parse, matches what a cold compile really does, starts a helper only
for a cold planned entry point, and changes nothing in the results."""
from __future__ import annotations

import importlib
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from numba.core.dispatcher import Dispatcher

import lotr_sim
from lotr_sim import _numba
from lotr_sim._numba import FULLY_OPTIMISED, MAY_BE_LEAN
from lotr_sim._numba import warmup

ROOT = Path(lotr_sim.__file__).resolve().parent.parent
# the machinery is applied only on the numba releases it is known to work on
pytestmark = pytest.mark.skipif(not _numba.machinery_known(), reason="first-run machinery not applied on this numba")
PLAN = warmup.load_plan()
GAMES = {"minas_tirith": "minas-tirith", "lotr_risk": "lotr-risk", "the_search": "the-search"}


@pytest.fixture(autouse=True)
def _machinery_undone():
    """A test here that installs the machinery in this worker (the library runs without it)
    leaves numba as it found it."""
    was = warmup._state["installed"]
    yield
    if not was:
        warmup.uninstall()


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


class _FakePipe:
    def __init__(self):
        self.text = ""

    def write(self, text):
        self.text += text

    def flush(self):
        pass

    def close(self):
        pass


class _FakeProc:
    def __init__(self):
        self.terminated = False
        self.stdin = _FakePipe()

    def poll(self):
        return None if not self.terminated else -15

    def terminate(self):
        self.terminated = True

    def wait(self, timeout=None):
        return -15


def test_listener_starts_one_helper_for_a_cold_planned_entry_and_stops_it(monkeypatch):
    """A planned entry's compile (only a cache miss fires the event) starts one helper; its
    callees' nested compiles do not start another; the helper stops when the entry is done,
    unless entry points follow (``then``): the next planned entry is then handed over to it;
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
    # an entry with entry points to follow (``then``) keeps its helper, and the next planned
    # entry point hands it over to that helper (its standard input) instead of starting one
    warmup._state["plan"]["pkg.mod.first_nb"] = dict(warmup._state["plan"]["pkg.mod.entry_nb"],
                                                     then=[["pkg.mod", "later_nb", []]])
    warmup._state["plan"]["pkg.mod.second_nb"] = warmup._state["plan"]["pkg.mod.entry_nb"]
    warmup._on_start(_FakeDispatcher("pkg.mod.first_nb"))
    first = warmup._state["helper"]
    warmup._on_end()
    assert not first.terminated and warmup._state["helper"] is first
    warmup._on_start(_FakeDispatcher("pkg.mod.second_nb"))
    assert not first.terminated and warmup._state["helper"] is first
    assert started[-1] == "pkg.mod.first_nb" and first.stdin.text == "pkg.mod.second_nb\n"
    warmup._on_end()
    assert first.terminated and warmup._state["helper"] is None
    # a helper that has exited is replaced
    warmup._state["plan"]["pkg.mod.third_nb"] = warmup._state["plan"]["pkg.mod.first_nb"]
    warmup._state["plan"]["pkg.mod.fourth_nb"] = warmup._state["plan"]["pkg.mod.entry_nb"]
    warmup._on_start(_FakeDispatcher("pkg.mod.third_nb"))
    warmup._on_end()
    warmup._state["helper"].terminated = True
    warmup._on_start(_FakeDispatcher("pkg.mod.fourth_nb"))
    assert started[-2:] == ["pkg.mod.third_nb", "pkg.mod.fourth_nb"]
    warmup._on_end()
    monkeypatch.setenv(warmup.ENV_SWITCH, "0")
    monkeypatch.setitem(warmup._state, "started", set())
    warmup._on_start(_FakeDispatcher("pkg.mod.entry_nb"))
    warmup._on_end()
    assert len(started) == 4


def test_a_helper_takes_the_next_entry_points_from_its_pipe_until_it_closes(tmp_path):
    """The helper process compiles its first entry's callees, then each entry point the main
    process writes to its standard input, and exits when the pipe closes."""
    log = tmp_path / "log"
    env = dict(os.environ, PYTHONPATH=str(ROOT), NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    env[warmup.LOG_ENV] = str(log)
    p = subprocess.Popen([sys.executable, "-m", "lotr_sim._numba.warmup", "pkg.unplanned_a_nb",
                          str(os.getpid())], env=env, stdin=subprocess.PIPE, text=True)
    p.stdin.write("pkg.unplanned_b_nb\n")
    p.stdin.flush()
    p.stdin.close()
    assert p.wait(timeout=120) == 0
    entries = [line.split()[-1] for line in log.read_text().splitlines() if " entry " in line]
    assert entries == ["pkg.unplanned_a_nb", "pkg.unplanned_b_nb"]


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


def _probe_module(monkeypatch, tmp_path: Path, name: str, source: str):
    """Import ``source`` as module ``name`` (from ``tmp_path``), every kernel of it with the
    claim checks on its cache."""
    (tmp_path / f"{name}.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    m = importlib.import_module(name)
    for obj in vars(m).values():
        if isinstance(obj, Dispatcher):
            warmup._wrap_cache(obj)
    return m


def _as_role(monkeypatch, tmp_path: Path, role: str, helper: bool = False) -> Path:
    """This process as the helper or the main process (with a live fake helper), its claims
    under ``tmp_path / "claims"``; returns the compile log's path."""
    monkeypatch.setattr(warmup, "_claim_dir", lambda: tmp_path / "claims")
    monkeypatch.setitem(warmup._state, "role", role)
    monkeypatch.setitem(warmup._state, "claims", set())
    if helper:
        monkeypatch.setitem(warmup._state, "helper", _FakeProc())
    monkeypatch.setenv(warmup.LOG_ENV, str(tmp_path / "log"))
    return tmp_path / "log"


def _logged(log_file: Path) -> list[list[str]]:
    """The compile log's events: [what, kernel] each."""
    return [line.split()[3:] for line in log_file.read_text().splitlines()]


def _drop_once_logged(claim: Path, log_file: Path, event: str):
    """The other process, as a started thread: it drops ``claim`` once ``event`` ("what
    kernel") is in the log, or after 2 minutes (the test then fails). Join it."""
    import threading

    def other():
        t0 = time.monotonic()
        while time.monotonic() - t0 < 120:
            if log_file.exists() and event in log_file.read_text():
                break
            time.sleep(0.02)
        claim.unlink()
    t = threading.Thread(target=other, daemon=True)
    t.start()
    return t


_YIELD_MODULE = """
from numba import njit

@njit
def inner_yield_probe_nb(x):
    return x + 1

@njit
def outer_yield_probe_nb(x):
    return inner_yield_probe_nb(x) * 2
"""


def test_the_helper_gives_way_to_the_main_process_then_comes_back(monkeypatch, tmp_path):
    """In the helper, a planned callee that needs a kernel the main process has claimed is
    given up at once (``_Busy``, found through numba's wrapping of it) instead of waiting, and
    compiled after the other callees, waiting then for the main process's kernel."""
    from numba.core import types

    m = _probe_module(monkeypatch, tmp_path, "yield_probe_mod", _YIELD_MODULE)
    log_file = _as_role(monkeypatch, tmp_path, "helper")
    sig = (types.int64,)
    claim = warmup._claim_path(m.inner_yield_probe_nb, sig)
    claim.parent.mkdir()
    claim.write_text(str(os.getppid()))           # the "main process" compiles inner_...
    spec = ["yield_probe_mod", "outer_yield_probe_nb", ["int64"]]
    plan = {"e": dict(seconds=1.0, order=[spec], order_seconds=[0.1])}
    main = _drop_once_logged(claim, log_file, "wait yield_probe_mod.inner_yield_probe_nb")   # ... until then
    try:
        assert warmup.compile_callees("e", plan=plan) == ["yield_probe_mod.outer_yield_probe_nb"]
    finally:
        main.join()
    log = _logged(log_file)
    assert log[:2] == [["compile", "yield_probe_mod.outer_yield_probe_nb"],
                       ["yield", "yield_probe_mod.inner_yield_probe_nb"]]
    assert ["wait", "yield_probe_mod.inner_yield_probe_nb"] in log[2:]
    assert m.outer_yield_probe_nb(3) == 8
    assert not warmup._state["yield"]


_FOLLOW_MODULE = """
from numba import njit

@njit
def first_follow_probe_nb(x):
    return x + 3

@njit
def later_follow_probe_nb(x):
    return x * 5
"""


def test_a_follower_the_main_process_is_compiling_is_taken_after_the_others(monkeypatch, tmp_path):
    """A follower (``then``) the main process has claimed - as when it compiles Minas Tirith's
    or The Search's ``run_until_nb`` lean inside the playouts, and Python calls it next - is not
    skipped: the helper takes the other followers first, then waits for it and JIT-s it."""
    from numba.core import types

    m = _probe_module(monkeypatch, tmp_path, "follow_probe_mod", _FOLLOW_MODULE)
    log_file = _as_role(monkeypatch, tmp_path, "helper")
    claim = warmup._claim_path(m.first_follow_probe_nb, (types.int64,))
    claim.parent.mkdir()
    claim.write_text(str(os.getppid()))           # the "main process" compiles first_...
    main = _drop_once_logged(claim, log_file, "wait follow_probe_mod.first_follow_probe_nb")
    then = [["follow_probe_mod", n, ["int64"]] for n in ("first_follow_probe_nb", "later_follow_probe_nb")]
    plan = {"e": dict(seconds=1.0, order=[], order_seconds=[], then=then)}
    try:
        assert warmup.compile_callees("e", plan=plan) == ["follow_probe_mod.later_follow_probe_nb",
                                                          "follow_probe_mod.first_follow_probe_nb"]
    finally:
        main.join()
    log = _logged(log_file)
    assert ["wait", "follow_probe_mod.first_follow_probe_nb"] in log
    assert not [e for e in log if e[0] == "skip"]
    assert m.first_follow_probe_nb(2) == 5 and m.later_follow_probe_nb(2) == 10


_MEANWHILE_MODULE = """
from numba import njit

@njit
def before_mw_nb(x):
    return x - 1

@njit
def waited_mw_nb(x):
    return x + 1

@njit
def later_mw_nb(x):
    return x * 3

@njit
def inner_mw_nb(x):
    return x * 7

@njit
def blocked_mw_nb(x):
    return inner_mw_nb(x) + 1

@njit
def outer_mw_nb(x):
    return waited_mw_nb(x) + 100
"""


def test_the_main_process_works_ahead_while_it_waits_for_the_helper(monkeypatch, tmp_path):
    """While the main process, compiling a kernel, waits for a callee the helper is compiling,
    it compiles the entry's planned callees that come after that callee in its own order (not
    those before: the waited kernel's subtree, which the helper would then give up), and one
    of them that needs a kernel the helper has claimed gives way at once instead of waiting
    (no two processes ever wait for each other), leaving no claim behind. A kernel Python
    calls is only waited for (work done then would count as compiles Python started)."""
    from numba.core import types

    warmup.install()                                  # (as in every run: the compile stack)
    m = _probe_module(monkeypatch, tmp_path, "meanwhile_mod", _MEANWHILE_MODULE)
    log_file = _as_role(monkeypatch, tmp_path, "main", helper=True)
    order = [["meanwhile_mod", n, ["int64"]]
             for n in ("before_mw_nb", "waited_mw_nb", "blocked_mw_nb", "later_mw_nb", "outer_mw_nb")]
    monkeypatch.setitem(warmup._state, "plan", {"e": dict(seconds=1.0, order=order, order_seconds=[0.1] * 5)})
    monkeypatch.setitem(warmup._state, "entry", "e")
    sig = (types.int64,)
    waited, inner = warmup._claim_path(m.waited_mw_nb, sig), warmup._claim_path(m.inner_mw_nb, sig)
    waited.parent.mkdir()
    for c in (waited, inner):
        c.write_text(str(os.getppid()))              # the "helper" compiles these two
    helper = _drop_once_logged(waited, log_file, "meanwhile meanwhile_mod.later_mw_nb")
    try:
        m.outer_mw_nb.compile(sig)
    finally:
        helper.join()
        inner.unlink()
    log = _logged(log_file)
    assert log[:2] == [["compile", "meanwhile_mod.outer_mw_nb"], ["wait", "meanwhile_mod.waited_mw_nb"]]
    assert ["yield", "meanwhile_mod.inner_mw_nb"] in log
    assert ["meanwhile", "meanwhile_mod.later_mw_nb"] in log
    assert [e for e in log if e[0] == "meanwhile"] == [["meanwhile", "meanwhile_mod.later_mw_nb"]]
    assert sig in m.later_mw_nb.overloads and sig in m.waited_mw_nb.overloads and sig in m.outer_mw_nb.overloads
    assert sig not in m.before_mw_nb.overloads and sig not in m.blocked_mw_nb.overloads
    assert not warmup._state["yield"]
    assert not list((tmp_path / "claims").iterdir())
    assert m.later_mw_nb(2) == 6 and m.blocked_mw_nb(1) == 8 and m.outer_mw_nb(1) == 102


def test_a_kernel_python_calls_is_only_waited_for(monkeypatch, tmp_path):
    """A kernel the helper is compiling that Python itself calls (no compile under way in the
    main process) is waited for without working ahead: a kernel compiled then would count as
    a top-level compile, whose end drops every claim and stops the helper."""
    from numba.core import types

    warmup.install()
    m = _probe_module(monkeypatch, tmp_path, "meanwhile0_mod", _MEANWHILE_MODULE.replace("_mw_nb", "_mw0_nb"))
    log_file = _as_role(monkeypatch, tmp_path, "main", helper=True)
    order = [["meanwhile0_mod", n, ["int64"]] for n in ("waited_mw0_nb", "later_mw0_nb")]
    monkeypatch.setitem(warmup._state, "plan", {"e": dict(seconds=1.0, order=order, order_seconds=[0.1] * 2)})
    monkeypatch.setitem(warmup._state, "entry", "e")
    sig = (types.int64,)
    waited = warmup._claim_path(m.waited_mw0_nb, sig)
    waited.parent.mkdir()
    waited.write_text(str(os.getppid()))
    helper = _drop_once_logged(waited, log_file, "wait meanwhile0_mod.waited_mw0_nb")
    try:
        m.waited_mw0_nb.compile(sig)
    finally:
        helper.join()
    log = [what for what, *_ in _logged(log_file)]
    assert log[0] == "wait" and "meanwhile" not in log
    assert sig not in m.later_mw0_nb.overloads


def test_the_main_process_waits_for_the_helpers_jit_not_for_its_compile(monkeypatch, tmp_path):
    """A kernel Python calls, which the helper is JIT-ing, is taken from the cache once the
    helper has saved it (the main process waits on the JIT's own claim); a compile claim on
    the same kernel does not hold the main process up, which already has the kernel lean."""
    import threading
    from types import SimpleNamespace

    from numba.core import types

    monkeypatch.setattr(warmup, "_claim_dir", lambda: tmp_path / "claims")
    monkeypatch.setitem(warmup._state, "role", "main")
    monkeypatch.setitem(warmup._state, "helper", _FakeProc())
    monkeypatch.setenv(warmup.LOG_ENV, str(tmp_path / "log"))
    (tmp_path / "claims").mkdir()
    sig = (types.int64,)
    store: dict = {}
    disp = _FakeDispatcher("pkg.mod.k_nb")
    disp._cache = SimpleNamespace(_lotr_load=lambda s, ctx: store.get(s))
    disp.targetctx = SimpleNamespace(insert_user_function=lambda *a: None)
    cres = SimpleNamespace(signature=SimpleNamespace(args=sig))
    ready = SimpleNamespace(entry_point="machine code", fndesc=None, library=None)
    compile_claim, jit_claim = warmup._claim_path(disp, sig), warmup._claim_path(disp, sig, "jit")
    assert compile_claim != jit_claim
    compile_claim.write_text(str(os.getppid()))
    assert warmup._ready_in_cache(disp, cres) is None          # not JIT-ed anywhere yet
    jit_claim.write_text(str(os.getppid()))

    def helper_saves():
        store[sig] = ready
        jit_claim.unlink()
    threading.Timer(0.3, helper_saves).start()
    assert warmup._ready_in_cache(disp, cres) is ready
    log = [line.split()[3] for line in (tmp_path / "log").read_text().splitlines()]
    assert log == ["wait"]


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


def test_a_kernel_compiled_inside_another_compile_is_lean_until_python_calls_it(monkeypatch):
    """Lean callees: kernels first compiled while their caller compiles skip LLVM's module
    passes and get no machine code (their entry point is deferred, recorded in
    ``_state["lean"]``); the outer kernel gets both at once. When Python calls a lean kernel,
    its machine code is generated then, after the module passes if it is a kept kernel
    (``_state["kept_late"]``), and its real entry point replaces the deferred one. With
    ``LOTR_SIM_LEAN_CALLEES=0`` nothing is lean, and every result is the same. (Only kernels of
    the lotr_sim package are ever lean: these probes are made to look like ones.)"""
    import numba

    def njit(fn):
        fn.__module__ = "lotr_sim.lean_probe"
        return numba.njit(fn)

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

        return outer_lean_probe_nb, inner_lean_probe_nb, kept_lean_probe_nb

    def entry_kinds(*disps):
        return [type(c.entry_point).__name__ for d in disps for c in d.overloads.values()]

    names = {"inner_lean_probe_nb", "kept_lean_probe_nb", "outer_lean_probe_nb"}
    monkeypatch.setitem(warmup._state, "lean", set())
    monkeypatch.setitem(warmup._state, "kept_late", set())
    monkeypatch.setenv(warmup.LEAN_SWITCH, "1")
    outer, inner, kept = build()
    assert outer(5) == 19
    assert warmup._state["lean"] & names == {"inner_lean_probe_nb", "kept_lean_probe_nb"}
    assert entry_kinds(inner, kept) == ["_DeferredEntry", "_DeferredEntry"]
    assert entry_kinds(outer) != ["_DeferredEntry"]
    assert inner(5) == 16 and kept(5) == 3 and inner(6) == 19      # machine code made now
    assert "_DeferredEntry" not in entry_kinds(inner, kept)
    assert {n.rsplit(".", 1)[-1] for n in warmup._state["kept_late"]} == {"kept_lean_probe_nb"}
    warmup._state["lean"].clear()
    monkeypatch.setenv(warmup.LEAN_SWITCH, "0")
    outer, inner, kept = build()
    assert outer(5) == 19 and inner(5) == 16 and kept(5) == 3
    assert not warmup._state["lean"]
    assert "_DeferredEntry" not in entry_kinds(outer, inner, kept)


_LEAN_MODULE = """
import sys
from lotr_sim._numba.jit import njit

# a kernel of the lotr_sim package, as far as the machinery can tell (only those are ever lean)
sys.modules["lotr_sim.lean_probe_mod"] = sys.modules[__name__]
__name__ = "lotr_sim.lean_probe_mod"

@njit(cache=True)
def leaf_nb(x):
    return x * 2

@njit(cache=True)
def first_nb(x):
    return leaf_nb(x) + 1

@njit(cache=True)
def second_nb(x):
    return leaf_nb(x) - 1
"""


def test_a_lean_kernel_is_cached_as_bitcode_and_gets_machine_code_when_called(tmp_path):
    """Through the cache, in fresh processes: a callee compiled lean is saved as bitcode;
    a later process that calls it from Python gets the right answer and re-saves it with its
    machine code (object code); a caller compiled after that links it. Each step checks what
    the cache holds, so a lean kernel never breaks a later run."""
    (tmp_path / "lean_probe_mod.py").write_text(_LEAN_MODULE)
    step = """
        import sys
        from numba.core import types
        from lotr_sim._numba import warmup
        warmup.install(())
        import lean_probe_mod as m
        if sys.argv[1] == "a":
            print([m.first_nb(3)], [c.library.serialize_using_object_code()[1]
                                    for c in m.leaf_nb.overloads.values()])
        else:                                # what the cache holds, then calls
            loaded = type(m.leaf_nb.compile((types.int64,))).__name__
            out = [m.leaf_nb(4)] if sys.argv[1] == "b" else [m.leaf_nb(5), m.second_nb(2), m.first_nb(3)]
            print(loaded, out, [type(c.entry_point).__name__ for c in m.leaf_nb.overloads.values()])
    """
    got = [_child(step, tmp_path / "cache", path=(tmp_path,), argv=(arg,), timeout=300) for arg in "abc"]
    assert got[0] == "[7] ['bitcode']"                   # compiled inside first_nb: lean
    assert got[1] == "_DeferredEntry [8] ['builtin_function_or_method']"  # loaded lean, called
    assert got[2] == "builtin_function_or_method [10, 3, 7] ['builtin_function_or_method']"


def test_planned_entry_points_and_their_followers_are_kernels_python_calls():
    """Every entry point the plan starts a helper for is a kept kernel, and every one it
    prepares next (``then``) is one Python calls: a kept one (the search player's, JIT-ed with
    the full module passes) or one the adapter lets run lean (once per step or game)."""
    for entry, e in PLAN.items():
        assert entry.rsplit(".", 1)[1] in FULLY_OPTIMISED, entry
        for _, name, _ in e.get("then", []):
            assert name in FULLY_OPTIMISED + MAY_BE_LEAN, (entry, name)


def _child(code: str, cache: Path, helper: str = "0", lean: str = "1", path: tuple[Path, ...] = (),
           argv: tuple[str, ...] = (), timeout: float = 900) -> str:
    """The last line ``code`` prints in a fresh process on ``cache`` (``path``: more import
    folders; ``argv``: its arguments)."""
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), PYTHONPATH=os.pathsep.join(map(str, (ROOT, *path))))
    env[warmup.ENV_SWITCH] = helper
    env[warmup.LEAN_SWITCH] = lean
    code = "from lotr_sim import _numba\n_numba.enable()\n" + textwrap.dedent(code)   # as the program has it
    p = subprocess.run([sys.executable, "-c", code, *argv], env=env, cwd=str(ROOT),
                       capture_output=True, text=True, timeout=timeout)
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
        from lotr_sim._numba import warmup
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
    from lotr_sim._numba import warmup
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
        from lotr_sim._numba import warmup
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
    assert full["games"] == plain["games"]
