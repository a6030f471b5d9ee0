"""Minas Tirith combat: losses, captures, leaders removed, retreat, assault, bombardment.

Rules: losses and captures (MT-1.4, creature strength MT-1.5, ``take_losses_nb``), leaders
left without units (MT-8.4, ``leaders_last_unit_nb``, ``remove_leader_nb``), catapults lost
(MT-9.4, ``catapults_check_nb``), the assault (MT-7.3 who may attack, MT-7.4 resolution,
MT-8.2 modifiers: ``assault_bonus_nb`` and its cached twin ``bonus_fast_nb``, siege cards and
Grond MT-9.1/9.3), retreat (MT-7.5, ``retreat_nb``), taking ground (MT-7.6) and bombardment
(MT-6.1, MT-7.2: ``shooters_nb``, ``bombard_action_nb``). The dice come from
lotr_sim.kernels.combat; their faces are logged by events.py.

Documented simplifications:

* Losses are decisions of the step machine, one per hit (``loss_options_nb``, ``lose_one_nb``,
  ``next_loss_nb``): bombardment (MT-7.2) by the owner, or by the shooter under
  ``bombard_loss_choice = shooter``; assault (MT-7.4) by the attacker among the units that
  attacked, then by the defender. The built-in players (random too) take the cheapest units
  first (by points, archers after plain units, creatures last), the shooter the dearest:
  ``take_losses_nb``'s order, which hand-made positions (position.py) still use. With
  ``creature_hits > 1`` the damage on a territory's creatures is a counter reset every turn.
* Retreat (MT-7.5): where each step goes is a decision of the step machine, by the
  retreating side (PH_RETREAT: ``retreat_nb``, ``retreat_go_nb``, ``retreat_options_nb``,
  then ``assault_resume_nb`` finishes the assault); a step with a single legal destination
  is taken without a decision. The built-in players choose as the engine did before: the
  territory holding most own units (first neighbour of equals); the random player draws
  one uniform number per destination (also for a single one) and takes the highest.
  Still narrowed: the force moves as one (each step must be passable for every unit type in
  it, no split), the losses of blocked steps are taken cheapest first (``take_losses_nb``,
  not a decision), and of the attacking leaders only the bonus giver goes with a retreating
  attack (defending leaders all go). As in lotr_sim.kernels.combat: Good's 6 wins when both triggers fire in one roll,
  and a side wiped out by the roll's losses (or facing a wiped-out side) does not retreat;
  but a Good defending 6 (or the Witch-king's 6 against a Good attack) ends the attacker's
  turn even when the whole attacking force died.
* Bombardment (MT-6.1, MT-7.2): a territory's count of archers that fired this turn moves
  with its archers (those that fired move or retreat first), so no archer fires twice in a
  turn; an archer lost in combat is one that fired while there is one (the owner keeps the
  archers that may still shoot), so the count never exceeds the archers there and archers
  that arrive later in the turn keep their shot.
"""
from __future__ import annotations


from lotr_sim.kernels.combat import assault_roll_nb, bombard_dice_nb, bombard_nb, dice_each_nb
from lotr_sim._numba.jit import njit
from lotr_sim.kernels.rng import d6_nb, randint_nb, uniform_nb
from lotr_sim.games.minas_tirith.config import (
    C_NC, C_NL, C_NU, MAXDEG, MAXT, MAXU, O_BANNER, O_CRANGE, O_DEVIL, O_DGOOD, O_DIST, O_EK, O_LORD,
    O_LSIDE, O_NB, O_NBN, O_NTS, O_TKIND, O_UARCH, O_UCLS, O_USIDE, P_BANNER_BONUS, P_BLOCKED, P_BOMB_LOSS,
    P_CREATURE_HITS, P_EVIL_DIV, P_LEADER_BONUS, P_LEADER_LAST, P_RETREAT, P_RETREAT_WIPED, P_SIEGE_BONUS,
)
from lotr_sim.games.minas_tirith.layout import (
    A_LOSE, A_RETREAT, EVIL, EV_ASSAULT, EV_BOMBARD, EV_CAPTURE, EV_CATLOST, EV_LREMOVED, EV_RETREAT, GOOD, K_SIEGE, O_CAPT,
    O_CFIRED, O_CLOC, O_CST, O_DEC, O_DMG, O_FIRED, O_LAT, O_LLOC, O_PATH, O_SCA, O_SCB, O_UNITS, O_WKAT,
    PH_ACT, PH_ALOSS, PH_DLOSS, PH_LOSS, PH_RETREAT, PL_TYPE, S_AS_A, S_AS_A6, S_AS_AB, S_AS_B, S_AS_D6,
    S_AS_LD, S_AS_SIDE, S_AS_WK, S_GATE, S_LCAP, S_LOSS_N, S_LOSS_SEAT, S_LOSS_SIDE, S_LOSS_T, S_PHASE,
    S_RT_A, S_RT_CUR, S_RT_K, S_RT_LMASK, S_RT_NP, S_RT_SIDE, S_RT_STEPS, S_RT_VEC, S_TURNEND,
)
from lotr_sim.games.minas_tirith.events import (
    _put_assault_faces_nb, _stream_restore_nb, _stream_save_nb, _stream_swap_nb, event_nb,
)
from lotr_sim.kernels.tracebuf import ev_end_nb, ev_put_reserved_nb
from lotr_sim.games.minas_tirith.board import (
    check_win_nb, cross_ok_nb, holds_nb, leader_mask_at_nb, leaders_at_nb, side_units_nb, wk_at_nb,
)
from lotr_sim.games.minas_tirith.movement import break_gate_nb, carry_fired_nb, move_units_nb


