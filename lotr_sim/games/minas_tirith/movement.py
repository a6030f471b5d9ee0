"""Minas Tirith movement: units, leaders and card placements on the board (MT-6.2, MT-9).

Rules: moving units across a border (MT-6.2 a-c, who may cross: board.cross_ok_nb, MT-6.3
to MT-6.6), breaking the gate (MT-6.5, MT-9.3), a leader moving alone (MT-6.2 d, MT-8.3),
placing a holder card's units and leader (MT-6.2 e-g, MT-9.5), a leader card (MT-9.6), a
catapult (MT-9.4), units from the pool (muster MT-9.7, bonus trade MT-5.4 c), the MT-6.2 h
creature exchange, and discarding a played card. The mission menu that calls these is in
actions.py; combat.py uses ``move_units_nb`` for retreats and taking ground (MT-7.5/7.6).

Documented simplifications:

* A leader moving alone (MT-6.2 d) ends in a territory holding own troops; leaders follow
  a move only when it empties their territory; the free cavalry move-in (MT-7.6) moves all
  surviving attacking cavalry, without leaders.
* Evil with Grond may also *move* across the gate into an empty city; the first crossing,
  move or assault, breaks the gate. Evil may climb down a climb edge with a siege card.
* MT-6.2 h exchanges the most valuable Evil creature type (the mumak in the default config)
  for up to 3 infantry from the pool.
"""
from __future__ import annotations


from lotr_sim.games.minas_tirith.config import (
    C_NL, C_NU, MAXT, MAXU, O_CKIND, O_CLEAD, O_EK, O_LORD, O_LSIDE, O_NTS, O_UARCH, O_UCLS,
)
from lotr_sim.games.minas_tirith.layout import (
    EVIL, EV_EXCHANGE, EV_GATE, EV_MOVE, EV_PLACE, EV_PLAYED, O_CLOC, O_CST, O_FIRED, O_HOLD, O_LLOC,
    O_POOL, O_SCB, O_UNITS, S_GATE,
)
from lotr_sim.games.minas_tirith.events import event_nb
from lotr_sim._numba.jit import njit
from lotr_sim.kernels.tracebuf import ev_end_nb, ev_put_reserved_nb
from lotr_sim.games.minas_tirith.board import cross_ok_nb, side_units_nb


@njit(cache=True, _nrt=False)
def carry_fired_nb(st, a, b, narch):
    """``narch`` archers move from ``a`` to ``b`` (a move or a retreat step): MT-6.1 / MT-7.2,
    an archer fires once per turn, so those that fired carry that with them (as many as moved,
    at most the fired count of ``a``)."""
    fired = st[O_FIRED + a]
    if narch < fired:
        fired = narch
    st[O_FIRED + a] -= fired
    st[O_FIRED + b] += fired


@njit(cache=True, _nrt=False)
def move_units_nb(cf, st, tr, side, a, via, b, k, cav_only, cost):
    """Move k eligible units a -> b (via for the cavalry double move, MT-6.2 c), cheapest
    types first; leaders follow when a is left without combat units (MT-8.3)."""
    vec = O_SCB
    for u in range(MAXU):
        st[vec + u] = 0
    left = k
    nts = cf[O_NTS + side]
    for j in range(nts):
        u = cf[O_LORD + side * MAXU + j]
        cls = cf[O_UCLS + u]
        if cav_only and cls != 1:
            continue
        ok = cross_ok_nb(cf, st, side, cls, a, via if via >= 0 else b)
        if via >= 0:
            ok = ok and cross_ok_nb(cf, st, side, cls, via, b)
        if not ok:
            continue
        m = st[O_UNITS + a * MAXU + u]
        if m > left:
            m = left
        st[vec + u] = m
        left -= m
        if left == 0:
            break
    moved = k - left
    narch = 0
    for u in range(MAXU):
        st[O_UNITS + a * MAXU + u] -= st[vec + u]
        st[O_UNITS + b * MAXU + u] += st[vec + u]
        if u < cf[C_NU] and cf[O_UARCH + u] == 1:
            narch += st[vec + u]
    carry_fired_nb(st, a, b, narch)
    lm = 0
    if side_units_nb(cf, st, a, side) == 0:
        for l in range(cf[C_NL]):
            if st[O_LLOC + l] == a and cf[O_LSIDE + l] == side:
                st[O_LLOC + l] = b
                lm |= 1 << l
    h = event_nb(st, tr, EV_MOVE)
    ev_put_reserved_nb(tr, h, a)
    ev_put_reserved_nb(tr, h, b)
    ev_put_reserved_nb(tr, h, via)
    ev_put_reserved_nb(tr, h, cost)
    for u in range(cf[C_NU]):
        ev_put_reserved_nb(tr, h, st[vec + u])
    ev_put_reserved_nb(tr, h, lm)
    ev_end_nb(tr, h)
    # MT-9.3: Evil crossing the gate with Grond breaks it
    if side == EVIL and st[S_GATE] == 0 and moved > 0:
        if cf[O_EK + a * MAXT + b] == 3 or (via >= 0 and (cf[O_EK + a * MAXT + via] == 3 or cf[O_EK + via * MAXT + b] == 3)):
            break_gate_nb(cf, st, tr)
    return moved


@njit(cache=True, _nrt=False)
def break_gate_nb(cf, st, tr):
    st[S_GATE] = 1
    h = event_nb(st, tr, EV_GATE)
    ev_end_nb(tr, h)


