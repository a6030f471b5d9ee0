"""Result store: a folder with ``manifest.json``, ``chunks/*.parquet`` (one file per finished
chunk of games, written atomically: temp file + ``os.replace``), ``results.parquet`` (one
row per point) and optionally ``games.parquet`` (one row per game).

A chunk file is named ``p<point>_<first>_<n>.parquet`` and holds the per-game columns of
games ``first .. first+n-1`` of that point; a killed run leaves only whole chunk files
(plus stray ``.tmp-*`` files, removed on resume), so ``--resume`` re-runs exactly the
missing chunks and nothing is lost or counted twice.
"""
from __future__ import annotations

import contextlib
import json
import os
import platform
import socket
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from lotr_sim.errors import LotrSimError

FORMAT = 1


def now_iso() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def machine_info() -> dict:
    return dict(hostname=socket.gethostname(), platform=platform.platform(),
                python=platform.python_version(), cpus=os.cpu_count(),
                processor=platform.processor() or platform.machine())


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def file_mode() -> int:
    """The mode of a file the user creates (``0o666`` less the umask, e.g. ``0o644``)."""
    return 0o666 & ~_umask()


@contextlib.contextmanager
def _atomic_target(path: Path, suffix: str = ""):
    """Yield a temp file name beside ``path``; on success fsync it and rename it over
    ``path`` (atomic on POSIX), on any failure remove it. Readers never see a half file.
    The file gets the mode of any file the user writes (``mkstemp`` alone leaves 0600)."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=suffix, dir=path.parent)
    os.close(fd)
    os.chmod(tmp, file_mode())
    try:
        yield tmp
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def atomic_write_bytes(path: Path, data: bytes) -> None:
    with _atomic_target(path) as tmp:
        Path(tmp).write_bytes(data)


def atomic_write_json(path: Path, obj: Any) -> None:
    from lotr_sim._json import json_default
    atomic_write_bytes(path, (json.dumps(obj, indent=2, default=json_default) + "\n").encode())


def atomic_write_parquet(path: Path, df) -> None:
    with _atomic_target(path, suffix=".parquet") as tmp:
        df.to_parquet(tmp, index=False)


def ensure_writable_dir(path: Path) -> Path:
    """Create ``path`` and check we can write there; one clear error otherwise."""
    path = Path(path)
    try:
        path.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(prefix=".tmp-probe-", dir=path)
        os.close(fd)
        os.unlink(probe)
    except OSError as e:
        raise LotrSimError(f"cannot write to output folder {path}: {e.strerror or e}") from None
    return path


def write_blocker(path: Path) -> tuple[Path, str | None] | None:
    """What stops a folder being made (or written in) at ``path``, found without creating it:
    None when nothing does; else the nearest existing path on the way (absolute) with the
    system's reason when a folder cannot be created there, or with None when it is a file."""
    where = Path(os.path.abspath(path))
    while not where.exists() and where != where.parent:
        where = where.parent
    if not where.is_dir():
        return where, None
    try:
        tempfile.TemporaryDirectory(prefix=".tmp-probe-", dir=where).cleanup()
    except OSError as e:
        return where, str(e.strerror or e)
    return None


def probe_writable(path: Path) -> None:
    """Check, before anything is created, that the output folder ``path`` can be made (or
    written in): one clear error naming the real problem (a file on the way, no permission,
    a file system that takes no folders) rather than a later, misleading one."""
    blocked = write_blocker(path)
    if blocked is not None:
        where, why = blocked
        raise LotrSimError(f"cannot write to output folder {path}: {why or f'{where} is a file'}")


#: What each command leaves in its output folder, as it is named in messages.
OUTPUT_KINDS = {"sweep": "a sweep's results", "tune": "a tune run", "run": "a run's games",
                "tiles": "a tiles report", "fix": "a fix run"}


def output_kind(folder: Path) -> tuple[str, list[str]] | None:
    """Which command's output ``folder`` holds (a key of ``OUTPUT_KINDS``: ``skill`` writes
    a sweep's), with the files that show it; None for a folder holding none."""
    folder = Path(folder)
    if not folder.is_dir():
        return None

    def have(*names: str) -> list[str]:
        return [n for n in names if (folder / n).exists()]
    kind = None
    if (folder / "manifest.json").is_file():
        try:
            kind = json.loads((folder / "manifest.json").read_text()).get("kind")
        except (OSError, ValueError, AttributeError):
            kind = None
    if kind == "tune" or have("state.pkl", "tuned.toml", "population.json"):
        return "tune", have("manifest.json", "state.pkl", "tuned.toml", "history.jsonl", "population.json")
    if have("manifest.json", "results.parquet", "chunks"):
        return "sweep", have("manifest.json", "results.parquet", "chunks")
    if have("games.parquet", "summary.json"):
        return "run", have("games.parquet", "summary.json")
    if have("fix-state.json", "fix.json"):
        return "fix", have("fix-state.json", "fix.json")
    if have("report.json", "doom_heat.csv"):
        return "tiles", have("report.json", "summary.csv", "doom_heat.csv")
    return None


