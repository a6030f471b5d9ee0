import os
import sys
from pathlib import Path

import pytest

from lotr_sim.games import registry

# Keep test runs reproducible and independent of the developer's own numba settings.
os.environ.setdefault("NUMBA_NUM_THREADS", "2")
# The suite's xdist workers already keep both cores compiling: no first-run compile helper
# processes beside them (lotr_sim/kernels/warmup.py; tests/kernels/test_warmup.py tests it).
os.environ.setdefault("LOTR_SIM_COMPILE_HELPER", "0")


# Every registered game and the fake game of the experiment tests (tests/experiments/fakegame.py):
# the contract tests (test_contract.py, test_hidden_contract.py) run on each.
sys.path.insert(0, str(Path(__file__).parent / "experiments"))
CONTRACT_GAMES = registry.game_names() + ["fake"]


@pytest.fixture(scope="module", params=CONTRACT_GAMES)
def gc(request):
    """``(game, compiled default config)`` for each of ``CONTRACT_GAMES``."""
    name = request.param
    if name == "fake":
        registry.register("fake", "fakegame:FakeGame")
    g = registry.get_game(name)
    yield g, g.compile(g.load())
    if name == "fake":
        registry.unregister("fake")