@njit(cache=True, _nrt=False)
def capture_unit_nb(cf, st, tr, t, u):
    """A unit lost in combat goes to the opponent (MT-1.4). A lost archer is one that fired
    this turn while there is one (MT-6.1: the owner keeps those that may still shoot)."""
    st[O_UNITS + t * MAXU + u] -= 1
    if cf[O_UARCH + u] == 1 and st[O_FIRED + t] > 0:
        st[O_FIRED + t] -= 1
    st[O_CAPT + u] += 1
    h = event_nb(st, tr, EV_CAPTURE)
    ev_put_reserved_nb(tr, h, 1 - cf[O_USIDE + u])
    ev_put_reserved_nb(tr, h, t)
    ev_put_reserved_nb(tr, h, u)
    ev_put_reserved_nb(tr, h, -1)
    ev_end_nb(tr, h)


@njit(cache=True, _nrt=False)
def capture_leader_nb(cf, st, tr, l, t):
    side = cf[O_LSIDE + l]
    st[O_LLOC + l] = -2
    st[S_LCAP + 1 - side] += 1
    h = event_nb(st, tr, EV_CAPTURE)
    ev_put_reserved_nb(tr, h, 1 - side)
    ev_put_reserved_nb(tr, h, t)
    ev_put_reserved_nb(tr, h, -1)
    ev_put_reserved_nb(tr, h, l)
    ev_end_nb(tr, h)


@njit(cache=True, _nrt=False)
def remove_leader_nb(cf, st, tr, l, why, to_captured):
    t = st[O_LLOC + l]
    h = event_nb(st, tr, EV_LREMOVED)
    ev_put_reserved_nb(tr, h, l)
    ev_put_reserved_nb(tr, h, t)
    ev_put_reserved_nb(tr, h, why)
    ev_put_reserved_nb(tr, h, to_captured)
    ev_end_nb(tr, h)
    if to_captured == 1:
        st[O_LLOC + l] = -2
        st[S_LCAP + 1 - cf[O_LSIDE + l]] += 1
    else:
        st[O_LLOC + l] = -1


@njit(cache=True, _nrt=False)
def leaders_last_unit_nb(cf, st, tr, t, side):
    """MT-8.4: leaders of a territory that lost its last combat unit in combat."""
    if side_units_nb(cf, st, t, side) > 0:
        return
    for l in range(cf[C_NL]):
        if st[O_LLOC + l] == t and cf[O_LSIDE + l] == side:
            if cf[P_LEADER_LAST] == 1:
                capture_leader_nb(cf, st, tr, l, t)
            else:
                remove_leader_nb(cf, st, tr, l, 2, 0)


@njit(cache=True, _nrt=False)
def take_losses_nb(cf, st, tr, side, t, n, vec, restrict, expensive_first):
    """Remove up to n units of ``side`` at t (MT-7.4 / MT-7.2). With ``restrict`` only the
    units counted in st[vec:vec+MAXU] (which is decremented). Creatures absorb
    ``creature_hits`` losses (MT-1.5 [R]; damage counter per territory, reset each turn).
    Owner's choice: cheapest first; ``expensive_first`` for the shooter's choice."""
    done = 0
    nts = cf[O_NTS + side]
    ch = cf[P_CREATURE_HITS]
    while done < n:
        pick = -1
        for j in range(nts):
            jj = nts - 1 - j if expensive_first else j
            u = cf[O_LORD + side * MAXU + jj]
            if st[O_UNITS + t * MAXU + u] > 0 and (not restrict or st[vec + u] > 0):
                pick = u
                break
        if pick < 0:
            break
        done += 1
        if cf[O_UCLS + pick] == 2 and ch > 1:
            st[O_DMG + t] += 1
            if st[O_DMG + t] < ch:
                continue
            st[O_DMG + t] = 0
        capture_unit_nb(cf, st, tr, t, pick)
        if restrict:
            st[vec + pick] -= 1
    return done


@njit(cache=True, _nrt=False)
def catapults_check_nb(cf, st, tr):
    """MT-9.4: a catapult is lost when its territory holds no own units."""
    for c in range(cf[C_NC]):
        cs = st[O_CST + c]
        if cs >= 4:
            t = st[O_CLOC + c]
            if side_units_nb(cf, st, t, cs - 4) == 0:
                st[O_CST + c] = 3
                h = event_nb(st, tr, EV_CATLOST)
                ev_put_reserved_nb(tr, h, c)
                ev_put_reserved_nb(tr, h, t)
                ev_end_nb(tr, h)