def refuse_other_output(folder: Path, own: str, option: str = "--out") -> tuple[str, list[str]] | None:
    """Refuse (one line) an output folder holding another command's output: a command
    writing there would replace its files (and a resume hint would name the wrong command).
    Returns ``output_kind(folder)`` when it is the command's own (``own``), for its own rule."""
    found = output_kind(folder)
    if found is None or found[0] == own:
        return found
    kind, files = found
    hint = f"continue it with: lotr-sim {kind} --resume {folder}" if kind in ("sweep", "tune") else ""
    what = f"{folder} holds {OUTPUT_KINDS[kind]} ({', '.join(files)})"
    if option == "--resume":
        raise LotrSimError(f"{what}, not {OUTPUT_KINDS[own]}" + (f"; {hint}" if hint else ""))
    raise LotrSimError(f"output folder {what}; writing there would replace its files: choose another {option}")


#: The lock file of an output folder in use (``folder_lock``).
LOCK = ".lotr-sim.lock"


@contextlib.contextmanager
def folder_lock(folder: Path, command: str):
    """Hold ``folder`` for one process while ``command`` writes there: a second process
    (two ``sweep --resume DIR`` at once) is refused with one line naming the holder, where it
    would otherwise remove the first one's temp files under it. The lock is an exclusive
    ``flock`` on ``LOCK``, which the system drops when its holder dies, so the lock of a
    killed process is simply taken over; the file (holder's pid, host, command, start) is
    removed on release. Without ``fcntl`` (Windows) nothing is locked."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    path = Path(folder) / LOCK
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, file_mode())
        except OSError as e:
            raise LotrSimError(f"cannot write to output folder {folder}: {e.strerror or e}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            try:
                holder = json.loads(os.read(fd, 4096).decode() or "{}")
            except (OSError, ValueError):
                holder = {}
            os.close(fd)
            who = (f"{holder.get('what', 'lotr-sim')}, pid {holder.get('pid', '?')} on {holder.get('host', '?')} "
                   f"since {holder.get('started', '?')}: {holder.get('argv', '?')}") if holder else "starting"
            raise LotrSimError(f"{folder} is in use by another lotr-sim process ({who}); wait for it to "
                               f"finish or stop it, then try again") from None
        try:    # the file locked may be one its last holder removed meanwhile: lock the new one
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except OSError:
            same = False
        if same:
            break
        os.close(fd)
    try:
        import sys
        argv = " ".join([Path(sys.argv[0]).name if sys.argv else "python"] + sys.argv[1:])
        info = dict(what=command, pid=os.getpid(), host=socket.gethostname(), started=now_iso(), argv=argv[:300])
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps(info).encode())
        yield
    finally:
        try:
            os.unlink(path)
        except OSError:
            pass
        os.close(fd)


def read_manifest_file(p: Path) -> dict:
    """A manifest.json as a dict; a broken or non-object file is one clear error naming it."""
    try:
        d = json.loads(Path(p).read_text())
    except UnicodeDecodeError:
        raise LotrSimError(f"cannot read {p}: not a text (JSON) file") from None
    except OSError as e:
        raise LotrSimError(f"cannot read {p}: {e.strerror or e}") from None
    except json.JSONDecodeError as e:
        raise LotrSimError(f"cannot read {p}: corrupt JSON: {e.msg} (line {e.lineno}, column {e.colno})") from None
    if not isinstance(d, dict):
        raise LotrSimError(f"cannot read {p}: corrupt manifest (a JSON {type(d).__name__}, not an object)")
    return d


# chunk files of the common columns take about 11 bytes per game (measured on Minas Tirith)
BYTES_PER_GAME = 16
BYTES_PER_CHUNK_FILE = 8192


class Store:
    def __init__(self, root: Path):
        self.root = Path(root)
        self.chunks = self.root / "chunks"

    # -- manifest -------------------------------------------------------------------------
    @property
    def manifest_path(self) -> Path:
        return self.root / "manifest.json"

    def read_manifest(self) -> dict:
        p = self.manifest_path
        if not p.is_file():
            raise LotrSimError(f"{self.root} is not a lotr-sim result folder (no manifest.json)")
        return read_manifest_file(p)

    def write_manifest(self, manifest: dict) -> None:
        atomic_write_json(self.manifest_path, manifest)

    def create(self) -> None:
        ensure_writable_dir(self.root)
        self.chunks.mkdir(exist_ok=True)

    def clean_temp(self) -> int:
        n = 0
        for d in (self.root, self.chunks):
            if d.is_dir():
                for p in d.glob(".tmp-*"):
                    try:
                        p.unlink()
                        n += 1
                    except OSError:
                        pass
        return n

    # -- chunks ---------------------------------------------------------------------------
    def chunk_path(self, point: int, first: int, n: int) -> Path:
        return self.chunks / f"p{point:04d}_{first:010d}_{n:08d}.parquet"

    def has_chunk(self, point: int, first: int, n: int) -> bool:
        return self.chunk_path(point, first, n).is_file()

    def write_chunk(self, point: int, first: int, n: int, cols: dict[str, np.ndarray]) -> None:
        import pandas as pd
        atomic_write_parquet(self.chunk_path(point, first, n), pd.DataFrame(cols))

    def chunk_index(self) -> dict[int, list[tuple[int, int, Path]]]:
        out: dict[int, list] = {}
        if not self.chunks.is_dir():
            return out
        for p in self.chunks.glob("p*.parquet"):
            try:
                pt, first, n = p.stem[1:].split("_")
                out.setdefault(int(pt), []).append((int(first), int(n), p))
            except ValueError:
                continue
        for v in out.values():
            v.sort()
        return out

    def bytes_per_game(self) -> float:
        """Disk bytes per game of this folder's chunk files (a constant when there are none)."""
        size = n = 0
        for lst in self.chunk_index().values():
            for _, k, p in lst[:4]:
                try:
                    size += p.stat().st_size
                    n += k
                except OSError:
                    pass
        return size / n if n else float(BYTES_PER_GAME)

    def iter_games(self, point: int, upto: int | None = None, columns=None, start: int = 0):
        """Yield ``(first, {column: array})`` for games ``start..upto-1`` of ``point``, one
        chunk file at a time in game order (memory: one chunk). A gap or an overlap between
        chunk files is one clear error."""
        import pyarrow.parquet as pq
        expect = None
        for first, n, p in self.chunk_index().get(point, []):
            if first + n <= start or (upto is not None and first >= upto):
                continue
            if expect is not None and first != expect:
                raise LotrSimError(f"point {point}: chunk files of {self.chunks} do not join up at game "
                                   f"{expect} (found {p.name}); resume the sweep to re-run missing chunks")
            if expect is None and first > start:
                raise LotrSimError(f"point {point}: games {start}..{first - 1} are missing from {self.chunks}")
            expect = first + n
            try:
                t = pq.read_table(p, columns=columns)
            except Exception as e:  # pyarrow raises various types on broken files
                raise LotrSimError(f"cannot read chunk file {p}: {e}") from None
            cols = {c: t.column(c).to_numpy() for c in t.column_names}
            lo = max(start - first, 0)
            hi = n if upto is None else min(n, upto - first)
            if lo or hi < n:
                cols = {c: v[lo:hi] for c, v in cols.items()}
            yield first + lo, cols

    def load_games(self, point: int, upto: int | None = None, columns=None):
        """Per-game rows of ``point`` (games 0..upto-1, sorted by game index)."""
        import pandas as pd
        parts = []
        for first, n, p in self.chunk_index().get(point, []):
            if upto is not None and first >= upto:
                continue
            parts.append(pd.read_parquet(p, columns=columns))
        if not parts:
            return pd.DataFrame()
        df = pd.concat(parts, ignore_index=True).sort_values("game", kind="stable").reset_index(drop=True)
        if upto is not None:
            df = df[df["game"] < upto].reset_index(drop=True)
        return df


def run_kind(manifest: dict) -> str:
    """What made a sweep folder: ``"skill"`` (``lotr-sim skill``: every pairing of players on
    the baseline rules, no swept parameter) or ``"sweep"``. Folders written before the manifest
    kept the command are told by their spec."""
    if manifest.get("command") in ("sweep", "skill"):
        return manifest["command"]
    spec = manifest.get("spec") if isinstance(manifest.get("spec"), dict) else {}
    return "skill" if not spec.get("dims") and isinstance(spec.get("pairings"), list) else "sweep"