@njit(cache=True, _nrt=False)
def move_leader_nb(cf, st, tr, l, b):
    a = st[O_LLOC + l]
    st[O_LLOC + l] = b
    h = event_nb(st, tr, EV_MOVE)
    ev_put_reserved_nb(tr, h, a)
    ev_put_reserved_nb(tr, h, b)
    ev_put_reserved_nb(tr, h, -1)
    ev_put_reserved_nb(tr, h, 1)
    for u in range(cf[C_NU]):
        ev_put_reserved_nb(tr, h, 0)
    ev_put_reserved_nb(tr, h, 1 << l)
    ev_end_nb(tr, h)


@njit(cache=True, _nrt=False)
def card_played_nb(cf, st, tr, c, discard, t):
    h = event_nb(st, tr, EV_PLAYED)
    ev_put_reserved_nb(tr, h, c)
    ev_put_reserved_nb(tr, h, cf[O_CKIND + c])
    ev_put_reserved_nb(tr, h, t)
    ev_end_nb(tr, h)
    if discard:
        st[O_CST + c] = 3


@njit(cache=True, _nrt=False)
def place_holder_nb(cf, st, tr, side, c, t):
    """MT-6.2 e-g / MT-9.5: a holder card's units (and leader) enter at t; card discarded."""
    card_played_nb(cf, st, tr, c, True, -1)
    lm = 0
    l = cf[O_CLEAD + c]
    if l >= 0 and st[O_LLOC + l] == -3:
        st[O_LLOC + l] = t
        lm = 1 << l
    h = event_nb(st, tr, EV_PLACE)
    ev_put_reserved_nb(tr, h, t)
    ev_put_reserved_nb(tr, h, c)
    for u in range(cf[C_NU]):
        v = st[O_HOLD + c * MAXU + u]
        ev_put_reserved_nb(tr, h, v)
        st[O_UNITS + t * MAXU + u] += v
        st[O_HOLD + c * MAXU + u] = 0
    ev_put_reserved_nb(tr, h, lm)
    ev_end_nb(tr, h)


@njit(cache=True, _nrt=False)
def place_pool_nb(cf, st, tr, t, u, n, src):
    """Units from the pool to t (bonus trade MT-5.4 c, Muster MT-9.7)."""
    if n > st[O_POOL + u]:
        n = st[O_POOL + u]
    if n <= 0:
        return 0
    st[O_POOL + u] -= n
    st[O_UNITS + t * MAXU + u] += n
    h = event_nb(st, tr, EV_PLACE)
    ev_put_reserved_nb(tr, h, t)
    ev_put_reserved_nb(tr, h, src)
    for v in range(cf[C_NU]):
        ev_put_reserved_nb(tr, h, n if v == u else 0)
    ev_put_reserved_nb(tr, h, 0)
    ev_end_nb(tr, h)
    return n


@njit(cache=True, _nrt=False)
def place_leader_card_nb(cf, st, tr, c, t):
    """MT-9.6: the card's leader joins an own force at t."""
    card_played_nb(cf, st, tr, c, True, -1)
    l = cf[O_CLEAD + c]
    if l >= 0 and st[O_LLOC + l] == -3:
        st[O_LLOC + l] = t
        h = event_nb(st, tr, EV_PLACE)
        ev_put_reserved_nb(tr, h, t)
        ev_put_reserved_nb(tr, h, c)
        for u in range(cf[C_NU]):
            ev_put_reserved_nb(tr, h, 0)
        ev_put_reserved_nb(tr, h, 1 << l)
        ev_end_nb(tr, h)


@njit(cache=True, _nrt=False)
def place_catapult_nb(cf, st, tr, side, c, t):
    """MT-9.4: the catapult becomes a shooter at t."""
    card_played_nb(cf, st, tr, c, False, t)
    st[O_CST + c] = 4 + side
    st[O_CLOC + c] = t


@njit(cache=True, _nrt=False)
def exchange_nb(cf, st, tr, t):
    """MT-6.2 h: one mumak at t for 3 infantry from the pool (mumak = Evil creature that is
    not the first creature type; the exchanged creature is the config's last Evil creature)."""
    mu = -1
    inf = -1
    for j in range(cf[O_NTS + EVIL]):
        u = cf[O_LORD + EVIL * MAXU + j]
        if cf[O_UCLS + u] == 2:
            mu = u  # the most valuable creature type last in loss order
        if cf[O_UCLS + u] == 0 and cf[O_UARCH + u] == 0 and inf < 0:
            inf = u
    if mu < 0 or inf < 0 or st[O_UNITS + t * MAXU + mu] == 0:
        return
    n = st[O_POOL + inf]
    if n > 3:
        n = 3
    st[O_UNITS + t * MAXU + mu] -= 1
    st[O_POOL + mu] += 1
    st[O_UNITS + t * MAXU + inf] += n
    st[O_POOL + inf] -= n
    h = event_nb(st, tr, EV_EXCHANGE)
    ev_put_reserved_nb(tr, h, t)
    ev_put_reserved_nb(tr, h, mu)
    ev_put_reserved_nb(tr, h, 1)
    ev_put_reserved_nb(tr, h, inf)
    ev_put_reserved_nb(tr, h, n)
    ev_end_nb(tr, h)


# Each helper compiles once, whatever constants its callers pass (see lotr_sim/_numba/dispatch.py).
from lotr_sim._numba.dispatch import no_literal_dispatch  # noqa: E402

no_literal_dispatch(globals())