@njit(cache=True, _nrt=False)
def retreat_nb(cf, st, tr, s, pol, side, a, vec, steps, lmask, defer):
    """MT-7.5: the force counted in st[vec:] (already at a) with the leaders in lmask retreats
    ``steps`` territories towards its edge (Evil: Evil's edge; Good: Good's edge), each step
    to a strictly closer territory without enemies that the whole force may enter; steps that
    cannot be taken cost units (per step, or one per six if blocked at all). With ``defer`` a
    step with several destinations is a decision of the retreating side (PH_RETREAT; returns
    True, and ``retreat_go_nb`` goes on once it is taken); else the seat's built-in player
    chooses at once. Returns False once the retreat is over."""
    st[S_RT_SIDE] = side
    st[S_RT_A] = a
    st[S_RT_CUR] = a
    st[S_RT_NP] = 0
    st[S_RT_STEPS] = steps
    st[S_RT_VEC] = vec
    st[S_RT_LMASK] = lmask
    return retreat_go_nb(cf, st, tr, s, pol, defer)


@njit(cache=True, _nrt=False)
def retreat_ok_nb(cf, st, c):
    """MT-7.5: may the retreat under way (S_RT_* slots) step from where it stands to c? A
    strictly closer territory to its edge, without enemy units, that every unit type of the
    force (and its leaders) may enter."""
    side = st[S_RT_SIDE]
    cur = st[S_RT_CUR]
    vec = st[S_RT_VEC]
    doff = O_DEVIL if side == EVIL else O_DGOOD
    if cf[doff + c] >= cf[doff + cur]:
        return False
    if side_units_nb(cf, st, c, 1 - side) > 0:
        return False
    for u in range(cf[C_NU]):
        if st[vec + u] > 0 and not cross_ok_nb(cf, st, side, cf[O_UCLS + u], cur, c):
            return False
    if st[S_RT_LMASK] != 0 and not cross_ok_nb(cf, st, side, 3, cur, c):
        return False
    return True


@njit(cache=True, _nrt=False)
def retreat_value_nb(cf, st, s, pol, c, j):
    """The built-in players' value of retreating to c, the j-th neighbour (the highest wins,
    the first of equals): random player a uniform draw, heuristic the own units there
    (+0.5 - 0.01 j)."""
    side = st[S_RT_SIDE]
    if pol[side, PL_TYPE] == 0:
        return uniform_nb(s)
    return side_units_nb(cf, st, c, side) + 0.5 - 0.01 * j


@njit(cache=True, _nrt=False)
def retreat_options_nb(cf, st, act):
    """A retreat decision (PH_RETREAT, MT-7.5): one row (A_RETREAT, territory, from, steps
    left, neighbour index, 0) per territory the next step may go to, in neighbour order;
    returns their number."""
    cur = st[S_RT_CUR]
    n = 0
    for j in range(cf[O_NBN + cur]):
        c = cf[O_NB + cur * MAXDEG + j]
        if retreat_ok_nb(cf, st, c):
            act[n, 0] = A_RETREAT
            act[n, 1] = c
            act[n, 2] = cur
            act[n, 3] = st[S_RT_STEPS] - st[S_RT_NP]
            act[n, 4] = j
            act[n, 5] = 0
            n += 1
    return n


@njit(cache=True, _nrt=False)
def retreat_choice_nb(cf, st, pol, s, act, n):
    """The built-in player's pick among the ``n`` rows of a retreat decision: as the engine
    chose before retreats were decisions (the random player draws once per row)."""
    best = 0
    bestv = -1.0
    for i in range(n):
        v = retreat_value_nb(cf, st, s, pol, act[i, 1], act[i, 4])
        if v > bestv:
            bestv = v
            best = i
    return best


@njit(cache=True, _nrt=False)
def retreat_step_nb(cf, st, c):
    """Move the retreating force (units in st[S_RT_VEC:], leaders in S_RT_LMASK) one step to c;
    archers that fired carry that with them (MT-6.1, ``carry_fired_nb``, as ``move_units_nb``)."""
    cur = st[S_RT_CUR]
    vec = st[S_RT_VEC]
    lmask = st[S_RT_LMASK]
    narch = 0
    for u in range(cf[C_NU]):
        st[O_UNITS + cur * MAXU + u] -= st[vec + u]
        st[O_UNITS + c * MAXU + u] += st[vec + u]
        if cf[O_UARCH + u] == 1:
            narch += st[vec + u]
    carry_fired_nb(st, cur, c, narch)
    for l in range(cf[C_NL]):
        if (lmask >> l) & 1:
            st[O_LLOC + l] = c
    st[O_PATH + st[S_RT_NP]] = c
    st[S_RT_NP] += 1
    st[S_RT_CUR] = c


