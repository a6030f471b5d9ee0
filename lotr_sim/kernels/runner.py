"""Run a row-range kernel on a thread pool: the engines' ``simulate`` loop, once.

An engine's batch kernel plays rows (games) ``lo .. hi-1`` of an output it shares with the
other threads: ``kernel(*args, lo, hi, *outs)``, compiled ``@njit(nogil=True)`` so that
threads run it in parallel, every row drawing from its own stream ``(seed, first + row)``
(``lotr_sim.kernels.rng``). ``run_range`` splits ``0 .. n`` into one contiguous chunk per
thread (few, large chunks measured fastest for the Minas Tirith engine) and waits for them;
with one thread it calls the kernel directly. Because rows reseed, the rows do not depend
on the thread count.
"""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Sequence

import numpy as np


def resolve_threads(threads: int | None) -> int:
    """``threads`` clipped to 1 .. ``NUMBA_NUM_THREADS``; ``None`` means all of them."""
    import numba
    top = int(numba.config.NUMBA_NUM_THREADS)
    if threads is None:
        return top
    if isinstance(threads, bool) or int(threads) < 1:
        raise ValueError(f"threads must be >= 1, got {threads!r}")
    return max(1, min(int(threads), top))


def split_range(n: int, parts: int) -> list[tuple[int, int]]:
    """``parts`` contiguous ``(lo, hi)`` chunks covering ``0 .. n`` (sizes differ by <= 1)."""
    if n < 0 or parts < 1:
        raise ValueError(f"need n >= 0 and parts >= 1, got n={n}, parts={parts}")
    b = [(n * c) // parts for c in range(parts + 1)]
    return [(b[c], b[c + 1]) for c in range(parts)]


def _is_nogil(kernel: Any) -> bool | None:
    opts = getattr(kernel, "targetoptions", None)
    return None if opts is None else bool(opts.get("nogil", False))


def run_range(kernel: Callable, args: Sequence[Any], n: int, threads: int | None,
              *outs: np.ndarray) -> None:
    """Call ``kernel(*args, lo, hi, *outs)`` over ``0 .. n`` in ``min(threads, n)`` chunks.

    ``threads=None`` means ``resolve_threads(None)``; a number is used as given (the caller
    clips a user's ``--threads`` with ``resolve_threads``). More than one thread needs a numba
    kernel compiled with ``nogil=True`` (ValueError otherwise: it would run one chunk at a
    time). An exception in any chunk is raised after all chunks have finished.
    """
    n = int(n)
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    if n == 0:
        return
    if threads is None:
        threads = resolve_threads(None)
    elif isinstance(threads, bool) or int(threads) < 1:
        raise ValueError(f"threads must be >= 1, got {threads!r}")
    nt = min(int(threads), n)
    args = tuple(args)
    if nt == 1:
        kernel(*args, np.int64(0), np.int64(n), *outs)
        return
    if _is_nogil(kernel) is False:
        raise ValueError(f"run_range on {nt} threads needs a kernel compiled with nogil=True "
                         f"({getattr(kernel, '__name__', kernel)!r} holds the GIL)")
    with ThreadPoolExecutor(max_workers=nt) as ex:
        futs = [ex.submit(kernel, *args, np.int64(lo), np.int64(hi), *outs)
                for lo, hi in split_range(n, nt)]
        for f in futs:
            f.result()
