"""The Minas Tirith game engine in numba: state in one flat int64 array, one game per call
of ``play_game_nb`` entirely inside njit, many games with ``simulate_nb`` (a GIL-free range
of games, run on a thread pool by game.py; game i always uses stream (seed, i)).

Rule IDs (MT-x.y) refer to shared/rules/minas-tirith.md; the config layout (``cf``) is in
config.py. Policies live here too (random / heuristic with per-level weights).

Where the engine narrows a player's choices (documented simplifications):

* Actions are a finite menu (``enum_actions_nb``): a move takes all the units that may cross
  the border, or half of them (cheapest types first); the cavalry double move takes all the
  cavalry; an assault uses 1, 2 or 3 units, cavalry first, then the cheapest. The random
  player is uniform over this menu (PASS included).
* Losses: the owner loses its cheapest units first (by points, archers after plain units,
  creatures last); ``bombard_loss_choice = shooter`` reverses the order. With
  ``creature_hits > 1`` the damage on a territory's creatures is a counter reset every turn.
* Bonus trade (MT-5.4): one bonus per trade when any traded card shows the trader's shield.
* Retreat (MT-7.5): each step must be passable for every unit type in the force; the
  owner's choice among several territories is the one holding most own units (random
  player: random). Of the attacking leaders only the bonus giver goes with a retreating
  attack. As in lotr_sim.kernels.combat: Good's 6 wins when both triggers fire in one roll,
  and a side wiped out by the roll's losses (or facing a wiped-out side) does not retreat;
  but a Good defending 6 (or the Witch-king's 6 against a Good attack) ends the attacker's
  turn even when the whole attacking force died.
* Bombardment (MT-6.1, MT-7.2): a territory's count of archers that fired this turn moves
  with its archers (those that fired move first), so no archer fires twice in a turn.
* A leader moving alone (MT-6.2 d) ends in a territory holding own troops; leaders follow
  a move only when it empties their territory; the free cavalry move-in (MT-7.6) moves all
  surviving attacking cavalry, without leaders.
* Muster of Gondor (MT-9.7) is played in the card step (MT-5.7), not as a mission; the
  catapult, holder and leader cards are movement missions (MT-6.2 e-g, MT-9.4-9.6).
* Evil with Grond may also *move* across the gate into an empty city; the first crossing,
  move or assault, breaks the gate. Evil may climb down a climb edge with a siege card.
* MT-6.2 h exchanges the most valuable Evil creature type (the mumak in the default config)
  for up to 3 infantry from the pool.
* A game stops after ``MAX_TURNS`` turns (a deck that never runs out) as a "deck" ending.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from lotr_sim.kernels.combat import _dice5_nb, assault_roll_nb, bombard_nb
from lotr_sim.kernels.piles import shuffle_range_nb
from lotr_sim.kernels.rng import STATE_SIZE, d6_nb, randint_nb, stream_init_nb, uniform_nb
from lotr_sim.games.minas_tirith.config import (
    MAXT, MAXU, MAXDEG, WMAX, N_AB, N_DB,
    C_T, C_NU, C_NL, C_NC, C_ND, C_CITY,
    P_CREATURE_HITS, P_MISSION_BASE, P_GOOD_CRE_INF, P_HOLDER_CAP, P_HAND_LIMIT, P_HAND_DISCARD,
    P_LEAVE_ONE, P_BOMB_LOSS, P_EVIL_DIV, P_RETREAT, P_BLOCKED, P_LEADER_BONUS, P_BANNER_BONUS,
    P_SIEGE_BONUS, P_LEADER_TO, P_LEADER_LAST, P_LEADERS_WIN, P_PTS_LEADER, P_PTS_WALL, P_PTS_GATE,
    P_END_LAST, P_RETREAT_WIPED,
    O_EK, O_DIST, O_NB, O_NBN, O_TKIND, O_BANNER, O_DGOOD, O_DEVIL, O_DCITY, O_USIDE, O_UCLS,
    O_UARCH, O_UPTS, O_UTOT, O_LORD, O_NTS, O_LSIDE, O_LCOL, O_LSTART, O_LREV, O_SETUP, O_CKIND,
    O_CSIDES, O_CACC, O_CLEAD, O_CENTRY, O_CTOWER, O_CRANGE, O_CMUSTER, O_DTYPE, O_DSHIELD,
    O_NEAR, O_NEARN,
)

from lotr_sim.games.minas_tirith.layout import (  # noqa: F401 (the engine module re-exports the layout)
    A_ASSAULT, A_BOMBARD, A_CATAPULT, A_CAV2, A_DIE, A_EXCHANGE, A_HOLDER, A_LCARD,  # noqa: F401
    A_LMOVE, A_MOVE, A_PASS, EVIL, EV_ASSAULT, EV_BOMBARD, EV_CAPTURE, EV_CATLOST,  # noqa: F401
    EV_DISCARD, EV_END, EV_EXCHANGE, EV_GATE, EV_LOAD, EV_LREMOVED, EV_MOVE, EV_PLACE,  # noqa: F401
    EV_PLAYED, EV_RETREAT, EV_SETUP, EV_TRADE, EV_TURN, GOOD, HMAX, K_CATAPULT, K_GROND,  # noqa: F401
    K_HOLDER, K_LEADER, K_MUSTER, K_SIEGE, MAXA, MAX_TURNS, NPOL, O_CAPT, O_CFIRED,  # noqa: F401
    O_CLOC, O_CST, O_DEC, O_DMG, O_DORD, O_DRAWN, O_FIRED, O_HAND, O_HOLD, O_LAT, O_LLOC,  # noqa: F401
    O_MTORD, O_PATH, O_POOL, O_SCA, O_SCB, O_THR, O_TOT, O_UNITS, O_WKAT, PH_ACT, PH_DIE,  # noqa: F401
    PH_ROUND, PL_ADV, PL_CW, PL_DEF, PL_MW, PL_THR, PL_TYPE, R_CITY, R_DECK, R_LEADERS,  # noqa: F401
    STATE, ST_SIZE, S_BAD, S_BADTURN, S_DEBUG, S_DECKOUT, S_DICE, S_DIE, S_DTOP,  # noqa: F401
    S_GAMEIDX, S_GATE, S_HN, S_LCAP, S_MISS, S_MTTOP, S_NCHECK, S_NDRAWN, S_OVER, S_PE,  # noqa: F401
    S_PG, S_PHASE, S_REASON, S_ROUND, S_SIDE, S_TIR, S_TROVF, S_TRPOS, S_TURN, S_TURNEND,  # noqa: F401
    S_USED, S_WINNER, TR_MARGIN, W_DRAW, W_EVIL, W_GOOD,  # noqa: F401
)



# ======================================================================================
# small helpers
# ======================================================================================
# Speed: every kernel except the two entry points that allocate (simulate_nb, play_one_nb) is
# compiled with _nrt=False: they never allocate, so they need no reference counting, and
# without it each call no longer pays atomic incref/decref on every array argument (that
# was ~3/4 of the run time). score_action_nb is inlined into choose_action_nb (its only
# caller in a game): the call with ~50 scalarised array arguments cost more than the score.
@njit(cache=True, _nrt=False)
def side_units_nb(cf, st, t, side):
    n = 0
    nts = cf[O_NTS + side]
    for j in range(nts):
        n += st[O_UNITS + t * MAXU + cf[O_LORD + side * MAXU + j]]
    return n


@njit(cache=True, _nrt=False)
def refresh_tot_nb(cf, st):
    """Fill the per-decision caches (valid until the next change of the board): units per side
    and territory (O_TOT), Evil units next to t (O_THR, Good's slots only: only Good's threat is
    read), leaders per side (O_LAT), Witch-king (O_WKAT), card flags (O_DEC)."""
    for side in range(2):
        nts = cf[O_NTS + side]
        for t in range(cf[C_T]):
            n = 0
            for j in range(nts):
                n += st[O_UNITS + t * MAXU + cf[O_LORD + side * MAXU + j]]
            st[O_TOT + side * MAXT + t] = n
    for t in range(cf[C_T]):
        n = 0
        for j in range(cf[O_NBN + t]):
            n += st[O_TOT + EVIL * MAXT + cf[O_NB + t * MAXDEG + j]]
        st[O_THR + GOOD * MAXT + t] = n
    for t in range(cf[C_T]):
        st[O_LAT + t] = 0
        st[O_LAT + MAXT + t] = 0
        st[O_WKAT + t] = 0
    for l in range(cf[C_NL]):
        t = st[O_LLOC + l]
        if t >= 0:
            st[O_LAT + cf[O_LSIDE + l] * MAXT + t] += 1
            if cf[O_LREV + l] == 1:
                st[O_WKAT + t] = 1
    # holds_nb(EVIL, K_SIEGE), holds_nb(EVIL, K_GROND) and the catapults on the board
    sg = 0
    gr = 0
    n0 = 0
    n1 = 0
    for c in range(cf[C_NC]):
        cs = st[O_CST + c]
        if cs == 2:
            k = cf[O_CKIND + c]
            if k == K_SIEGE or k == K_GROND:
                v = 1 + cf[O_CTOWER + c]
                if k == K_SIEGE:
                    if v > sg:
                        sg = v
                elif v > gr:
                    gr = v
        elif cs == 4:
            n0 += 1
        elif cs == 5:
            n1 += 1
    st[O_DEC] = sg
    st[O_DEC + 1] = gr
    st[O_DEC + 2] = n0
    st[O_DEC + 3] = n1


@njit(cache=True, _nrt=False)
def cross_fast_nb(cf, st, side, cls, a, b):
    """cross_ok_nb from the per-decision cache (valid after refresh_tot_nb, until the board
    changes): MT-6.4 walls, MT-6.5 gate, MT-6.6 climbing, MT-9.1-9.3 siege cards."""
    ek = cf[O_EK + a * MAXT + b]
    if ek < 0:
        return False
    if ek == 0:
        return True
    inf = cls == 0 or cls == 3
    if ek == 1:
        if not inf:
            return False
        if side == GOOD:
            return True
        return cf[O_TKIND + a] == 2
    if ek == 2:
        if side == GOOD or not inf:
            return False
        return st[O_DEC] > 0
    if side == GOOD:
        return True
    return st[S_GATE] == 1 or st[O_DEC + 1] > 0


@njit(cache=True, _nrt=False)
def leaders_at_nb(cf, st, t, side):
    n = 0
    for l in range(cf[C_NL]):
        if st[O_LLOC + l] == t and cf[O_LSIDE + l] == side:
            n += 1
    return n


@njit(cache=True, _nrt=False)
def leader_mask_at_nb(cf, st, t, side):
    m = 0
    for l in range(cf[C_NL]):
        if st[O_LLOC + l] == t and cf[O_LSIDE + l] == side:
            m |= 1 << l
    return m


@njit(cache=True, _nrt=False)
def wk_at_nb(cf, st, t):
    for l in range(cf[C_NL]):
        if st[O_LLOC + l] == t and cf[O_LREV + l] == 1:
            return 1
    return 0


@njit(cache=True, _nrt=False)
def holds_nb(cf, st, side, kind):
    """1 + tower flag if the side holds a card of ``kind`` (siege: 2 with a tower), else 0."""
    best = 0
    for c in range(cf[C_NC]):
        if st[O_CST + c] == 1 + side and cf[O_CKIND + c] == kind:
            v = 1 + cf[O_CTOWER + c]
            if v > best:
                best = v
    return best


@njit(cache=True, _nrt=False)
def cross_ok_nb(cf, st, side, cls, a, b):
    """May a unit of class ``cls`` (0 inf, 1 cav, 2 creature, 3 leader) of ``side`` cross a-b?
    MT-6.4 walls, MT-6.5 gate, MT-6.6 climbing, MT-9.1-9.3 siege cards."""
    ek = cf[O_EK + a * MAXT + b]
    if ek < 0:
        return False
    if ek == 0:
        return True
    inf = cls == 0 or cls == 3
    if ek == 1:  # wall edge: city-wall, wall-wall
        if not inf:
            return False
        if side == GOOD:
            return True
        return cf[O_TKIND + a] == 2  # Evil only once on a wall
    if ek == 2:  # climb: wall-outside
        if side == GOOD or not inf:
            return False
        return holds_nb(cf, st, EVIL, K_SIEGE) > 0
    # gate
    if side == GOOD:
        return True
    return st[S_GATE] == 1 or holds_nb(cf, st, EVIL, K_GROND) > 0


# ======================================================================================
# trace
# ======================================================================================
@njit(cache=True, _nrt=False)
def ev_begin_nb(st, tr, code):
    if tr.shape[0] == 0:
        return -1
    pos = st[S_TRPOS]
    if pos + TR_MARGIN > tr.shape[0]:
        st[S_TROVF] = 1
        return -1
    tr[pos + 1] = code
    tr[pos + 2] = st[S_ROUND]
    tr[pos + 3] = st[S_TURN]
    tr[pos + 4] = st[S_SIDE]
    st[S_TRPOS] = pos + 5
    return pos


@njit(cache=True, _nrt=False)
def ev_put_nb(st, tr, h, v):
    if h >= 0:
        tr[st[S_TRPOS]] = v
        st[S_TRPOS] += 1


@njit(cache=True, _nrt=False)
def ev_end_nb(st, tr, h):
    if h >= 0:
        tr[h] = st[S_TRPOS] - h


@njit(cache=True, _nrt=False)
def snapshot_nb(cf, st, tr, h):
    if h < 0:
        return
    T = cf[C_T]
    NU = cf[C_NU]
    for t in range(T):
        for u in range(NU):
            ev_put_nb(st, tr, h, st[O_UNITS + t * MAXU + u])
    for u in range(NU):
        ev_put_nb(st, tr, h, st[O_POOL + u])
    for u in range(NU):
        ev_put_nb(st, tr, h, st[O_CAPT + u])
    for l in range(cf[C_NL]):
        ev_put_nb(st, tr, h, st[O_LLOC + l])
    for c in range(cf[C_NC]):
        ev_put_nb(st, tr, h, st[O_CST + c])
        ev_put_nb(st, tr, h, st[O_CLOC + c])
        for u in range(NU):
            ev_put_nb(st, tr, h, st[O_HOLD + c * MAXU + u])
    ev_put_nb(st, tr, h, st[S_GATE])
    ev_put_nb(st, tr, h, cf[C_ND] - st[S_DTOP])
    ev_put_nb(st, tr, h, cf[C_NC] - st[S_MTTOP])


# ======================================================================================
# scoring, end of game, invariant
# ======================================================================================
@njit(cache=True, _nrt=False)
def points_nb(cf, st):
    """MT-10.3 points of (good, evil)."""
    pg = 0
    pe = 0
    for u in range(cf[C_NU]):
        if cf[O_USIDE + u] == EVIL:
            pg += st[O_CAPT + u] * cf[O_UPTS + u]
        else:
            pe += st[O_CAPT + u] * cf[O_UPTS + u]
    pg += st[S_LCAP + GOOD] * cf[P_PTS_LEADER]
    pe += st[S_LCAP + EVIL] * cf[P_PTS_LEADER]
    for t in range(cf[C_T]):
        if cf[O_TKIND + t] == 2 and side_units_nb(cf, st, t, EVIL) > 0:
            pe += cf[P_PTS_WALL]
    if st[S_GATE] == 1:
        pe += cf[P_PTS_GATE]
    return pg, pe


@njit(cache=True, _nrt=False)
def end_game_nb(cf, st, tr, winner, reason):
    if st[S_OVER] == 1:
        return
    pg, pe = points_nb(cf, st)
    if reason == R_DECK:
        winner = W_GOOD if pg > pe else (W_EVIL if pe > pg else W_DRAW)
    st[S_OVER] = 1
    st[S_WINNER] = winner
    st[S_REASON] = reason
    st[S_PG] = pg
    st[S_PE] = pe
    h = ev_begin_nb(st, tr, EV_END)
    ev_put_nb(st, tr, h, winner)
    ev_put_nb(st, tr, h, reason)
    ev_put_nb(st, tr, h, pg)
    ev_put_nb(st, tr, h, pe)
    ev_end_nb(st, tr, h)


@njit(cache=True, _nrt=False)
def check_win_nb(cf, st, tr):
    """MT-10.1 (Good captures enough Evil leaders) and MT-10.2 (Evil in the city)."""
    if st[S_OVER] == 1:
        return True
    if st[S_LCAP + GOOD] >= cf[P_LEADERS_WIN]:
        end_game_nb(cf, st, tr, W_GOOD, R_LEADERS)
        return True
    if side_units_nb(cf, st, cf[C_CITY], EVIL) > 0:
        end_game_nb(cf, st, tr, W_EVIL, R_CITY)
        return True
    return False


@njit(cache=True, _nrt=False)
def invariant_ok_nb(cf, st):
    """MT-1.4: board + holder cards + pool + captured = totals, per unit type; every count >= 0."""
    for u in range(cf[C_NU]):
        n = st[O_POOL + u] + st[O_CAPT + u]
        if st[O_POOL + u] < 0 or st[O_CAPT + u] < 0:
            return False
        for t in range(cf[C_T]):
            v = st[O_UNITS + t * MAXU + u]
            if v < 0:
                return False
            n += v
        for c in range(cf[C_NC]):
            n += st[O_HOLD + c * MAXU + u]
        if n != cf[O_UTOT + u]:
            return False
    return True


@njit(cache=True, _nrt=False)
def may_stand_nb(cf, u, t):
    """MT-6.4 / MT-6.6: only infantry (archers and crossbowmen included) stand on a wall; no
    cavalry, no creature, by any route (move, retreat, bonus unit, muster, holder card)."""
    return cf[O_TKIND + t] != 2 or cf[O_UCLS + u] == 0


@njit(cache=True, _nrt=False)
def walls_ok_nb(cf, st):
    """True when no unit stands where MT-6.4 / MT-6.6 forbid it (checked in debug games)."""
    for t in range(cf[C_T]):
        if cf[O_TKIND + t] != 2:
            continue
        for u in range(cf[C_NU]):
            if st[O_UNITS + t * MAXU + u] > 0 and not may_stand_nb(cf, u, t):
                return False
    return True


@njit(cache=True, _nrt=False)
def _debug_check_nb(cf, st):
    if st[S_DEBUG] == 1 and st[S_BAD] == 0:
        if not invariant_ok_nb(cf, st):
            st[S_BAD] = 1
            st[S_BADTURN] = st[S_TURN]
        elif not walls_ok_nb(cf, st):
            st[S_BAD] = 2
            st[S_BADTURN] = st[S_TURN]


# ======================================================================================
# losses, captures, leaders
# ======================================================================================
@njit(cache=True, _nrt=False)
def capture_unit_nb(cf, st, tr, t, u):
    """A unit lost in combat goes to the opponent (MT-1.4)."""
    st[O_UNITS + t * MAXU + u] -= 1
    st[O_CAPT + u] += 1
    h = ev_begin_nb(st, tr, EV_CAPTURE)
    ev_put_nb(st, tr, h, 1 - cf[O_USIDE + u])
    ev_put_nb(st, tr, h, t)
    ev_put_nb(st, tr, h, u)
    ev_put_nb(st, tr, h, -1)
    ev_end_nb(st, tr, h)


@njit(cache=True, _nrt=False)
def capture_leader_nb(cf, st, tr, l, t):
    side = cf[O_LSIDE + l]
    st[O_LLOC + l] = -2
    st[S_LCAP + 1 - side] += 1
    h = ev_begin_nb(st, tr, EV_CAPTURE)
    ev_put_nb(st, tr, h, 1 - side)
    ev_put_nb(st, tr, h, t)
    ev_put_nb(st, tr, h, -1)
    ev_put_nb(st, tr, h, l)
    ev_end_nb(st, tr, h)


@njit(cache=True, _nrt=False)
def remove_leader_nb(cf, st, tr, l, why, to_captured):
    t = st[O_LLOC + l]
    h = ev_begin_nb(st, tr, EV_LREMOVED)
    ev_put_nb(st, tr, h, l)
    ev_put_nb(st, tr, h, t)
    ev_put_nb(st, tr, h, why)
    ev_put_nb(st, tr, h, to_captured)
    ev_end_nb(st, tr, h)
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


# ======================================================================================
# deck, hands, Minas Tirith cards
# ======================================================================================
@njit(cache=True, _nrt=False)
def mt_draw_nb(cf, st):
    if st[S_MTTOP] >= cf[C_NC]:
        return -1
    c = st[O_MTORD + st[S_MTTOP]]
    st[S_MTTOP] += 1
    return c


@njit(cache=True, _nrt=False)
def usable_nb(cf, c, side):
    return (cf[O_CSIDES + c] >> side) & 1


@njit(cache=True, _nrt=False)
def hand_counts_nb(cf, st, side, cnt):
    for k in range(4):
        cnt[k] = 0
    for i in range(st[S_HN + side]):
        cnt[cf[O_DTYPE + st[O_HAND + side * HMAX + i]]] += 1


@njit(cache=True, _nrt=False)
def hand_remove_nb(st, side, i):
    n = st[S_HN + side]
    st[O_HAND + side * HMAX + i] = st[O_HAND + side * HMAX + n - 1]
    st[S_HN + side] = n - 1


@njit(cache=True, _nrt=False)
def card_unit_types_nb(cf, side, ctype, u):
    """Does reinforcement-card type ``ctype`` give unit type u of ``side``? (MT-5.4 c, MT-5.5)"""
    if cf[O_USIDE + u] != side:
        return False
    cls = cf[O_UCLS + u]
    if ctype == 3:
        return True
    if ctype == cls:
        return True
    if side == GOOD and ctype == 2 and cls == 0 and cf[P_GOOD_CRE_INF] == 1:
        return True  # MT-5.4 [R]: Good takes an infantry for a creature card
    return False


# ======================================================================================
# movement, placement
# ======================================================================================
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
    # MT-6.1 / MT-7.2: an archer fires once per turn - archers that fired carry that with them
    fired = st[O_FIRED + a]
    if narch < fired:
        fired = narch
    st[O_FIRED + a] -= fired
    st[O_FIRED + b] += fired
    lm = 0
    if side_units_nb(cf, st, a, side) == 0:
        for l in range(cf[C_NL]):
            if st[O_LLOC + l] == a and cf[O_LSIDE + l] == side:
                st[O_LLOC + l] = b
                lm |= 1 << l
    h = ev_begin_nb(st, tr, EV_MOVE)
    ev_put_nb(st, tr, h, a)
    ev_put_nb(st, tr, h, b)
    ev_put_nb(st, tr, h, via)
    ev_put_nb(st, tr, h, cost)
    for u in range(cf[C_NU]):
        ev_put_nb(st, tr, h, st[vec + u])
    ev_put_nb(st, tr, h, lm)
    ev_end_nb(st, tr, h)
    # MT-9.3: Evil crossing the gate with Grond breaks it
    if side == EVIL and st[S_GATE] == 0 and moved > 0:
        if cf[O_EK + a * MAXT + b] == 3 or (via >= 0 and (cf[O_EK + a * MAXT + via] == 3 or cf[O_EK + via * MAXT + b] == 3)):
            break_gate_nb(cf, st, tr)
    return moved


@njit(cache=True, _nrt=False)
def break_gate_nb(cf, st, tr):
    st[S_GATE] = 1
    h = ev_begin_nb(st, tr, EV_GATE)
    ev_end_nb(st, tr, h)


@njit(cache=True, _nrt=False)
def move_leader_nb(cf, st, tr, l, b):
    a = st[O_LLOC + l]
    st[O_LLOC + l] = b
    h = ev_begin_nb(st, tr, EV_MOVE)
    ev_put_nb(st, tr, h, a)
    ev_put_nb(st, tr, h, b)
    ev_put_nb(st, tr, h, -1)
    ev_put_nb(st, tr, h, 1)
    for u in range(cf[C_NU]):
        ev_put_nb(st, tr, h, 0)
    ev_put_nb(st, tr, h, 1 << l)
    ev_end_nb(st, tr, h)


@njit(cache=True, _nrt=False)
def card_played_nb(cf, st, tr, c, discard, t):
    h = ev_begin_nb(st, tr, EV_PLAYED)
    ev_put_nb(st, tr, h, c)
    ev_put_nb(st, tr, h, cf[O_CKIND + c])
    ev_put_nb(st, tr, h, t)
    ev_end_nb(st, tr, h)
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
    h = ev_begin_nb(st, tr, EV_PLACE)
    ev_put_nb(st, tr, h, t)
    ev_put_nb(st, tr, h, c)
    for u in range(cf[C_NU]):
        v = st[O_HOLD + c * MAXU + u]
        ev_put_nb(st, tr, h, v)
        st[O_UNITS + t * MAXU + u] += v
        st[O_HOLD + c * MAXU + u] = 0
    ev_put_nb(st, tr, h, lm)
    ev_end_nb(st, tr, h)


@njit(cache=True, _nrt=False)
def place_pool_nb(cf, st, tr, t, u, n, src):
    """Units from the pool to t (bonus trade MT-5.4 c, Muster MT-9.7)."""
    if n > st[O_POOL + u]:
        n = st[O_POOL + u]
    if n <= 0:
        return 0
    st[O_POOL + u] -= n
    st[O_UNITS + t * MAXU + u] += n
    h = ev_begin_nb(st, tr, EV_PLACE)
    ev_put_nb(st, tr, h, t)
    ev_put_nb(st, tr, h, src)
    for v in range(cf[C_NU]):
        ev_put_nb(st, tr, h, n if v == u else 0)
    ev_put_nb(st, tr, h, 0)
    ev_end_nb(st, tr, h)
    return n


@njit(cache=True, _nrt=False)
def place_leader_card_nb(cf, st, tr, c, t):
    """MT-9.6: the card's leader joins an own force at t."""
    card_played_nb(cf, st, tr, c, True, -1)
    l = cf[O_CLEAD + c]
    if l >= 0 and st[O_LLOC + l] == -3:
        st[O_LLOC + l] = t
        h = ev_begin_nb(st, tr, EV_PLACE)
        ev_put_nb(st, tr, h, t)
        ev_put_nb(st, tr, h, c)
        for u in range(cf[C_NU]):
            ev_put_nb(st, tr, h, 0)
        ev_put_nb(st, tr, h, 1 << l)
        ev_end_nb(st, tr, h)


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
    h = ev_begin_nb(st, tr, EV_EXCHANGE)
    ev_put_nb(st, tr, h, t)
    ev_put_nb(st, tr, h, mu)
    ev_put_nb(st, tr, h, 1)
    ev_put_nb(st, tr, h, inf)
    ev_put_nb(st, tr, h, n)
    ev_end_nb(st, tr, h)


