"""The Search players use only what a player can know: brown tokens lie face
down on their sites and in their stack (TS-2.2, TS-4.3) until entered (TS-6.5), and each
player's hand of tiles is its own (TS-2.4). Permuting what a seat cannot see - the identities
of the face-down brown tokens among themselves and with the brown stack, or the rival's hand
with the face-down tile stack - must change neither the greedy heuristic's scores and choice
nor the search playouts' results (same key)."""
from __future__ import annotations

import numpy as np
import pytest

from lotr_sim.games.the_search import layout as L


def _brown_places(comp, st):
    """Indices into ``st`` of the unseen brown tokens: face down on the map (region roots;
    not a monster being fought, which is turned up, TS-6.5), then the brown stack."""
    cf = comp.cf
    fought = {int(st[L.S_FTOKS]), int(st[L.S_FTOKS + 1])}
    places = []
    for r in range(L.NSEC):
        t = int(st[L.O_RTOK + r])
        if t >= 0 and st[L.O_PAR + r] == r and cf[L.O_TCOL + t] == L.MOUNTAIN \
                and st[L.O_TWHERE + t] == L.T_MAP and t not in fought:
            places.append(L.O_RTOK + r)
    nmap = len(places)
    stack = L.O_TSTK + L.MOUNTAIN * L.MAXTOK
    places += [stack + j for j in range(int(st[L.S_TPOS + L.MOUNTAIN]), int(st[L.S_TN + L.MOUNTAIN]))]
    return np.array(places, dtype=np.int64), nmap


def _tile_places(st):
    """Indices into ``st`` of the tiles the seat to move cannot see: the rival's hand, then
    the face-down tile stack (TS-2.1, TS-2.4)."""
    riv = 1 - int(st[L.S_SEAT])
    hand = [L.O_HAND + L.HAND * riv + j for j in range(int(st[L.S_HANDN + riv]))]
    deck = list(range(L.O_DECK + int(st[L.S_DECKPOS]), L.O_DECK + L.NTILE))
    return np.array(hand + deck, dtype=np.int64), len(hand)


def _permute_browns(comp, state, rng):
    """Deal the unseen brown tokens again over their places; True if a face-down token on
    the map changed its value or dots (the permutation can be told apart)."""
    st = state.st
    places, nmap = _brown_places(comp, st)
    ids = st[places].copy()
    new = ids[rng.permutation(len(ids))]
    st[places] = new
    st[L.O_TWHERE + new[:nmap]] = L.T_MAP
    st[L.O_TWHERE + new[nmap:]] = L.T_STACK
    state.n_legal = -1
    cf = comp.cf
    return any(cf[L.O_TVAL + a] != cf[L.O_TVAL + b] or cf[L.O_TDOTS + a] != cf[L.O_TDOTS + b]
               for a, b in zip(ids[:nmap], new[:nmap]))


def _swap_rival_hand(state, rng):
    """Deal the rival's hand again from itself and the face-down tile stack; True if the
    hand changed."""
    st = state.st
    places, nh = _tile_places(st)
    ids = st[places].copy()
    st[places] = ids[rng.permutation(len(ids))]
    state.n_legal = -1
    return nh > 0 and set(ids[:nh]) != set(st[places[:nh]])


@pytest.fixture(scope="module")
def hidden_states(game, comp):
    """Greedy v greedy decision points with at least one face-down brown token on the map
    and another unseen brown token, every third one (copies), from a few games."""
    out = []
    pols = {"frodo": "greedy", "sam": "greedy"}
    for index in range(6):
        state = game.bind(comp).new_state(pols, 17, index)
        k = 0
        while not state.is_terminal():
            n = state.legal_actions().shape[0]
            places, nmap = _brown_places(comp, state.st)
            if n > 1 and nmap >= 1 and len(places) >= 2:
                k += 1
                if k % 3 == 0:
                    out.append(state.copy())
            state.apply(state.builtin_choice())
    assert len(out) >= 40
    return out


def _same_view(game, comp, state, permute):
    """(scores and choice unchanged, permutation told apart) after ``permute(copy)``."""
    s0 = state.action_scores()
    c0 = state.heuristic_choice()
    other = state.copy()
    other.n_legal = -1
    differs = permute(other)
    assert np.array_equal(other.legal_actions(), state.legal_actions())
    s1 = other.action_scores()
    return np.array_equal(s0, s1) and c0 == other.heuristic_choice(), differs


def test_ts_4_3_greedy_does_not_see_face_down_brown_tokens(game, comp, hidden_states):
    """TS-2.2 / TS-4.3 / TS-6.5: permuting the face-down brown tokens on the map among
    themselves and with the brown stack leaves greedy's action scores and choice as they
    were, at every decision kind (placements value brown sites by the unseen mean too)."""
    rng = np.random.default_rng(7)
    told = 0
    kinds = set()
    for state in hidden_states:
        for _ in range(3):
            same, differs = _same_view(game, comp, state, lambda s: _permute_browns(comp, s, rng))
            assert same, (state.decision_kind(), state.index)
            told += differs
        kinds.add(state.decision_kind())
    assert told >= 30, told                  # the permutations did move identities around
    assert {"place", "move"} <= kinds, kinds


def test_ts_2_4_greedy_does_not_see_the_rivals_hand(game, comp, hidden_states):
    """TS-2.4: dealing the rival's hand again from itself and the face-down tile stack
    (TS-2.1) leaves greedy's action scores and choice as they were."""
    rng = np.random.default_rng(8)
    told = 0
    for state in hidden_states:
        for _ in range(2):
            same, differs = _same_view(game, comp, state, lambda s: _swap_rival_hand(s, rng))
            assert same, (state.decision_kind(), state.index)
            told += differs
    assert told >= 30, told


def test_ts_4_3_ts_2_4_playouts_determinize_what_the_seat_cannot_see(game, comp, hidden_states):
    """The search playouts resample the hidden tokens and tiles from stream (key, j): the
    same key gives the same results whatever the hidden permutation (TS-2.2, TS-2.4, TS-4.3;
    also the order of the face-up colours' stacks),
    while another key does change some of them (the playouts do depend on the deal)."""
    rng = np.random.default_rng(9)
    m = 6
    changed = 0
    for state in hidden_states[::8]:
        n = state.legal_actions().shape[0]
        cands = list(range(min(n, 4)))
        out0 = state.playouts(cands, m, 123)
        other = state.copy()
        _permute_browns(comp, other, rng)
        _swap_rival_hand(other, rng)
        for col in (L.WATER, L.FOREST, L.DESERT):     # the face-up colours' stacks: order only
            lo = L.O_TSTK + col * L.MAXTOK + int(other.st[L.S_TPOS + col])
            hi = L.O_TSTK + col * L.MAXTOK + int(other.st[L.S_TN + col])
            other.st[lo:hi] = other.st[lo:hi][rng.permutation(hi - lo)]
        other.legal_actions()
        assert np.array_equal(other.playouts(cands, m, 123), out0), state.index
        changed += not np.array_equal(state.playouts(cands, m, 124), out0)
    assert changed >= 1
