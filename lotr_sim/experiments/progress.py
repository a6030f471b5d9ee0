"""Progress on stderr: a rich bar in a terminal (games done / total, rate, ETA), plain
occasional lines in a Jupyter notebook (rich's live display there needs ipywidgets and
prints noise without them), or nothing."""
from __future__ import annotations

import contextlib
import sys
import time


def in_notebook() -> bool:
    """True inside a Jupyter/IPython kernel (not a terminal IPython)."""
    ip = sys.modules.get("IPython")
    if ip is None:
        return False
    try:
        shell = ip.get_ipython()
    except Exception:  # noqa: BLE001 - any odd IPython state: not a notebook
        return False
    return shell is not None and type(shell).__name__ == "ZMQInteractiveShell"


def _duration(s: float) -> str:
    s = int(round(s))
    h, r = divmod(s, 3600)
    m, s = divmod(r, 60)
    return f"{h}:{m:02d}:{s:02d}"


class PlainProgress:
    """One short line on stderr at most every ``every`` seconds (and one at the end):
    done / total, percent, rate and ETA. No live display, no widgets."""

    def __init__(self, description: str = "games", total: int = 0, every: float = 10.0, file=None):
        self._desc = description
        self._total = total
        self._done = 0
        self._every = every
        self._file = file
        self._t0 = self._last = 0.0

    def _out(self):
        return self._file if self._file is not None else sys.stderr

    def __enter__(self):
        self._t0 = self._last = time.monotonic()
        return self

    def __exit__(self, *exc):
        if self._done:
            self._line()
        return False

    def set_total(self, total: int) -> None:
        self._total = total

    def advance(self, n: int) -> None:
        self._done += n
        now = time.monotonic()
        if now - self._last >= self._every:
            self._last = now
            self._line()

    def _line(self) -> None:
        el = time.monotonic() - self._t0
        rate = self._done / el if el > 0 else 0.0
        txt = f"{self._desc}: {self._done:,}/{self._total:,}"
        if self._total:
            txt += f" ({100 * self._done / self._total:.0f}%)"
        txt += f", {_duration(el)} elapsed"
        if rate > 0 and self._total > self._done:
            txt += f", ETA {_duration((self._total - self._done) / rate)}"
        print(txt, file=self._out(), flush=True)


class NullProgress:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def set_total(self, total: int) -> None:
        pass

    def advance(self, n: int) -> None:
        pass


class RichProgress:
    def __init__(self, description: str = "games", total: int = 0):
        from rich.console import Console
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TaskProgressColumn,
                                   TextColumn, TimeElapsedColumn, TimeRemainingColumn)
        self._p = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                           TaskProgressColumn(),
                           TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(),
                           console=Console(file=sys.stderr), transient=False)
        self._desc = description
        self._total = total
        self._task = None

    def __enter__(self):
        self._p.__enter__()
        self._task = self._p.add_task(self._desc, total=self._total)
        return self

    def __exit__(self, *exc):
        return self._p.__exit__(*exc)

    def set_total(self, total: int) -> None:
        self._p.update(self._task, total=total)

    def advance(self, n: int) -> None:
        self._p.advance(self._task, n)


class Stages:
    """Progress of a job made of a few named stages (a report: its results, the verdict, the
    plots, the files), on stderr: on a terminal one transient rich bar whose text names the
    stage (``advance`` moves it, e.g. a plot at a time); elsewhere (a pipe, a log file, a
    notebook) one plain line per stage; nothing when ``show`` is false."""

    def __init__(self, show: bool, title: str, total: int = 0):
        self._title = title
        self._total = total
        self._mode = "off"
        self._p = self._task = None
        if show:
            from rich.console import Console
            con = Console(file=sys.stderr)
            self._mode = "bar" if con.is_terminal and not in_notebook() else "lines"
            if self._mode == "bar":
                from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
                self._p = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                                   TimeElapsedColumn(), console=con, transient=True)

    def __enter__(self):
        if self._p is not None:
            self._p.__enter__()
            self._task = self._p.add_task(self._title, total=self._total or None)
        return self

    def __exit__(self, *exc):
        if self._p is not None:
            return self._p.__exit__(*exc)
        return False

    def set_total(self, total: int) -> None:
        self._total = total
        if self._p is not None:
            self._p.update(self._task, total=total)

    def stage(self, text: str) -> None:
        """A new stage: the bar's text, or one line ``TITLE: TEXT``."""
        if self._mode == "lines":
            print(f"{self._title}: {text}", file=sys.stderr, flush=True)
        elif self._p is not None:
            self._p.update(self._task, description=f"{self._title}: {text}")

    def advance(self, n: int = 1) -> None:
        if self._p is not None:
            self._p.advance(self._task, n)


@contextlib.contextmanager
def compile_status(game):
    """The spinner (a context manager, on stderr) that says why the first use of a game's
    engine waits: numba compiles it once, later runs load it from the cache. Where it cannot
    be seen (stderr not a terminal) the program's one-line notice says it instead
    (``lotr_sim._numba.compile_notice``)."""
    from rich.console import Console

    from lotr_sim._numba import compile_notice
    con = Console(file=sys.stderr)
    if not con.is_terminal:
        yield
        return
    compile_notice.spinner_showing(True)
    try:
        with con.status(f"preparing the {game.name} engine (numba compiles it on the first run, "
                        f"about a minute; later runs load it from the cache)"):
            yield
    finally:
        compile_notice.spinner_showing(False)


def warm_up(game, compiled, policies, seed: int, show: bool, timed: bool = False) -> None:
    """Compile (first run) or load the game's kernels before a progress bar starts, with a
    spinner that says why the wait happens. Costs milliseconds once the numba cache is warm;
    Dask workers on this machine then load the same cache. ``timed``: the caller reports a
    rate of what follows, so the kernels are compiled first even with nothing shown (-q,
    --json), and the rate is of the games alone."""
    if not show:
        if timed:
            game.simulate(compiled, policies, seed, 0, 1, threads=1)
        return
    if in_notebook():
        from lotr_sim._numba import compile_notice
        print(f"preparing the {game.name} engine (a minute on the first run)...", file=sys.stderr, flush=True)
        compile_notice.spinner_showing(True)
        try:
            game.simulate(compiled, policies, seed, 0, 1, threads=1)
        finally:
            compile_notice.spinner_showing(False)
        return
    with compile_status(game):
        game.simulate(compiled, policies, seed, 0, 1, threads=1)


def make_progress(show: bool, description: str, total: int):
    """A rich bar (terminal), plain lines (Jupyter notebook) or nothing (``show`` false)."""
    if not show:
        return NullProgress()
    if in_notebook():
        return PlainProgress(description, total)
    return RichProgress(description, total)