@njit(cache=True, _nrt=False)
def mumak_type_nb(cf):
    mu = -1
    for j in range(cf[O_NTS + EVIL]):
        u = cf[O_LORD + EVIL * MAXU + j]
        if cf[O_UCLS + u] == 2:
            mu = u
    return mu


@njit(cache=True, _nrt=False)
def catapults_check_nb(cf, st, tr):
    """MT-9.4: a catapult is lost when its territory holds no own units."""
    for c in range(cf[C_NC]):
        cs = st[O_CST + c]
        if cs >= 4:
            t = st[O_CLOC + c]
            if side_units_nb(cf, st, t, cs - 4) == 0:
                st[O_CST + c] = 3
                h = ev_begin_nb(st, tr, EV_CATLOST)
                ev_put_nb(st, tr, h, c)
                ev_put_nb(st, tr, h, t)
                ev_end_nb(st, tr, h)


# ======================================================================================
# combat
# ======================================================================================
@njit(cache=True, _nrt=False)
def retreat_nb(cf, st, tr, s, pol, side, a, vec, steps, lmask):
    """MT-7.5: the force counted in st[vec:] (already at a) with the leaders in lmask retreats
    ``steps`` territories towards its edge (Evil: Evil's edge; Good: Good's edge), each step
    to a strictly closer territory without enemies that the whole force may enter; steps that
    cannot be taken cost units (per step, or one per six if blocked at all)."""
    doff = O_DEVIL if side == EVIL else O_DGOOD
    cur = a
    np_ = 0
    blocked = 0
    for step in range(steps):
        best = -1
        bestv = -1.0
        ncand = 0
        nbn = cf[O_NBN + cur]
        for j in range(nbn):
            c = cf[O_NB + cur * MAXDEG + j]
            if cf[doff + c] >= cf[doff + cur]:
                continue
            if side_units_nb(cf, st, c, 1 - side) > 0:
                continue
            ok = True
            for u in range(cf[C_NU]):
                if st[vec + u] > 0 and not cross_ok_nb(cf, st, side, cf[O_UCLS + u], cur, c):
                    ok = False
            if lmask != 0 and not cross_ok_nb(cf, st, side, 3, cur, c):
                ok = False
            if not ok:
                continue
            ncand += 1
            if pol[side, PL_TYPE] == 0:
                v = uniform_nb(s)
            else:
                v = side_units_nb(cf, st, c, side) + 0.5 - 0.01 * j
            if v > bestv:
                bestv = v
                best = c
        if best < 0:
            blocked = steps - step
            break
        # move the force one step
        for u in range(cf[C_NU]):
            st[O_UNITS + cur * MAXU + u] -= st[vec + u]
            st[O_UNITS + best * MAXU + u] += st[vec + u]
        for l in range(cf[C_NL]):
            if (lmask >> l) & 1:
                st[O_LLOC + l] = best
        st[O_PATH + np_] = best
        np_ += 1
        cur = best
    losses = 0
    if blocked > 0:
        losses = blocked if cf[P_BLOCKED] == 0 else steps
    h = ev_begin_nb(st, tr, EV_RETREAT)
    ev_put_nb(st, tr, h, side)
    ev_put_nb(st, tr, h, a)
    ev_put_nb(st, tr, h, np_)
    for i in range(np_):
        ev_put_nb(st, tr, h, st[O_PATH + i])
    for u in range(cf[C_NU]):
        ev_put_nb(st, tr, h, st[vec + u])
    ev_put_nb(st, tr, h, lmask)
    ev_put_nb(st, tr, h, losses)
    ev_end_nb(st, tr, h)
    if losses > 0:
        take_losses_nb(cf, st, tr, side, cur, losses, vec, True, False)
        leaders_last_unit_nb(cf, st, tr, cur, side)
    return cur


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
        ev_put_nb(st, tr, h, -1)
        return
    _stream_swap_nb(s)
    if modified:
        a1 = d6_nb(s)
        a2 = d6_nb(s) if ad >= 2 else 0
        a3 = d6_nb(s) if ad >= 3 else 0
        d1 = d6_nb(s)
        d2 = d6_nb(s) if dd >= 2 else 0
    else:
        a1, a2, a3, d1, d2 = _dice5_nb(s)
    _stream_restore_nb(s)
    ev_put_nb(st, tr, h, ad)
    ev_put_nb(st, tr, h, a1)
    if ad >= 2:
        ev_put_nb(st, tr, h, a2)
    if ad >= 3:
        ev_put_nb(st, tr, h, a3)
    ev_put_nb(st, tr, h, dd)
    ev_put_nb(st, tr, h, d1)
    if dd >= 2:
        ev_put_nb(st, tr, h, d2)


