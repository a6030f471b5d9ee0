"""``njit`` for lotr-sim's kernels: numba's, with an on-disk cache that other processes cannot corrupt.

numba's cache (``numba.core.caching``) keeps, per function, an index file mapping each compiled
signature to a numbered data file. Saving a signature reads the index, takes the first number
it does not list, writes the index and then the data, with no lock. Two processes saving
different signatures of one function at the same moment can both take the same number: the
index then names a data file holding the *other* signature's machine code, which every later
process loads and calls with the wrong argument types (a segmentation fault on a warm run;
numba issues #4807 and #10128 report the same family of races). A process killed between the
index and the data write leaves an index naming a file that holds an older entry.

Every kernel of the package is defined with this module's ``njit``, which is numba's ``njit``
with the dispatcher's cache in lotr-sim's own folder (``lotr_sim._numba.cache.function_cache``)
and ``guard`` on it. ``guard`` keeps numba's own file format and code paths and changes only that
dispatcher's cache object (instance attributes; numba's classes and every other dispatcher in
the process are untouched):

* a save holds an exclusive lock on a file beside the index (``fcntl.flock``; where there is no
  ``fcntl``, as on Windows, saves are not locked) while it reads the index, writes the data and
  then the index that names it, so two writers never share a data file and an interrupted save
  leaves at most a data file no index names;
* the index's stamp (numba's: the kernel's own file's modification time and size) also holds
  the hash of every package module the kernels read (``lotr_sim._numba.cache.package_key``):
  numba does not notice an edit of a callee's or a constants module, and served a stale kernel
  from any cache folder the package does not key itself, such as a ``NUMBA_CACHE_DIR`` the user
  set (The Search's ``simulate_nb`` after a layout edit: wrong offsets, an endless loop);
* a loaded entry is checked before it is used: it must unpickle and describe this function
  (module and qualified name) with the requested argument types. Anything else (a file from a
  race of an older version, a torn or foreign file) counts as a miss: numba compiles the kernel
  again and the save replaces the entry. ``LOTR_SIM_CACHE_LOG=FILE`` appends one line per
  rejected entry;
* an entry a ``lotr-sim`` program saved lean (``lotr_sim._numba.warmup``: LLVM bitcode without
  the module passes) is used only where the lean machinery is on; elsewhere it counts as a miss,
  so a library user's kernels get numba's full optimisation. Where it is on, the entry is
  rebuilt under ``loading_lean``, the one place its patched loader acts.
"""
from __future__ import annotations

import contextlib
import itertools
import os
import time
from collections.abc import Callable, Iterator
from typing import Any

import numba
from numba.core import sigutils

from lotr_sim._numba.cache import function_cache, package_key

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: saves are not locked
    fcntl = None  # type: ignore[assignment]

LOG_ENV = "LOTR_SIM_CACHE_LOG"

#: Whether lean cache entries may be loaded in this process (``warmup`` sets it when it applies
#: its patches) and whether one is being rebuilt now (read by warmup's patched loader).
_lean = {"accepted": False, "loading": 0}


def accept_lean(on: bool = True) -> None:
    """Let this process's guarded caches load lean entries (``warmup.install``)."""
    _lean["accepted"] = on


def loading_lean() -> bool:
    """Whether a guarded cache is rebuilding a lean entry of one of lotr-sim's kernels now."""
    return _lean["loading"] > 0


def njit(*args: Any, **kws: Any):
    """numba's ``njit`` (same arguments); with ``cache=True`` the dispatcher caches in lotr-sim's
    folder, with ``guard`` on its cache."""
    if args and callable(args[0]) and len(args) == 1 and not kws:
        return numba.njit(args[0])
    cache = kws.pop("cache", False)
    decorate = numba.njit(*args, **kws)

    def wrap(fn: Callable) -> Any:
        disp = decorate(fn)
        if cache:
            _cache_in_our_folder(disp)
            guard(disp)
        return disp
    return wrap


def _cache_in_our_folder(disp: Any) -> None:
    """Give ``disp`` an on-disk cache as numba's ``enable_caching`` does, in lotr-sim's folder."""
    if not hasattr(disp, "_cache"):
        disp.enable_caching()            # a numba whose dispatchers this does not know
        return
    disp._cache = function_cache(disp.py_func)


