"""Where lotr-sim's kernels keep their compiled code (numba's ``cache=True``).

Two measured pitfalls (shared/notes/numba-measurements.md) decide this:

* numba invalidates a cached kernel when the kernel's own file changes, but not when an
  ``@njit`` helper it calls from *another* module changes: a stale result is served;
* a read-only package directory with no writable home makes ``cache=True`` fail with
  "no locator available".

So, unless the user set ``NUMBA_CACHE_DIR`` themselves, lotr-sim's kernels cache in a user
cache directory whose name contains a hash of every module of the package that defines jitted
code *and every package module those import*, transitively (``kernel_modules``): numba bakes
module-level constants (a game's layout offsets, sizes, codes) into the compiled code, so an
edit to such a constants module must give a fresh cache too. Edits to the CLI, reports or
experiment layer do not throw the compiled kernels away, and the directory is writable.

The folder is given to lotr-sim's own dispatchers only, through their cache object
(``function_cache``, which ``lotr_sim._numba.jit.njit`` puts on each one): nothing is set in the
process's environment or in numba's configuration, and other numba functions of the process
cache where numba puts them.
"""
from __future__ import annotations

import ast
import hashlib
import json
import os
import re
import tempfile
from pathlib import Path

_PKG = Path(__file__).resolve().parent.parent      # the lotr_sim package


def _module_file(root: Path, dotted: str) -> Path | None:
    """The file of ``lotr_sim.a.b`` under ``root`` (a package's ``__init__`` or a module)."""
    parts = dotted.split(".")
    if not parts or parts[0] != "lotr_sim":
        return None
    base = root.joinpath(*parts[1:])
    for cand in (base.with_suffix(".py"), base / "__init__.py"):
        if cand.is_file():
            return cand
    return None


def _imports(root: Path, path: Path, src: str) -> set[Path]:
    """The package modules that ``path`` imports (anywhere in the file, absolute or relative)."""
    rel = path.relative_to(root).with_suffix("").parts
    pkg = ["lotr_sim", *rel[:-1]]
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return set()
    mods: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            mods += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = pkg[: len(pkg) - (node.level - 1)]
                base = ".".join([*up, base]) if base else ".".join(up)
            mods.append(base)
            mods += [f"{base}.{a.name}" for a in node.names if a.name != "*"]
    return {f for f in (_module_file(root, m) for m in mods) if f is not None}


def kernel_modules(root: Path = _PKG) -> list[Path]:
    """The modules whose source can change what a jitted kernel computes: every module that
    defines jitted code, and every package module those import, transitively (a module of
    constants such as a game's layout is baked into the kernels at compile time)."""
    root = Path(root)
    srcs = {p: p.read_text(encoding="utf-8", errors="replace") for p in sorted(root.rglob("*.py"))}
    todo = [p for p, s in srcs.items() if re.search(r"^\s*@(?:numba\.)?njit", s, re.M)]
    seen: set[Path] = set()
    while todo:
        p = todo.pop()
        if p in seen or p not in srcs:
            continue
        seen.add(p)
        todo.extend(_imports(root, p, srcs[p]) - seen)
    return sorted(seen)