@njit(cache=True, _nrt=False)
def _modified_roll_nb(s, ad, dd, ab, db):
    """The same draws as assault_roll_nb, also counting a modified 6 on the highest die
    (retreat_trigger = modified6, MT-8.2 [R])."""
    a1 = d6_nb(s)
    a2 = d6_nb(s) if ad >= 2 else 0
    a3 = d6_nb(s) if ad >= 3 else 0
    d1 = d6_nb(s)
    d2 = d6_nb(s) if dd >= 2 else 0
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
def assault_nb(cf, st, tr, s, pol, side, a, b, k):
    """One assault roll (MT-7.3-7.5, MT-8.2) from a to b with k units; then retreats,
    captures, and the free cavalry move-in (MT-7.6). Returns 1 if the territory was taken."""
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
    h = ev_begin_nb(st, tr, EV_ASSAULT)
    ev_put_nb(st, tr, h, a)
    ev_put_nb(st, tr, h, b)
    for u in range(cf[C_NU]):
        ev_put_nb(st, tr, h, st[vec + u])
    ev_put_nb(st, tr, h, k)
    ev_put_nb(st, tr, h, dd)
    ev_put_nb(st, tr, h, ab)
    ev_put_nb(st, tr, h, db)
    ev_put_nb(st, tr, h, la)
    ev_put_nb(st, tr, h, ld)
    ev_put_nb(st, tr, h, D)
    # the roll itself, so that a trace can be checked on its own (issue 7): Witch-king, the
    # retreat-trigger sixes as the engine counted them, then both sides' faces as rolled
    ev_put_nb(st, tr, h, wk)
    ev_put_nb(st, tr, h, a6)
    ev_put_nb(st, tr, h, d6)
    _put_assault_faces_nb(st, tr, h, s, faces, k, dd, cf[P_RETREAT] == 1)
    ev_end_nb(st, tr, h)
    if side == EVIL and st[S_GATE] == 0 and cf[O_EK + a * MAXT + b] == 3:
        break_gate_nb(cf, st, tr)  # MT-9.3: the first assault across the gate breaks it
    take_losses_nb(cf, st, tr, side, a, la, vec, True, False)
    take_losses_nb(cf, st, tr, E, b, ld, 0, False, False)
    leaders_last_unit_nb(cf, st, tr, a, side)
    leaders_last_unit_nb(cf, st, tr, b, E)
    if check_win_nb(cf, st, tr):
        return 0
    # MT-7.5 retreats (losses first; natural sixes unless retreat_trigger says otherwise)
    att_left = 0
    for u in range(cf[C_NU]):
        att_left += st[vec + u]
    def_left = side_units_nb(cf, st, b, E)
    # retreat_after_wipeout (MT-7.5 [R]): the six still acts when the roll wiped out the
    # side that rolled it; a side that is itself wiped out never retreats
    both = att_left > 0 and def_left > 0
    if cf[P_RETREAT] != 2 and cf[P_RETREAT_WIPED] == 1 and not both and (att_left > 0 or def_left > 0):
        good6 = a6 if side == GOOD else d6
        evil6 = d6 if side == GOOD else a6
        # which side the six sends back: Evil on Good's six, else Good on the Witch-king's six
        back = -1
        n6 = 0
        if good6 > 0:
            back = EVIL
            n6 = good6
        elif wk == 1 and evil6 > 0:
            back = GOOD
            n6 = evil6
        if back == E and def_left > 0:  # the defenders retreat from a wiped-out attack
            _all_units_vec_nb(cf, st, b, E, O_SCB)
            retreat_nb(cf, st, tr, s, pol, E, b, O_SCB, n6, leader_mask_at_nb(cf, st, b, E))
            catapults_check_nb(cf, st, tr)
            if check_win_nb(cf, st, tr):
                return 0
        elif back == side and att_left > 0:  # the attackers retreat; the turn ends
            lm = 0
            if ab > 0 and leaders_at_nb(cf, st, a, side) > 0:
                lm = _first_leader_mask_nb(cf, st, a, side)
            retreat_nb(cf, st, tr, s, pol, side, a, vec, n6, lm)
            st[S_TURNEND] = 1
            catapults_check_nb(cf, st, tr)
            if check_win_nb(cf, st, tr):
                return 0
            return 0
    if cf[P_RETREAT] != 2 and both:
        good6 = a6 if side == GOOD else d6
        evil6 = d6 if side == GOOD else a6
        if good6 > 0:
            if side == GOOD:  # Evil defenders retreat with their leaders
                _all_units_vec_nb(cf, st, b, E, O_SCB)
                retreat_nb(cf, st, tr, s, pol, E, b, O_SCB, good6, leader_mask_at_nb(cf, st, b, E))
            else:  # Evil attackers retreat; Evil's turn ends
                lm = 0
                if ab > 0 and leaders_at_nb(cf, st, a, EVIL) > 0:
                    lm = _first_leader_mask_nb(cf, st, a, EVIL)
                retreat_nb(cf, st, tr, s, pol, EVIL, a, vec, good6, lm)
                st[S_TURNEND] = 1
        elif wk == 1 and evil6 > 0:  # the Witch-king reversal
            if side == EVIL:
                _all_units_vec_nb(cf, st, b, GOOD, O_SCB)
                retreat_nb(cf, st, tr, s, pol, GOOD, b, O_SCB, evil6, leader_mask_at_nb(cf, st, b, GOOD))
            else:
                lm = 0
                if ab > 0 and leaders_at_nb(cf, st, a, GOOD) > 0:
                    lm = _first_leader_mask_nb(cf, st, a, GOOD)
                retreat_nb(cf, st, tr, s, pol, GOOD, a, vec, evil6, lm)
                st[S_TURNEND] = 1
        catapults_check_nb(cf, st, tr)
        if check_win_nb(cf, st, tr):
            return 0
    elif cf[P_RETREAT] != 2 and att_left == 0:
        # MT-7.5: the attacking force died, so nothing retreats, but the six still ends the
        # attacker's turn (Good's defending six; an Evil six with the Witch-king defending)
        good6 = a6 if side == GOOD else d6
        evil6 = d6 if side == GOOD else a6
        if side == EVIL and good6 > 0:
            st[S_TURNEND] = 1
        elif side == GOOD and good6 == 0 and wk == 1 and evil6 > 0:
            st[S_TURNEND] = 1
    catapults_check_nb(cf, st, tr)
    if side_units_nb(cf, st, b, E) == 0 and st[S_TURNEND] == 0:
        # MT-7.6: surviving attacking cavalry may move in free
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
def bombard_action_nb(cf, st, tr, s, side, a, b, n):
    """MT-7.2: n shooters (archers first, then a catapult) fire at b."""
    arch, cat = shooters_nb(cf, st, side, a, b)
    na = n if n <= arch else arch
    nc = n - na
    if nc > 0 and cat >= 0:
        nc = 1
        st[O_CFIRED + cat] = 1
    else:
        nc = 0
    st[O_FIRED + a] += na
    shooters = na + nc
    banner = 1 if (side == EVIL and cf[O_BANNER + b] == 1) else 0
    dice = shooters // cf[P_EVIL_DIV] if banner == 1 else shooters
    faces = _stream_save_nb(s, tr)
    dice, hits = bombard_nb(s, dice, False)
    h = ev_begin_nb(st, tr, EV_BOMBARD)
    ev_put_nb(st, tr, h, a)
    ev_put_nb(st, tr, h, b)
    ev_put_nb(st, tr, h, shooters)
    ev_put_nb(st, tr, h, dice)
    ev_put_nb(st, tr, h, hits)
    ev_put_nb(st, tr, h, banner)
    # the faces rolled (issue 7): the same draws as bombard_nb, replayed from the saved stream
    if h >= 0 and faces:
        _stream_swap_nb(s)
        ev_put_nb(st, tr, h, dice)
        for _ in range(dice):
            ev_put_nb(st, tr, h, d6_nb(s))
        _stream_restore_nb(s)
    else:
        ev_put_nb(st, tr, h, -1)
    ev_end_nb(st, tr, h)
    if hits > 0:
        take_losses_nb(cf, st, tr, 1 - side, b, hits, 0, False, cf[P_BOMB_LOSS] == 1)
        leaders_last_unit_nb(cf, st, tr, b, 1 - side)
        catapults_check_nb(cf, st, tr)
        check_win_nb(cf, st, tr)


