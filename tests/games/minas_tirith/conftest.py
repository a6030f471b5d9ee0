import pytest

from lotr_sim.games.registry import get_game


@pytest.fixture(scope="session")
def game():
    return get_game("minas-tirith")


@pytest.fixture(scope="session")
def comp(game):
    return game.compile(game.load())


@pytest.fixture
def pos(comp):
    from lotr_sim.games.minas_tirith.position import Position

    def make(policies=("greedy", "greedy"), seed=1, index=0, comp_=None):
        return Position(comp_ or comp, policies=policies, seed=seed, index=index)
    return make

