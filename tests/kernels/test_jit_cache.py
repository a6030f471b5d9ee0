"""The kernels' on-disk cache (``lotr_sim._numba.jit``): an entry another process left wrong is
never run, and concurrent saves of different signatures of one kernel keep both."""
from __future__ import annotations

import importlib
import pickle
import sys
import threading
from pathlib import Path

import numba
import pytest
from numba.core import types
from numba.core.caching import FunctionCache

from lotr_sim._numba import jit

SOURCE = '''
from numba import njit as plain_njit
from lotr_sim._numba.jit import njit

@plain_njit(cache=True)
def plain(x):
    return x + 1

@njit(cache=True)
def safe(x):
    return x + 1
'''


@pytest.fixture
def kmod(tmp_path, monkeypatch):
    """A fresh module (its own cache files) with one plain and one guarded cached kernel."""
    name = f"kmod_{tmp_path.name.replace('-', '_')}"
    (tmp_path / f"{name}.py").write_text(SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    mod = importlib.import_module(name)
    yield mod
    sys.modules.pop(name, None)


def _swap_index(disp) -> None:
    """Make the index name each signature's data file for the other one (what the race leaves)."""
    cf = disp._cache._cache_file
    with open(cf._index_path, "rb") as f:
        version = pickle.load(f)
        stamp, overloads = pickle.loads(f.read())
    assert len(overloads) == 2
    (k1, n1), (k2, n2) = overloads.items()
    cf._save_index({k1: n2, k2: n1})
    assert version == numba.__version__ and stamp == cf._source_stamp


def _fresh(disp):
    """A new dispatcher of the same function: it knows only what the disk cache holds."""
    if getattr(disp._cache, "_lotr_guarded", False):
        return jit.njit(cache=True)(disp.py_func)          # (lotr-sim's folder, guarded)
    return numba.njit(cache=True)(disp.py_func)


def test_an_entry_holding_another_signature_is_compiled_again(kmod):
    for f in (kmod.plain, kmod.safe):
        assert f(1) == 2 and f(1.5) == 2.5          # two signatures, two data files
        _swap_index(f)
    plain = _fresh(kmod.plain)
    got = plain(1)
    if not isinstance(got, float):
        pytest.skip("this numba does not load the swapped entry: nothing to guard against")
    safe = _fresh(kmod.safe)
    assert safe(1) == 2 and isinstance(safe(1), int)
    assert safe(1.5) == 2.5
    assert [tuple(a) for a in safe.overloads] == [(types.int64,), (types.float64,)]
    # the entries were compiled again and saved over the wrong ones: a third process is right
    third = _fresh(kmod.safe)
    assert third(1) == 2 and isinstance(third(1), int)
    assert third.stats.cache_hits and not third.stats.cache_misses


def test_an_unreadable_entry_is_compiled_again(kmod):
    assert kmod.safe(3) == 4
    cf = kmod.safe._cache._cache_file
    for p in Path(cf._cache_path).glob(Path(cf._index_path).stem + ".*.nbc"):
        p.write_bytes(p.read_bytes()[:40])          # a torn data file
    again = _fresh(kmod.safe)
    assert again(3) == 4
    assert again.stats.cache_misses


def _save_concurrently(disp, guarded: bool) -> None:
    """Two writers (two cache objects, as two processes have) save int64 and float64 at the
    same moment: each reads the index before the other has written it, unless a lock
    serialises them."""
    compiled = numba.njit(disp.py_func)
    cres = {}
    for t in (types.int64, types.float64):
        compiled.compile((t,))
        cres[t] = compiled.overloads[(t,)]
    barrier = threading.Barrier(2, timeout=1.0)
    errors = []

    def writer(t):
        cache = _cache_object(disp, guarded)
        cf = cache._cache_file
        load_index = cf._load_index

        def synced_load_index():
            got = load_index()
            try:
                barrier.wait()            # both have read the index (or one waits on the lock)
            except threading.BrokenBarrierError:
                pass
            return got
        cf._load_index = synced_load_index
        try:
            cache.save_overload((t,), cres[t])
        except Exception as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=writer, args=(t,)) for t in cres]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors


