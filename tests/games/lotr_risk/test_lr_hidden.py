"""LOTR Risk players use only what their seat can know. A seat cannot know the
order of the territory-card and adventure decks (LR-4.3, LR-8), nor the other players'
territory-card hands (the rulebook does not say they are open: kept hidden) and adventure
hands, their secret missions among them (LR-9.1); the counts are public, and so is the rule
that an event card never stays in a hand (it is played at once when drawn, LR-9.2).

Permuting what a seat cannot know - the unseen territory cards (other players' hands and the
deck) among themselves, the unseen non-event adventure cards among the other players' hands
and the deck, the deck orders - must change neither that seat's greedy scores, its built-in
choice and legal actions, nor the search playouts' results (same key) and the search
player's decision, on positions of random and greedy games with 2, 3 and 4 players."""
from __future__ import annotations

import numpy as np
import pytest

from lotr_sim.games.lotr_risk import config as C
from lotr_sim.games.lotr_risk import layout as L
from lotr_sim.games.registry import get_game

G = get_game("lotr-risk")
EVENTS = set(int(k) for k in C.EVENT_KINDS)
RARE = ("trade", "power", "defend", "discard", "courage", "smeagol", "balrog")


@pytest.fixture(scope="module")
def comps():
    return {n: G.compile(G.load(None, {"players": n})) for n in (2, 3, 4)}


def _unseen(comp, st, seat):
    """Indices into ``st`` of the cards ``seat`` cannot see: (territory cards in the other
    players' hands, territory deck, adventure cards in the other players' hands, adventure
    deck)."""
    np_ = int(comp.cf[C.C_NP])
    others = [p for p in range(np_) if p != seat]
    th = [L.O_HAND + p * L.HMAX + i for p in others for i in range(int(st[L.O_HN + p]))]
    td = [L.O_TDECK + i for i in range(int(st[L.S_TDN]))]
    ah = [L.O_AHAND + p * L.AHMAX + i for p in others for i in range(int(st[L.O_AHN + p]))]
    ad = [L.O_ADECK + i for i in range(int(st[L.S_ADN]))]
    return th, td, ah, ad


def permute_unseen(comp, state, seat, rng):
    """Deal again, by ``rng``, everything ``seat`` cannot see (territory cards over the other
    players' hands and the deck; non-event adventure cards over the other players' hands and
    the deck, events staying in the deck; both decks' order). Returns True when some other
    player's hand changed (the permutation can be told apart by more than the deck order)."""
    st = state.st
    th, td, ah, ad = _unseen(comp, st, seat)
    before = _held(comp, st, seat)
    t = np.array(th + td, dtype=np.int64)
    st[t] = st[t][rng.permutation(len(t))]
    cards = st[np.array(ah + ad, dtype=np.int64)]
    event = np.array([int(comp.cf[C.O_AKIND + c]) in EVENTS for c in cards], dtype=bool)
    non = cards[~event][rng.permutation(int((~event).sum()))]
    st[np.array(ah, dtype=np.int64)] = non[: len(ah)]
    rest = np.concatenate((non[len(ah):], cards[event]))
    st[np.array(ad, dtype=np.int64)] = rest[rng.permutation(len(rest))]
    state.n_legal = -1
    return _held(comp, st, seat) != before


def _held(comp, st, seat):
    """Each other player's territory and adventure hand, as sorted lists."""
    out = []
    for p in range(int(comp.cf[C.C_NP])):
        if p != seat:
            out.append(sorted(st[L.O_HAND + p * L.HMAX + np.arange(st[L.O_HN + p])].tolist()))
            out.append(sorted(st[L.O_AHAND + p * L.AHMAX + np.arange(st[L.O_AHN + p])].tolist()))
    return out


def _positions(comp, pols, seed, games, every, cap):
    """Copies of decision points (more than one legal action, some other player holding a
    card) of a few games: every ``every``-th one (set-up decisions 20 times fewer) and every
    one of the rarer kinds (trade, power, defend, discard), at most ``cap`` in all."""
    out = []
    for index in range(games):
        state = G.bind(comp).new_state(pols, seed, index)
        k = 0
        while not state.is_terminal() and len(out) < cap * (index + 1) // games:
            n = state.legal_actions().shape[0]
            seat = state.to_move
            th, td, ah, ad = _unseen(comp, state.st, seat)
            kind = state.decision_kind()
            if n > 1 and (th or ah):
                k += 1
                if kind in RARE or k % (every * (20 if kind == "setup" else 1)) == 0:
                    out.append(state.copy())
            state.apply(state.builtin_choice())
    return out


@pytest.fixture(scope="module")
def positions(comps):
    """{players: positions} from random and greedy games at 2, 3 and 4 players."""
    out = {}
    for n, comp in comps.items():
        ps = _positions(comp, {"good": "greedy", "evil": "greedy"}, 31, 3, 20, 45)
        ps += _positions(comp, {"good": "random", "evil": "random"}, 32, 3, 30, 30)
        out[n] = ps
    return out