@njit(cache=True, _nrt=False)
def retreat_go_nb(cf, st, tr, s, pol, defer):
    """The retreat under way (S_RT_* slots) takes its remaining steps: a step with one
    destination is taken at once, one with several is a decision (``defer``: PH_RETREAT,
    returns True) or the built-in player's pick; then the retreat event and the losses of
    blocked steps (taken cheapest first, take_losses_nb). Returns False once it is over."""
    side = st[S_RT_SIDE]
    steps = st[S_RT_STEPS]
    vec = st[S_RT_VEC]
    blocked = 0
    while st[S_RT_NP] < steps:
        cur = st[S_RT_CUR]
        nbn = cf[O_NBN + cur]
        ncand = 0
        for j in range(nbn):
            if retreat_ok_nb(cf, st, cf[O_NB + cur * MAXDEG + j]):
                ncand += 1
        if ncand == 0:
            blocked = steps - st[S_RT_NP]
            break
        if ncand > 1 and defer:
            st[S_PHASE] = PH_RETREAT
            return True
        best = -1
        bestv = -1.0
        for j in range(nbn):
            c = cf[O_NB + cur * MAXDEG + j]
            if retreat_ok_nb(cf, st, c):
                v = retreat_value_nb(cf, st, s, pol, c, j)
                if v > bestv:
                    bestv = v
                    best = c
        retreat_step_nb(cf, st, best)
    np_ = st[S_RT_NP]
    cur = st[S_RT_CUR]
    losses = 0
    if blocked > 0:
        losses = blocked if cf[P_BLOCKED] == 0 else steps
    h = event_nb(st, tr, EV_RETREAT)
    ev_put_reserved_nb(tr, h, side)
    ev_put_reserved_nb(tr, h, st[S_RT_A])
    ev_put_reserved_nb(tr, h, np_)
    for i in range(np_):
        ev_put_reserved_nb(tr, h, st[O_PATH + i])
    for u in range(cf[C_NU]):
        ev_put_reserved_nb(tr, h, st[vec + u])
    ev_put_reserved_nb(tr, h, st[S_RT_LMASK])
    ev_put_reserved_nb(tr, h, losses)
    ev_end_nb(tr, h)
    if losses > 0:
        take_losses_nb(cf, st, tr, side, cur, losses, vec, True, False)
        leaders_last_unit_nb(cf, st, tr, cur, side)
    return False


@njit(cache=True, _nrt=False)
def assault_bonus_nb(cf, st, side, a, b):
    """MT-8.2 modifiers: (attack bonus, defence bonus, Witch-king in the battle)."""
    ab = 0
    if leaders_at_nb(cf, st, a, side) > 0:
        ab += cf[P_LEADER_BONUS]
    # MT-9.1: the tower's +1 is for an assault onto a wall (up a climb edge), not down from one
    if side == EVIL and cf[O_EK + a * MAXT + b] == 2 and cf[O_TKIND + b] == 2 \
            and holds_nb(cf, st, EVIL, K_SIEGE) == 2:
        ab += cf[P_SIEGE_BONUS]
    db = 0
    if leaders_at_nb(cf, st, b, 1 - side) > 0:
        db += cf[P_LEADER_BONUS]
    if side == EVIL and cf[O_BANNER + b] == 1:
        db += cf[P_BANNER_BONUS]
    wk = wk_at_nb(cf, st, a if side == EVIL else b)
    return ab, db, wk


@njit(cache=True, _nrt=False)
def _modified_roll_nb(s, ad, dd, ab, db):
    """The same draws as assault_roll_nb, also counting a modified 6 on the highest die
    (retreat_trigger = modified6, MT-8.2 [R])."""
    a1, a2, a3, d1, d2 = dice_each_nb(s, ad, dd)
    a6 = (a1 >= 6) + (a2 >= 6) + (a3 >= 6)
    d6 = (d1 >= 6) + (d2 >= 6)
    if a1 < a2:
        a1, a2 = a2, a1
    if a2 < a3:
        a2, a3 = a3, a2
    if a1 < a2:
        a1, a2 = a2, a1
    if d2 > d1:
        d1, d2 = d2, d1
    if a1 < 6 and a1 + ab >= 6:
        a6 += 1
    if d1 < 6 and d1 + db >= 6:
        d6 += 1
    la = 0
    ld = 0
    if a1 + ab > d1 + db:
        ld += 1
    else:
        la += 1
    if ad >= 2 and dd >= 2:
        if a2 > d2:
            ld += 1
        else:
            la += 1
    return la, ld, a6, d6


