"""The seeding scheme and the dice (kernels/rng.py)."""
import numpy as np
import pytest
from numba import njit

from lotr_sim.kernels.rng import (STATE_SIZE, PyStream, d6_nb, make_stream, randint_nb,
                                  stream_init_nb, uniform_nb)


@njit(cache=True)
def _faces(seed, n):
    s = np.empty(STATE_SIZE, np.uint64)
    stream_init_nb(seed, 0, s)
    c = np.zeros(7, np.int64)
    for _ in range(n):
        c[d6_nb(s)] += 1
    return c


def test_d6_fair_each_face_within_4_se():
    """MT-3.3 (and every game): all dice are fair d6."""
    n = 6_000_000
    c = _faces(12345, n)
    assert c[0] == 0 and c.sum() == n
    p = 1 / 6
    z = (c[1:] - n * p) / np.sqrt(n * p * (1 - p))
    assert np.all(np.abs(z) < 4), z


def test_d6_pairs_independent_chi_square():
    # consecutive dice: 36 cells, chi-square with 35 df; 4-sigma bound on it
    s = make_stream(7, 3)
    n = 72_000
    d = np.array([d6_nb(s) for _ in range(2 * n)]).reshape(n, 2)
    table = np.zeros((6, 6))
    np.add.at(table, (d[:, 0] - 1, d[:, 1] - 1), 1)
    chi2 = ((table - n / 36) ** 2 / (n / 36)).sum()
    assert chi2 < 35 + 4 * np.sqrt(2 * 35)


@pytest.mark.parametrize("seed,index", [(0, 0), (1, 2), (2**63 - 1, 10**12)])
def test_python_twin_matches_kernel_stream(seed, index):
    s = make_stream(seed, index)
    p = PyStream(seed, index)
    assert [d6_nb(s) for _ in range(100)] == [p.d6() for _ in range(100)]
    assert [randint_nb(s, 7776) for _ in range(50)] == [p.randint(7776) for _ in range(50)]


def test_streams_differ_by_seed_and_index():
    first = lambda seed, idx: tuple(d6_nb(make_stream(seed, idx)) * 0 + x
                                    for x in [int(v) for v in make_stream(seed, idx)[:4]])
    keys = {first(seed, idx) for seed in range(5) for idx in range(50)}
    assert len(keys) == 250


def test_randint_and_uniform_ranges():
    s = make_stream(3, 0)
    vals = [randint_nb(s, 7) for _ in range(7000)]
    assert min(vals) == 0 and max(vals) == 6
    c = np.bincount(vals, minlength=7)
    z = (c - 1000) / np.sqrt(7000 * (1 / 7) * (6 / 7))
    assert np.all(np.abs(z) < 4)
    u = np.array([uniform_nb(s) for _ in range(10000)])
    assert 0.0 <= u.min() and u.max() < 1.0
    assert abs(u.mean() - 0.5) < 4 * np.sqrt(1 / 12 / 10000)


@pytest.mark.parametrize("bad", [-1, 2**63, 1.5, "7"])
def test_bad_seed_rejected(bad):
    with pytest.raises(ValueError):
        make_stream(bad, 0)
