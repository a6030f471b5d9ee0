"""Minas Tirith cards: the card step of a turn (MT-5) and the cards' loads.

Rules: drawing reinforcement cards (MT-4.5, MT-3.1; the deck running out MT-10.3), trading
sets (MT-5.2) for Minas Tirith cards (MT-5.3: kept only when usable, ``keep_mt_nb``), the
bonus trade (MT-5.4), loading units on holder cards (MT-5.5, ``load_nb``, ``holder_load_nb``),
the hand limit (MT-5.6), the Muster of Gondor (MT-9.7, ``muster_nb``).

Who makes the card step: a built-in policy inside the engine (``card_phase_nb``: the heuristic
trades the most-held type with a set first, then plays a Muster, then loads a card that cannot
complete a set soon, then stops; the random player draws among each type with a set, a Muster,
one load and stop). A seat held by a player from lotr_sim.players (policy column PL_CARDS) makes
it play by play as step-machine decisions (PH_CARD): ``card_options_nb`` lists every trade,
Muster and load the rules allow and stop, ``card_step_nb`` applies one, ``card_score_nb`` ranks
them so that the first highest is ``card_phase_nb``'s heuristic choice (``choose_nb``).
Card placements on the board are in movement.py.

Documented simplifications:

* Bonus trade (MT-5.4): one bonus per trade when any traded card shows the trader's shield.
* Muster of Gondor (MT-9.7) is played in the card step (MT-5.7), not as a mission; the
  catapult, holder and leader cards are movement missions (MT-6.2 e-g, MT-9.4-9.6).
* Narrowed choices, also for a Python player: which cards form a traded set (own-shield
  cards of the type first, then others, then jokers), the bonus option and its unit type and
  territory (MT-5.4), where the Muster's units go (MT-9.7), and which cards the hand limit
  discards (MT-5.6) are made by the seat's heuristic (random player: at random). Stop is not
  offered while the hand is over the limit and a set can be traded (MT-5.6 "must trade").
"""
from __future__ import annotations


from lotr_sim._numba.jit import njit
from lotr_sim.kernels.rng import randint_nb
from lotr_sim.games.minas_tirith.config import (
    C_NC, C_ND, C_NU, C_T, MAXU, O_CACC, O_CKIND, O_CMUSTER, O_CSIDES, O_DSHIELD, O_DTYPE, O_UARCH, O_UCLS,
    O_UPTS, O_USIDE, P_GOOD_CRE_INF, P_HAND_DISCARD, P_HAND_LIMIT, P_HOLDER_CAP,
)
from lotr_sim.games.minas_tirith.layout import (
    A_CARD, CD_LOAD, CD_MUSTER, CD_STOP, CD_TRADE, MAXA, PL_CARDS, EV_DISCARD, EV_LOAD, EV_TRADE, GOOD, HMAX, K_HOLDER, K_MUSTER, O_CST, O_DORD, O_DRAWN, O_HAND, O_HOLD,
    O_MTORD, O_POOL, PL_TYPE, S_DECKOUT, S_DTOP, S_HN, S_MTTOP,
)
from lotr_sim.games.minas_tirith.actions import _add_nb
from lotr_sim.games.minas_tirith.events import event_nb
from lotr_sim.kernels.tracebuf import ev_end_nb, ev_put_reserved_nb
from lotr_sim.games.minas_tirith.board import may_stand_nb, side_units_nb
from lotr_sim.games.minas_tirith.movement import card_played_nb, place_pool_nb
from lotr_sim.games.minas_tirith.policies import best_unit_territory_nb


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
    h = event_nb(st, tr, EV_TRADE)
    ev_put_reserved_nb(tr, h, k)
    ev_put_reserved_nb(tr, h, picked0)
    ev_put_reserved_nb(tr, h, picked1)
    ev_put_reserved_nb(tr, h, picked2)
    ev_put_reserved_nb(tr, h, mt)
    ev_put_reserved_nb(tr, h, kept)
    ev_put_reserved_nb(tr, h, bonus)
    ev_put_reserved_nb(tr, h, b1)
    ev_put_reserved_nb(tr, h, b2)
    ev_put_reserved_nb(tr, h, b3)
    ev_end_nb(tr, h)
    if bonus == 3 and b1 >= 0 and b2 >= 0:
        place_pool_nb(cf, st, tr, b2, b1, 1, -1)


@njit(cache=True, _nrt=False)
def load_nb(cf, st, tr, side, i, c, u):
    """MT-5.5: trade the single card at hand index i for one unit of type u on holder c."""
    card = st[O_HAND + side * HMAX + i]
    hand_remove_nb(st, side, i)
    st[O_POOL + u] -= 1
    st[O_HOLD + c * MAXU + u] += 1
    h = event_nb(st, tr, EV_LOAD)
    ev_put_reserved_nb(tr, h, c)
    ev_put_reserved_nb(tr, h, u)
    ev_put_reserved_nb(tr, h, card)   # trace_version 3: the reinforcement card traded for the unit
    ev_end_nb(tr, h)


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
def _set_nb(nk, nj, k):
    """MT-5.2: ``nk`` cards of type k and ``nj`` jokers make a set of type k - three of a kind,
    jokers wild (an all-joker set counts as infantry)."""
    return nk + nj >= 3 and (nk >= 1 or k == 0)


@njit(cache=True, _nrt=False)
def _tradeable_nb(cnt, k):
    """MT-5.2 on hand counts ``cnt`` (hand_counts_nb): is there a set of type k?"""
    return _set_nb(cnt[k], cnt[3], k)


