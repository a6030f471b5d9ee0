"""Layout: the builder that replaces the engines' hand-counted ``_o += n`` offsets."""
import numpy as np
import pytest
from numba import njit

from lotr_sim.kernels.layout import Layout

MAXT, MAXU = 5, 3

L = Layout("test-state")
S_TURN = L.scalar("turn")
S_SIDE = L.scalar("side")
O_UNITS = L.array("units", MAXT * MAXU)
O_POOL = L.array("pool", MAXU)
L.freeze()
ST_SIZE = L.size


def test_offsets_count_like_the_hand_written_idiom():
    _o = 0
    s_turn = _o; _o += 1
    s_side = _o; _o += 1
    o_units = _o; _o += MAXT * MAXU
    o_pool = _o; _o += MAXU
    assert (S_TURN, S_SIDE, O_UNITS, O_POOL, ST_SIZE) == (s_turn, s_side, o_units, o_pool, _o)
    assert L.units == L["units"] == O_UNITS and L.turn == 0
    assert all(type(v) is int for v in (S_TURN, O_UNITS, ST_SIZE, L.pool))


def test_start_and_pad_to():
    M = Layout("m", start=64)
    assert M.array("a", 4) == 64
    M.pad_to(80)
    assert M.scalar("b") == 80
    assert M.freeze().size == 81
    with pytest.raises(ValueError):
        Layout("y", start=-1)
    N = Layout("n"); N.array("a", 3)
    with pytest.raises(ValueError, match="below"):
        N.pad_to(2)


def test_duplicates_bad_names_and_frozen_refused():
    M = Layout("m")
    M.scalar("a")
    with pytest.raises(ValueError, match="duplicate field 'a'"):
        M.array("a", 3)
    for bad in ("size", "view", "_x", "1x", "a-b"):
        with pytest.raises(ValueError):
            M.scalar(bad)
    for bad_len in (-1, 2.5, True):
        with pytest.raises(ValueError):
            M.array("z", bad_len)
    with pytest.raises(ValueError, match="freeze"):
        _ = M.size
    M.freeze()
    with pytest.raises(ValueError, match="frozen"):
        M.scalar("b")
    with pytest.raises(KeyError):
        M["nope"]
    with pytest.raises(AttributeError):
        _ = M.nope


def test_describe_and_view():
    assert L.describe() == [("turn", 0, 1), ("side", 1, 1), ("units", 2, 15), ("pool", 17, 3)]
    st = np.arange(ST_SIZE)
    v = L.view(st, "pool")
    assert v.tolist() == [17, 18, 19]
    v[0] = -1                                       # a view: writes go to the state
    assert st[O_POOL] == -1
    assert L.view(st, "units").reshape(MAXT, MAXU)[1, 2] == O_UNITS + 1 * MAXU + 2
    with pytest.raises(ValueError, match="too short"):
        L.view(st[:5], "pool")
    assert "units" in L and len(L) == 4 and "size=20" in repr(L)


@njit(cache=True)
def _pool_total_nb(st):
    t = 0
    for u in range(MAXU):
        t += st[O_POOL + u]
    return t + st[S_TURN]


def test_offsets_are_numba_global_constants():
    st = np.zeros(ST_SIZE, dtype=np.int64)
    L.view(st, "pool")[:] = (1, 2, 3)
    st[S_TURN] = 10
    assert _pool_total_nb(st) == 16
