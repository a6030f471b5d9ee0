"""Where chunks of games run: in this process (``LocalBackend``, the game's own threads)
or on a Dask distributed cluster (``DaskBackend``: ``--scheduler tcp://HOST:PORT`` or
``--cluster local``).

A *task* is ``(point, first, n)``: games ``first .. first+n-1`` of sweep point ``point``.
Game i always uses stream (seed, i), so the rows of a task do not depend on where or in
which order it runs: every backend gives bit-identical results. A worker returns only the
columns asked for (by default the common ones, a few bytes per game), never the game's
internals. Dask re-runs the tasks of a lost worker (its ``allowed-failures`` policy).
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Mapping, Sequence

import numpy as np

from lotr_sim.errors import LotrSimError

Task = tuple[int, int, int]


def common_columns(game) -> list[str]:
    """The columns a sweep keeps per game: the common ones, each side's points and, for a game
    with named seats (``Game.seat_keys``), ``winner_seat`` and each seat's points (absent
    columns are skipped)."""
    return ["game", "winner", "reason", "rounds", "turns"] + [f"points_{s}" for s in game.sides] + \
        (["winner_seat"] + [f"points_{k}" for k in game.seat_keys] if game.seat_keys else [])


def select_columns(cols: dict[str, np.ndarray], keep: Sequence[str] | None) -> dict[str, np.ndarray]:
    if keep is None:
        return cols
    return {k: cols[k] for k in keep if k in cols}


def game_target(game) -> str:
    """``name=module:Class`` of a game object: a worker process finds the game in its own
    registry by name, registering it first when it is a plug-in the parent registered."""
    cls = type(game)
    return f"{game.name}={cls.__module__}:{cls.__qualname__}"


def _game_from_target(target: str):
    from lotr_sim.games import registry
    name, ref = target.split("=", 1)
    if name not in registry.game_names():
        registry.register(name, ref)
    return registry.get_game(name)


def run_task(target: str, compiled: Any, policies: Mapping[str, str], seed: int, first: int, n: int,
             threads: int | None, keep: Sequence[str] | None) -> dict[str, np.ndarray]:
    """Run one chunk (this is what a Dask worker executes)."""
    game = _game_from_target(target)
    cols = game.simulate(compiled, policies, seed, first, n, threads)
    return select_columns(cols, keep)


def _identity(x):
    return x


class LocalBackend:
    """Chunks one after another in this process; the game parallelises inside a chunk."""

    name = "local"

    def __init__(self, threads: int | None = None):
        self.threads = threads

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def run(self, game, compiled: Mapping[int, Any], policies: Mapping[int, Mapping[str, str]],
            seed: int, tasks: Iterable[Task], keep: Sequence[str] | None,
            on_done: Callable[[Task, dict], None]) -> None:
        for task in tasks:
            p, first, n = task
            cols = game.simulate(compiled[p], policies[p], seed, first, n, self.threads)
            on_done(task, select_columns(cols, keep))


class DaskBackend:
    """Chunks as Dask tasks (``scheduler`` address, or ``cluster='local'``)."""

    name = "dask"

    def __init__(self, scheduler: str | None = None, cluster: str | None = None,
                 workers: int | None = None, threads: int | None = 1,
                 connect_timeout: float = 5.0):
        self.scheduler = scheduler
        self.cluster_kind = cluster
        self.workers = workers
        self.threads = threads
        self.connect_timeout = connect_timeout
        self.client = None
        self.cluster = None

    def __enter__(self):
        try:
            from distributed import Client, LocalCluster
        except ImportError:  # pragma: no cover
            raise LotrSimError("Dask is not installed (pip install 'dask[distributed]')") from None
        if self.scheduler:
            import time

            import dask
            addr = self.scheduler
            t0 = time.monotonic()
            _preflight(addr, self.connect_timeout)
            left = max(self.connect_timeout - (time.monotonic() - t0), 0.5)
            msg = None
            try:
                # Dask's own connect timeout (30 s by default, retried) bounded by what is left
                with dask.config.set({"distributed.comm.timeouts.connect": f"{left}s"}):
                    self.client = Client(addr, timeout=left, set_as_default=False)
            except Exception as e:  # timeouts, refused, a non-Dask server answering, ...
                msg = str(e).splitlines()[0] if str(e) else type(e).__name__
            if msg is not None:
                # the half-built Client complains from __del__; keep the error to one line
                import gc
                import sys
                hook = sys.unraisablehook
                sys.unraisablehook = lambda *_: None
                try:
                    gc.collect()
                finally:
                    sys.unraisablehook = hook
                raise LotrSimError(f"cannot reach Dask scheduler {addr} "
                                   f"(within {self.connect_timeout:g} s): {msg}")
        elif self.cluster_kind == "local":
            import os
            n = self.workers or max(1, min(os.cpu_count() or 1, 8))
            self.cluster = LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                        dashboard_address=None)
            self.client = Client(self.cluster, set_as_default=False)
        else:
            raise LotrSimError(f"unknown cluster kind {self.cluster_kind!r} (use --cluster local)")
        return self

    def __exit__(self, *exc):
        try:
            if self.client is not None:
                self.client.close()
        finally:
            if self.cluster is not None:
                self.cluster.close()
        return False

    def window(self) -> int:
        """Tasks in flight at once: enough to keep every worker busy, few enough that a
        run of any length holds a bounded number of futures and results."""
        try:
            n = sum(w.get("nthreads", 1) for w in self.client.scheduler_info()["workers"].values())
        except Exception:  # noqa: BLE001 - an answer-less scheduler: a safe default
            n = 8
        return max(8, 4 * n)

    def run(self, game, compiled, policies, seed, tasks, keep, on_done) -> None:
        """Run ``tasks`` (any iterable, consumed lazily) with at most ``window()`` of them
        submitted at once; ``on_done`` gets results in completion order."""
        import itertools

        from distributed import as_completed
        target = game_target(game)
        tasks = iter(tasks)
        # Each point's compiled arrays enter the graph once, as the result of a task whose
        # input is in the graph: unlike scattered data, it is recomputed if the worker
        # holding it dies (scattered data would be lost and its dependents cancelled).
        comp_f: dict = {}

        def submit(task):
            p, first, n = task
            if p not in comp_f:
                comp_f[p] = self.client.submit(_identity, compiled[p], pure=False)
            return self.client.submit(run_task, target, comp_f[p], dict(policies[p]), seed, first, n,
                                      self.threads, list(keep) if keep is not None else None,
                                      pure=False, retries=2)

        futs = {}
        for task in itertools.islice(tasks, self.window()):
            futs[submit(task)] = task
        if not futs:
            return
        ac = as_completed(list(futs), loop=self.client.loop)
        for f in ac:
            task = futs.pop(f)
            try:
                cols = f.result()
            except Exception as e:  # a game error on a worker: report, don't hang
                raise LotrSimError(f"a Dask task failed for point {task[0]} games "
                                   f"{task[1]}..{task[1] + task[2] - 1}: {type(e).__name__}: {e}") from None
            f.release()
            nxt = next(tasks, None)
            if nxt is not None:
                nf = submit(nxt)
                futs[nf] = nxt
                ac.add(nf)
            on_done(task, cols)


def _preflight(addr: str, timeout: float) -> None:
    """A plain TCP connect, and for ``tcp://`` the scheduler's greeting, within ``timeout``
    seconds: an unreachable address, a port that never answers and a server that is no Dask
    scheduler (HTTP) are each one clear error, before Dask's own (slower, noisier) retries.
    (A ``tls://`` server speaks only after the client's TLS hello: there only the connect is
    checked here.)"""
    import socket
    from urllib.parse import urlparse
    try:
        u = urlparse(addr)
        scheme, host, port = u.scheme, u.hostname, u.port
    except ValueError:     # "tcp://[::1" (an unclosed IPv6 bracket), a port out of range
        scheme, host, port = None, None, None
    if scheme not in ("tcp", "tls") or not host or not port:
        raise LotrSimError(f"scheduler address must look like tcp://HOST:PORT, got {addr!r}")
    import time
    t0 = time.monotonic()
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except socket.timeout:
        raise LotrSimError(f"cannot reach Dask scheduler {addr} (within {timeout:g} s): "
                           "no answer to the connection") from None
    except OSError as e:
        why = e.strerror or (type(e).__name__ if not str(e) else str(e))
        raise LotrSimError(f"cannot reach Dask scheduler {addr}: {why}") from None
    try:
        if scheme == "tcp":
            # a Dask scheduler greets a new connection at once (its handshake); a port that
            # accepts and never answers, or an HTTP server (which waits for a request), does not
            sock.settimeout(max(timeout - (time.monotonic() - t0), 0.05))
            try:
                first = sock.recv(16)
            except socket.timeout:
                first = None
            except OSError as e:
                raise LotrSimError(f"cannot reach Dask scheduler {addr}: {e.strerror or e}") from None
            if not first:
                raise LotrSimError(f"cannot reach Dask scheduler {addr} (within {timeout:g} s): the port "
                                   + ("closed the connection" if first == b"" else "accepts connections but "
                                      "sends no Dask greeting") + " (is it a Dask scheduler's address?)")
            if first.startswith(b"HTTP/"):
                raise LotrSimError(f"cannot reach Dask scheduler {addr} (within {timeout:g} s): an HTTP "
                                   "server answers there, not a Dask scheduler (its port is in the "
                                   "scheduler's log: 'Scheduler at: tcp://...')")
    finally:
        sock.close()


def max_threads() -> int:
    """The most threads (or local Dask workers) a run may ask for: 4 x the machine's cores.
    More only adds scheduling overhead (the engine's threads are CPU-bound)."""
    import os
    return 4 * (os.cpu_count() or 1)


def check_threads(threads: int | None = None, workers: int | None = None) -> None:
    """``--threads``/``--workers``: None (all cores) or 1 .. ``max_threads()``; one error line
    otherwise (every command that has these options goes through ``make_backend``)."""
    hi = max_threads()
    for name, v in (("--threads", threads), ("--workers", workers)):
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 1 <= int(v) <= hi:
            raise LotrSimError(f"{name} must be a whole number from 1 to {hi} (4 x the {hi // 4} cores "
                               f"of this machine), got {v}")


def make_backend(threads: int | None = None, scheduler: str | None = None,
                 cluster: str | None = None, workers: int | None = None,
                 connect_timeout: float = 5.0):
    """The backend for a run: local threads, or Dask (``scheduler`` address or
    ``cluster='local'``). Checks ``threads``/``workers`` first (``check_threads``)."""
    check_threads(threads, workers)
    if scheduler and cluster:
        raise LotrSimError("give either --scheduler or --cluster, not both")
    if scheduler or cluster:
        return DaskBackend(scheduler=scheduler, cluster=cluster, workers=workers,
                           threads=threads or 1, connect_timeout=connect_timeout)
    return LocalBackend(threads)
