"""A rich progress bar on stderr (games done / total, rate, ETA), or nothing."""
from __future__ import annotations

import sys


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


def warm_up(game, compiled, policies, seed: int, show: bool) -> None:
    """Compile (first run) or load the game's kernels before a progress bar starts, with a
    spinner that says why the wait happens. Costs milliseconds once the numba cache is warm;
    Dask workers on this machine then load the same cache."""
    if not show:
        return
    from rich.console import Console

    with Console(file=sys.stderr).status(
            f"preparing the {game.name} engine (numba compiles it on the first run, "
            f"about a minute; later runs load it from the cache)"):
        game.simulate(compiled, policies, seed, 0, 1, threads=1)


def make_progress(show: bool, description: str, total: int):
    return RichProgress(description, total) if show else NullProgress()
