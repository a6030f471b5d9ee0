"""The learned player's term, shared by every game that has one: a game's policy row carries
``n`` learned weights from slot ``lo`` on (its ``PL_LF0``, ``NLF``), one per feature of an
action row (the game's ``policies.row_features_nb``, a tuple of ``n`` floats)."""
from __future__ import annotations

from lotr_sim._numba.dispatch import no_literal_dispatch
from lotr_sim._numba.jit import njit


@njit(cache=True, _nrt=False)
def weights_on_nb(pol, side, lo, n):
    """Does ``side``'s row carry learned weights (any of ``pol[side, lo:lo + n]`` not 0)?"""
    for k in range(n):
        if pol[side, lo + k] != 0.0:
            return True
    return False


@njit(cache=True, _nrt=False)
def weighted_nb(pol, side, lo, f):
    """The learned term: the features ``f`` weighted by ``pol[side, lo:lo + len(f)]``."""
    v = 0.0
    for k in range(len(f)):
        v += pol[side, lo + k] * f[k]
    return v


no_literal_dispatch(globals())