def source_hash(root: Path = _PKG) -> str:
    """A short hash of the names and contents of ``kernel_modules(root)``."""
    root = Path(root)
    h = hashlib.sha256()
    for p in kernel_modules(root):
        h.update(str(p.relative_to(root)).encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def _fingerprint(root: Path) -> str:
    """Names, sizes and modification times of every module: cheap to take at start-up."""
    h = hashlib.sha256(str(root).encode())
    for p in sorted(root.rglob("*.py")):
        st = p.stat()
        h.update(f"{p.relative_to(root)}:{st.st_size}:{st.st_mtime_ns};".encode())
    return h.hexdigest()


def _memo_source_hash(memo_dir: Path, root: Path = _PKG) -> str:
    """``source_hash`` remembered against the package's file fingerprint, so that a start-up
    with unchanged files (every ``lotr-sim`` command) does not parse the sources again."""
    memo = memo_dir / "source-hash.json"
    fp = _fingerprint(root)
    try:
        d = json.loads(memo.read_text())
        if d.get("fingerprint") == fp and isinstance(d.get("hash"), str):
            return d["hash"]
    except (OSError, ValueError):
        pass
    key = source_hash(root)
    try:
        memo_dir.mkdir(parents=True, exist_ok=True)
        tmp = memo.with_name(f".{memo.name}.{os.getpid()}")
        tmp.write_text(json.dumps({"fingerprint": fp, "hash": key}))
        os.replace(tmp, memo)
    except OSError:
        pass
    return key


def _writable(d: Path) -> bool:
    try:
        d.mkdir(parents=True, exist_ok=True)
        probe = d / ".write-probe"
        probe.write_text("ok")
        probe.unlink()
        return True
    except OSError:
        return False


def opt_suffix() -> str:
    """numba's cache index keys a kernel on its signature, the CPU and its source file, not
    on ``NUMBA_OPT``: a kernel compiled at another optimisation level would be served to
    every later run (Minas Tirith at ``NUMBA_OPT=1``: plays 11% slower for no measurable
    compile saving; README "First run: where the time goes"). A level other than numba's
    default (3) gets its own directory: ``-opt0`` .. ``-opt2``, ``-optmax``."""
    opt = os.environ.get("NUMBA_OPT", "").strip().lower()
    return "" if opt in ("", "3") else f"-opt{re.sub(r'[^0-9a-z]', '', opt)}"


_KEY: list[str] = []
_CHECKED: list[str] = []     # the folder cache_root chose and found writable ("": none)


def _user_cache_root() -> Path:
    """``$XDG_CACHE_HOME/lotr-sim/numba`` (``~/.cache/lotr-sim/numba`` by default)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "lotr-sim" / "numba"


def checked_cache_dir() -> str | None:
    """The cache folder this process's ``cache_root`` chose and found writable, or None when
    the user's ``NUMBA_CACHE_DIR`` (or numba's own locators) is used."""
    return _CHECKED[0] or None if _CHECKED else None


def package_key() -> str:
    """``source_hash`` of this installed package, once per process (remembered on disk against
    the files' fingerprint where a user cache folder is writable). ``lotr_sim._numba.jit`` puts
    it into every kernel's cache stamp, so an edit of any module the kernels read invalidates
    them whatever folder numba caches in, a ``NUMBA_CACHE_DIR`` the user chose included."""
    if not _KEY:
        memo = _user_cache_root()
        _KEY.append(_memo_source_hash(memo) if _writable(memo) else source_hash())
    return _KEY[0]


def _fallback_dir() -> Path:
    """A per-user folder under the system's temporary directory (where ``os.getuid`` exists;
    the user name elsewhere, as on Windows)."""
    if hasattr(os, "getuid"):
        who = str(os.getuid())
    else:
        who = re.sub(r"[^0-9A-Za-z_.-]", "_", os.environ.get("USERNAME") or os.environ.get("USER") or "user")
    return Path(tempfile.gettempdir()) / f"lotr-sim-{who}" / "numba"


def _numba_version() -> str:
    """The installed numba's version: each release gets its own folder (numba's index files
    hold one release's entries, and two releases would overwrite each other's)."""
    from importlib.metadata import PackageNotFoundError, version
    try:
        return version("numba")
    except PackageNotFoundError:
        return "unknown"


def cache_root() -> str | None:
    """The folder lotr-sim's kernels cache in, chosen once per process: the user's
    ``NUMBA_CACHE_DIR`` when set (used as given), else a writable, source-keyed directory
    (one per numba release and ``NUMBA_OPT`` level: ``opt_suffix``) under the user cache folder or, failing that,
    the temporary folder; None when none is writable (numba's own locators are then used)."""
    user = os.environ.get("NUMBA_CACHE_DIR")
    if user:
        return user
    if _CHECKED:
        return _CHECKED[0] or None
    key = None
    for c in (_user_cache_root(), _fallback_dir()):
        key = key or _memo_source_hash(c)
        if not _KEY:
            _KEY.append(key)
        d = c / f"{key}-numba{_numba_version()}{opt_suffix()}"
        if _writable(d):
            _CHECKED.append(str(d))
            return str(d)
    _CHECKED.append("")
    return None


_CLASSES: dict[str, type] = {}


def function_cache(py_func):
    """A numba function cache for ``py_func`` (a lotr-sim kernel) that keeps its files under
    ``cache_root()``; numba's own locators when that is None, as for any numba function."""
    if not _CLASSES:
        _CLASSES.update(_make_classes())
    return _CLASSES["cache"](py_func)


def _make_classes() -> dict[str, type]:
    """numba's ``FunctionCache`` with one more locator, first: lotr-sim's folder."""
    from numba.core import caching

    class LotrSimLocator(caching._CacheLocator):
        """A kernel's cache files under ``cache_root()``, in numba's own layout (a folder per
        source folder; the source file's modification time and size as its stamp)."""

        def __init__(self, py_func, py_file, root):
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno
            self._cache_path = os.path.join(root, self.get_suitable_cache_subpath(py_file))

        def get_cache_path(self):
            return self._cache_path

        def get_source_stamp(self):
            st = os.stat(self._py_file)
            return st.st_mtime, st.st_size

        def get_disambiguator(self):
            return str(self._lineno)

        @classmethod
        def from_function(cls, py_func, py_file):
            root = cache_root()
            if root is None or not os.path.exists(py_file):
                return None
            self = cls(py_func, py_file, root)
            try:
                self.ensure_cache_path()
            except OSError:
                return None
            return self

    class LotrSimCacheImpl(caching.CompileResultCacheImpl):
        _locator_classes = [LotrSimLocator, *caching.CompileResultCacheImpl._locator_classes]

    class LotrSimFunctionCache(caching.FunctionCache):
        _impl_class = LotrSimCacheImpl

    return {"cache": LotrSimFunctionCache, "locator": LotrSimLocator}
