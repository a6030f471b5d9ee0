"""The thread-pool range runner (kernels/runner.py)."""
import threading

import numpy as np
import pytest
from numba import njit

from lotr_sim.kernels.rng import STATE_SIZE, PyStream, d6_nb, randint_nb, stream_init_nb
from lotr_sim.kernels.runner import resolve_threads, run_range, split_range


@njit(cache=True, nogil=True)
def _rows_nb(seed, first, lo, hi, out_sum, out_last):
    """Row i: stream (seed, first + i); a random number (0..40) of dice, their sum and the last."""
    s = np.empty(STATE_SIZE, dtype=np.uint64)
    for i in range(lo, hi):
        stream_init_nb(seed, first + i, s)
        k = randint_nb(s, 41)
        t = 0
        last = 0
        for _ in range(k):
            last = d6_nb(s)
            t += last
        out_sum[i] = t
        out_last[i] = last


@njit(cache=True)
def _holds_gil_nb(lo, hi, out):
    for i in range(lo, hi):
        out[i] = i


def _run(n, threads, seed=2026, first=1000):
    a = np.full(n, -1, dtype=np.int64)
    b = np.full(n, -1, dtype=np.int64)
    run_range(_rows_nb, (np.int64(seed), np.int64(first)), n, threads, a, b)
    return a, b


def test_bit_identical_for_1_2_3_threads():
    n = 1001
    a1, b1 = _run(n, 1)
    assert (a1 >= 0).all() and len(set(a1.tolist())) > 50
    for nt in (2, 3):
        a, b = _run(n, nt)
        assert a.tolist() == a1.tolist() and b.tolist() == b1.tolist()
    # and row i really is stream (seed, first + i)
    for i in (0, 500, 1000):
        ps = PyStream(2026, 1000 + i)
        dice = [ps.d6() for _ in range(ps.randint(41))]
        assert a1[i] == sum(dice) and b1[i] == (dice[-1] if dice else 0)


def test_more_threads_than_rows_and_no_rows():
    a1, b1 = _run(2, 1)
    a3, b3 = _run(2, 3)
    assert a1.tolist() == a3.tolist()
    a, _ = _run(0, 3)
    assert a.shape == (0,)


def test_chunks_are_contiguous_and_run_on_threads():
    calls = []
    names = set()
    barrier = threading.Barrier(3, timeout=10)

    def kernel(tag, lo, hi, out):   # a plain function: accepted (only numba kernels are checked)
        calls.append((int(lo), int(hi)))
        names.add(threading.current_thread().name)
        barrier.wait()              # all three chunks at once: they do run concurrently
        out[lo:hi] = tag

    out = np.zeros(10, dtype=np.int64)
    run_range(kernel, (7,), 10, 3, out)
    assert sorted(calls) == [(0, 3), (3, 6), (6, 10)] and len(names) == 3 and (out == 7).all()

    calls.clear()
    run_range(lambda lo, hi, out: calls.append((int(lo), int(hi), threading.current_thread().name)), (), 5, 1, out)
    assert calls == [(0, 5, threading.current_thread().name)]   # one thread: a direct call


def test_errors():
    out = np.zeros(4, dtype=np.int64)
    with pytest.raises(ValueError, match="nogil"):
        run_range(_holds_gil_nb, (), 4, 2, out)
    run_range(_holds_gil_nb, (), 4, 1, out)                      # fine on one thread
    assert out.tolist() == [0, 1, 2, 3]
    for bad in (0, -1, True):
        with pytest.raises(ValueError, match="threads"):
            run_range(_holds_gil_nb, (), 4, bad, out)
    with pytest.raises(ValueError):
        run_range(_holds_gil_nb, (), -1, 1, out)

    def boom(lo, hi):
        if lo > 0:
            raise RuntimeError("chunk failed")
    with pytest.raises(RuntimeError, match="chunk failed"):
        run_range(boom, (), 10, 2)


def test_split_and_resolve_threads():
    assert split_range(10, 3) == [(0, 3), (3, 6), (6, 10)]
    assert split_range(2, 3) == [(0, 0), (0, 1), (1, 2)]
    assert split_range(0, 1) == [(0, 0)]
    with pytest.raises(ValueError):
        split_range(5, 0)
    import numba
    top = numba.config.NUMBA_NUM_THREADS
    assert resolve_threads(None) == top and resolve_threads(10**6) == top and resolve_threads(1) == 1
    with pytest.raises(ValueError):
        resolve_threads(0)
