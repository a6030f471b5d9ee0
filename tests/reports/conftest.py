import sys
from pathlib import Path

import pytest

# the hand-made results frames live beside the experiment tests
EXP = Path(__file__).resolve().parents[1] / "experiments"
if str(EXP) not in sys.path:
    sys.path.insert(0, str(EXP))
HERE = Path(__file__).resolve().parent   # browsertool.py, shared by the browser tests
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))


@pytest.fixture(scope="module")
def chromium() -> str:
    """The Chromium binary the browser tests run; skips, saying why, when there is none."""
    from browsertool import BROWSERS, find_browser
    exe = find_browser()
    if exe is None:
        pytest.skip("no Chromium binary found (looked for " + ", ".join(BROWSERS) + " on PATH and "
                    "LOTR_SIM_CHROMIUM): install it with apt-get install chromium to run the browser test")
    return exe
