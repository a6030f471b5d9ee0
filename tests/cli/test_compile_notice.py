"""A first run compiles the engine for about a minute: with stderr not a terminal (piped, logged)
the program says so in one line, once; a warm run says nothing."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

FAKE_CLI = Path(__file__).resolve().parents[1] / "experiments" / "fake_cli.py"


def _run(cache: Path, *args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), LOTR_SIM_COMPILE_HELPER="0",
               PYTHONPATH=os.pathsep.join([str(FAKE_CLI.parent), os.environ.get("PYTHONPATH", "")]))
    return subprocess.run([sys.executable, str(FAKE_CLI), *args], capture_output=True, text=True, env=env,
                          timeout=600)


@pytest.mark.slow
def test_first_run_compile_prints_one_line_when_piped(tmp_path):
    cache = tmp_path / "numba"
    cold = _run(cache, "run", "-g", "fake", "-n", "50", "--json")
    assert cold.returncode == 0, cold.stderr
    notes = [x for x in cold.stderr.splitlines() if "compiling" in x]
    assert len(notes) == 1, cold.stderr
    assert notes[0].startswith("lotr-sim: compiling the ") and "once" in notes[0] and "cache" in notes[0]
    assert cold.stdout.lstrip().startswith("{")        # stdout keeps the JSON alone
    warm = _run(cache, "run", "-g", "fake", "-n", "50", "--json")
    assert warm.returncode == 0 and "compiling" not in warm.stderr, warm.stderr


def test_library_use_prints_no_notice(capsys):
    """Only the program asks for the notice; the API (a notebook, a script) stays quiet."""
    from lotr_sim._numba import compile_notice
    assert compile_notice._state["wanted"] is False
    compile_notice.install()
    assert compile_notice._state["installed"] is False


def test_notice_names_the_game_whose_kernel_compiles():
    from numba.core.dispatcher import Dispatcher

    from lotr_sim.games.the_search import play
    from lotr_sim._numba import compile_notice
    d = next(v for v in vars(play).values() if isinstance(v, Dispatcher) and v.py_func.__module__ == play.__name__)
    assert compile_notice._game_of(d) == "the-search"