@njit(cache=True, _nrt=False)
def assault_nb(cf, st, tr, s, pol, side, a, b, k, defer):
    """One assault roll (MT-7.3-7.5, MT-8.2) from a to b with k units; then retreats,
    captures, and the free cavalry move-in (MT-7.6). Returns 1 if the territory was taken.
    With ``defer`` the losses (MT-7.4: the owner's choice) become decisions of the step
    machine - the attacker's (PH_ALOSS, among the units that attacked), then the defender's
    (PH_DLOSS) - and ``assault_after_nb`` finishes the assault once they are taken."""
    E = 1 - side
    vec = O_SCA
    for u in range(MAXU):
        st[vec + u] = 0
    # attackers: cavalry first (they may move in free, MT-7.6), then cheapest
    left = k
    nts = cf[O_NTS + side]
    for rep in range(2):
        for j in range(nts):
            u = cf[O_LORD + side * MAXU + j]
            cls = cf[O_UCLS + u]
            if (rep == 0) != (cls == 1):
                continue
            if not cross_ok_nb(cf, st, side, cls, a, b):
                continue
            m = st[O_UNITS + a * MAXU + u]
            if m > left:
                m = left
            st[vec + u] = m
            left -= m
    k = k - left
    if k <= 0:
        return 0
    D = side_units_nb(cf, st, b, E)
    ab, db, wk = assault_bonus_nb(cf, st, side, a, b)
    dd = 2 if D >= 2 else 1
    faces = _stream_save_nb(s, tr)
    if cf[P_RETREAT] == 1:
        la, ld, a6, d6 = _modified_roll_nb(s, k, dd, ab, db)
    else:
        la, ld, a6, d6 = assault_roll_nb(s, k, dd, ab, db)
    h = event_nb(st, tr, EV_ASSAULT)
    ev_put_reserved_nb(tr, h, a)
    ev_put_reserved_nb(tr, h, b)
    for u in range(cf[C_NU]):
        ev_put_reserved_nb(tr, h, st[vec + u])
    ev_put_reserved_nb(tr, h, k)
    ev_put_reserved_nb(tr, h, dd)
    ev_put_reserved_nb(tr, h, ab)
    ev_put_reserved_nb(tr, h, db)
    ev_put_reserved_nb(tr, h, la)
    ev_put_reserved_nb(tr, h, ld)
    ev_put_reserved_nb(tr, h, D)
    # the roll itself, so that a trace can be checked on its own: Witch-king, the
    # retreat-trigger sixes as the engine counted them, then both sides' faces as rolled
    ev_put_reserved_nb(tr, h, wk)
    ev_put_reserved_nb(tr, h, a6)
    ev_put_reserved_nb(tr, h, d6)
    _put_assault_faces_nb(st, tr, h, s, faces, k, dd, cf[P_RETREAT] == 1)
    ev_end_nb(tr, h)
    if side == EVIL and st[S_GATE] == 0 and cf[O_EK + a * MAXT + b] == 3:
        break_gate_nb(cf, st, tr)  # MT-9.3: the first assault across the gate breaks it
    if defer:
        st[S_AS_A] = a
        st[S_AS_B] = b
        st[S_AS_SIDE] = side
        st[S_AS_A6] = a6
        st[S_AS_D6] = d6
        st[S_AS_WK] = wk
        st[S_AS_AB] = ab
        st[S_AS_LD] = ld
        if begin_losses_nb(cf, st, PH_ALOSS, a, side, side, la) > 0:
            return 0
        if begin_losses_nb(cf, st, PH_DLOSS, b, E, E, ld) > 0:
            return 0
        st[S_PHASE] = PH_ACT
        return assault_after_nb(cf, st, tr, s, pol, side, a, b, a6, d6, wk, ab, True)
    take_losses_nb(cf, st, tr, side, a, la, vec, True, False)
    take_losses_nb(cf, st, tr, E, b, ld, 0, False, False)
    return assault_after_nb(cf, st, tr, s, pol, side, a, b, a6, d6, wk, ab, False)


