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
  listener starts ``python -m lotr_sim._numba.warmup ENTRY``, which compiles the callees
  from the *last* one backwards while the main process goes forwards (``helper_order``: a
  callee holding a large share of the work, such as LOTR Risk's turn kernel, is left to the
  main process and the helper works inside it from the far end); each side loads what the
  other already cached. A kernel one side is compiling is *claimed* (below): the main
  process waits for a kernel the helper has claimed (compiling meanwhile the planned callees
  that come after it in its own order, ``_work_while_waiting``), but the helper gives up a callee that
  needs a kernel the main process has claimed (``_Busy``) and goes on with the next,
  coming back to those it gave up after the others, so the helper never idles while there
  is work the main process has not reached. When the entry point's compile ends the helper
  is stopped (it has nothing left the entry needs).
* Only compile *order* changes: every kernel is compiled from the same source with the same
  types, so results are bit-identical with or without the helper (the golden tests run
  either way). A stale plan (a callee renamed, a signature changed) only costs time: the
  helper skips what it cannot compile, and ``tests/kernels/test_warmup.py`` fails until the
  plan is re-recorded.

Lean callees (below): a kernel compiled inside another kernel's compile skips LLVM's module
passes and gets no machine code of its own until Python calls it; the entry point links it
and optimises the whole engine anyway (~20% + ~20% less CPU on a cold compile).

Scope: the lean callees replace eight methods of numba's code library, CPU context and
dispatcher classes, so nothing here is applied by importing the package or loading a game:
``lotr_sim._numba.activate`` installs it in the ``lotr-sim`` program only (and only on the numba
releases of ``lotr_sim._numba.KNOWN_NUMBA``). Even there each replaced method acts only on
lotr-sim's kernels: a library is lean only when every kernel on the compile stack is of the
``lotr_sim`` package; the other methods act only on such a library, or on a lean cache entry
while one of lotr-sim's guarded caches rebuilds it (``jit.loading_lean``). Any other numba
function compiles, caches and loads as numba does.

