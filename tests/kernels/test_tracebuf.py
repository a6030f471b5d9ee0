"""The generic trace event writer (kernels/tracebuf.py)."""
import numpy as np
import pytest
from numba import njit

from lotr_sim.kernels.tracebuf import (TR_COUNT, TR_HEADER, TR_OVF, TR_POS, ev_begin_nb, ev_end_nb,
                                       ev_put_nb, ev_put_reserved_nb, ev_reserve_nb, iter_events, new_trace,
                                       overflowed, trace_reset_nb)


@njit(cache=True)
def _write_nb(tr, codes, lens):
    """Event k: code codes[k] with values 10*k + 0 .. 10*k + lens[k]-1. Returns handles."""
    hs = np.empty(codes.shape[0], dtype=np.int64)
    for k in range(codes.shape[0]):
        h = ev_begin_nb(tr, codes[k])
        for j in range(lens[k]):
            ev_put_nb(tr, h, 10 * k + j)
        ev_end_nb(tr, h)
        hs[k] = h
    return hs


def _expected(codes, lens):
    return [(int(c), [10 * k + j for j in range(n)]) for k, (c, n) in enumerate(zip(codes, lens))]


def _decoded(tr):
    return [(c, v.tolist()) for c, v in iter_events(tr)]


def test_round_trip():
    rng = np.random.default_rng(8)
    codes = rng.integers(1, 20, 50)
    lens = rng.integers(0, 9, 50)
    tr = new_trace(4096)
    hs = _write_nb(tr, codes, lens)
    assert (hs >= TR_HEADER).all() and not overflowed(tr)
    assert _decoded(tr) == _expected(codes, lens)
    assert tr[TR_COUNT] == 50 and tr[TR_POS] == TR_HEADER + int((lens + 2).sum())
    # a plain np.zeros buffer works as well (position 0 means "after the header")
    tr0 = np.zeros(4096, dtype=np.int64)
    _write_nb(tr0, codes, lens)
    assert _decoded(tr0) == _expected(codes, lens)


def test_no_trace_is_a_no_op():
    tr = np.zeros(0, dtype=np.int64)
    assert (_write_nb(tr, np.array([1, 2]), np.array([3, 0])) == -1).all()
    assert _decoded(tr) == [] and not overflowed(tr)
    assert new_trace(0).shape == (0,)
    with pytest.raises(ValueError):
        new_trace(2)


@pytest.mark.parametrize("size", list(range(TR_HEADER, 40)))
def test_overflow_sets_the_flag_drops_the_partial_event_and_never_writes_past_the_end(size):
    codes = np.arange(1, 11)
    lens = np.array([3, 0, 5, 2, 7, 1, 4, 0, 6, 2])
    sentinel = 123456789
    big = np.full(size + 64, sentinel, dtype=np.int64)
    tr = big[:size]                    # a view: anything past its end would hit the sentinels
    tr[:TR_HEADER] = (TR_HEADER, 0, 0)
    hs = _write_nb(tr, codes, lens)
    assert (big[size:] == sentinel).all()
    need = TR_HEADER + int((lens + 2).sum())
    assert overflowed(tr) == (size < need)
    got = _decoded(tr)
    # the complete events that fit, in order, and nothing after the first one that did not
    assert got == _expected(codes, lens)[: len(got)]
    k = len(got)
    assert tr[TR_COUNT] == k and tr[TR_POS] == TR_HEADER + int((lens[:k] + 2).sum())
    if size < need:
        assert TR_HEADER + int((lens[:k + 1] + 2).sum()) > size   # event k really did not fit
        assert (hs[k + 1:] == -1).all()                            # nothing starts after it
        assert tr[TR_OVF] == 1


def test_reset_and_corruption_detected():
    tr = new_trace(64)
    _write_nb(tr, np.array([5]), np.array([2]))
    trace_reset_nb(tr)
    assert _decoded(tr) == [] and tr[TR_COUNT] == 0
    _write_nb(tr, np.array([6]), np.array([1]))
    assert _decoded(tr) == [(6, [0])]
    bad = tr.copy(); bad[TR_HEADER] = 40
    with pytest.raises(ValueError, match="corrupt"):
        _decoded(bad)
    bad = tr.copy(); bad[TR_COUNT] = 2
    with pytest.raises(ValueError, match="corrupt"):
        _decoded(bad)


@njit(cache=True, _nrt=False)
def _nrt_free_writer_nb(tr, code, v):
    h = ev_begin_nb(tr, code)
    ev_put_nb(tr, h, v)
    ev_end_nb(tr, h)
    return h


def test_callable_from_an_nrt_free_kernel():
    """The engines compile their kernels with _nrt=False; the writer must fit in them."""
    tr = new_trace(16)
    assert _nrt_free_writer_nb(tr, 4, -7) == TR_HEADER
    assert _decoded(tr) == [(4, [-7])]


@njit(cache=True, _nrt=False)
def _reserved_writer_nb(tr, codes, lens, room):
    """_write_nb through ev_reserve_nb / ev_put_reserved_nb (``room`` values reserved each)."""
    for k in range(codes.shape[0]):
        h = ev_reserve_nb(tr, codes[k], room)
        for j in range(lens[k]):
            ev_put_reserved_nb(tr, h, 10 * k + j)
        ev_end_nb(tr, h)


@pytest.mark.parametrize("size", [0] + list(range(TR_HEADER, 60)))
def test_reserved_events_fit_whole_or_overflow_and_never_write_past_the_end(size):
    codes = np.arange(1, 11)
    lens = np.array([3, 0, 5, 2, 7, 1, 4, 0, 6, 2])
    room = 8
    sentinel = 123456789
    big = np.full(size + 64, sentinel, dtype=np.int64)
    tr = big[:size]
    if size:
        tr[:TR_HEADER] = (TR_HEADER, 0, 0)
    _reserved_writer_nb(tr, codes, lens, room)
    assert (big[size:] == sentinel).all()
    got = _decoded(tr)
    assert got == _expected(codes, lens)[: len(got)]      # the same records as ev_put_nb writes
    k = len(got)
    assert tr.shape[0] == 0 or tr[TR_POS] == TR_HEADER + int((lens[:k] + 2).sum())
    if k < len(codes) and size:
        # event k did not find room for ``room`` values: the flag is set, nothing written after
        assert tr[TR_OVF] == 1 and TR_HEADER + int((lens[:k] + 2).sum()) + 2 + room > size