@njit(cache=True, _nrt=False)
def assault_after_nb(cf, st, tr, s, pol, side, a, b, a6, d6, wk, ab, defer):
    """The rest of an assault once both sides' losses are taken (MT-7.5 retreats, MT-7.6
    the free cavalry move-in). Returns 1 if the territory was taken. With ``defer`` a
    retreat step with several destinations is a decision (PH_RETREAT, the retreating side's):
    this returns 0 at it, and ``assault_resume_nb`` finishes the assault after the retreat."""
    E = 1 - side
    vec = O_SCA
    leaders_last_unit_nb(cf, st, tr, a, side)
    leaders_last_unit_nb(cf, st, tr, b, E)
    if check_win_nb(cf, st, tr):
        return 0
    # MT-7.5 retreats (losses first; natural sixes unless retreat_trigger says otherwise)
    att_left = 0
    for u in range(cf[C_NU]):
        att_left += st[vec + u]
    def_left = side_units_nb(cf, st, b, E)
    good6 = a6 if side == GOOD else d6
    evil6 = d6 if side == GOOD else a6
    # which retreat (S_RT_K): 1 the defenders from a wiped-out attack, 2 the attackers after
    # wiping out the defence, 3 the defenders, 4 the attackers (both sides left); n6 its steps
    k = 0
    n6 = 0
    # retreat_after_wipeout (MT-7.5 [R]): the six still acts when the roll wiped out the
    # side that rolled it; a side that is itself wiped out never retreats
    both = att_left > 0 and def_left > 0
    if cf[P_RETREAT] != 2 and cf[P_RETREAT_WIPED] == 1 and not both and (att_left > 0 or def_left > 0):
        # which side the six sends back: Evil on Good's six, else Good on the Witch-king's six
        back = -1
        if good6 > 0:
            back = EVIL
            n6 = good6
        elif wk == 1 and evil6 > 0:
            back = GOOD
            n6 = evil6
        if back == E and def_left > 0:  # the defenders retreat from a wiped-out attack
            k = 1
        elif back == side and att_left > 0:  # the attackers retreat; the turn ends
            k = 2
    elif cf[P_RETREAT] != 2 and both:
        if good6 > 0:  # Good attacks: the Evil defenders retreat; Evil attacks: it retreats
            k = 3 if side == GOOD else 4
            n6 = good6
        elif wk == 1 and evil6 > 0:  # the Witch-king reversal
            k = 3 if side == EVIL else 4
            n6 = evil6
    if k > 0:
        st[S_AS_A] = a
        st[S_AS_B] = b
        st[S_AS_SIDE] = side
        st[S_AS_A6] = a6
        st[S_AS_D6] = d6
        st[S_AS_WK] = wk
        st[S_AS_AB] = ab
        st[S_RT_K] = k
        if k == 1 or k == 3:  # the defenders retreat with their leaders
            _all_units_vec_nb(cf, st, b, E, O_SCB)
            pending = retreat_nb(cf, st, tr, s, pol, E, b, O_SCB, n6, leader_mask_at_nb(cf, st, b, E), defer)
        else:  # of the attacking leaders only the bonus giver goes with them
            lm = 0
            if ab > 0 and leaders_at_nb(cf, st, a, side) > 0:
                lm = _first_leader_mask_nb(cf, st, a, side)
            pending = retreat_nb(cf, st, tr, s, pol, side, a, vec, n6, lm, defer)
        if pending:
            return 0
        return assault_resume_nb(cf, st, tr, s, pol)
    if cf[P_RETREAT] != 2 and both:  # no six: nobody retreats
        catapults_check_nb(cf, st, tr)
        if check_win_nb(cf, st, tr):
            return 0
    elif cf[P_RETREAT] != 2 and att_left == 0:
        _six_ends_turn_nb(st, side, a6, d6, wk)
    return _assault_end_nb(cf, st, tr, s, pol, side, a, b)


@njit(cache=True, _nrt=False)
def assault_resume_nb(cf, st, tr, s, pol):
    """The rest of an assault after its retreat (S_RT_K, the assault in the S_AS_* slots): an
    attacker that retreated ends its turn; catapults and the win are checked; then the free
    cavalry move-in (MT-7.6). Returns 1 if the territory was taken."""
    k = st[S_RT_K]
    side = st[S_AS_SIDE]
    if k == 2 or k == 4:
        st[S_TURNEND] = 1
    catapults_check_nb(cf, st, tr)
    if check_win_nb(cf, st, tr):
        return 0
    if k == 2:
        return 0
    if k == 1:  # the attacking force died: its six may still end the turn
        _six_ends_turn_nb(st, side, st[S_AS_A6], st[S_AS_D6], st[S_AS_WK])
    return _assault_end_nb(cf, st, tr, s, pol, side, st[S_AS_A], st[S_AS_B])


@njit(cache=True, _nrt=False)
def _six_ends_turn_nb(st, side, a6, d6, wk):
    """MT-7.5: the attacking force died, so nothing retreats, but the six still ends the
    attacker's turn (Good's defending six; an Evil six with the Witch-king defending)."""
    good6 = a6 if side == GOOD else d6
    evil6 = d6 if side == GOOD else a6
    if side == EVIL and good6 > 0:
        st[S_TURNEND] = 1
    elif side == GOOD and good6 == 0 and wk == 1 and evil6 > 0:
        st[S_TURNEND] = 1


@njit(cache=True, _nrt=False)
def _assault_end_nb(cf, st, tr, s, pol, side, a, b):
    """MT-7.6: once the defence is gone (and the turn goes on) the surviving attacking cavalry
    may move in free. Returns 1 if the territory was taken."""
    E = 1 - side
    vec = O_SCA
    catapults_check_nb(cf, st, tr)
    if side_units_nb(cf, st, b, E) == 0 and st[S_TURNEND] == 0:
        cav = 0
        for u in range(cf[C_NU]):
            if cf[O_UCLS + u] == 1 and st[vec + u] > 0 and st[O_UNITS + a * MAXU + u] >= st[vec + u]:
                cav += st[vec + u]
        if cav > 0:
            go = True
            if pol[side, PL_TYPE] == 0:
                go = randint_nb(s, 2) == 1
            if go:
                move_units_nb(cf, st, tr, side, a, -1, b, cav, True, 0)
                check_win_nb(cf, st, tr)
        return 1
    return 0


@njit(cache=True, _nrt=False)
def _all_units_vec_nb(cf, st, t, side, vec):
    for u in range(MAXU):
        st[vec + u] = 0
    for j in range(cf[O_NTS + side]):
        u = cf[O_LORD + side * MAXU + j]
        st[vec + u] = st[O_UNITS + t * MAXU + u]