``LOTR_SIM_COMPILE_HELPER=0`` switches the helper off (the helper itself runs with it off);
``LOTR_SIM_LEAN_CALLEES=0`` gives every kernel numba's module passes and machine code at
once again.
Measured figures are in docs/performance.md ("First run").
"""
from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lotr_sim._numba import jit

PLAN_FILE = Path(__file__).with_name("compile_plan.json")
ENV_SWITCH = "LOTR_SIM_COMPILE_HELPER"
LEAN_SWITCH = "LOTR_SIM_LEAN_CALLEES"
KEEP_ENV = "LOTR_SIM_KEEP_OPTIMISED"
LOG_ENV = "LOTR_SIM_COMPILE_LOG"
#: An entry point gets a helper only if its callees took at least this long to compile when
#: the plan was recorded (starting the helper costs ~1.5 s of importing numba and the game, on
#: the other core; the helper then also takes the entry points that follow, over its pipe).
MIN_CALLEE_SECONDS = 2.0


_state: dict[str, Any] = {"installed": False, "atexit": False, "plan": None, "helper": None,
                          "then": False, "started": set(), "role": None, "claims": set(),
                          "stack": [], "ours": [], "keep": set(), "lean": set(), "kept_late": set(),
                          "yield": False, "interrupt": lambda: False, "entry": None}
# ``stack``: the function names of the kernels being compiled, outermost first (its length is
# the compile depth: 1 for a kernel Python called, more for a callee compiled inside it);
# ``ours``: for each, whether it is a kernel of the lotr_sim package (only those are ever lean)


# -- claims: neither process compiles a kernel the other is compiling ---------------------------
# While a helper runs, each process claims a kernel (a file named after its qualified name and
# types, holding the process id, in the cache directory) when numba misses it in the cache and
# is about to compile it, and drops the claim once numba has saved it. A process that misses a
# kernel the other has claimed waits for it and loads it instead of compiling it a second time.
# The call graph has no cycles, so two processes never wait for each other; a claim whose owner
# has died is ignored, and the waiting has a time limit.

def _log(what: str, disp=None) -> None:
    """``LOTR_SIM_COMPILE_LOG=FILE``: each process appends what it waits for, claims and skips
    (for measuring the helper; off by default)."""
    path = os.environ.get(LOG_ENV)
    if path:
        name = _qualname(disp) if disp is not None else ""
        with open(path, "a") as f:
            f.write(f"{time.time():.3f} {os.getpid()} {_state['role']} {what} {name}\n")


def _claims_active() -> bool:
    if _state["role"] == "helper":
        return True
    p = _state["helper"]
    return _state["role"] == "main" and p is not None and p.poll() is None


def _claim_dir() -> Path:
    import tempfile

    from lotr_sim._numba.cache import cache_root

    return Path(cache_root() or tempfile.gettempdir()) / "lotr-sim-claims"


def _claim_path(disp, sig, what: str = "") -> Path:
    """The claim file of a kernel's compile, or of its JIT (``what="jit"``: a lean kernel's
    machine code, which the other process may wait for without holding up its compile)."""
    from numba.core import sigutils

    args, _ = sigutils.normalize_signature(sig)
    key = hashlib.sha1(f"{what}{_qualname(disp)}|{tuple(args)!r}".encode()).hexdigest()[:24]
    return _claim_dir() / key


def _claimed_by_other(path: Path) -> bool:
    try:
        pid = int(path.read_text())
    except (OSError, ValueError):
        return False
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    return True


def _wait_for(path: Path, timeout: float = 600.0) -> None:
    t0 = time.monotonic()
    while _claimed_by_other(path) and time.monotonic() - t0 < timeout:
        if _state["role"] == "main" and not _claims_active():
            return
        if _state["role"] == "helper" and _state["interrupt"]():
            raise _Busy(str(path))           # the main process has handed over a new entry
        time.sleep(0.02)


def _claim(path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.{os.getpid()}")
        tmp.write_text(str(os.getpid()))
        os.replace(tmp, path)
        _state["claims"].add(path)
    except OSError:
        pass


def _drop(path: Path) -> None:
    _state["claims"].discard(path)
    try:
        if not _claimed_by_other(path):
            path.unlink()
    except OSError:
        pass


def drop_claims(but: Path | None = None) -> None:
    """Drop every claim this process holds but ``but`` (after a failed compile, and at the
    end)."""
    for p in list(_state["claims"]):
        if p != but:
            _drop(p)


class _Busy(Exception):
    """Raised in the helper, while it compiles a planned callee, when that callee needs a
    kernel the main process is compiling: the helper drops this callee (the main process will
    compile it, finding in the cache what the helper finished of its subtree) and goes on to
    the next instead of waiting."""


def _wrap_cache(disp) -> None:
    cache = getattr(disp, "_cache", None)
    if cache is None or getattr(cache, "_lotr_claims", False) or not hasattr(cache, "save_overload"):
        return
    load, save = cache.load_overload, cache.save_overload

    def load_overload(sig, target_context):
        cres = load(sig, target_context)
        if cres is not None or not _claims_active():
            return cres
        path = _claim_path(disp, sig)
        if _claimed_by_other(path):
            if _state["yield"]:
                _log("yield", disp)
                raise _Busy(_qualname(disp))
            _log("wait", disp)
            if _state["role"] == "main":
                _work_while_waiting(disp, path)
            _wait_for(path)
            cres = load(sig, target_context)
            _log("loaded" if cres is not None else "waited-in-vain", disp)
            if cres is not None:
                return cres
        _claim(path)
        _log("compile", disp)
        return None

    def save_overload(sig, cres):
        try:
            save(sig, cres)
        finally:
            if _state["claims"]:
                _drop(_claim_path(disp, sig))

    cache.load_overload = load_overload
    cache.save_overload = save_overload
    cache._lotr_load = load
    cache._lotr_claims = True


def _work_while_waiting(waited, path: Path) -> None:
    """In the main process, while the helper compiles a kernel it needs (``waited``, claimed
    at ``path``): compile the current entry point's planned callees that come after it in
    the main process's own order (not its subtree: the helper would give that kernel up)
    and that neither process has started, until it is ready. Each is lean (compiled inside
    a compile) and gives way at once (``_Busy``) if it needs a kernel the helper is
    compiling, so the two processes never wait for each other (and no wait is met here again:
    with ``yield`` set, a kernel the helper has claimed raises before any wait)."""
    import importlib

    plan = _state["plan"] or {}
    e = plan.get(_state["entry"] or "")
    if e is None or not _state["stack"]:
        return                               # (a kernel Python calls is just waited for)
    key = [waited.py_func.__module__, waited.py_func.__qualname__]
    at = next((i for i, spec in enumerate(e["order"]) if spec[:2] == key), None)
    if at is None:
        return
    for mod, name, reprs in e["order"][at + 1:]:
        if not _claimed_by_other(path) or not _claims_active():
            return
        try:
            disp = getattr(importlib.import_module(mod), name)
            types = parse_types(reprs)
        except Exception:  # noqa: BLE001 - a stale plan entry
            continue
        if (getattr(disp, "_compiling_counter", 0) or tuple(types) in disp.overloads
                or _claimed_by_other(_claim_path(disp, types))):
            continue                     # on this process's stack, done, or the helper's
        before = set(_state["claims"])
        _state["yield"] = True
        try:
            disp.compile(types)
            _log("meanwhile", disp)
        except Exception:  # noqa: BLE001 - it gave way (_Busy): left for later
            for p in _state["claims"] - before:
                _drop(p)
        finally:
            _state["yield"] = False


def wrap_loaded_dispatchers(prefix: str = "lotr_sim.") -> int:
    """Put the claim checks on the cache of every numba dispatcher of the loaded ``prefix``
    modules; returns how many dispatchers have them."""
    from numba.core.dispatcher import Dispatcher

    n = 0
    for name, mod in list(sys.modules.items()):
        if not name.startswith(prefix) or mod is None:
            continue
        for obj in list(vars(mod).values()):
            if isinstance(obj, Dispatcher):
                _wrap_cache(obj)
                n += 1
    return n


def _switched_on(name: str) -> bool:
    return os.environ.get(name, "1").strip().lower() not in ("0", "false", "no", "off")


def enabled() -> bool:
    """Whether this process may start compile helpers (``LOTR_SIM_COMPILE_HELPER`` != 0, and a
    POSIX system: the claims probe their owner with ``os.kill(pid, 0)``, which on Windows
    would end it)."""
    return os.name == "posix" and _switched_on(ENV_SWITCH)


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
    import lotr_sim

    env = dict(os.environ)                   # (the helper finds the same cache folder itself)
    env[ENV_SWITCH] = "0"
    env[KEEP_ENV] = ",".join(sorted(_state["keep"]))
    src = str(Path(lotr_sim.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    try:
        return subprocess.Popen([sys.executable, "-m", "lotr_sim._numba.warmup", entry, str(os.getpid())],
                                env=env, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, text=True)
    except OSError:
        return None


def _hand_over(entry: str) -> bool:
    """Give the running helper the next entry point (it drops what it was doing: the
    followers of an earlier entry); False when there is no helper to take it."""
    p = _state["helper"]
    if p is None or p.poll() is not None or getattr(p, "stdin", None) is None:
        return False
    try:
        p.stdin.write(entry + "\n")
        p.stdin.flush()
    except (OSError, ValueError):
        return False
    return True


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
    if p is not None and getattr(p, "stdin", None) is not None:
        try:
            p.stdin.close()
        except OSError:
            pass


def _ours(dispatcher) -> bool:
    """Whether ``dispatcher`` is a kernel of the lotr_sim package."""
    return (getattr(getattr(dispatcher, "py_func", None), "__module__", "") or "").startswith("lotr_sim.")


def _on_start(dispatcher) -> None:
    _state["stack"].append(dispatcher.py_func.__name__)
    _state["ours"].append(_ours(dispatcher))
    if len(_state["stack"]) > 1 or not enabled():
        return
    name = _qualname(dispatcher)
    plan = _state["plan"]
    if plan is None:
        plan = _state["plan"] = load_plan()
    if name in plan and name not in _state["started"]:
        _state["started"].add(name)
        _state["entry"] = name
        _state["role"] = "main"
        _state["then"] = bool(plan[name].get("then"))
        wrap_loaded_dispatchers()
        if not _hand_over(name):             # one still busy with an earlier entry's ``then``
            _stop_helper()                   # takes it; otherwise a new helper starts
            _state["helper"] = _spawn(name)
        if _state["then"] and not _state["atexit"]:
            import atexit

            atexit.register(_stop_at_exit)
            _state["atexit"] = True


def _on_end(dispatcher=None, args=None, failed: bool = True) -> None:
    if _state["stack"]:
        _state["stack"].pop()
    if _state["ours"]:
        _state["ours"].pop()
    if not _state["stack"]:
        # numba saves a kernel to the cache *after* its compile event ends: the top-level
        # kernel's own claim is dropped by ``save_overload`` (dropping it here let a waiting
        # process find the cache still empty and compile the kernel a second time); every
        # other claim (a nested compile that failed) goes now, and all of them if this failed
        drop_all = failed or dispatcher is None or not _state["claims"]
        drop_claims(but=None if drop_all else _claim_path(dispatcher, args))
        if _state["helper"] is not None and _state["then"]:
            return                           # it goes on with the entry points that follow
        _stop_helper()


def _stop_at_exit() -> None:
    _stop_helper()
    drop_claims()


# -- lean callees: a callee's module passes and machine code only when Python calls it ---------
# numba links every callee's LLVM module into its caller's, runs the full module passes (the
# inliner, the loop optimisers, the vectorizers) on the linked module at every level, and turns
# every kernel it compiles into machine code at once (saved to the cache as object code). Only
# the entry point's machine code runs when the engine is called from Python, and the entry's
# module passes optimise the whole linked engine once more, so for a callee both are wasted
# unless Python calls it too (~20% and ~20% of a game's cold compile CPU).
#
# A *lean* library (a kernel compiled inside another compile, or by the helper, which
# compiles the callees of an entry point and JIT-s its followers itself) therefore skips
# the module passes and is finalized without being handed to LLVM's JIT: its module is linked
# into callers as before, it is cached as LLVM bitcode (numba's own "bitcode" cache format),
# and its entry point is a ``_DeferredEntry``. The first time Python calls the kernel, that
# entry runs the module passes if the kernel is kept (``keep``, from
# ``lotr_sim._numba.FULLY_OPTIMISED``: whole games, the search player's steps and playouts, which
# Python calls in a loop), generates the machine code, puts the real entry point in the
# dispatcher's table and re-saves the kernel as object code, so a later run loads it ready.
# Kernels Python calls once per step or game (choose, record, invariant) run without the module
# passes. Without fastmath, LLVM's optimisations do not change results: games stay
# bit-identical (the golden tests run lean, and tests/kernels/test_warmup.py compares with lean
# off). ``LOTR_SIM_LEAN_CALLEES=0`` switches all of this off.

def lean_enabled() -> bool:
    """Whether callees compiled inside another compile skip LLVM's module passes and machine
    code until Python calls them (``LOTR_SIM_LEAN_CALLEES`` != 0)."""
    return _switched_on(LEAN_SWITCH)


def _lean_now() -> bool:
    """Whether the library being optimised now is lean: a lotr-sim kernel compiled inside
    another lotr-sim kernel's compile (or by the helper). A compile any other numba function
    takes part in, a user's caller or callee, is numba's own."""
    stack = _state["stack"]
    if not stack or not lean_enabled() or not all(_state["ours"]) or len(_state["ours"]) != len(stack):
        return False
    return len(stack) >= 2 or _state["role"] == "helper"


def _kept(library) -> bool:
    return library.name.rsplit(".", 1)[-1] in _state["keep"]


class _DeferredEntry:
    """The entry point of a lean kernel whose machine code is not generated yet: the first
    call generates it (``materialize``) and calls the real entry point."""

    def __init__(self, context, library, fndesc, env):
        self.context, self.library, self.fndesc, self.env = context, library, fndesc, env
        self.dispatcher = None
        self.real = None

    def materialize(self):
        """Generate the machine code (after the module passes if the kernel is kept), make the
        real entry point the dispatcher's, and re-save the kernel to the cache as object code;
        returns the real entry point."""
        from numba.core.compiler_lock import global_compiler_lock

        with global_compiler_lock:
            if self.real is None:
                d = self.dispatcher
                for args, cres in list(d.overloads.items()) if d is not None else ():
                    if cres.entry_point is self:
                        new = _ready_in_cache(d, cres)   # (the other process made it)
                        _log("ready-in-cache" if new is not None else "materialize", d)
                        if new is None:
                            t0 = time.perf_counter()
                            new = cres._replace(entry_point=self._generate())
                            _save(d, new)
                            _log("materialized", d)
                            for listen in _materialize_listeners:
                                listen(d, args, time.perf_counter() - t0)
                        d._insert([a._code for a in args], new.entry_point, new.objectmode)
                        d.overloads[args] = new
                        self.real = new.entry_point
                if self.real is None:
                    self.real = self._generate()
        return self.real

    def _generate(self):
        real = _numba["get_executable"](self.context, self.library, self.fndesc, self.env)
        # callers compiled from now on look the kernel up by its entry point
        self.context.insert_user_function(real, self.fndesc, [self.library])
        return real

    def __call__(self, *args, **kws):
        return self.materialize()(*args, **kws)


_materialize_listeners: list[Callable[[Any, tuple, float], None]] = []   # (``record``)


def _ready_in_cache(d, cres):
    """The kernel's compile result from the cache if it is there with its machine code (the
    other process made it; one it is making now is waited for), else None. Not in the helper,
    which JIT-s only followers it has just loaded from the cache."""
    if _state["role"] == "helper":
        return None
    cache = getattr(d, "_cache", None)
    if _state["role"] == "main" and _claims_active():
        path = _claim_path(d, tuple(cres.signature.args), "jit")
        if _claimed_by_other(path):
            _log("wait", d)
            _wait_for(path)
    load = getattr(cache, "_lotr_load", getattr(cache, "load_overload", None))
    try:
        got = load(tuple(cres.signature.args), d.targetctx) if load is not None else None
    except Exception:  # noqa: BLE001 - then it is generated here
        return None
    if got is None or isinstance(got.entry_point, _DeferredEntry):
        return None
    d.targetctx.insert_user_function(got.entry_point, got.fndesc, [got.library])
    return got


def _save(d, cres) -> None:
    cache = getattr(d, "_cache", None)
    try:
        if cache is not None:
            cache.save_overload(tuple(cres.signature.args), cres)   # (keyed as numba keys it)
    except Exception:  # noqa: BLE001 - costs only a later run's time
        pass


_numba: dict[str, Callable] = {}    # numba's own methods, as they were before the patch
_replaced: list[tuple[type, str, Any]] = []   # (class, name, its own attribute or _ABSENT): ``uninstall``
_ABSENT = object()
_pending_envs: dict[str, Any] = {}  # environments of kernels whose module is not in the JIT


def _patch_lean() -> None:
    from llvmlite import binding as ll
    from numba.core import codegen, cpu, dispatcher

    lib, jit_lib = codegen.CPUCodeLibrary, getattr(codegen, "JITCodeLibrary", None)
    methods = {"optimize": (lib, "_optimize_final_module"),
               "finalize": (jit_lib, "_finalize_final_module"),
               "pointer": (jit_lib, "get_pointer_to_function"),
               "serialize": (lib, "serialize_using_object_code"),
               "unserialize": (lib, "_unserialize"),
               "set_env": (codegen.JITCPUCodegen, "set_env"),
               "get_executable": (cpu.CPUContext, "get_executable"),
               "add_overload": (dispatcher._DispatcherBase, "add_overload")}
    if _replaced or any(getattr(c, n, None) is None for c, n in methods.values()):
        return                     # patched already, or another numba: nothing is lean
    full = lib._optimize_final_module
    _numba.update({k: getattr(c, n) for k, (c, n) in methods.items()})
    unserialize = lib._unserialize.__func__

    def _optimize_final_module(self):
        if _lean_now():
            _state["lean"].add(_state["stack"][-1])
            self._lotr_lean = True
            return
        full(self)

    def _apply_pending_envs(cg) -> None:
        for name, env in list(_pending_envs.items()):
            if cg._engine.get_global_value_address(name):
                del _pending_envs[name]
                _numba["set_env"](cg, name, env)

    def _finalize_final_module(self):
        if getattr(self, "_lotr_lean", False):
            self._lotr_pending = self._finalized = True   # linked into callers, not JIT-ed
            return
        _numba["finalize"](self)
        if _pending_envs:
            _apply_pending_envs(self._codegen)

    def get_pointer_to_function(self, name):
        if getattr(self, "_lotr_pending", False):
            self._lotr_pending = self._lotr_lean = False
            if _kept(self):
                full(self)
                _state["kept_late"].add(self.name)
            _numba["finalize"](self)
            _apply_pending_envs(self._codegen)
        return _numba["pointer"](self, name)

    def serialize_using_object_code(self):
        if getattr(self, "_lotr_pending", False):
            return (self.name, "bitcode", self._final_module.as_bitcode())
        return _numba["serialize"](self)

    def _unserialize(cls, cg, state):
        name, kind, data = state
        if kind != "bitcode" or not jit.loading_lean():
            return unserialize(cls, cg, state)   # (anything but a lotr-sim kernel's lean entry)
        self = cg.create_library(name)       # a lean kernel: pending until Python calls it
        self.enable_object_caching()
        self._final_module = ll.parse_bitcode(data)
        self._lotr_lean = self._lotr_pending = self._finalized = True
        return self

    def set_env(self, env_name, env):
        if not self._engine.get_global_value_address(env_name):
            _pending_envs[env_name] = env    # set once a module defining it is in the JIT
            return
        _numba["set_env"](self, env_name, env)

    def get_executable(self, library, fndesc, env):
        library._ensure_finalized()          # (a lean library stays pending)
        if getattr(library, "_lotr_pending", False):
            return _DeferredEntry(self, library, fndesc, env)
        return _numba["get_executable"](self, library, fndesc, env)

    def add_overload(self, cres):
        ep = cres.entry_point
        if isinstance(ep, _DeferredEntry):
            ep.dispatcher = self             # not in the C table: a call from Python goes
            self.overloads[tuple(cres.signature.args)] = cres   # through compile() to ep
            return
        _numba["add_overload"](self, cres)

    jit.accept_lean(True)
    for (cls, name), new in zip(methods.values(), (
            _optimize_final_module, _finalize_final_module, get_pointer_to_function, serialize_using_object_code,
            classmethod(_unserialize), set_env, get_executable, add_overload)):
        _replaced.append((cls, name, cls.__dict__.get(name, _ABSENT)))
        setattr(cls, name, new)


def _unpatch_lean() -> None:
    """Give numba's classes their own methods back (kernels made lean meanwhile still get their
    machine code when Python calls them)."""
    while _replaced:
        cls, name, old = _replaced.pop()
        if old is _ABSENT:
            delattr(cls, name)
        else:
            setattr(cls, name, old)
    jit.accept_lean(False)


def install(keep: tuple[str, ...] = ()) -> None:
    """Register the compile-event listener that starts a helper for a cold entry point of the
    plan, and lean callees (idempotent; costs nothing once the kernels are cached, as no
    compile event fires). ``keep``: function names of kernels that Python calls in a loop,
    which always get numba's full module passes (a lean one when Python first calls it)."""
    _state["keep"].update(keep)
    if _state["installed"]:
        return
    _patch_lean()
    from numba.core import event

    class _Listener(event.Listener):
        def on_start(self, ev):
            _on_start(ev.data["dispatcher"])

        def on_end(self, ev):
            d, args = ev.data["dispatcher"], tuple(ev.data["args"])
            _on_end(d, args, failed=args not in d.overloads)   # (numba's ``is_failed`` is inverted)

    _state["listener"] = _Listener()
    event.register("numba:compile", _state["listener"])
    _state["installed"] = True


