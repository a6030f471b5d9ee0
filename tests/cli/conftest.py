import os
import sys
from pathlib import Path

import pytest

EXPERIMENTS = Path(__file__).resolve().parents[1] / "experiments"


@pytest.fixture
def fake(monkeypatch):
    """The fake game of tests/experiments (quick to play) registered for one test; CLI
    subprocesses find it through PYTHONPATH."""
    from lotr_sim.games import registry
    monkeypatch.syspath_prepend(str(EXPERIMENTS))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(EXPERIMENTS), os.environ.get("PYTHONPATH", "")]))
    registry.register("fake", "fakegame:FakeGame")
    yield registry.get_game("fake")
    registry.unregister("fake")
    sys.modules.pop("fakegame", None)
