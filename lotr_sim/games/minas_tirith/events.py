"""Minas Tirith trace output: the event log and the dice-face stream helpers.

Rules: none of their own; these helpers record what the rule modules do. Events go to the
trace buffer ``tr`` through the shared writer lotr_sim.kernels.tracebuf, as in the other
games (its header, overflow and record layout; length 0: no trace, every call returns at
once): ``event_nb`` starts one (codes ``EV_*`` in layout.py) with its round, turn and side,
reserving ``EV_ROOM`` words, tracebuf's ``ev_put_reserved_nb`` / ``ev_end_nb`` add its values
and close it (unchecked writes: ~150 call sites, a checked put at each made the first compile
~5 s slower); ``snapshot_nb`` writes the
whole position (units MT-1, leaders MT-8, cards MT-3/MT-9, gate MT-6.5) so that
lotr_sim.games.minas_tirith.trace can replay a game snapshot to snapshot. The ``_stream_*``
helpers and ``_put_assault_faces_nb`` log the faces of the combat dice (MT-3.3, MT-7.4)
without changing the draws (see the comment above ``STREAM_SIZE``).
"""
from __future__ import annotations


from lotr_sim.kernels.combat import _dice5_nb, dice_each_nb
from lotr_sim._numba.jit import njit
from lotr_sim.kernels.rng import STATE_SIZE
from lotr_sim.kernels.tracebuf import ev_end_nb, ev_put_reserved_nb, ev_reserve_nb
from lotr_sim.games.minas_tirith.config import C_NC, C_ND, C_NL, C_NU, C_T, MAXU
from lotr_sim.games.minas_tirith.layout import (
    EV_DECISION, HMAX, O_CAPT, O_CLOC, O_CST, O_HAND, O_HOLD, O_LLOC, O_POOL, O_UNITS, S_DTOP, S_GATE, S_HN,
    S_MTTOP, S_PHASE, S_ROUND, S_SIDE, S_TURN,
)

# room reserved for each event: more than the largest (a snapshot: ~1,200 words at the maxima)
EV_ROOM = 4096


@njit(cache=True, _nrt=False)
def event_nb(st, tr, code):
    """Start event ``code`` in the trace buffer ``tr`` (lotr_sim.kernels.tracebuf) with the
    fields every Minas Tirith event begins with: round, turn and side (whose turn). Returns its
    handle for ``ev_put_reserved_nb`` / ``ev_end_nb``, or -1 without a trace (length 0) or
    when fewer than ``EV_ROOM`` words are left (the overflow flag: the game is played again
    with a larger buffer)."""
    h = ev_reserve_nb(tr, code, EV_ROOM)
    if h >= 0:
        ev_put_reserved_nb(tr, h, st[S_ROUND])
        ev_put_reserved_nb(tr, h, st[S_TURN])
        ev_put_reserved_nb(tr, h, st[S_SIDE])
    return h


@njit(cache=True, _nrt=False)
def snapshot_nb(cf, st, tr, h):
    if h < 0:
        return
    T = cf[C_T]
    NU = cf[C_NU]
    for t in range(T):
        for u in range(NU):
            ev_put_reserved_nb(tr, h, st[O_UNITS + t * MAXU + u])
    for u in range(NU):
        ev_put_reserved_nb(tr, h, st[O_POOL + u])
    for u in range(NU):
        ev_put_reserved_nb(tr, h, st[O_CAPT + u])
    for l in range(cf[C_NL]):
        ev_put_reserved_nb(tr, h, st[O_LLOC + l])
    for c in range(cf[C_NC]):
        ev_put_reserved_nb(tr, h, st[O_CST + c])
        ev_put_reserved_nb(tr, h, st[O_CLOC + c])
        for u in range(NU):
            ev_put_reserved_nb(tr, h, st[O_HOLD + c * MAXU + u])
    ev_put_reserved_nb(tr, h, st[S_GATE])
    ev_put_reserved_nb(tr, h, cf[C_ND] - st[S_DTOP])
    ev_put_reserved_nb(tr, h, cf[C_NC] - st[S_MTTOP])
    # trace_version 3: each side's reinforcement-card hand (MT-5.1: face up), in hand order
    for side in range(2):
        ev_put_reserved_nb(tr, h, st[S_HN + side])
        for i in range(st[S_HN + side]):
            ev_put_reserved_nb(tr, h, st[O_HAND + side * HMAX + i])