def uninstall() -> None:
    """Undo ``install``: numba's own methods and no compile-event listener again (for tests that
    switch the machinery on in a process that otherwise runs as the library)."""
    if not _state["installed"]:
        return
    from numba.core import event

    event.unregister("numba:compile", _state.pop("listener"))
    _unpatch_lean()
    _stop_helper()
    drop_claims()
    _state["installed"] = False


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
    """Compile ``entry``'s planned callees in ``helper_order`` (lean: the entry links them),
    giving up for now one that needs a kernel the other process is compiling; then those given
    up; then the kept kernels planned to follow the entry (``then``: the search player's
    steps and playouts, which Python calls), each compiled lean and then JIT-ed with the full
    module passes. Each is loaded from the cache instead when another process already compiled
    it; a callee the other process is compiling is skipped, a follower taken after the other
    followers (waiting for it then: the main process compiles it lean and leaves the JIT).
    Returns the names compiled or loaded. A callee that no longer exists or no longer compiles
    with the planned types is skipped: the plan is stale and only the time is lost."""
    import importlib

    plan = load_plan() if plan is None else plan
    done: list[str] = []
    if entry not in plan:
        return done
    callees, followers = helper_order(plan[entry]), list(plan[entry].get("then", []))
    for mod, _, _ in callees + followers:
        try:
            importlib.import_module(mod)
        except Exception:  # noqa: BLE001 - a stale plan entry: skipped below
            pass
    wrap_loaded_dispatchers()
    # the callees, giving way to the main process (``_Busy``), then the ones given up, waiting
    # for the main process where they meet it; then the followers the same way
    for group in (callees, followers):
        todo_now = [(sp, True) for sp in group]
        while todo_now:
            spec, first = todo_now.pop(0)
            if not alive():
                return done
            mod, name, reprs = spec
            try:
                disp = getattr(importlib.import_module(mod), name)
                types = parse_types(reprs)
                if _claims_active() and _claimed_by_other(_claim_path(disp, types)):
                    if group is callees:
                        _log("skip", disp)
                        continue             # the main process is compiling it
                    if first:                # a follower the main process is compiling (lean,
                        todo_now.append((spec, False))   # inside the entry): after the others,
                        continue                         # then waiting for it, to JIT it
                _state["yield"] = first
                ep = disp.compile(types)
                if isinstance(ep, _DeferredEntry) and group is followers and alive():
                    _claim(_claim_path(disp, types, "jit"))   # Python calls it: its code,
                    ep.materialize()                   # with the full module passes (not
                                                       # when a new entry point has come:
                                                       # its callees come first)
            except Exception as e:  # noqa: BLE001 - a stale plan entry: skip it
                if first and _busy_inside(e):
                    todo_now.append((spec, False))     # after the others
                continue
            finally:
                _state["yield"] = False
                drop_claims()
            done.append(f"{mod}.{name}")
    return done


