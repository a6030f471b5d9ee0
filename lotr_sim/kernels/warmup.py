"""A first run's compile on two cores: a helper process compiles an entry point's callees.

numba compiles one kernel at a time per process, and a cold compile of a game's entry point
(Minas Tirith's ``simulate_nb``: ~40 s on this machine) types, lowers and emits every callee
in the order the entry's body calls them. Most of those callees are independent subtrees
(README "First run: where the time goes": the longest chain is about a third of the whole),
so a second process can compile them meanwhile and hand them over through numba's on-disk
cache: when the main process reaches a callee the helper has already written, numba loads it
(``Dispatcher.compile`` checks the cache before compiling) instead of compiling it again.

How it works:

* ``compile_plan.json`` (beside this module; written by
  ``python benchmarks/compile_times.py plan``) lists, for each entry point whose cold compile
  is worth it, its callees at every depth in the order the main process finishes compiling
  them, with their argument types (``repr`` of numba types, which ``eval`` in
  ``numba.core.types`` gives back) and seconds.
* ``install()`` registers a numba compile-event listener (once per process). When an entry
  point of the plan starts compiling (its cache missed: a warm run never gets here), the
  listener starts ``python -m lotr_sim.kernels.warmup ENTRY``, which compiles the callees
  from the *last* one backwards while the main process goes forwards (``helper_order``: a
  callee holding a large share of the work, such as LOTR Risk's turn kernel, is left to the
  main process and the helper works inside it from the far end); each side skips what the
  other already cached, so they meet in the middle without any coordination. When the
  entry point's compile ends the helper is stopped (it has nothing left the entry needs).
* Only compile *order* changes: every kernel is compiled from the same source with the same
  types, so results are bit-identical with or without the helper (the golden tests run
  either way). A stale plan (a callee renamed, a signature changed) only costs time: the
  helper skips what it cannot compile, and ``tests/kit/test_warmup.py`` fails until the
  plan is re-recorded.

``LOTR_SIM_COMPILE_HELPER=0`` switches the helper off (the helper itself runs with it off).
Measured figures are in the issue 21 note and README ("First run").
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

PLAN_FILE = Path(__file__).with_name("compile_plan.json")
ENV_SWITCH = "LOTR_SIM_COMPILE_HELPER"
#: An entry point gets a helper only if its callees took at least this long to compile when
#: the plan was recorded (starting the helper costs ~1.5 s of importing numba and the game).
MIN_CALLEE_SECONDS = 4.0


_state: dict[str, Any] = {"installed": False, "plan": None, "depth": 0, "helper": None, "started": set()}


def enabled() -> bool:
    """Whether this process may start compile helpers (``LOTR_SIM_COMPILE_HELPER`` != 0)."""
    return os.environ.get(ENV_SWITCH, "1").strip().lower() not in ("0", "false", "no", "off")


def load_plan(path: Path = PLAN_FILE) -> dict[str, dict]:
    """The recorded plan, ``{entry: {"seconds": s, "callee_seconds": s, "order": [[module,
    name, [types]], ...], "order_seconds": [s, ...]}}`` (see ``record``); empty when the file
    is missing or unreadable (the helper is then never started)."""
    try:
        d = json.loads(Path(path).read_text())
        return dict(d.get("entries", {}))
    except (OSError, ValueError, AttributeError):
        return {}


def _qualname(dispatcher) -> str:
    fn = dispatcher.py_func
    return f"{fn.__module__}.{fn.__qualname__}"


def parse_types(reprs: list[str]) -> tuple:
    """numba types from their ``repr`` strings (as written in the plan)."""
    from numba.core import types

    ns = dict(vars(types))
    return tuple(eval(r, {"__builtins__": {}}, ns) for r in reprs)  # noqa: S307 - our own plan file


def _spawn(entry: str) -> subprocess.Popen | None:
    import numba

    import lotr_sim

    env = dict(os.environ)
    env[ENV_SWITCH] = "0"
    env["NUMBA_CACHE_DIR"] = str(numba.config.CACHE_DIR or env.get("NUMBA_CACHE_DIR", ""))
    src = str(Path(lotr_sim.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    try:
        return subprocess.Popen([sys.executable, "-m", "lotr_sim.kernels.warmup", entry, str(os.getpid())],
                                env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
    except OSError:
        return None


def _stop_helper() -> None:
    p = _state["helper"]
    _state["helper"] = None
    if p is not None and p.poll() is None:
        p.terminate()
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def _on_start(dispatcher) -> None:
    depth = _state["depth"]
    _state["depth"] = depth + 1
    if depth or _state["helper"] is not None or not enabled():
        return
    name = _qualname(dispatcher)
    plan = _state["plan"]
    if plan is None:
        plan = _state["plan"] = load_plan()
    if name in plan and name not in _state["started"]:
        _state["started"].add(name)
        _state["helper"] = _spawn(name)


def _on_end() -> None:
    _state["depth"] = max(0, _state["depth"] - 1)
    if _state["depth"] == 0:
        _stop_helper()


def install() -> None:
    """Register the compile-event listener that starts a helper for a cold entry point of the
    plan (idempotent; costs nothing once the kernels are cached, as no compile event fires)."""
    if _state["installed"]:
        return
    from numba.core import event

    class _Listener(event.Listener):
        def on_start(self, ev):
            _on_start(ev.data["dispatcher"])

        def on_end(self, ev):
            _on_end()

    event.register("numba:compile", _Listener())
    _state["installed"] = True


def helper_order(entry: dict, share: float = 0.3) -> list[list]:
    """What the helper compiles, in order: the entry's callees (all depths) from the last
    one its compile finished to the first, leaving out a callee that took more than ``share``
    of the entry's time with its own callees (the main process compiles such a one, finding
    the helper's part of its subtree in the cache), and anything met twice."""
    out, seen = [], set()
    for spec, secs in zip(reversed(entry["order"]), reversed(entry["order_seconds"])):
        key = json.dumps(spec)
        if secs > share * entry["seconds"] or key in seen:
            continue
        seen.add(key)
        out.append(spec)
    return out


