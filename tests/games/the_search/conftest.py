"""Shared fixtures of The Search tests: the game, its default compiled config, and helpers
that play games through the step machine with a check after every step."""
from __future__ import annotations

import numpy as np
import pytest

from lotr_sim.games.registry import get_game


@pytest.fixture(scope="session")
def game():
    return get_game("the-search")


@pytest.fixture(scope="session")
def comp(game):
    return game.compile(game.load())


def play_steps(game, comp, policies, seed, index, check=None, debug=True, rng=None):
    """Play one game through the step machine (built-in choices, or uniform ``rng`` choices),
    calling ``check(state, actions, chosen)`` before every step. Returns the final state."""
    st = game.bind(comp).new_state(policies, seed, index, debug=debug)
    while not st.is_terminal():
        acts = st.legal_actions().copy()
        i = int(rng.integers(len(acts))) if rng is not None else st.builtin_choice()
        if check is not None:
            check(st, acts, i)
        st.apply(i)
    return st


@pytest.fixture(scope="session")
def steps():
    """``play_steps`` as a fixture (test modules here are not a package)."""
    return play_steps


@pytest.fixture
def rng():
    return np.random.default_rng(5)