def _busy_inside(e: BaseException | None) -> bool:
    """Whether ``e`` is, or was caused by, ``_Busy`` (numba's type inference wraps the
    exceptions of a nested compile in a TypingError)."""
    seen = 0
    while e is not None and seen < 50:
        if isinstance(e, _Busy):
            return True
        e, seen = e.__cause__ or e.__context__, seen + 1
    return False


def record(fn: Callable[[], Any], prefix: str = "lotr_sim.") -> dict[str, dict]:
    """Run ``fn`` (from a cold cache) and return what it compiled as plan entries: for every
    top-level compile of a ``prefix`` kernel, its seconds, its direct callees' seconds
    (``callee_seconds``, with theirs), and its ``prefix`` callees at every
    depth in the order their compiles finished (``order``: module, name, argument types;
    ``order_seconds``: each one's seconds with its own callees); and every lean kernel that got
    its machine code when Python called it (``materialized``, with those seconds)."""
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
                entries[f["name"]] = dict(args=f["args"], seconds=round(secs, 2), callee_seconds=round(f["direct"], 2),
                                          order=[spec for spec, _ in f["nodes"]],
                                          order_seconds=[round(t, 2) for _, t in f["nodes"]])

    def materialized(d, args, secs):
        name = _qualname(d)
        if name.startswith(prefix) and name not in entries:
            entries[name] = dict(args=[repr(a) for a in args], seconds=round(secs, 2), callee_seconds=0.0,
                                 order=[], order_seconds=[], materialized=True)

    rec = _Rec()
    event.register("numba:compile", rec)
    _materialize_listeners.append(materialized)
    try:
        fn()
    finally:
        event.unregister("numba:compile", rec)
        _materialize_listeners.remove(materialized)
    return entries


def _main(argv: list[str]) -> int:
    """The helper process: compile ``argv[0]``'s callees, then those of each entry point the
    main process hands over on standard input (one per line), until the main process stops
    it, closes the pipe or exits (``argv[1]``: its process id)."""
    import queue
    import threading

    entry = argv[0]
    parent = int(argv[1]) if len(argv) > 1 else None
    alive = (lambda: os.getppid() == parent) if parent else (lambda: True)
    _state["role"] = "helper"
    install(tuple(n for n in os.environ.get(KEEP_ENV, "").split(",") if n))
    nxt: queue.Queue = queue.Queue()

    def read() -> None:
        for line in sys.stdin:
            if line.strip():
                nxt.put(line.strip())
        nxt.put(None)                        # the pipe closed
    threading.Thread(target=read, daemon=True).start()
    _state["interrupt"] = lambda: not nxt.empty()
    while entry is not None and alive():
        _log(f"entry {entry}")
        compile_callees(entry, alive=lambda: alive() and nxt.empty())
        entry = ""
        while entry == "" and alive():
            try:
                entry = nxt.get(timeout=1.0)
            except queue.Empty:
                pass
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