def _log(what: str, disp: Any) -> None:
    path = os.environ.get(LOG_ENV)
    if path:
        fn = disp.py_func
        with contextlib.suppress(OSError), open(path, "a") as f:
            f.write(f"{time.time():.3f} {os.getpid()} {what} {fn.__module__}.{fn.__qualname__}\n")


@contextlib.contextmanager
def _locked(path: str) -> Iterator[None]:
    """An exclusive lock on ``path`` (created if missing) for the duration; no lock when the
    platform has no ``fcntl`` or the file cannot be opened (a read-only cache saves nothing)."""
    if fcntl is None:
        yield
        return
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError:
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)                          # (closing releases the lock)


def _describes(payload: Any, disp: Any, sig: Any) -> bool:
    """Whether a cache payload (``CompileResult._reduce``'s tuple: library, fndesc, environment,
    signature, ...) is this dispatcher's function compiled for ``sig``'s argument types."""
    try:
        fndesc, signature = payload[1], payload[3]
        args, _ = sigutils.normalize_signature(sig)
        fn = disp.py_func
        return (fndesc.qualname == fn.__qualname__ and fndesc.modname == fn.__module__
                and tuple(signature.args) == tuple(args))
    except Exception:  # noqa: BLE001 - a payload of another shape is not ours to trust
        return False


def _is_lean(payload: Any) -> bool:
    """Whether a cache payload holds a lean kernel (its library as LLVM bitcode, not object code)."""
    try:
        return payload[0][1] == "bitcode"
    except (TypeError, IndexError, KeyError):
        return False


def guard(disp: Any) -> Any:
    """Lock ``disp``'s cache saves and check its loads (see the module docstring); returns
    ``disp``. A no-op for a dispatcher without an on-disk cache, and idempotent."""
    cache = getattr(disp, "_cache", None)
    cf = getattr(cache, "_cache_file", None)
    if cf is None or getattr(cache, "_lotr_guarded", False):
        return disp
    if not all(hasattr(cf, a) for a in ("_load_index", "_save_index", "_save_data", "_data_name",
                                        "_index_path", "load")) or not hasattr(cache, "_index_key"):
        return disp                           # a numba whose cache this does not know: as it is

    def load_index() -> dict:
        try:
            return cf._load_index()
        except Exception:  # noqa: BLE001 - a torn or foreign index: rewritten by the save
            return {}

    def save(key: Any, data: Any) -> None:
        with _locked(cf._index_path + ".lock"):
            overloads = load_index()
            name = overloads.get(key)
            if name is None:
                used = set(overloads.values())
                name = next(n for n in map(cf._data_name, itertools.count(1)) if n not in used)
            cf._save_data(name, data)         # the data first: no index names a file not written
            if overloads.get(key) != name:
                overloads[key] = name
                cf._save_index(overloads)

    def load_overload(sig: Any, target_context: Any) -> Any:
        if not cache._enabled:
            return None
        key = cache._index_key(sig, target_context.codegen())
        try:
            payload = cf.load(key)
        except Exception:  # noqa: BLE001 - unreadable: compiled again
            _log("unreadable", disp)
            return None
        if payload is None:
            return None
        if not _describes(payload, disp, sig):
            _log("foreign", disp)
            return None
        if not _is_lean(payload):
            return cache._impl.rebuild(target_context, payload)
        if not _lean["accepted"]:
            _log("lean", disp)
            return None
        _lean["loading"] += 1
        try:
            return cache._impl.rebuild(target_context, payload)
        finally:
            _lean["loading"] -= 1

    cf._source_stamp = (cf._source_stamp, package_key())
    cf.save = save
    cache._load_overload = load_overload
    cache._lotr_guarded = True
    return disp


def guarded(disp: Any) -> bool:
    """Whether ``disp``'s cache is guarded (or it has none to guard)."""
    cache = getattr(disp, "_cache", None)
    return getattr(cache, "_cache_file", None) is None or bool(getattr(cache, "_lotr_guarded", False))