# ======================================================================================
# heuristics
# ======================================================================================
@njit(cache=True, _nrt=False)
def importance_nb(cf, t):
    k = cf[O_TKIND + t]
    if k == 3:
        return 6.0
    if k == 2:
        return 4.0
    if cf[O_BANNER + t] == 1:
        return 2.0
    return 1.0


@njit(cache=True, _nrt=False)
def threat_nb(cf, st, t, side):
    """Enemy units next to t (from the per-decision cache, see refresh_tot_nb)."""
    return st[O_THR + side * MAXT + t]


@njit(cache=True, _nrt=False)
def good_want_nb(cf, st, t, extra):
    own = st[O_TOT + (GOOD) * MAXT + t] + extra
    return importance_nb(cf, t) * (1.0 + threat_nb(cf, st, t, GOOD)) / (1.0 + own)


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


@njit(cache=True, _nrt=False)
def check_caches_nb(cf, st):
    """Debug games (issue 7 §6): every cached twin used to propose and score moves against
    its full version, on the current position, right after refresh_tot_nb. Returns the number
    of disagreements; counts the comparisons in st[S_NCHECK].
    Twins: cross_fast_nb / cross_ok_nb (every edge, side, class), bonus_fast_nb /
    assault_bonus_nb (every edge, side), the per-territory caches (units, Evil threat,
    leaders, Witch-king, siege / Grond / catapult flags) and _leader_reach3_nb /
    _leader_path_ok_nb (every leader, every territory at distance 3)."""
    bad = 0
    T = cf[C_T]
    for a in range(T):
        for j in range(cf[O_NBN + a]):
            b = cf[O_NB + a * MAXDEG + j]
            for side in range(2):
                for cls in range(4):
                    st[S_NCHECK] += 1
                    if cross_fast_nb(cf, st, side, cls, a, b) != cross_ok_nb(cf, st, side, cls, a, b):
                        bad += 1
                ab1, db1, wk1 = bonus_fast_nb(cf, st, side, a, b)
                ab2, db2, wk2 = assault_bonus_nb(cf, st, side, a, b)
                st[S_NCHECK] += 1
                if ab1 != ab2 or db1 != db2 or wk1 != wk2:
                    bad += 1
        thr = 0
        for j in range(cf[O_NBN + a]):
            thr += side_units_nb(cf, st, cf[O_NB + a * MAXDEG + j], EVIL)
        st[S_NCHECK] += 1
        if st[O_THR + GOOD * MAXT + a] != thr or st[O_WKAT + a] != wk_at_nb(cf, st, a):
            bad += 1
        for side in range(2):
            if st[O_TOT + side * MAXT + a] != side_units_nb(cf, st, a, side):
                bad += 1
            if st[O_LAT + side * MAXT + a] != leaders_at_nb(cf, st, a, side):
                bad += 1
    st[S_NCHECK] += 1
    if st[O_DEC] != holds_nb(cf, st, EVIL, K_SIEGE) or st[O_DEC + 1] != holds_nb(cf, st, EVIL, K_GROND):
        bad += 1
    for side in range(2):
        n = 0
        for c in range(cf[C_NC]):
            if st[O_CST + c] == 4 + side:
                n += 1
        if st[O_DEC + 2 + side] != n:
            bad += 1
    for l in range(cf[C_NL]):
        a = st[O_LLOC + l]
        if a < 0:
            continue
        side = cf[O_LSIDE + l]
        r3 = _leader_reach3_nb(cf, st, side, a)
        for b in range(T):
            if cf[O_DIST + a * MAXT + b] == 3 and st[O_TOT + side * MAXT + b] > 0:
                st[S_NCHECK] += 1
                if (((r3 >> b) & 1) == 1) != _leader_path_ok_nb(cf, st, side, a, b):
                    bad += 1
    return bad


@njit(cache=True, _nrt=False)
def winp_nb(cf, st, wp, side, a, b, natt):
    """P(the attacker takes b) from the exact tables, with the MT-8.2 modifiers of
    assault_bonus_nb read from the per-decision cache (bonus_fast_nb; checked against it in
    debug games by check_caches_nb)."""
    ab, db, wk = bonus_fast_nb(cf, st, side, a, b)
    if ab > N_AB - 1:
        ab = N_AB - 1
    if db > N_DB - 1:
        db = N_DB - 1
    A = natt if natt < WMAX else WMAX
    D = st[O_TOT + (1 - side) * MAXT + b]
    if D > WMAX:
        D = WMAX
    return wp[side, wk, ab, db, A, D]