@njit(cache=True, _nrt=False)
def _first_leader_mask_nb(cf, st, t, side):
    for l in range(cf[C_NL]):
        if st[O_LLOC + l] == t and cf[O_LSIDE + l] == side:
            return 1 << l
    return 0


@njit(cache=True, _nrt=False)
def shooters_nb(cf, st, side, a, b):
    """(archers available, catapult card or -1) that can fire from a at b (MT-7.2, MT-9.4)."""
    d = cf[O_DIST + a * MAXT + b]
    arch = 0
    if d <= 2:
        for j in range(cf[O_NTS + side]):
            u = cf[O_LORD + side * MAXU + j]
            if cf[O_UARCH + u] == 1:
                arch += st[O_UNITS + a * MAXU + u]
        arch -= st[O_FIRED + a]
        if arch < 0:
            arch = 0
    cat = -1
    for c in range(cf[C_NC]):
        if st[O_CST + c] == 4 + side and st[O_CLOC + c] == a and st[O_CFIRED + c] == 0 and d <= cf[O_CRANGE + c]:
            cat = c
            break
    return arch, cat


@njit(cache=True, _nrt=False)
def bombard_action_nb(cf, st, tr, s, side, a, b, n, defer):
    """MT-7.2: n shooters (archers first, then a catapult) fire at b. With ``defer`` the
    hits become a decision of the step machine (PH_LOSS: one A_LOSE per hit, by the owner,
    or by the shooter under ``bombard_loss_choice = shooter``); else they are taken at once
    in the heuristic order (cheapest first, or dearest first for the shooter)."""
    arch, cat = shooters_nb(cf, st, side, a, b)
    na = n if n <= arch else arch
    nc = n - na
    if nc > 0 and cat >= 0:
        nc = 1
        st[O_CFIRED + cat] = 1
    else:
        nc = 0
    fired_before = st[O_FIRED + a]
    st[O_FIRED + a] += na
    shooters = na + nc
    banner = 1 if (side == EVIL and cf[O_BANNER + b] == 1) else 0
    dice = bombard_dice_nb(shooters, banner == 1, cf[P_EVIL_DIV])
    faces = _stream_save_nb(s, tr)
    dice, hits = bombard_nb(s, dice)
    h = event_nb(st, tr, EV_BOMBARD)
    ev_put_reserved_nb(tr, h, a)
    ev_put_reserved_nb(tr, h, b)
    ev_put_reserved_nb(tr, h, shooters)
    ev_put_reserved_nb(tr, h, dice)
    ev_put_reserved_nb(tr, h, hits)
    ev_put_reserved_nb(tr, h, banner)
    # the faces rolled: the same draws as bombard_nb, replayed from the saved stream
    if h >= 0 and faces:
        _stream_swap_nb(s)
        ev_put_reserved_nb(tr, h, dice)
        for _ in range(dice):
            ev_put_reserved_nb(tr, h, d6_nb(s))
        _stream_restore_nb(s)
    else:
        ev_put_reserved_nb(tr, h, -1)
    # trace_version 3: who fired - the archers (of the archers standing at a, those
    # that had fired before this turn's shot), and the catapult card or -1
    if h >= 0:
        ev_put_reserved_nb(tr, h, na)
        ev_put_reserved_nb(tr, h, fired_before)
        ev_put_reserved_nb(tr, h, cat if nc == 1 else -1)
        for u in range(cf[C_NU]):
            ev_put_reserved_nb(tr, h, st[O_UNITS + a * MAXU + u] if cf[O_UARCH + u] == 1 and cf[O_USIDE + u] == side else 0)
    ev_end_nb(tr, h)
    if hits > 0:
        seat = side if cf[P_BOMB_LOSS] == 1 else 1 - side
        if defer and begin_losses_nb(cf, st, PH_LOSS, b, 1 - side, seat, hits) > 0:
            return
        take_losses_nb(cf, st, tr, 1 - side, b, hits, 0, False, cf[P_BOMB_LOSS] == 1)
        leaders_last_unit_nb(cf, st, tr, b, 1 - side)
        catapults_check_nb(cf, st, tr)
        check_win_nb(cf, st, tr)


@njit(cache=True, _nrt=False)
def may_lose_nb(cf, st, u):
    """Whether the pending loss decision may take a unit of type u: one stands at the
    territory and, for the attacker (PH_ALOSS), it is among the units that attacked."""
    return st[O_UNITS + st[S_LOSS_T] * MAXU + u] > 0 and (st[S_PHASE] != PH_ALOSS or st[O_SCA + u] > 0)


@njit(cache=True, _nrt=False)
def loss_options_nb(cf, st, act):
    """A loss decision (PH_LOSS bombardment MT-7.2, PH_ALOSS / PH_DLOSS assault MT-7.4): one
    row (A_LOSE, unit type, territory, hits left, 0, 0) per unit type of the losing side that
    may be lost (``may_lose_nb``), cheapest first (``O_LORD`` order); returns their number."""
    side = st[S_LOSS_SIDE]
    n = 0
    for j in range(cf[O_NTS + side]):
        u = cf[O_LORD + side * MAXU + j]
        if may_lose_nb(cf, st, u):
            act[n, 0] = A_LOSE
            act[n, 1] = u
            act[n, 2] = st[S_LOSS_T]
            act[n, 3] = st[S_LOSS_N]
            act[n, 4] = 0
            act[n, 5] = 0
            n += 1
    return n


