"""Piles: Fisher-Yates shuffles, draws and reshuffled discards (kernels/piles.py)."""
import itertools

import numpy as np
import pytest

from lotr_sim.kernels.piles import (deck_init_nb, discard_nb, draw_many_nb, draw_nb, remaining_nb,
                                    reshuffle_discards_nb, shuffle_nb, shuffle_range_nb, shuffled)
from lotr_sim.kernels.rng import PyStream, make_stream, randint_nb


def _hand_fisher_yates(s, arr, n):
    # the loop of the Minas Tirith engine's setup_nb, written out
    for i in range(n - 1, 0, -1):
        j = randint_nb(s, i + 1)
        arr[i], arr[j] = arr[j], arr[i]


@pytest.mark.parametrize("n", [0, 1, 2, 16, 42])
def test_shuffle_is_bit_identical_to_hand_written_fisher_yates(n):
    for index in range(20):
        s1, s2 = make_stream(2026, index), make_stream(2026, index)
        a = np.arange(n, dtype=np.int64) * 3
        b = a.copy()
        shuffle_nb(s1, a, n)
        _hand_fisher_yates(s2, b, n)
        assert a.tolist() == b.tolist()
        assert s1.tolist() == s2.tolist()        # same number of draws: the stream goes on alike
        # and the same as the pure-Python twin of the stream
        ps = PyStream(2026, index)
        c = list(range(0, 3 * n, 3))
        for i in range(n - 1, 0, -1):
            j = ps.randint(i + 1)
            c[i], c[j] = c[j], c[i]
        assert a.tolist() == c


def test_shuffle_range_touches_only_its_range_and_deck_init_matches():
    s = make_stream(5, 0)
    a = np.arange(20, dtype=np.int64)
    shuffle_range_nb(s, a, 5, 10)
    assert a[:5].tolist() == list(range(5)) and a[15:].tolist() == list(range(15, 20))
    assert sorted(a[5:15].tolist()) == list(range(5, 15))
    d = shuffled(9, 4, 16)
    s = make_stream(9, 4)
    e = np.arange(16, dtype=np.int64)
    shuffle_nb(s, e, 16)
    assert d.tolist() == e.tolist()


def test_shuffle_positions_uniform():
    """Each card lands in each position with p = 1/n: |z| < 4 on all n*n cells."""
    n, N = 8, 40_000
    counts = np.zeros((n, n), dtype=np.int64)
    for i in range(N):
        counts[shuffled(31337, i, n), np.arange(n)] += 1
    p = 1 / n
    z = (counts - N * p) / np.sqrt(N * p * (1 - p))
    assert np.abs(z).max() < 4, z


def test_shuffle_permutations_uniform_chi_square():
    """All 24 orders of 4 cards equally likely: chi-square (23 df) within 4 sd."""
    n, N = 4, 48_000
    index = {p: k for k, p in enumerate(itertools.permutations(range(n)))}
    counts = np.zeros(len(index))
    for i in range(N):
        counts[index[tuple(shuffled(4242, i, n).tolist())]] += 1
    e = N / len(index)
    chi2 = ((counts - e) ** 2 / e).sum()
    df = len(index) - 1
    assert abs(chi2 - df) / np.sqrt(2 * df) < 4, chi2


def test_draws():
    order = np.array([7, 3, 5], dtype=np.int64)
    assert draw_nb(order, 0, 3) == (7, 1)
    assert draw_nb(order, 2, 3) == (5, 3)
    assert draw_nb(order, 3, 3) == (-1, 3)
    assert remaining_nb(1, 3) == 2 and remaining_nb(3, 3) == 0 and remaining_nb(5, 3) == 0
    out = np.full(5, -9, dtype=np.int64)
    assert draw_many_nb(order, 1, 3, 5, out) == (2, 3)
    assert out.tolist() == [3, 5, -9, -9, -9]
    assert draw_many_nb(order, 0, 3, 1, out) == (1, 1)


def test_deck_init_is_a_permutation():
    s = make_stream(1, 1)
    order = np.full(12, -1, dtype=np.int64)
    assert deck_init_nb(order, 10, s) == 0
    assert sorted(order[:10].tolist()) == list(range(10)) and order[10:].tolist() == [-1, -1]


@pytest.mark.parametrize("shuffle_all", [False, True])
def test_reshuffle_discards(shuffle_all):
    s = make_stream(77, 0)
    order = np.zeros(10, dtype=np.int64)
    order[:6] = [0, 1, 2, 3, 4, 5]
    disc = np.zeros(10, dtype=np.int64)
    nd = 0
    for c in (9, 8, 7):
        nd = discard_nb(disc, nd, c)
    assert nd == 3 and disc[:3].tolist() == [9, 8, 7]
    s_ref = s.copy()
    pos, total, nd = reshuffle_discards_nb(s, order, 4, 6, disc, nd, shuffle_all)
    assert (pos, total, nd) == (0, 5, 0)
    assert sorted(order[:5].tolist()) == [4, 5, 7, 8, 9]
    ref = np.array([4, 5, 9, 8, 7], dtype=np.int64)
    if shuffle_all:
        shuffle_nb(s_ref, ref, 5)
    else:
        assert order[:2].tolist() == [4, 5]          # the pile's cards stay on top, in order
        shuffle_range_nb(s_ref, ref, 2, 3)
    assert order[:5].tolist() == ref.tolist() and s.tolist() == s_ref.tolist()


def test_reshuffle_of_an_empty_pile():
    s = make_stream(3, 3)
    order = np.zeros(4, dtype=np.int64)
    disc = np.array([0, 1, 2, 3], dtype=np.int64)
    pos, total, nd = reshuffle_discards_nb(s, order, 9, 9, disc, 4, False)  # pos past the end
    assert (pos, total, nd) == (0, 4, 0) and sorted(order.tolist()) == [0, 1, 2, 3]
