"""Where numba's ``cache=True`` writes its compiled kernels.

Two measured pitfalls (shared/notes/numba-measurements.md) decide this:

* numba invalidates a cached kernel when the kernel's own file changes, but not when an
  ``@njit`` helper it calls from *another* module changes: a stale result is served;
* a read-only package directory with no writable home makes ``cache=True`` fail with
  "no locator available".

So, unless the user set ``NUMBA_CACHE_DIR`` themselves, we point it at a user cache
directory whose name contains a hash of every ``.py`` file of the package that uses numba.
Any edit to any kernel or helper gives a fresh directory (edits to the CLI, reports or
experiment layer do not throw the compiled kernels away), and the directory is writable.
This must run before numba is imported, which is why ``lotr_sim/__init__`` calls it.
"""
from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

_PKG = Path(__file__).resolve().parent


def source_hash() -> str:
    """A short hash of the package's numba sources (names and contents)."""
    h = hashlib.sha256()
    for p in sorted(_PKG.rglob("*.py")):
        src = p.read_bytes()
        if b"njit" in src:  # the modules that define jitted code
            h.update(str(p.relative_to(_PKG)).encode())
            h.update(src)
    return h.hexdigest()[:16]


def _writable(d: Path) -> bool:
    try:
        d.mkdir(parents=True, exist_ok=True)
        probe = d / ".write-probe"
        probe.write_text("ok")
        probe.unlink()
        return True
    except OSError:
        return False


def configure_numba_cache() -> str | None:
    """Set NUMBA_CACHE_DIR (when unset) to a writable, source-keyed directory."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return os.environ["NUMBA_CACHE_DIR"]
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    candidates = [Path(base) / "lotr-sim" / "numba",
                  Path(tempfile.gettempdir()) / f"lotr-sim-{os.getuid()}" / "numba"]
    key = source_hash()
    for c in candidates:
        d = c / key
        if _writable(d):
            os.environ["NUMBA_CACHE_DIR"] = str(d)
            return str(d)
    return None  # numba falls back to its own locators