@njit(cache=True, _nrt=False)
def loss_count_nb(cf, st):
    """How many unit types the pending loss decision may take (``may_lose_nb``)."""
    side = st[S_LOSS_SIDE]
    n = 0
    for j in range(cf[O_NTS + side]):
        if may_lose_nb(cf, st, cf[O_LORD + side * MAXU + j]):
            n += 1
    return n


@njit(cache=True, _nrt=False)
def begin_losses_nb(cf, st, phase, t, side, seat, n):
    """Make ``n`` losses of ``side`` at t the next decisions of ``seat`` (one per hit);
    returns 0, leaving the phase alone, when there is nothing to lose."""
    if n <= 0:
        return 0
    prev = st[S_PHASE]
    st[S_LOSS_T] = t
    st[S_LOSS_N] = n
    st[S_LOSS_SIDE] = side
    st[S_LOSS_SEAT] = seat
    st[S_PHASE] = phase
    if loss_count_nb(cf, st) == 0:
        st[S_PHASE] = prev
        st[S_LOSS_N] = 0
        return 0
    return n


@njit(cache=True, _nrt=False)
def lose_one_nb(cf, st, tr, t, u):
    """One hit on a unit of type u at t (MT-7.2, MT-7.4); a creature absorbs
    ``creature_hits`` hits (MT-1.5 [R]: damage counter per territory, reset every turn), as
    take_losses_nb does. Returns 1 if a unit was lost (0: a creature absorbed the hit)."""
    if cf[O_UCLS + u] == 2 and cf[P_CREATURE_HITS] > 1:
        st[O_DMG + t] += 1
        if st[O_DMG + t] < cf[P_CREATURE_HITS]:
            return 0
        st[O_DMG + t] = 0
    capture_unit_nb(cf, st, tr, t, u)
    if st[S_PHASE] == PH_ALOSS:
        st[O_SCA + u] -= 1
    return 1


@njit(cache=True, _nrt=False)
def next_loss_nb(cf, st, tr, s, pol):
    """After one loss: the next loss decision (returns True), or the next side's losses, or
    the rest of the bombardment or assault: returns True if that stops at a retreat decision
    (PH_RETREAT), False when the action is over."""
    if st[S_LOSS_N] > 0 and loss_count_nb(cf, st) > 0:
        return True
    if st[S_PHASE] == PH_LOSS:
        finish_losses_nb(cf, st, tr)
        return False
    side = st[S_AS_SIDE]
    if st[S_PHASE] == PH_ALOSS:
        st[S_LOSS_N] = 0
        if begin_losses_nb(cf, st, PH_DLOSS, st[S_AS_B], 1 - side, 1 - side, st[S_AS_LD]) > 0:
            return True
    st[S_LOSS_N] = 0
    st[S_PHASE] = PH_ACT
    assault_after_nb(cf, st, tr, s, pol, side, st[S_AS_A], st[S_AS_B], st[S_AS_A6], st[S_AS_D6],
                     st[S_AS_WK], st[S_AS_AB], True)
    return st[S_PHASE] == PH_RETREAT


@njit(cache=True, _nrt=False)
def finish_losses_nb(cf, st, tr):
    """After the last bombardment loss: leaders left alone are lost (MT-8.3), catapults and
    the win are checked, and the shooter's turn goes on."""
    leaders_last_unit_nb(cf, st, tr, st[S_LOSS_T], st[S_LOSS_SIDE])
    catapults_check_nb(cf, st, tr)
    check_win_nb(cf, st, tr)
    st[S_LOSS_N] = 0
    st[S_PHASE] = PH_ACT


@njit(cache=True, _nrt=False)
def bonus_fast_nb(cf, st, side, a, b):
    """assault_bonus_nb from the per-decision cache (refresh_tot_nb): what the AI's odds use."""
    ab = 0
    if st[O_LAT + side * MAXT + a] > 0:
        ab += cf[P_LEADER_BONUS]
    if side == EVIL and cf[O_EK + a * MAXT + b] == 2 and cf[O_TKIND + b] == 2 and st[O_DEC] == 2:
        ab += cf[P_SIEGE_BONUS]  # MT-9.1: onto a wall only
    db = 0
    if st[O_LAT + (1 - side) * MAXT + b] > 0:
        db += cf[P_LEADER_BONUS]
    if side == EVIL and cf[O_BANNER + b] == 1:
        db += cf[P_BANNER_BONUS]
    return ab, db, st[O_WKAT + (a if side == EVIL else b)]


# Each helper compiles once, whatever constants its callers pass (see lotr_sim/_numba/dispatch.py).
from lotr_sim._numba.dispatch import no_literal_dispatch  # noqa: E402

no_literal_dispatch(globals())
