"""Hidden information is part of the game contract: ``State.determinize(seat,
key)`` gives a new state in which what ``seat`` cannot know is dealt again. For
every registered game (and the fake game of the experiment tests):

* the original state is left as it was;
* the public part is unchanged: a game whose State does not override ``_redeal`` has no hidden
  information and gets an identical copy; a game that does names here (``HIDDEN``) the places
  of its state a seat cannot see, and everywhere else the copy equals the original, while
  each pool of hidden places keeps its contents (cards are dealt again, never made up);
* the copy is a valid position: the game's invariant holds and the built-in players play it
  to the end, the invariant holding there too;
* for the games with hidden information (all three) the hidden part does change
  for some key, and the same key gives the same deal.

A game that overrides ``_redeal`` (what ``determinize`` deals again) without naming its hidden places here fails, so the
contract and the test grow together.
"""
from __future__ import annotations


import numpy as np
import pytest

from lotr_sim.games import registry
from lotr_sim.games.step import State



# ---- each game's hidden places: (mask over st of the places, pools whose contents are kept) ----
def _lotr_risk_hidden(comp, st, seat):
    """LR-4.3/LR-8/LR-9.1: the other players' territory and adventure hands and both decks."""
    from lotr_sim.games.lotr_risk import config as C
    from lotr_sim.games.lotr_risk import layout as L
    others = [p for p in range(int(comp.cf[C.C_NP])) if p != seat]
    terr = [L.O_HAND + p * L.HMAX + i for p in others for i in range(int(st[L.O_HN + p]))]
    terr += [L.O_TDECK + i for i in range(int(st[L.S_TDN]))]
    adv = [L.O_AHAND + p * L.AHMAX + i for p in others for i in range(int(st[L.O_AHN + p]))]
    adv += [L.O_ADECK + i for i in range(int(st[L.S_ADN]))]
    return terr + adv, [terr, adv]


def _the_search_hidden(comp, st, seat):
    """TS-2.1/2.4: the rival's hand and the face-down tile stack; TS-2.2/4.3/6.5: the face-down
    brown tokens on the map (not one being fought) and the brown stack, with where each of
    them lies; the order of the other token stacks."""
    from lotr_sim.games.the_search import layout as L
    cf = comp.cf
    riv = 1 - seat
    tiles = [L.O_HAND + L.HAND * riv + j for j in range(int(st[L.S_HANDN + riv]))]
    tiles += list(range(L.O_DECK + int(st[L.S_DECKPOS]), L.O_DECK + L.NTILE))
    fought = {int(st[L.S_FTOKS]), int(st[L.S_FTOKS + 1])}
    browns = []
    for r in range(L.NSEC):
        t = int(st[L.O_RTOK + r])
        if t >= 0 and st[L.O_PAR + r] == r and cf[L.O_TCOL + t] == L.MOUNTAIN \
                and st[L.O_TWHERE + t] == L.T_MAP and t not in fought:
            browns.append(L.O_RTOK + r)
    pools = [tiles]
    for col in range(4):
        stack = [L.O_TSTK + col * L.MAXTOK + j for j in range(int(st[L.S_TPOS + col]), int(st[L.S_TN + col]))]
        pools.append(browns + stack if col == L.MOUNTAIN else stack)
    brown = pools[1 + L.MOUNTAIN]
    where = [L.O_TWHERE + int(st[i]) for i in brown]
    return sum(pools, []) + where, pools


def _minas_tirith_hidden(comp, st, seat):
    """MT-3.1/3.2: the order of the reinforcement deck and of the Minas Tirith deck still to
    draw (hands and held cards lie face up, MT-5.1 and the rulebook's card step)."""
    from lotr_sim.games.minas_tirith import config as C
    from lotr_sim.games.minas_tirith import layout as L
    cf = comp.cf
    dord = list(range(L.O_DORD + int(st[L.S_DTOP]), L.O_DORD + int(cf[C.C_ND])))
    mtord = list(range(L.O_MTORD + int(st[L.S_MTTOP]), L.O_MTORD + int(cf[C.C_NC])))
    return dord + mtord, [dord, mtord]


HIDDEN = {"lotr-risk": _lotr_risk_hidden, "the-search": _the_search_hidden,
          "minas-tirith": _minas_tirith_hidden}
HAS_HIDDEN = ("lotr-risk", "the-search", "minas-tirith")


def _overrides(state) -> bool:
    """Does the game of ``state`` hide something (its state class overrides ``_redeal``)?"""
    return type(state)._redeal is not State._redeal


def _positions(g, comp, every=23, cap=8):
    """Copies of decision points of two games of the default players, every ``every``-th."""
    out = []
    for index in range(2):
        st = g.bind(comp).new_state(None, 41, index)
        k = 0
        while not st.is_terminal() and len(out) < cap * (index + 1):
            k += 1
            if k % every == 1:
                out.append(st.copy())
            st.apply(st.builtin_choice())
    return out


def _arrays_equal(a, b, skip=()):
    return all(np.array_equal(a.arrays[k], b.arrays[k]) for k in a.arrays if k not in skip)


def _public_equal(name, g, comp, orig, det, seat):
    """The copy's public part is the original's; each hidden pool keeps its contents."""
    if not _overrides(orig):
        return _arrays_equal(orig, det)
    assert name in HIDDEN, f"{name} overrides _redeal: name its hidden places in HIDDEN"
    places, pools = HIDDEN[name](comp, orig.st, seat)
    mask = np.zeros(orig.st.shape[0], dtype=bool)
    mask[np.array(places, dtype=np.int64)] = True
    if not np.array_equal(orig.st[~mask], det.st[~mask]):
        return False
    if any(sorted(orig.st[p].tolist()) != sorted(det.st[p].tolist()) for p in pools):
        return False
    return _arrays_equal(orig, det, skip=("st",))


def test_determinize_keeps_the_public_part_and_a_valid_game(gc):
    """From every seat's view: the original is untouched, the public part is kept, the copy
    satisfies the invariant and the built-in players play it to the end."""
    g, comp = gc
    name = g.name
    nseat = len(g.seat_names(comp))
    for i, state in enumerate(_positions(g, comp)):
        keep = state.copy()
        for seat in range(nseat):
            det = state.determinize(seat, 1000 + i)
            assert _arrays_equal(state, keep), "determinize changed the original state"
            assert det is not state and all(det.arrays[k] is not state.arrays[k] for k in state.arrays)
            assert _public_equal(name, g, comp, state, det, seat), (name, i, seat)
            assert det.invariant_ok(), (name, i, seat)
        det = state.determinize(state.to_move, 7 + i)
        while not det.is_terminal():
            det.apply(det.builtin_choice())
        assert det.invariant_ok(), (name, i)


@pytest.mark.parametrize("name", HAS_HIDDEN)
def test_determinize_deals_the_hidden_part_again(name):
    """The Search and LOTR Risk: some key moves the hidden part (from the mover's view), and
    one key always gives one deal."""
    g = registry.get_game(name)
    comp = g.compile(g.load())
    moved = 0
    states = _positions(g, comp)
    assert _overrides(states[0]), f"{name} has hidden information but does not override _redeal"
    for i, state in enumerate(states):
        seat = state.to_move
        places, _ = HIDDEN[name](comp, state.st, seat)
        a = state.determinize(seat, 5 + i)
        b = state.determinize(seat, 5 + i)
        assert np.array_equal(a.st, b.st)
        moved += not np.array_equal(a.st[places], state.st[places])
    assert moved >= len(states) // 2, (name, moved, len(states))