def _cache_object(disp, guarded: bool) -> FunctionCache:
    """A new cache object of ``disp``'s function, as another process has it."""
    cache = FunctionCache(disp.py_func)
    if guarded:
        holder = numba.njit(disp.py_func)
        holder._cache = cache
        jit.guard(holder)
    return cache


def _entries_ok(disp, guarded: bool) -> bool:
    cache = _cache_object(disp, guarded)
    ok = True
    for t in (types.int64, types.float64):
        payload = cache._cache_file.load(cache._index_key((t,), disp.targetctx.codegen()))
        ok &= payload is not None and tuple(payload[3].args) == (t,)
    return ok


def test_concurrent_saves_of_two_signatures_keep_both(kmod):
    _save_concurrently(kmod.plain, guarded=False)
    if _entries_ok(kmod.plain, guarded=False):
        pytest.skip("this numba's saves did not race: nothing to guard against")
    _save_concurrently(kmod.safe, guarded=True)
    assert _entries_ok(kmod.safe, guarded=True)


def test_every_kernel_of_the_package_is_guarded():
    from numba.core.dispatcher import Dispatcher

    from lotr_sim._numba.cache import kernel_modules

    root = Path(jit.__file__).resolve().parents[1]
    seen = 0
    for path in kernel_modules(root):
        name = "lotr_sim." + ".".join(path.relative_to(root).with_suffix("").parts)
        mod = importlib.import_module(name.removesuffix(".__init__"))
        for obj in vars(mod).values():
            if isinstance(obj, Dispatcher) and obj.py_func.__module__ == mod.__name__:
                seen += 1
                assert jit.guarded(obj), f"{mod.__name__}.{obj.py_func.__name__} is not guarded"
    assert seen > 100


def test_an_edit_of_the_package_misses_every_kernel_entry(kmod, monkeypatch):
    """The stamp holds the package's kernel source hash: entries written by another version of
    the package are never loaded, whatever folder numba caches in."""
    from lotr_sim._numba import cache as _numba_cache

    assert kmod.safe(2) == 3                      # saved under this package's key
    same = _fresh(kmod.safe)
    assert same(2) == 3 and same.stats.cache_hits and not same.stats.cache_misses
    monkeypatch.setattr(_numba_cache, "_KEY", ["another-version"])
    other = _fresh(kmod.safe)
    assert other(2) == 3 and other.stats.cache_misses and not other.stats.cache_hits


def _bombard(src: Path, cache: Path) -> str:
    import os
    import subprocess

    env = {**os.environ, "PYTHONPATH": str(src), "NUMBA_CACHE_DIR": str(cache),
           "LOTR_SIM_COMPILE_HELPER": "0"}
    p = subprocess.run([sys.executable, "-m", "lotr_sim.cli.main", "bombard", "--shooters", "3",
                        "--games", "2000", "--seed", "1", "--json"],
                       env=env, capture_output=True, text=True, timeout=600, cwd=src)
    assert p.returncode == 0, p.stderr
    return p.stdout


@pytest.mark.slow
def test_an_edited_callee_module_is_not_served_stale_from_a_chosen_cache_dir(tmp_path):
    """With NUMBA_CACHE_DIR set by the user, numba alone keys a cached kernel on its own file:
    after an edit of ``kernels/rng.py`` the bombardment kernel (``kernels/combat.py``) would be
    served as compiled against the old random streams."""
    import shutil

    import lotr_sim

    src = tmp_path / "src"
    shutil.copytree(Path(lotr_sim.__file__).resolve().parent, src / "lotr_sim",
                    ignore=shutil.ignore_patterns("__pycache__"))
    cache = tmp_path / "cache"
    before = _bombard(src, cache)
    rng = src / "lotr_sim" / "kernels" / "rng.py"
    text = rng.read_text()
    assert "GOLDEN = np.uint64(0x9E3779B97F4A7C15)" in text
    rng.write_text(text.replace("GOLDEN = np.uint64(0x9E3779B97F4A7C15)",
                                "GOLDEN = np.uint64(0x9E3779B97F4A7C17)"))
    after = _bombard(src, cache)
    clean = _bombard(src, tmp_path / "clean-cache")
    assert after == clean
    assert after != before
