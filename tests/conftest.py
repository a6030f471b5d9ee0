import os
import sys
from pathlib import Path

import pytest

from lotr_sim.games import registry

# Keep test runs reproducible and independent of the developer's own numba settings.
os.environ.setdefault("NUMBA_NUM_THREADS", "2")
# The tests run the library as a user imports it: the first-run compile machinery off (its
# default, lotr_sim/_numba). The lotr-sim programs they start switch it on, lean callees
# included, but the suite's xdist workers already keep both cores compiling: no compile helper
# processes beside them (tests/kernels/test_warmup.py and tests/kernels/test_numba_scope.py run it).
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


@pytest.fixture(autouse=True)
def _library_numba_after_each_test():
    """A test that runs the program in this worker (``cli.main.main()`` asks for the first-run
    machinery) leaves the worker as the library runs: not asked for, not installed."""
    from lotr_sim import _numba
    from lotr_sim._numba import compile_notice, warmup
    state, notice, installed = dict(_numba._state), compile_notice._state["wanted"], warmup._state["installed"]
    yield
    _numba._state.clear()
    _numba._state.update(state)
    compile_notice._state["wanted"] = notice
    if warmup._state["installed"] and not installed:
        warmup.uninstall()
