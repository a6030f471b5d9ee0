import os
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))
# Dask worker processes and CLI subprocesses must be able to import the fake game too.
os.environ["PYTHONPATH"] = os.pathsep.join([str(HERE)] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])

from lotr_sim.games import registry  # noqa: E402


@pytest.fixture(autouse=True)
def _fake_registered():
    """Register the fake game for the tests of this folder only (undone after each test,
    so other test folders still see the real registry)."""
    registry.register("fake", "fakegame:FakeGame")
    yield
    registry.unregister("fake")


@pytest.fixture
def fake():
    return registry.get_game("fake")