def compile_callees(entry: str, plan: dict[str, dict] | None = None,
                    alive: Callable[[], bool] = lambda: True) -> list[str]:
    """Compile ``entry``'s planned callees in ``helper_order`` (each is loaded from the
    cache instead when another process already compiled it); returns the names compiled or
    loaded. A callee that no longer exists or no longer compiles with the planned types is
    skipped: the plan is stale and only the time is lost."""
    import importlib

    plan = load_plan() if plan is None else plan
    done = []
    if entry not in plan:
        return done
    for mod, name, reprs in helper_order(plan[entry]):
        if not alive():
            break
        try:
            disp = getattr(importlib.import_module(mod), name)
            disp.compile(parse_types(reprs))
        except Exception:  # noqa: BLE001 - a stale plan entry: skip it
            continue
        done.append(f"{mod}.{name}")
    return done


def record(fn: Callable[[], Any], prefix: str = "lotr_sim.") -> dict[str, dict]:
    """Run ``fn`` (from a cold cache) and return what it compiled as plan entries: for every
    top-level compile of a ``prefix`` kernel, its seconds, its direct callees' seconds
    (``callee_seconds``, with theirs), and its ``prefix`` callees at every
    depth in the order their compiles finished (``order``: module, name, argument types;
    ``order_seconds``: each one's seconds with its own callees)."""
    from numba.core import event

    stack: list[dict] = []
    entries: dict[str, dict] = {}

    class _Rec(event.Listener):
        def on_start(self, ev):
            d = ev.data["dispatcher"]
            stack.append(dict(name=_qualname(d), mod=d.py_func.__module__, fn=d.py_func.__qualname__,
                              args=[repr(a) for a in ev.data["args"]], t0=time.perf_counter(), nodes=[],
                              direct=0.0))

        def on_end(self, ev):
            f = stack.pop()
            secs = time.perf_counter() - f["t0"]
            mine = f["name"].startswith(prefix)
            if stack:
                stack[-1]["nodes"] += f["nodes"]
                if mine:
                    stack[-1]["nodes"].append(([f["mod"], f["fn"], f["args"]], secs))
                    stack[-1]["direct"] += secs
            elif mine:
                entries[f["name"]] = dict(seconds=round(secs, 2), callee_seconds=round(f["direct"], 2),
                                          order=[spec for spec, _ in f["nodes"]],
                                          order_seconds=[round(t, 2) for _, t in f["nodes"]])

    rec = _Rec()
    event.register("numba:compile", rec)
    try:
        fn()
    finally:
        event.unregister("numba:compile", rec)
    return entries


def _main(argv: list[str]) -> int:
    entry = argv[0]
    parent = int(argv[1]) if len(argv) > 1 else None
    alive = (lambda: os.getppid() == parent) if parent else (lambda: True)
    import lotr_sim  # noqa: F401 - the cache directory, before numba

    compile_callees(entry, alive=alive)
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
