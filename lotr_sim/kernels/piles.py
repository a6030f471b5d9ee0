"""Shuffled piles: decks of cards or tiles held as an order array plus a position.

A pile is ``order[0:n_total]`` (card ids) and ``pos``: ``order[0:pos]`` have been drawn,
``order[pos:n_total]`` are still in the pile, ``order[pos]`` is the top card. ``pos`` and
``n_total`` are plain integers the engine keeps where it likes (usually two slots of its flat
state); the kernels take them as arguments and return the new values, so they work on a
slice of a state array or on an array of its own.

``shuffle_nb`` is the Fisher-Yates shuffle the Minas Tirith engine's ``setup_nb`` writes by
hand: for ``i = n-1 .. 1``, ``j = randint_nb(s, i + 1)``, swap ``i`` and ``j``. Exactly this
draw order, so an engine switching to it keeps its results bit for bit.

Discards are a second array ``disc[0:n_disc]``; ``reshuffle_discards_nb`` turns them into
the bottom of the pile (Risk's card deck, a tile bag refilled from the discards).

``redeal_range_nb`` sorts a pile before shuffling it: what the engines' determinizations
(hidden information for the search player) do to every pile a seat cannot see.

Every kernel is allocation-free and ``_nrt=False`` (callable from the engines' NRT-free
kernels); each takes its random stream ``s`` from outside.
"""
from __future__ import annotations

import numpy as np

from lotr_sim._numba.jit import njit
from lotr_sim.kernels.rng import make_stream, randint_nb


@njit(cache=True, _nrt=False)
def shuffle_range_nb(s, arr, lo, n):
    """Fisher-Yates shuffle of ``arr[lo : lo + n]`` in place (from the top: i = n-1 .. 1)."""
    for i in range(n - 1, 0, -1):
        j = randint_nb(s, i + 1)
        x = arr[lo + i]
        arr[lo + i] = arr[lo + j]
        arr[lo + j] = x


@njit(cache=True, _nrt=False)
def sort_range_nb(arr, lo, n):
    """Insertion sort of ``arr[lo : lo + n]`` in place (short piles, no allocation)."""
    for i in range(lo + 1, lo + n):
        x = arr[i]
        j = i - 1
        while j >= lo and arr[j] > x:
            arr[j + 1] = arr[j]
            j -= 1
        arr[j + 1] = x


@njit(cache=True, _nrt=False)
def redeal_range_nb(s, arr, lo, n):
    """Deal ``arr[lo : lo + n]`` again for a player who knows the pile's contents but not its
    order (the search playouts' determinization): sorted, then shuffled from stream ``s``, so
    the new order depends on the contents and the stream only, never on the hidden order."""
    sort_range_nb(arr, lo, n)
    shuffle_range_nb(s, arr, lo, n)


@njit(cache=True, _nrt=False)
def shuffle_nb(s, arr, n):
    """Fisher-Yates shuffle of ``arr[0:n]`` in place; ``n - 1`` draws ``randint_nb(s, i + 1)``."""
    shuffle_range_nb(s, arr, 0, n)


@njit(cache=True, _nrt=False)
def deck_init_nb(order, n, s):
    """``order[0:n] = 0 .. n-1``, shuffled with ``shuffle_nb``. Returns the new ``pos`` (0)."""
    for i in range(n):
        order[i] = i
    shuffle_range_nb(s, order, 0, n)
    return 0


@njit(cache=True, _nrt=False)
def remaining_nb(pos, n_total):
    """Cards left in the pile."""
    r = n_total - pos
    return r if r > 0 else 0


@njit(cache=True, _nrt=False)
def draw_nb(order, pos, n_total):
    """The top card and the new position: ``(order[pos], pos + 1)``, or ``(-1, pos)`` when
    the pile is empty."""
    if pos >= n_total:
        return -1, pos
    return order[pos], pos + 1


@njit(cache=True, _nrt=False)
def draw_many_nb(order, pos, n_total, k, out):
    """Draw up to ``k`` cards into ``out[0:]``; returns ``(drawn, new pos)``."""
    d = 0
    while d < k and pos < n_total:
        out[d] = order[pos]
        pos += 1
        d += 1
    return d, pos


@njit(cache=True, _nrt=False)
def discard_nb(disc, n_disc, card):
    """Put ``card`` on the discard pile ``disc``; returns the new discard count."""
    disc[n_disc] = card
    return n_disc + 1


@njit(cache=True, _nrt=False)
def reshuffle_discards_nb(s, order, pos, n_total, disc, n_disc, shuffle_all):
    """Shuffle the discards back into the pile. Returns ``(new pos, new n_total, new n_disc)``
    = ``(0, left + n_disc, 0)``.

    The cards still in the pile (``left = n_total - pos``) move to ``order[0:left]`` in their
    order, the discards follow in ``order[left:left + n_disc]`` and are shuffled
    (``shuffle_range_nb``, ``n_disc - 1`` draws). With ``shuffle_all`` the whole new pile is
    shuffled instead (``left + n_disc - 1`` draws). ``order`` must hold ``left + n_disc``
    cards (the engine sizes it for every card of the game).
    """
    left = n_total - pos
    if left < 0:
        left = 0
    for i in range(left):
        order[i] = order[pos + i]
    for i in range(n_disc):
        order[left + i] = disc[i]
    total = left + n_disc
    if shuffle_all:
        shuffle_range_nb(s, order, 0, total)
    else:
        shuffle_range_nb(s, order, left, n_disc)
    return 0, total, 0


# --- Python wrappers -------------------------------------------------------------------
def shuffled(seed: int, index: int, n: int) -> np.ndarray:
    """The permutation of ``0 .. n-1`` that ``deck_init_nb`` deals with stream (seed, index)."""
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    s = make_stream(seed, index)
    order = np.empty(n, dtype=np.int64)
    deck_init_nb(order, np.int64(n), s)
    return order