@njit(cache=True, _nrt=False)
def decision_nb(st, tr, seat, act, i, n):
    """Log one decision of the step machine before it is applied: the seat that
    takes it, the phase (the decision's kind), the index chosen, the number of legal rows and
    the chosen row. Returns at once without a trace."""
    h = event_nb(st, tr, EV_DECISION)
    if h < 0:
        return
    ev_put_reserved_nb(tr, h, seat)
    ev_put_reserved_nb(tr, h, st[S_PHASE])
    ev_put_reserved_nb(tr, h, i)
    ev_put_reserved_nb(tr, h, n)
    for k in range(act.shape[1]):
        ev_put_reserved_nb(tr, h, act[i, k])
    ev_end_nb(tr, h)


# ---- dice faces for the trace ----------------------------------------------------------
# The engine's results always come from the kernels' rolls (lotr_sim.kernels.combat). To log
# the faces, a traced game's stream array has room for two more copies of the state
# (STREAM_SIZE): the state before a roll is saved, and after the roll the same draws are
# made again from it and written to the trace; then the state after the roll is put back.
# Games without a trace (tr of length 0) skip all of this.
STREAM_SIZE = 3 * STATE_SIZE


@njit(cache=True, _nrt=False)
def _stream_save_nb(s, tr):
    """Save the stream before a roll (only when tracing and ``s`` has room); True if saved."""
    if tr.shape[0] == 0 or s.shape[0] < STREAM_SIZE:
        return False
    for i in range(STATE_SIZE):
        s[STATE_SIZE + i] = s[i]
    return True


@njit(cache=True, _nrt=False)
def _stream_swap_nb(s):
    """Keep the state after the roll in the third slot and go back to the saved one."""
    for i in range(STATE_SIZE):
        s[2 * STATE_SIZE + i] = s[i]
        s[i] = s[STATE_SIZE + i]


@njit(cache=True, _nrt=False)
def _stream_restore_nb(s):
    for i in range(STATE_SIZE):
        s[i] = s[2 * STATE_SIZE + i]


@njit(cache=True, _nrt=False)
def _put_assault_faces_nb(st, tr, h, s, saved, ad, dd, modified):
    """Both sides' faces of the roll just made, in the order drawn: [n_att, faces.., n_def,
    faces..] (n_att = -1 when not available). The kernel's roll (assault_roll_nb) takes all
    five faces from one draw (_dice5_nb) and drops the unused ones; the modified6 roll
    (_modified_roll_nb) draws one d6 per die rolled."""
    if h < 0:
        return
    if not saved:
        ev_put_reserved_nb(tr, h, -1)
        return
    _stream_swap_nb(s)
    if modified:
        a1, a2, a3, d1, d2 = dice_each_nb(s, ad, dd)
    else:
        a1, a2, a3, d1, d2 = _dice5_nb(s)
    _stream_restore_nb(s)
    ev_put_reserved_nb(tr, h, ad)
    ev_put_reserved_nb(tr, h, a1)
    if ad >= 2:
        ev_put_reserved_nb(tr, h, a2)
    if ad >= 3:
        ev_put_reserved_nb(tr, h, a3)
    ev_put_reserved_nb(tr, h, dd)
    ev_put_reserved_nb(tr, h, d1)
    if dd >= 2:
        ev_put_reserved_nb(tr, h, d2)


# Each helper compiles once, whatever constants its callers pass (see lotr_sim/_numba/dispatch.py).
from lotr_sim._numba.dispatch import no_literal_dispatch  # noqa: E402

no_literal_dispatch(globals())