@njit(cache=True, _nrt=False, inline='always')
def score_action_nb(cf, st, wp, pol, side, act, i):
    kind = act[i, 0]
    a = act[i, 1]
    b = act[i, 2]
    E = 1 - side
    if kind == A_PASS:
        return 0.0
    if kind == A_BOMBARD:
        # bombard with every archer that has a target; prefer valuable or leader-held targets
        v = 5.0 + 2.0 * act[i, 4] + 0.1 * importance_nb(cf, b)
        if st[O_LAT + E * MAXT + b] > 0 and st[O_TOT + (E) * MAXT + b] <= 2:
            v += 3.0
        return v
    if kind == A_ASSAULT:
        if act[i, 4] == 0:
            return -1.0  # heuristic players always roll the most dice
        p = winp_nb(cf, st, wp, side, a, b, act[i, 5])
        if p < pol[side, PL_THR]:
            return -1.0
        v = 10.0 + 10.0 * p + 4.0 * st[O_LAT + E * MAXT + b] + importance_nb(cf, b)
        return v
    if kind == A_MOVE or kind == A_CAV2:
        k = act[i, 3]
        full = act[i, 4]
        to = act[i, 5] if kind == A_CAV2 else b
        if side == EVIL:
            if to == cf[C_CITY]:
                return 1000.0
            gain = cf[O_DCITY + a] - cf[O_DCITY + to]
            if gain <= 0:
                return -1.0
            v = pol[side, PL_ADV] * gain * (1.0 + 0.3 * k)
            if full == 0:
                v *= 0.5
            if cf[O_TKIND + to] == 2:
                v += 2.0
            return v
        # Good moves only to fortified/important places or to join an own stack
        if importance_nb(cf, to) < 2.0 and st[O_TOT + (GOOD) * MAXT + to] == 0:
            return -1.0
        g = good_want_nb(cf, st, to, k) - good_want_nb(cf, st, a, -k)
        if cf[O_TKIND + a] == 2 or cf[O_TKIND + a] == 3:
            if threat_nb(cf, st, a, GOOD) > 0:
                g -= 2.0
        if g <= 0.3:
            return -1.0
        return pol[side, PL_DEF] * g
    if kind == A_LMOVE:
        l = a
        src = st[O_LLOC + l]
        if st[O_LAT + side * MAXT + b] > 0:
            return -1.0
        if side == EVIL:
            d = st[O_TOT + (side) * MAXT + b] - st[O_TOT + (side) * MAXT + src]
            if d > 2 and cf[O_DCITY + b] <= cf[O_DCITY + src]:
                return 1.0 + 0.1 * d
            return -1.0
        if threat_nb(cf, st, src, GOOD) > st[O_TOT + (GOOD) * MAXT + src] and \
                threat_nb(cf, st, b, GOOD) < st[O_TOT + (GOOD) * MAXT + b]:
            return 2.0
        return -1.0
    if kind == A_HOLDER:
        c = a
        n = 0
        for u in range(cf[C_NU]):
            n += st[O_HOLD + c * MAXU + u]
        if n >= 3 or n >= cf[P_HOLDER_CAP] or cf[C_ND] - st[S_DTOP] < 8:
            if n == 0:
                return -1.0
            return 3.0 + 0.1 * st[O_TOT + (side) * MAXT + b]
        return -1.0
    if kind == A_LCARD:
        return 3.0 + 0.01 * st[O_TOT + (side) * MAXT + b]
    if kind == A_CATAPULT:
        n = 0
        for t in range(cf[C_T]):
            if cf[O_DIST + b * MAXT + t] <= 3:
                n += st[O_TOT + (E) * MAXT + t]
        if n == 0:
            return -1.0
        return 4.0 + 0.01 * n
    if kind == A_EXCHANGE:
        # worth it only when the pool still holds the 3 infantry
        for j in range(cf[O_NTS + EVIL]):
            u = cf[O_LORD + EVIL * MAXU + j]
            if cf[O_UCLS + u] == 0 and cf[O_UARCH + u] == 0:
                return 2.0 if st[O_POOL + u] >= 3 else -1.0
        return -1.0
    return -1.0


# ======================================================================================
# legal actions (MT-6, MT-7)
# ======================================================================================
@njit(cache=True, _nrt=False)
def _add_nb(act, n, kind, a, b, c, d, e):
    if n < MAXA:
        act[n, 0] = kind
        act[n, 1] = a
        act[n, 2] = b
        act[n, 3] = c
        act[n, 4] = d
        act[n, 5] = e
        return n + 1
    return n