def _kinds(positions):
    return {L.PHASE_KIND[int(s.st[L.S_PHASE])] for ps in positions.values() for s in ps}


def test_lr_9_1_positions_cover_the_decisions(positions):
    """The positions below hold unseen cards in other players' hands at every player count
    and reach the turn's main decisions."""
    for n, ps in positions.items():
        assert len(ps) >= 40, (n, len(ps))
    assert {"reinforce", "attack", "move", "fortify", "trade", "discard"} <= _kinds(positions)
    # the defender's and the card holders' decisions (LR-5.2, LR-9.3, LR-10.4) are seats' too
    assert {"courage", "dice", "smeagol", "balrog"} <= _kinds(positions)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_lr_9_1_greedy_and_builtin_do_not_see_hidden_cards(comps, positions, n):
    """LR-4.3/LR-8/LR-9.1: dealing the unseen cards again leaves the seat's legal actions,
    greedy's scores and choice and the seat's built-in choice (greedy or random) as they
    were, and so the learned player's features of every row (policies.row_features_nb)."""
    comp = comps[n]
    rng = np.random.default_rng(40 + n)
    told = 0
    for state in positions[n]:
        seat = state.to_move
        acts = state.legal_actions().copy()
        s0 = state.action_scores()
        f0 = state.action_features()
        h0 = state.heuristic_choice()
        b0 = state.copy().builtin_choice()
        for _ in range(3):
            other = state.copy()
            told += permute_unseen(comp, other, seat, rng)
            assert other.invariant_ok()
            assert np.array_equal(other.legal_actions(), acts)
            assert np.array_equal(other.action_scores(), s0), (n, state.index, state.decision_kind())
            f1 = other.action_features()
            assert (f0 is None) == (f1 is None) and (f0 is None or np.array_equal(f1, f0))
            assert other.heuristic_choice() == h0
            assert other.copy().builtin_choice() == b0
    assert told >= len(positions[n]), told     # the permutations did move other players' cards


@pytest.mark.parametrize("n", [2, 3, 4])
def test_lr_9_1_playouts_determinize_what_the_seat_cannot_see(comps, positions, n):
    """The search playouts deal the unseen cards again from stream (key, j): the same key gives
    the same results whatever the hidden deal, while another key changes some of them."""
    comp = comps[n]
    rng = np.random.default_rng(50 + n)
    m = 4
    changed = 0
    for state in positions[n][::6]:
        seat = state.to_move
        k = state.legal_actions().shape[0]
        cands = np.array(state.action_scores().argsort()[::-1][: min(k, 3)], dtype=np.int64)
        out0 = state.playouts(cands, m, 123)
        for _ in range(2):
            other = state.copy()
            permute_unseen(comp, other, seat, rng)
            assert np.array_equal(other.playouts(cands, m, 123), out0), (n, state.index)
        changed += not np.array_equal(state.playouts(cands, m, 124), out0)
    assert changed >= 1


def test_lr_9_1_search_decision_does_not_see_hidden_cards(comps, positions):
    """The search player (search-fast: its candidates by greedy's scores, raced on the
    playouts) takes the same action whatever the hidden deal."""
    from lotr_sim.games.players import generic_player
    rng = np.random.default_rng(60)
    for n, comp in comps.items():
        for state in positions[n][1::15]:
            seat = state.to_move
            a = generic_player("search-fast", G, 7).choose(state.copy())
            other = state.copy()
            permute_unseen(comp, other, seat, rng)
            assert generic_player("search-fast", G, 7).choose(other) == a, (n, state.index)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_lr_9_1_determinize_deals_only_the_unseen_cards(comps, positions, n):
    """``State.determinize``: the seat's own hands, the discard piles and the board stay; every
    hand count and deck size stays; the unseen cards are the same multiset per kind; no hand
    gets an event card (LR-9.2); the invariant holds; and the hidden deal does move."""
    comp = comps[n]
    moved = 0
    for state in positions[n][::3]:
        seat = state.to_move
        th, td, ah, ad = _unseen(comp, state.st, seat)
        d = state.determinize(seat, 99 + state.index)
        hidden = np.zeros(L.ST_SIZE, dtype=bool)
        hidden[th + td + ah + ad] = True
        assert np.array_equal(d.st[~hidden], state.st[~hidden])
        assert sorted(d.st[th + td]) == sorted(state.st[th + td])
        assert sorted(d.st[ah + ad]) == sorted(state.st[ah + ad])
        assert not any(int(comp.cf[C.O_AKIND + c]) in EVENTS for c in d.st[ah])
        assert d.invariant_ok()
        moved += not np.array_equal(d.st[th + ah], state.st[th + ah])
    assert moved >= len(positions[n][::3]) // 2