@njit(cache=True, _nrt=False)
def card_phase_nb(cf, st, tr, s, pol, side, scr, plays):
    """MT-5: trades, holder loading, Muster (at most ``plays`` of them; 0: the step is over);
    then the hand limit (MT-5.6)."""
    cnt = scr
    limit = cf[P_HAND_LIMIT]
    rnd = pol[side, PL_TYPE] == 0
    for _guard in range(plays):
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
            h = event_nb(st, tr, EV_DISCARD)
            ev_put_reserved_nb(tr, h, n)
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
                ev_put_reserved_nb(tr, h, st[O_HAND + side * HMAX + pick])
                hand_remove_nb(st, side, pick)
            ev_end_nb(tr, h)



@njit(cache=True, _nrt=False)
def card_options_nb(cf, st, side, act, write):
    """The card step as a decision (PH_CARD, MT-5) of a seat with PL_CARDS: with ``write`` the
    rows into ``act`` and their number, else only the number of card plays (stop not counted).

    Rows: (A_CARD, CD_TRADE, k) per type k with a set (MT-5.2, jokers wild); (A_CARD,
    CD_MUSTER, c) per Muster of Gondor c held (MT-9.7); (A_CARD, CD_LOAD, i, c, u, card) per
    hand card i, holder c of the side with room and unit type u it accepts, in the pool and
    given by the card's type (MT-5.5) - every legal load; (A_CARD, CD_STOP) last, except while
    the hand is over the limit and a set can be traded (MT-5.6: the player must trade)."""
    n0 = 0
    n1 = 0
    n2 = 0
    nj = 0
    for i in range(st[S_HN + side]):
        ct = cf[O_DTYPE + st[O_HAND + side * HMAX + i]]
        n0 += ct == 0
        n1 += ct == 1
        n2 += ct == 2
        nj += ct == 3
    n = 0
    for k in range(3):
        nk = n0 if k == 0 else n1 if k == 1 else n2
        if _set_nb(nk, nj, k):
            n = _add_nb(act, n, A_CARD, CD_TRADE, k, 0, 0, 0) if write else n + 1
    ntr = n
    for c in range(cf[C_NC]):
        if st[O_CST + c] == 1 + side and cf[O_CKIND + c] == K_MUSTER:
            n = _add_nb(act, n, A_CARD, CD_MUSTER, c, 0, 0, 0) if write else n + 1
    # loads in card_phase_nb's order (hand card, holder, unit type)
    for i in range(st[S_HN + side]):
        card = st[O_HAND + side * HMAX + i]
        ct = cf[O_DTYPE + card]
        for c in range(cf[C_NC]):
            if st[O_CST + c] != 1 + side or cf[O_CKIND + c] != K_HOLDER:
                continue
            if holder_load_nb(cf, st, c) >= cf[P_HOLDER_CAP]:
                continue
            for u in range(cf[C_NU]):
                if (cf[O_CACC + c] >> u) & 1 and st[O_POOL + u] > 0 and card_unit_types_nb(cf, side, ct, u) \
                        and n < MAXA - 1:
                    n = _add_nb(act, n, A_CARD, CD_LOAD, i, c, u, card) if write else n + 1
    if not write:
        return n
    if ntr == 0 or st[S_HN + side] <= cf[P_HAND_LIMIT]:
        n = _add_nb(act, n, A_CARD, CD_STOP, 0, 0, 0, 0)
    return n


@njit(cache=True, _nrt=False)
def card_score_nb(cf, st, side, act, r):
    """The heuristic's value of card row r; its highest (the first on a tie) is exactly
    card_phase_nb's choice: the set of the most-held type, then the Muster, then the first load
    of a card that cannot complete a set soon, then stop; other loads below stop."""
    sub = act[r, 1]
    if sub == CD_MUSTER:
        return 2.0
    if sub == CD_STOP:
        return 0.5
    k = act[r, 2] if sub == CD_TRADE else cf[O_DTYPE + st[O_HAND + side * HMAX + act[r, 2]]]
    nk = 0
    nj = 0
    for i in range(st[S_HN + side]):
        ct = cf[O_DTYPE + st[O_HAND + side * HMAX + i]]
        nk += ct == k
        nj += ct == 3
    if sub == CD_TRADE:
        return 3.0 + nk / 64.0
    return 1.0 if k != 3 and nk + nj < 2 else 0.25   # CD_LOAD


@njit(cache=True, _nrt=False)
def card_step_nb(cf, st, tr, s, pol, side, act, i, scr):
    """Apply card row ``act[i]`` (MT-5.2-5.5, MT-9.7); True while the card step goes on (a seat
    with PL_CARDS and a card play left), else the step ends with the hand limit (MT-5.6). A seat
    without PL_CARDS (a playout's heuristic) finishes the step with card_phase_nb."""
    sub = act[i, 1]
    if sub == CD_TRADE:
        trade_nb(cf, st, tr, s, pol, side, act[i, 2])
    elif sub == CD_MUSTER:
        muster_nb(cf, st, tr, s, pol, side, act[i, 2])
    elif sub == CD_LOAD:
        load_nb(cf, st, tr, side, act[i, 2], act[i, 3], act[i, 4])
    if sub != CD_STOP and pol[side, PL_CARDS] != 0 and card_options_nb(cf, st, side, act, False) > 0:
        return True
    # the step ends: the hand limit (MT-5.6), or a seat without PL_CARDS plays on itself
    card_phase_nb(cf, st, tr, s, pol, side, scr, 200 if sub != CD_STOP and pol[side, PL_CARDS] == 0 else 0)
    return False


# Each helper compiles once, whatever constants its callers pass (see lotr_sim/_numba/dispatch.py).
from lotr_sim._numba.dispatch import no_literal_dispatch  # noqa: E402

no_literal_dispatch(globals())
