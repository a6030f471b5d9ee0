"""The numba cache key follows every module whose values the kernels read (editing a game's
constants module must not serve a stale engine), the cache folder is given to lotr-sim's
kernels only, and the dispatcher patch still applies."""
from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

import lotr_sim
from lotr_sim._numba import cache as nc

PKG = Path(lotr_sim.__file__).resolve().parent


@pytest.fixture()
def pkg_copy(tmp_path):
    dst = tmp_path / "lotr_sim"
    shutil.copytree(PKG, dst, ignore=shutil.ignore_patterns("__pycache__"))
    return dst


def _edit(path: Path, old: str, new: str) -> None:
    src = path.read_text()
    assert old in src, f"{old!r} not in {path}"
    path.write_text(src.replace(old, new, 1))


def test_constants_module_of_the_engine_is_in_the_key(pkg_copy):
    mods = {p.relative_to(pkg_copy).as_posix() for p in nc.kernel_modules(pkg_copy)}
    # the engine is split by role (no facade: each module is imported by its own name)
    for m in ("layout", "events", "board", "movement", "combat", "policies", "cards", "actions", "play"):
        assert f"games/minas_tirith/{m}.py" in mods, m
    assert "games/minas_tirith/config.py" in mods        # constants baked into the engine
    assert "kernels/rng.py" in mods and "kernels/combat.py" in mods
    assert not any(m.startswith(("cli/", "reports/")) for m in mods)


@pytest.mark.slow
def test_editing_a_baked_constant_changes_the_key(pkg_copy, tmp_path):
    before = nc.source_hash(pkg_copy)
    cfg = pkg_copy / "games" / "minas_tirith" / "config.py"
    m = re.search(r"^(MAXT\s*=\s*)(\d+)", cfg.read_text(), re.M)
    assert m, "MAXT constant not found"
    _edit(cfg, m.group(0), f"{m.group(1)}{int(m.group(2)) + 1}")
    after = nc.source_hash(pkg_copy)
    assert after != before
    # the start-up memo notices the edit too
    memo = tmp_path / "memo"
    _edit(cfg, f"{m.group(1)}{int(m.group(2)) + 1}", m.group(0))
    assert nc._memo_source_hash(memo, pkg_copy) == before
    _edit(cfg, m.group(0), f"{m.group(1)}{int(m.group(2)) + 2}")
    assert nc._memo_source_hash(memo, pkg_copy) != before


def test_editing_the_cli_keeps_the_key(pkg_copy):
    before = nc.source_hash(pkg_copy)
    (pkg_copy / "cli" / "main.py").write_text((pkg_copy / "cli" / "main.py").read_text() + "\n# edit\n")
    (pkg_copy / "reports" / "build.py").write_text((pkg_copy / "reports" / "build.py").read_text() + "\n")
    assert nc.source_hash(pkg_copy) == before


def test_no_literal_dispatch_still_applies():
    """lotr_sim/_numba/dispatch replaces a method of lotr-sim's dispatchers: if a numba release
    renames it, fail loudly here (on every numba CI runs) rather than silently compiling one
    copy per constant again."""
    import numpy as np
    from numba import njit
    from numba.core.dispatcher import Dispatcher

    from lotr_sim._numba.dispatch import no_literal_dispatch

    assert hasattr(Dispatcher, "get_call_template")

    @njit
    def callee(k, x):
        return x + k

    @njit
    def caller(x):
        return callee(1, x) + callee(2, x) + callee(3, x)

    ns = {"callee": callee}
    no_literal_dispatch(ns)
    assert getattr(callee, "_lotr_unliteral", False)
    assert caller(np.int64(1)) == 9
    assert len(callee.signatures) == 1, callee.signatures   # one copy, not one per literal


def test_numba_opt_level_gets_its_own_cache_directory(monkeypatch, tmp_path):
    """numba's cache index does not key on NUMBA_OPT: a kernel compiled at -O0 must not be
    served to a run at the default level."""
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))

    def root(opt: str | None) -> Path:
        monkeypatch.setattr(nc, "_CHECKED", [])
        if opt is None:
            monkeypatch.delenv("NUMBA_OPT", raising=False)
        else:
            monkeypatch.setenv("NUMBA_OPT", opt)
        return Path(nc.cache_root())

    default = root(None)
    assert default.parent == tmp_path / "lotr-sim" / "numba"
    assert root("3") == default
    opt0 = root("0")
    assert opt0 != default and opt0.name == default.name + "-opt0" and opt0.parent == default.parent
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "mine"))     # set by the user: used as given
    assert nc.cache_root() == str(tmp_path / "mine")


def test_the_cache_folder_is_given_to_our_kernels_only(monkeypatch, tmp_path):
    """A lotr-sim kernel caches under ``cache_root``; the process's environment and numba's
    configuration are left alone, so another numba function caches where numba puts it."""
    import numba

    from lotr_sim._numba.jit import njit
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(nc, "_CHECKED", [])
    before = dict(os.environ)
    mod = tmp_path / "probe_cache_mod.py"
    mod.write_text("def f(x):\n    return x + 1\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import probe_cache_mod

    ours = njit(cache=True)(probe_cache_mod.f)
    theirs = numba.njit(cache=True)(probe_cache_mod.f)
    assert Path(ours._cache.cache_path).is_relative_to(Path(nc.cache_root()))
    assert Path(nc.cache_root()).is_relative_to(tmp_path / "lotr-sim")
    assert not Path(theirs._cache.cache_path).is_relative_to(tmp_path / "lotr-sim")
    assert dict(os.environ) == before
