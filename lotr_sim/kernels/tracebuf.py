"""A trace event writer for any engine: variable-length records in one int64 buffer.

A game played for its trace (``Game.play``) writes events as it goes; the batch runs pass
an empty buffer (length 0) and every call is then a cheap no-op. Layout of the buffer::

    tr[0]  write position (0 in a fresh np.zeros buffer means "just after the header")
    tr[1]  overflow flag: an event did not fit; nothing more is written
    tr[2]  number of complete events
    tr[3:] records: [length, code, value, value, ...], length counting itself and the code

Writing an event::

    h = ev_begin_nb(tr, EV_MOVE)   # -1: no trace, or full
    ev_put_nb(tr, h, a)
    ev_put_nb(tr, h, b)
    ev_end_nb(tr, h)

An engine with many call sites may reserve room for a whole event instead (less code at
each of them, so a faster first compile), then write its values unchecked::

    h = ev_reserve_nb(tr, EV_MOVE, 4096)   # -1 unless 4096 values would fit
    ev_put_reserved_nb(tr, h, a)
    ev_end_nb(tr, h)

An event that does not fit is dropped whole (the write position goes back to its start)
and the overflow flag is set; the buffer never gets a write past its end and holds only
complete events, so a caller can retry with a larger buffer. Events do not nest.
``iter_events`` decodes the records on the Python side.

The kernels never allocate (``_nrt=False``), so NRT-free engine kernels can call them.
"""
from __future__ import annotations

from typing import Iterator

import numpy as np

from lotr_sim._numba.jit import njit

TR_POS, TR_OVF, TR_COUNT = 0, 1, 2
TR_HEADER = 3


@njit(cache=True, _nrt=False)
def ev_begin_nb(tr, code):
    """Start an event; returns its handle, or -1 when there is no trace (a buffer shorter
    than the header, normally length 0) or it is full."""
    n = tr.shape[0]
    if n < TR_HEADER or tr[TR_OVF] != 0:   # length 0: no trace
        return -1
    pos = tr[TR_POS]
    if pos < TR_HEADER:
        pos = TR_HEADER
    if pos + 2 > n:
        tr[TR_OVF] = 1
        return -1
    tr[pos] = 0
    tr[pos + 1] = code
    tr[TR_POS] = pos + 2
    return pos


@njit(cache=True, _nrt=False)
def ev_put_nb(tr, h, v):
    """Append value ``v`` to event ``h`` (no-op for ``h < 0``)."""
    if h < 0 or tr[TR_OVF] != 0:
        return
    pos = tr[TR_POS]
    if pos >= tr.shape[0]:
        tr[TR_OVF] = 1
        return
    tr[pos] = v
    tr[TR_POS] = pos + 1


@njit(cache=True, _nrt=False)
def ev_reserve_nb(tr, code, room):
    """``ev_begin_nb`` for an event of at most ``room`` values: -1 (and, for lack of room, the
    overflow flag) unless they all fit, so that ``ev_put_reserved_nb`` may write them."""
    h = ev_begin_nb(tr, code)
    if h >= 0 and h + 2 + room > tr.shape[0]:
        tr[TR_POS] = h
        tr[TR_OVF] = 1
        return -1
    return h


@njit(cache=True, _nrt=False)
def ev_put_reserved_nb(tr, h, v):
    """Append value ``v`` to event ``h`` from ``ev_reserve_nb`` (no-op for ``h < 0``), without
    ``ev_put_nb``'s check of the room: the caller writes no more values than it reserved."""
    if h >= 0:
        pos = tr[TR_POS]
        tr[pos] = v
        tr[TR_POS] = pos + 1


@njit(cache=True, _nrt=False)
def ev_end_nb(tr, h):
    """Close event ``h``: write its length and count it, or drop it if it overflowed."""
    if h < 0:
        return
    if tr[TR_OVF] != 0:
        tr[TR_POS] = h
        return
    tr[h] = tr[TR_POS] - h
    tr[TR_COUNT] += 1


@njit(cache=True, _nrt=False)
def trace_reset_nb(tr):
    """Empty the buffer (header only)."""
    if tr.shape[0] >= TR_HEADER:
        tr[TR_POS] = TR_HEADER
        tr[TR_OVF] = 0
        tr[TR_COUNT] = 0


# --- Python side -----------------------------------------------------------------------
def new_trace(size: int) -> np.ndarray:
    """A buffer of ``size`` slots (header included; 0 gives the no-trace buffer)."""
    if size != 0 and size < TR_HEADER:
        raise ValueError(f"a trace buffer needs at least {TR_HEADER} slots, got {size}")
    tr = np.zeros(size, dtype=np.int64)
    if size:
        tr[TR_POS] = TR_HEADER
    return tr


def overflowed(tr: np.ndarray) -> bool:
    return bool(tr.shape[0] > 0 and tr[TR_OVF] != 0)


def iter_events(tr: np.ndarray) -> Iterator[tuple[int, np.ndarray]]:
    """``(code, values)`` of every complete event, in order (``values`` are views of ``tr``).
    Raises ValueError on a corrupt buffer (a record running past the write position)."""
    if tr.shape[0] < TR_HEADER:
        return
    end = max(int(tr[TR_POS]), TR_HEADER)
    pos = TR_HEADER
    seen = 0
    while pos < end:
        length = int(tr[pos])
        if length < 2 or pos + length > end:
            raise ValueError(f"corrupt trace: record at {pos} has length {length} (write position {end})")
        yield int(tr[pos + 1]), tr[pos + 2: pos + length]
        pos += length
        seen += 1
    if seen != int(tr[TR_COUNT]):
        raise ValueError(f"corrupt trace: {seen} records but the header counts {int(tr[TR_COUNT])}")