@njit(cache=True, _nrt=False)
def enum_actions_nb(cf, st, side, act):
    E = 1 - side
    T = cf[C_T]
    refresh_tot_nb(cf, st)
    if st[S_DEBUG] == 1 and check_caches_nb(cf, st) > 0 and st[S_BAD] == 0:
        st[S_BAD] = 3  # a cached check disagrees with the full one (issue 7 §6)
        st[S_BADTURN] = st[S_TURN]
    n = _add_nb(act, 0, A_PASS, 0, 0, 0, 0, 0)
    mu = mumak_type_nb(cf) if side == EVIL else -1
    for a in range(T):
        own = st[O_TOT + (side) * MAXT + a]
        if own == 0:
            continue
        # per territory: cavalry, archers able to fire (as in shooters_nb), any archer
        cav_a = 0
        arch_a = 0
        has_sh = False
        for jj in range(cf[O_NTS + side]):
            u = cf[O_LORD + side * MAXU + jj]
            m = st[O_UNITS + a * MAXU + u]
            if cf[O_UCLS + u] == 1:
                cav_a += m
            if cf[O_UARCH + u] == 1:
                arch_a += m
                if m > 0:
                    has_sh = True
        arch_a -= st[O_FIRED + a]
        if arch_a < 0:
            arch_a = 0
        nbn = cf[O_NBN + a]
        for j in range(nbn):
            b = cf[O_NB + a * MAXDEG + j]
            ne = st[O_TOT + (E) * MAXT + b]
            if cf[O_EK + a * MAXT + b] == 0:
                # an open border: every unit may cross (cross_ok_nb)
                elig = own
                cav = cav_a
            else:
                elig = 0
                cav = 0
                for jj in range(cf[O_NTS + side]):
                    u = cf[O_LORD + side * MAXU + jj]
                    m = st[O_UNITS + a * MAXU + u]
                    if m > 0 and cross_fast_nb(cf, st, side, cf[O_UCLS + u], a, b):
                        elig += m
                        if cf[O_UCLS + u] == 1:
                            cav += m
            if elig == 0:
                continue
            if ne > 0:
                # MT-7.3 assault with 1..3 units (leave_one_behind optional)
                kmax = elig
                if cf[P_LEAVE_ONE] == 1 and kmax > own - 1:
                    kmax = own - 1
                tot = kmax
                if kmax > 3:
                    kmax = 3
                for k in range(1, kmax + 1):
                    n = _add_nb(act, n, A_ASSAULT, a, b, k, 1 if k == kmax else 0, tot)
            else:
                # MT-6.2 a/b: move all eligible, or half
                n = _add_nb(act, n, A_MOVE, a, b, elig, 1, 0)
                if elig >= 2:
                    n = _add_nb(act, n, A_MOVE, a, b, elig // 2, 0, 0)
                # MT-6.2 c: cavalry 2 territories through an own-held territory
                if cav > 0 and st[O_TOT + (side) * MAXT + b] > 0 and cross_fast_nb(cf, st, side, 1, a, b):
                    for j2 in range(cf[O_NBN + b]):
                        c2 = cf[O_NB + b * MAXDEG + j2]
                        if c2 == a or st[O_TOT + (E) * MAXT + c2] > 0:
                            continue
                        if cross_fast_nb(cf, st, side, 1, b, c2):
                            n = _add_nb(act, n, A_CAV2, a, b, cav, 1, c2)
        # MT-7.2 bombardment (targets within 3, nearest first; only where there are shooters)
        ncat = st[O_DEC + 2 + side]
        if not has_sh and ncat > 0:
            for c in range(cf[C_NC]):
                if st[O_CST + c] == 4 + side and st[O_CLOC + c] == a:
                    has_sh = True
        if has_sh:
            for jn in range(cf[O_NEARN + a]):
                b = cf[O_NEAR + a * MAXT + jn]
                if st[O_TOT + E * MAXT + b] == 0:
                    continue
                if ncat > 0:
                    arch, cat = shooters_nb(cf, st, side, a, b)
                else:
                    arch = arch_a if cf[O_DIST + a * MAXT + b] <= 2 else 0
                    cat = -1
                sh = arch + (1 if cat >= 0 else 0)
                # MT-7.2: 1-3 dice; Evil at a banner needs evil_banner_divisor shooters per
                # die (2 -> 1, 4 -> 2, 6 -> 3) and names only the shooters it needs
                div = 1
                if side == EVIL and cf[O_BANNER + b] == 1:
                    div = cf[P_EVIL_DIV]
                if sh > 3 * div:
                    sh = 3 * div
                dice = sh // div
                if dice == 0:
                    continue
                sh = dice * div
                n = _add_nb(act, n, A_BOMBARD, a, b, sh, dice, 0)
        # MT-6.2 h: mumak for 3 infantry
        if side == EVIL:
            if mu >= 0 and st[O_UNITS + a * MAXU + mu] > 0:
                n = _add_nb(act, n, A_EXCHANGE, a, 0, 0, 0, 0)
    # MT-6.2 d: a leader alone 1-3 territories through territories holding own troops
    for l in range(cf[C_NL]):
        if cf[O_LSIDE + l] != side:
            continue
        a = st[O_LLOC + l]
        if a < 0:
            continue
        r3 = np.int64(-1)
        for jn in range(cf[O_NEARN + a]):
            b = cf[O_NEAR + a * MAXT + jn]
            if st[O_TOT + (side) * MAXT + b] == 0:
                continue
            d = cf[O_DIST + a * MAXT + b]
            if d == 1:
                ok = cross_fast_nb(cf, st, side, 3, a, b)
            elif d == 2:
                ok = _leader_path_ok_nb(cf, st, side, a, b)
            else:
                if r3 < 0:
                    r3 = _leader_reach3_nb(cf, st, side, a)
                ok = ((r3 >> b) & 1) == 1
            if ok:
                n = _add_nb(act, n, A_LMOVE, l, b, 0, 0, 0)
    # Minas Tirith cards played as movement missions (MT-6.2 e-g, MT-9.4, MT-9.6)
    for c in range(cf[C_NC]):
        if st[O_CST + c] != 1 + side:
            continue
        kind = cf[O_CKIND + c]
        if kind == K_HOLDER:
            for t in range(T):
                if cf[O_CENTRY + c * MAXT + t] == 1 and st[O_TOT + (E) * MAXT + t] == 0:
                    ok = True
                    for u in range(cf[C_NU]):  # MT-6.4 / MT-6.6: nobody lands where it may not stand
                        if st[O_HOLD + c * MAXU + u] > 0 and not may_stand_nb(cf, u, t):
                            ok = False
                    if ok:
                        n = _add_nb(act, n, A_HOLDER, c, t, 0, 0, 0)
        elif kind == K_LEADER:
            for t in range(T):
                if st[O_TOT + (side) * MAXT + t] > 0:
                    n = _add_nb(act, n, A_LCARD, c, t, 0, 0, 0)
        elif kind == K_CATAPULT:
            for t in range(T):
                if st[O_TOT + (side) * MAXT + t] > 0:
                    n = _add_nb(act, n, A_CATAPULT, c, t, 0, 0, 0)
    if st[S_DEBUG] == 1 and check_bombards_nb(cf, st, side, act, n) > 0 and st[S_BAD] == 0:
        st[S_BAD] = 3  # the proposed bombardments disagree with shooters_nb (issue 7 §6)
        st[S_BADTURN] = st[S_TURN]
    return n


@njit(cache=True, _nrt=False)
def check_bombards_nb(cf, st, side, act, n):
    """Debug games: the bombardments enum_actions_nb proposes (its own shooter count, fast when
    no catapult is on the board) against the full count of shooters_nb (MT-7.2, MT-9.4): the
    same targets, the same shooters and dice. Returns the number of disagreements."""
    bad = 0
    T = cf[C_T]
    nfull = 0
    for a in range(T):
        if st[O_TOT + side * MAXT + a] == 0:
            continue
        for b in range(T):
            d = cf[O_DIST + a * MAXT + b]
            if d < 1 or d > 3 or st[O_TOT + (1 - side) * MAXT + b] == 0:
                continue
            arch, cat = shooters_nb(cf, st, side, a, b)
            sh = arch + (1 if cat >= 0 else 0)
            div = cf[P_EVIL_DIV] if (side == EVIL and cf[O_BANNER + b] == 1) else 1
            if sh > 3 * div:
                sh = 3 * div
            dice = sh // div
            if dice == 0:
                continue
            nfull += 1
            found = 0
            for i in range(n):
                if act[i, 0] == A_BOMBARD and act[i, 1] == a and act[i, 2] == b:
                    found += 1
                    st[S_NCHECK] += 1
                    if act[i, 3] != dice * div or act[i, 4] != dice:
                        bad += 1
            if found != 1:
                bad += 1
    for i in range(n):
        if act[i, 0] == A_BOMBARD:
            nfull -= 1
    if nfull != 0:
        bad += 1
    return bad


@njit(cache=True, _nrt=False)
def _leader_reach3_nb(cf, st, side, a):
    """Bit mask of the territories a leader alone reaches from a in 3 steps whose intermediate
    territories hold own troops (MT-6.2 d): for targets at distance 3, the same set as
    _leader_path_ok_nb (per-decision cache, see refresh_tot_nb)."""
    own = O_TOT + side * MAXT
    s2 = 0
    for j in range(cf[O_NBN + a]):
        m = cf[O_NB + a * MAXDEG + j]
        if st[own + m] == 0 or not cross_fast_nb(cf, st, side, 3, a, m):
            continue
        for j2 in range(cf[O_NBN + m]):
            x = cf[O_NB + m * MAXDEG + j2]
            if st[own + x] > 0 and (s2 >> x) & 1 == 0 and cross_fast_nb(cf, st, side, 3, m, x):
                s2 |= np.int64(1) << x
    r3 = 0
    for m2 in range(cf[C_T]):
        if (s2 >> m2) & 1:
            for j3 in range(cf[O_NBN + m2]):
                x = cf[O_NB + m2 * MAXDEG + j3]
                if (r3 >> x) & 1 == 0 and cross_fast_nb(cf, st, side, 3, m2, x):
                    r3 |= np.int64(1) << x
    return r3


@njit(cache=True, _nrt=False)
def _leader_path_ok_nb(cf, st, side, a, b):
    """A path of <= 3 steps a -> b whose intermediate territories hold own troops (MT-6.2 d)."""
    d = cf[O_DIST + a * MAXT + b]
    if d == 1:
        return cross_fast_nb(cf, st, side, 3, a, b)
    for j in range(cf[O_NBN + a]):
        m = cf[O_NB + a * MAXDEG + j]
        if st[O_TOT + (side) * MAXT + m] == 0 or not cross_fast_nb(cf, st, side, 3, a, m):
            continue
        if cf[O_DIST + m * MAXT + b] == 1 and cross_fast_nb(cf, st, side, 3, m, b):
            return True
        if d == 3:
            for j2 in range(cf[O_NBN + m]):
                m2 = cf[O_NB + m * MAXDEG + j2]
                if st[O_TOT + (side) * MAXT + m2] == 0 or not cross_fast_nb(cf, st, side, 3, m, m2):
                    continue
                if cf[O_DIST + m2 * MAXT + b] == 1 and cross_fast_nb(cf, st, side, 3, m2, b):
                    return True
    return False


@njit(cache=True, _nrt=False)
def do_action_nb(cf, st, tr, s, pol, side, act, i):
    kind = act[i, 0]
    a = act[i, 1]
    b = act[i, 2]
    if kind == A_MOVE:
        move_units_nb(cf, st, tr, side, a, -1, b, act[i, 3], False, 1)
    elif kind == A_CAV2:
        move_units_nb(cf, st, tr, side, a, b, act[i, 5], act[i, 3], True, 1)
    elif kind == A_LMOVE:
        move_leader_nb(cf, st, tr, a, b)
    elif kind == A_ASSAULT:
        assault_nb(cf, st, tr, s, pol, side, a, b, act[i, 3])
    elif kind == A_BOMBARD:
        bombard_action_nb(cf, st, tr, s, side, a, b, act[i, 3])
    elif kind == A_HOLDER:
        place_holder_nb(cf, st, tr, side, a, b)
    elif kind == A_LCARD:
        place_leader_card_nb(cf, st, tr, a, b)
    elif kind == A_CATAPULT:
        place_catapult_nb(cf, st, tr, side, a, b)
    elif kind == A_EXCHANGE:
        exchange_nb(cf, st, tr, a)
    catapults_check_nb(cf, st, tr)
    check_win_nb(cf, st, tr)


@njit(cache=True, _nrt=False)
def choose_action_nb(cf, st, wp, pol, s, side, act, n):
    if pol[side, PL_TYPE] == 0:
        return randint_nb(s, n)
    best = 0
    bestv = 0.0
    for i in range(1, n):
        v = score_action_nb(cf, st, wp, pol, side, act, i)
        if v > bestv:
            bestv = v
            best = i
    return best


# ======================================================================================
# card phase (MT-5)
# ======================================================================================
@njit(cache=True, _nrt=False)
def draw_cards_nb(cf, st, side, n):
    """Draw n reinforcement cards (MT-4.5); returns the number drawn. The deck is never
    reshuffled (MT-5.3); drawing the last card ends the game (MT-10.3)."""
    k = 0
    for _ in range(n):
        if st[S_DTOP] >= cf[C_ND]:
            break
        c = st[O_DORD + st[S_DTOP]]
        st[S_DTOP] += 1
        st[O_HAND + side * HMAX + st[S_HN + side]] = c
        st[S_HN + side] += 1
        if k < 16:
            st[O_DRAWN + k] = c
        k += 1
        if st[S_DTOP] >= cf[C_ND]:
            st[S_DECKOUT] = 1
    return k


@njit(cache=True, _nrt=False)
def keep_mt_nb(cf, st, side, c):
    """MT-5.3: keep a drawn Minas Tirith card usable by the side, else discard it."""
    if usable_nb(cf, c, side) == 1:
        st[O_CST + c] = 1 + side
        return 1
    st[O_CST + c] = 3
    return 0


@njit(cache=True, _nrt=False)
def best_unit_territory_nb(cf, st, s, pol, side, u):
    """Where a side puts a unit of type u from the pool: a territory where it has units and
    where that unit may stand (MT-6.4 / MT-6.6: no cavalry or creature on a wall); -1 if none."""
    T = cf[C_T]
    refresh_tot_nb(cf, st)
    if pol[side, PL_TYPE] == 0:
        cnt = 0
        for t in range(T):
            if st[O_TOT + (side) * MAXT + t] > 0 and may_stand_nb(cf, u, t):
                cnt += 1
        if cnt == 0:
            return -1
        r = randint_nb(s, cnt)
        for t in range(T):
            if st[O_TOT + (side) * MAXT + t] > 0 and may_stand_nb(cf, u, t):
                if r == 0:
                    return t
                r -= 1
        return -1
    best = -1
    bestv = -1e9
    for t in range(T):
        if st[O_TOT + (side) * MAXT + t] == 0 or not may_stand_nb(cf, u, t):
            continue
        if side == GOOD:
            v = good_want_nb(cf, st, t, 0)
        else:
            v = -cf[O_DCITY + t] + 0.01 * st[O_TOT + (side) * MAXT + t]
        if v > bestv:
            bestv = v
            best = t
    return best


@njit(cache=True, _nrt=False)
def _placeable_nb(cf, st, side, u):
    """Does the side hold a territory where a unit of type u may be put (MT-5.4 c, MT-6.4)?"""
    for t in range(cf[C_T]):
        if side_units_nb(cf, st, t, side) > 0 and may_stand_nb(cf, u, t):
            return True
    return False


@njit(cache=True, _nrt=False)
def trade_nb(cf, st, tr, s, pol, side, k):
    """MT-5.2 trade a set of type k (jokers wild), MT-5.3 draw a Minas Tirith card, MT-5.4 bonus."""
    base = O_HAND + side * HMAX
    picked0 = -1
    picked1 = -1
    picked2 = -1
    own_shield_type = -1
    # pick: own-shield cards of type k first, then other cards of type k, then jokers
    for rep in range(3):
        i = 0
        while i < st[S_HN + side]:
            c = st[base + i]
            t = cf[O_DTYPE + c]
            sh = cf[O_DSHIELD + c]
            ok = False
            if rep == 0:
                ok = t == k and sh == 1 + side
            elif rep == 1:
                ok = t == k and sh != 1 + side
            else:
                ok = t == 3
            if ok and picked2 < 0:
                if sh == 1 + side and own_shield_type < 0:
                    own_shield_type = t
                if picked0 < 0:
                    picked0 = c
                elif picked1 < 0:
                    picked1 = c
                else:
                    picked2 = c
                hand_remove_nb(st, side, i)
                continue
            i += 1
    mt = mt_draw_nb(cf, st)
    kept = 0
    if mt >= 0:
        kept = keep_mt_nb(cf, st, side, mt)
    bonus = 0
    b1 = -1
    b2 = -1
    b3 = -1
    # MT-5.4 bonus trade
    if own_shield_type >= 0:
        opt_a = cf[C_NC] - st[S_MTTOP] >= 1
        opt_b = -1
        for c in range(cf[C_NC]):
            if st[O_CST + c] == 3 and usable_nb(cf, c, side) == 1:
                opt_b = c
                break
        opt_c = False
        for u in range(cf[C_NU]):
            if card_unit_types_nb(cf, side, own_shield_type, u) and st[O_POOL + u] > 0 \
                    and _placeable_nb(cf, st, side, u):
                opt_c = True
        if pol[side, PL_TYPE] == 0:
            nopt = (1 if opt_a else 0) + (1 if opt_b >= 0 else 0) + (1 if opt_c else 0)
            if nopt > 0:
                r = randint_nb(s, nopt)
                if opt_a:
                    if r == 0:
                        bonus = 1
                    r -= 1
                if opt_b >= 0 and bonus == 0:
                    if r == 0:
                        bonus = 2
                    r -= 1
                if opt_c and bonus == 0:
                    bonus = 3
        else:
            if opt_a:
                bonus = 1
            elif opt_b >= 0:
                bonus = 2
            elif opt_c:
                bonus = 3
        b3 = -1
        if bonus == 1:
            # (a) draw two, keep one usable (the first), discard the other
            x = mt_draw_nb(cf, st)
            y = mt_draw_nb(cf, st)
            b1 = x
            b2 = y
            if x >= 0 and usable_nb(cf, x, side) == 1:
                b3 = x
            elif y >= 0 and usable_nb(cf, y, side) == 1:
                b3 = y
            if x >= 0:
                st[O_CST + x] = 1 + side if x == b3 else 3
            if y >= 0:
                st[O_CST + y] = 1 + side if y == b3 else 3
        elif bonus == 2:
            st[O_CST + opt_b] = 1 + side
            b1 = opt_b
        elif bonus == 3:
            # the unit type: the most valuable available (heuristic) or random
            best = -1
            bv = -1
            for u in range(cf[C_NU]):
                # MT-5.4 c with MT-6.4 / MT-6.6: only a type that some held territory may take
                if card_unit_types_nb(cf, side, own_shield_type, u) and st[O_POOL + u] > 0 \
                        and _placeable_nb(cf, st, side, u):
                    v = cf[O_UPTS + u] * 2 + cf[O_UARCH + u]
                    if pol[side, PL_TYPE] == 0:
                        v = randint_nb(s, 100)
                    if v > bv:
                        bv = v
                        best = u
            b1 = best
            b2 = best_unit_territory_nb(cf, st, s, pol, side, best) if best >= 0 else -1
    h = ev_begin_nb(st, tr, EV_TRADE)
    ev_put_nb(st, tr, h, k)
    ev_put_nb(st, tr, h, picked0)
    ev_put_nb(st, tr, h, picked1)
    ev_put_nb(st, tr, h, picked2)
    ev_put_nb(st, tr, h, mt)
    ev_put_nb(st, tr, h, kept)
    ev_put_nb(st, tr, h, bonus)
    ev_put_nb(st, tr, h, b1)
    ev_put_nb(st, tr, h, b2)
    ev_put_nb(st, tr, h, b3)
    ev_end_nb(st, tr, h)
    if bonus == 3 and b1 >= 0 and b2 >= 0:
        place_pool_nb(cf, st, tr, b2, b1, 1, -1)


@njit(cache=True, _nrt=False)
def load_nb(cf, st, tr, side, i, c, u):
    """MT-5.5: trade the single card at hand index i for one unit of type u on holder c."""
    hand_remove_nb(st, side, i)
    st[O_POOL + u] -= 1
    st[O_HOLD + c * MAXU + u] += 1
    h = ev_begin_nb(st, tr, EV_LOAD)
    ev_put_nb(st, tr, h, c)
    ev_put_nb(st, tr, h, u)
    ev_end_nb(st, tr, h)


@njit(cache=True, _nrt=False)
def holder_load_nb(cf, st, c):
    n = 0
    for u in range(cf[C_NU]):
        n += st[O_HOLD + c * MAXU + u]
    return n


@njit(cache=True, _nrt=False)
def muster_nb(cf, st, tr, s, pol, side, c):
    """MT-9.7: the card's units from the pool into territories holding own units."""
    card_played_nb(cf, st, tr, c, True, -1)
    for u in range(cf[C_NU]):
        for _ in range(cf[O_CMUSTER + c * MAXU + u]):
            t = best_unit_territory_nb(cf, st, s, pol, side, u)
            if t >= 0:
                place_pool_nb(cf, st, tr, t, u, 1, c)


@njit(cache=True, _nrt=False)
def _tradeable_nb(cnt, k):
    """MT-5.2: three of a kind, jokers wild (an all-joker set counts as infantry)."""
    return cnt[k] + cnt[3] >= 3 and (cnt[k] >= 1 or k == 0)


@njit(cache=True, _nrt=False)
def card_phase_nb(cf, st, tr, s, pol, side, scr):
    """MT-5: trades, holder loading, Muster; then the hand limit (MT-5.6)."""
    cnt = scr
    limit = cf[P_HAND_LIMIT]
    rnd = pol[side, PL_TYPE] == 0
    for _guard in range(200):
        hand_counts_nb(cf, st, side, cnt)
        ntr = 0
        for k in range(3):
            if _tradeable_nb(cnt, k):
                ntr += 1
        # muster cards held
        must = -1
        for c in range(cf[C_NC]):
            if st[O_CST + c] == 1 + side and cf[O_CKIND + c] == K_MUSTER:
                must = c
                break
        # loads possible: (hand idx, holder, unit type) - the first per hand card
        nload = 0
        li = -1
        lc = -1
        lu = -1
        for i in range(st[S_HN + side]):
            ct = cf[O_DTYPE + st[O_HAND + side * HMAX + i]]
            for c in range(cf[C_NC]):
                if st[O_CST + c] != 1 + side or cf[O_CKIND + c] != K_HOLDER:
                    continue
                if holder_load_nb(cf, st, c) >= cf[P_HOLDER_CAP]:
                    continue
                for u in range(cf[C_NU]):
                    if (cf[O_CACC + c] >> u) & 1 and st[O_POOL + u] > 0 and card_unit_types_nb(cf, side, ct, u):
                        nload += 1
                        ok = True
                        if not rnd:
                            # heuristic: load only cards that cannot complete a set soon
                            ok = ct != 3 and cnt[ct] + cnt[3] < 2
                        if ok and (li < 0 or (rnd and randint_nb(s, nload) == 0)):
                            li = i
                            lc = c
                            lu = u
        over = st[S_HN + side] > limit
        if rnd:
            nopt = ntr + (1 if must >= 0 else 0) + (1 if li >= 0 else 0) + (0 if over else 1)
            if nopt == 0:
                break
            r = randint_nb(s, nopt)
            if r < ntr:
                j = 0
                for k in range(3):
                    if _tradeable_nb(cnt, k):
                        if j == r:
                            trade_nb(cf, st, tr, s, pol, side, k)
                            break
                        j += 1
                continue
            r -= ntr
            if must >= 0:
                if r == 0:
                    muster_nb(cf, st, tr, s, pol, side, must)
                    continue
                r -= 1
            if li >= 0:
                if r == 0:
                    load_nb(cf, st, tr, side, li, lc, lu)
                    continue
                r -= 1
            break  # stop
        else:
            if ntr > 0:
                best = 0
                bv = -1
                for k in range(3):
                    if _tradeable_nb(cnt, k) and cnt[k] > bv:
                        bv = cnt[k]
                        best = k
                trade_nb(cf, st, tr, s, pol, side, best)
                continue
            if must >= 0:
                muster_nb(cf, st, tr, s, pol, side, must)
                continue
            if li >= 0:
                load_nb(cf, st, tr, side, li, lc, lu)
                continue
            break
    # MT-5.6 hand limit: trade (done above when possible), else discard down
    if st[S_HN + side] > limit:
        if cf[P_HAND_DISCARD] == 1:
            n = st[S_HN + side] - limit
            h = ev_begin_nb(st, tr, EV_DISCARD)
            ev_put_nb(st, tr, h, n)
            for _ in range(n):
                hand_counts_nb(cf, st, side, cnt)
                pick = 0
                if rnd:
                    pick = randint_nb(s, st[S_HN + side])
                else:
                    bv = 1 << 30
                    for i in range(st[S_HN + side]):
                        ct = cf[O_DTYPE + st[O_HAND + side * HMAX + i]]
                        v = 100 if ct == 3 else cnt[ct]
                        if v < bv:
                            bv = v
                            pick = i
                ev_put_nb(st, tr, h, st[O_HAND + side * HMAX + pick])
                hand_remove_nb(st, side, pick)
            ev_end_nb(st, tr, h)


# ======================================================================================
# turns and the game (MT-4)
# ======================================================================================
@njit(cache=True, _nrt=False)
def end_turn_nb(cf, st, tr, side):
    """MT-8.3: leaders without own combat units are removed; two leaders of one colour may
    not end a turn together (one is removed)."""
    to_cap = cf[P_LEADER_TO]
    for l in range(cf[C_NL]):
        if cf[O_LSIDE + l] != side:
            continue
        t = st[O_LLOC + l]
        if t < 0:
            continue
        if side_units_nb(cf, st, t, side) == 0:
            remove_leader_nb(cf, st, tr, l, 0, to_cap)
    for l in range(cf[C_NL]):
        if cf[O_LSIDE + l] != side or st[O_LLOC + l] < 0:
            continue
        for m in range(l):
            if cf[O_LSIDE + m] == side and st[O_LLOC + m] == st[O_LLOC + l] and cf[O_LCOL + m] == cf[O_LCOL + l]:
                remove_leader_nb(cf, st, tr, l, 1, to_cap)
                break
    catapults_check_nb(cf, st, tr)
    check_win_nb(cf, st, tr)


@njit(cache=True, _nrt=False)
def choose_die_nb(cf, st, s, pol, side, used):
    """MT-4.2/4.5: pick a mission die among the unused ones."""
    nfree = 0
    for i in range(3):
        if not (used >> i) & 1:
            nfree += 1
    if pol[side, PL_TYPE] == 0:
        r = randint_nb(s, nfree)
        for i in range(3):
            if not (used >> i) & 1:
                if r == 0:
                    return i
                r -= 1
    base = cf[P_MISSION_BASE]
    mw = pol[side, PL_MW]
    cw = pol[side, PL_CW]
    if side == EVIL and holds_nb(cf, st, EVIL, K_SIEGE) == 0 and holds_nb(cf, st, EVIL, K_GROND) == 0:
        cw *= 1.3
    best = -1
    bv = -1e9
    for i in range(3):
        if (used >> i) & 1:
            continue
        v = st[S_DICE + i]
        m = 0.0
        w = 1.0
        for _ in range(v):
            m += w
            w *= 0.85
        c = base - v
        if c < 0:
            c = 0
        val = mw * m + cw * c
        if val > bv:
            bv = val
            best = i
    return best


@njit(cache=True, _nrt=False)
def setup_nb(cf, st, s):
    """MT-2 / MT-3: the set-up, pools, shuffled decks."""
    for i in range(st.shape[0]):
        st[i] = 0
    T = cf[C_T]
    NU = cf[C_NU]
    for u in range(NU):
        st[O_POOL + u] = cf[O_UTOT + u]
    for t in range(T):
        for u in range(NU):
            v = cf[O_SETUP + t * MAXU + u]
            st[O_UNITS + t * MAXU + u] = v
            st[O_POOL + u] -= v
    for l in range(cf[C_NL]):
        st[O_LLOC + l] = cf[O_LSTART + l]
    nc = cf[C_NC]
    for c in range(nc):
        st[O_MTORD + c] = c
        st[O_CLOC + c] = -1
    shuffle_range_nb(s, st, O_MTORD, nc)  # MT-3: the Minas Tirith deck
    nd = cf[C_ND]
    for c in range(nd):
        st[O_DORD + c] = c
    shuffle_range_nb(s, st, O_DORD, nd)   # MT-3: the reinforcement deck


# ======================================================================================
# the step machine (issue 8): legal_actions / apply / to_move / is_over, chance inside
# ======================================================================================
# A game is a loop "the player to move picks one of the legal actions, apply it". Between
# two calls the state always rests at a decision (or the game is over): ``apply_nb`` resolves
# everything up to the next one (dice, card draws, end of turn, the next round's dice) from
# the stream ``s`` held beside the state. Decisions: PH_DIE (MT-4.2/4.5: which unused mission
# die; rows (A_DIE, slot, face)) and PH_ACT (MT-6/7/9: the action menu of enum_actions_nb,
# PASS included). The card step (MT-5), losses, retreats and leaders following are still
# made inside the engine by the seat's heuristic (see the module docstring).


@njit(cache=True, _nrt=False)
def begin_turn_nb(cf, st, tr, s, pol, side, die, scr):
    """MT-4.5 and MT-5: the chosen die draws its cards, the turn event, the card step."""
    st[S_SIDE] = side
    st[S_TURN] += 1
    st[S_DIE] = die
    base = cf[P_MISSION_BASE]
    ncards = base - die
    if ncards < 0:
        ncards = 0
    nd = draw_cards_nb(cf, st, side, ncards)
    st[S_NDRAWN] = nd
    st[S_MISS] = die
    st[S_TURNEND] = 0
    for t in range(cf[C_T]):
        st[O_FIRED + t] = 0
        st[O_DMG + t] = 0
    for c in range(cf[C_NC]):
        st[O_CFIRED + c] = 0
    h = ev_begin_nb(st, tr, EV_TURN)
    if h >= 0:
        for i in range(3):
            ev_put_nb(st, tr, h, st[S_DICE + i] if st[S_TIR] == 1 else -1)
        ev_put_nb(st, tr, h, die)
        ev_put_nb(st, tr, h, die)
        ev_put_nb(st, tr, h, nd)
        for i in range(nd):
            ev_put_nb(st, tr, h, st[O_DRAWN + i] if i < 16 else -1)
        snapshot_nb(cf, st, tr, h)
        ev_end_nb(st, tr, h)
    if st[S_DECKOUT] == 1 and cf[P_END_LAST] == 0:
        end_game_nb(cf, st, tr, W_DRAW, R_DECK)  # MT-10.3 immediate
        return
    card_phase_nb(cf, st, tr, s, pol, side, scr)
    _debug_check_nb(cf, st)


@njit(cache=True, _nrt=False)
def finish_turn_nb(cf, st, tr):
    """MT-8.3 end of turn, MT-10.3 deck end, then the next turn's seat (or a new round)."""
    side = st[S_SIDE]
    if st[S_OVER] == 0:
        end_turn_nb(cf, st, tr, side)
    _debug_check_nb(cf, st)
    if st[S_OVER] == 0 and st[S_DECKOUT] == 1:
        end_game_nb(cf, st, tr, W_DRAW, R_DECK)
    if st[S_OVER] == 1:
        return
    if st[S_TURN] >= MAX_TURNS:
        end_game_nb(cf, st, tr, W_DRAW, R_DECK)
        return
    if st[S_TIR] >= 3:
        st[S_PHASE] = PH_ROUND
    else:
        first = GOOD if st[S_ROUND] % 2 == 1 else EVIL
        st[S_TIR] += 1
        st[S_SIDE] = first if st[S_TIR] != 2 else 1 - first
        st[S_PHASE] = PH_DIE


@njit(cache=True, _nrt=False)
def advance_nb(cf, st, s):
    """Resolve chance up to the next decision: a new round rolls its three mission dice
    (MT-4: odd rounds Good-Evil-Good, even rounds Evil-Good-Evil)."""
    if st[S_OVER] == 0 and st[S_PHASE] == PH_ROUND:
        st[S_ROUND] += 1
        first = GOOD if st[S_ROUND] % 2 == 1 else EVIL
        for i in range(3):
            st[S_DICE + i] = d6_nb(s)
        st[S_USED] = 0
        st[S_TIR] = 1
        st[S_SIDE] = first
        st[S_PHASE] = PH_DIE


@njit(cache=True, _nrt=False)
def new_game_nb(cf, st, tr, s, seed, index, debug):
    """MT-2/MT-3: stream (seed, index), the set-up, resting at the first decision."""
    stream_init_nb(seed, index, s)
    setup_nb(cf, st, s)
    st[S_DEBUG] = debug
    st[S_GAMEIDX] = index
    h = ev_begin_nb(st, tr, EV_SETUP)
    snapshot_nb(cf, st, tr, h)
    ev_end_nb(st, tr, h)
    _debug_check_nb(cf, st)
    st[S_PHASE] = PH_ROUND
    advance_nb(cf, st, s)


@njit(cache=True, _nrt=False)
def to_move_nb(st):
    """The seat (0 Good, 1 Evil) whose decision it is; -1 once the game is over."""
    if st[S_OVER] != 0:
        return -1
    return st[S_SIDE]


@njit(cache=True, _nrt=False)
def legal_actions_nb(cf, st, act):
    """Every action of the decision the state rests at, as rows of ``act``; returns n >= 1
    (0 once the game is over)."""
    if st[S_OVER] != 0:
        return 0
    if st[S_PHASE] == PH_DIE:
        n = 0
        for i in range(3):
            if not (st[S_USED] >> i) & 1:
                act[n, 0] = A_DIE
                act[n, 1] = i
                act[n, 2] = st[S_DICE + i]
                act[n, 3] = 0
                act[n, 4] = 0
                act[n, 5] = 0
                n += 1
        return n
    return enum_actions_nb(cf, st, st[S_SIDE], act)


@njit(cache=True, _nrt=False)
def apply_nb(cf, st, tr, s, pol, act, i, scr):
    """Apply legal action ``act[i]`` of the current decision and resolve everything up to the
    next decision (``act`` must hold this state's legal_actions_nb)."""
    side = st[S_SIDE]
    if act[i, 0] == A_DIE:
        slot = act[i, 1]
        st[S_USED] |= 1 << slot
        begin_turn_nb(cf, st, tr, s, pol, side, st[S_DICE + slot], scr)
        if st[S_OVER] == 1:
            return
        if st[S_MISS] > 0 and st[S_TURNEND] == 0:
            st[S_PHASE] = PH_ACT
            return
        finish_turn_nb(cf, st, tr)
    elif act[i, 0] == A_PASS:
        finish_turn_nb(cf, st, tr)
    else:
        st[S_MISS] -= 1
        do_action_nb(cf, st, tr, s, pol, side, act, i)
        _debug_check_nb(cf, st)
        if st[S_MISS] > 0 and st[S_OVER] == 0 and st[S_TURNEND] == 0:
            return
        finish_turn_nb(cf, st, tr)
    advance_nb(cf, st, s)


@njit(cache=True, _nrt=False)
def builtin_choice_nb(cf, st, wp, pol, s, act, n):
    """The built-in policy of the seat to move (random or a heuristic, ``pol`` row) picks one
    of the ``n`` legal actions in ``act``; returns its index."""
    side = st[S_SIDE]
    if st[S_PHASE] == PH_DIE:
        slot = choose_die_nb(cf, st, s, pol, side, st[S_USED])
        for i in range(n):
            if act[i, 1] == slot:
                return i
        return 0
    return choose_action_nb(cf, st, wp, pol, s, side, act, n)


@njit(cache=True, _nrt=False)
def run_until_nb(cf, wp, pol, st, tr, act, scr, s, stop_mask):
    """Play built-in policies until a seat in ``stop_mask`` (bit per seat) is to move or the
    game ends; returns the seat to move (-1: over). ``stop_mask = 0`` plays to the end."""
    while st[S_OVER] == 0:
        if (stop_mask >> st[S_SIDE]) & 1:
            return st[S_SIDE]
        n = legal_actions_nb(cf, st, act)
        i = builtin_choice_nb(cf, st, wp, pol, s, act, n)
        apply_nb(cf, st, tr, s, pol, act, i, scr)
    return -1


@njit(cache=True, _nrt=False)
def play_game_nb(cf, wp, pol, seed, index, st, tr, act, scr, s, debug):
    """One whole game (MT-4) with built-in policies: the step machine's loop."""
    new_game_nb(cf, st, tr, s, seed, index, debug)
    run_until_nb(cf, wp, pol, st, tr, act, scr, s, 0)


@njit(cache=True, _nrt=False)
def _record_nb(cf, st, i, out):
    out[i, 0] = st[S_WINNER]
    out[i, 1] = st[S_REASON]
    out[i, 2] = st[S_ROUND]
    out[i, 3] = st[S_TURN]
    out[i, 4] = st[S_PG]
    out[i, 5] = st[S_PE]
    out[i, 6] = st[S_LCAP + EVIL]   # Good leaders lost
    out[i, 7] = st[S_LCAP + GOOD]   # Evil leaders lost
    out[i, 8] = st[S_BAD]
    out[i, 9] = st[S_BADTURN]
    for u in range(cf[C_NU]):
        out[i, 10 + u] = st[O_CAPT + u]


@njit(cache=True, nogil=True)
def simulate_nb(cf, wp, pol, seed, first, debug, lo, hi, out):
    """Games first+lo .. first+hi-1 into rows lo..hi-1 of ``out`` (int64 [n, 10 + NU]).

    Game i uses stream (seed, i), so rows do not depend on how the range is split. The
    kernel releases the GIL: ``MinasTirith.simulate`` runs chunks on a thread pool, which
    gives the same parallelism as prange without compiling the engine a second time in a
    parallel context (that cost ~12 s of the first run's compile)."""
    st = np.zeros(ST_SIZE, dtype=np.int64)
    tr = np.zeros(0, dtype=np.int64)
    act = np.zeros((MAXA, 6), dtype=np.int64)
    scr = np.zeros(8, dtype=np.int64)
    s = np.zeros(STATE_SIZE, dtype=np.uint64)
    for i in range(lo, hi):
        play_game_nb(cf, wp, pol, seed, first + i, st, tr, act, scr, s, debug)
        _record_nb(cf, st, i, out)


@njit(cache=True)
def play_one_nb(cf, wp, pol, seed, index, tr, debug):
    """One game with a trace buffer; returns (state, trace length)."""
    st = np.zeros(ST_SIZE, dtype=np.int64)
    act = np.zeros((MAXA, 6), dtype=np.int64)
    scr = np.zeros(8, dtype=np.int64)
    s = np.zeros(STREAM_SIZE, dtype=np.uint64)  # room to replay the dice faces into the trace
    play_game_nb(cf, wp, pol, seed, index, st, tr, act, scr, s, debug)
    return st, st[S_TRPOS]


# ---- step-machine entry points (called from Python: lotr_sim.games.minas_tirith.game) ----
@njit(cache=True, nogil=True)
def step_new_nb(cf, st, tr, s, seed, index, debug):
    """A new game resting at its first decision (see new_game_nb)."""
    new_game_nb(cf, st, tr, s, seed, index, debug)


@njit(cache=True, nogil=True)
def step_legal_nb(cf, st, act):
    """legal_actions_nb for Python callers."""
    return legal_actions_nb(cf, st, act)


@njit(cache=True, nogil=True)
def step_apply_nb(cf, st, tr, s, pol, act, i, scr):
    """apply_nb for Python callers."""
    apply_nb(cf, st, tr, s, pol, act, i, scr)


@njit(cache=True, nogil=True)
def step_run_nb(cf, wp, pol, st, tr, act, scr, s, stop_mask):
    """run_until_nb for Python callers: built-in policies until a seat in ``stop_mask``."""
    return run_until_nb(cf, wp, pol, st, tr, act, scr, s, stop_mask)


@njit(cache=True, nogil=True)
def step_choice_nb(cf, st, wp, pol, s, act, n):
    """builtin_choice_nb for Python callers."""
    return builtin_choice_nb(cf, st, wp, pol, s, act, n)


@njit(cache=True, nogil=True)
def step_scores_nb(cf, st, wp, pol, s, act, n, out):
    """The heuristic score of each legal action for the seat to move (``pol`` row, which
    must be a heuristic's): actions as choose_action_nb scores them (PASS 0); at a mission-die
    decision the heuristic's pick scores 1, the others 0."""
    side = st[S_SIDE]
    if st[S_PHASE] == PH_DIE:
        slot = choose_die_nb(cf, st, s, pol, side, st[S_USED])
        for i in range(n):
            out[i] = 1.0 if act[i, 1] == slot else 0.0
        return
    out[0] = 0.0
    for i in range(1, n):
        out[i] = score_action_nb(cf, st, wp, pol, side, act, i)


@njit(cache=True, nogil=True)
def step_playouts_nb(cf, wp, pol, st, act, cand, m, seed, out):
    """Look-ahead for a search player: for each candidate ``act[cand[c]]`` and each j < m,
    a copy of ``st`` applies it and the built-in policies play to the end with chance from
    stream (seed, j) - the same stream for every candidate (common random numbers).
    ``out[c, j]`` is the winner code (W_GOOD, W_EVIL, W_DRAW)."""
    st2 = np.empty_like(st)
    s2 = np.zeros(STATE_SIZE, dtype=np.uint64)
    act2 = np.zeros((MAXA, 6), dtype=np.int64)
    scr2 = np.zeros(8, dtype=np.int64)
    tr = np.zeros(0, dtype=np.int64)
    for j in range(m):
        for c in range(cand.shape[0]):
            for k in range(st.shape[0]):
                st2[k] = st[k]
            st2[S_DEBUG] = 0
            stream_init_nb(seed, j, s2)
            apply_nb(cf, st2, tr, s2, pol, act, cand[c], scr2)
            run_until_nb(cf, wp, pol, st2, tr, act2, scr2, s2, 0)
            out[c, j] = st2[S_WINNER]


# Each helper compiles once, whatever constants its callers pass (see kernels/dispatch.py).
from lotr_sim.kernels.dispatch import no_literal_dispatch  # noqa: E402

no_literal_dispatch(globals())
