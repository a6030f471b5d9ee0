"""The common numba binding (lotr_sim.games.adapter): every numba game's kernels
module has the common kernels with the same parameters, a game's metadata imports without
its engine, and every game writes the same trace header."""
from __future__ import annotations

import inspect
import subprocess
import sys

import pytest

from lotr_sim.games.adapter import HEADER_KEYS, KERNELS, TRACE_VERSION, NumbaGame
from lotr_sim.games.registry import get_game

GAMES = ("minas-tirith", "lotr-risk", "the-search")


@pytest.mark.parametrize("name", GAMES)
def test_kernels_have_the_common_signatures(name):
    g = get_game(name)
    assert isinstance(g, NumbaGame)
    K = g.K
    for kernel, params in KERNELS.items():
        f = getattr(K, kernel)
        assert tuple(inspect.signature(f.py_func).parameters) == params, (name, kernel)
    assert isinstance(K.DET_TMP, int) and K.DET_TMP >= 0
    assert K.simulate_nb.targetoptions.get("nogil")     # run_range threads it


@pytest.mark.parametrize("name", GAMES)
def test_metadata_imports_without_the_engine(name):
    g = get_game(name)
    mod = type(g).__module__
    code = (f"import sys, {mod} as m; g = m.{type(g).__name__}(); g.params(); g.policies; "
            f"assert {g.kernels!r} not in sys.modules, 'kernels imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("name", GAMES)
def test_one_trace_header(name):
    g = get_game(name)
    c = g.compile(g.load())
    pols = {s: "greedy" for s in g.sides}
    head = g.trace_header(c, g.check_policies(pols), 3, 7)
    assert tuple(head) == HEADER_KEYS
    assert head["trace_version"] == TRACE_VERSION and head["game_name"] == name
    seats = g.seat_names(c)
    assert head["players"] == len(seats) and list(head["seat_policies"]) == list(seats)
    assert head["seat_sides"] == [g.sides[g.seat_side(c, i)] for i in range(len(seats))]
    assert head["rules"] == f"docs/rules/{name}.md" and head["search"] == {}
    head = g.trace_header(c, g.check_policies({g.sides[0]: "search-fast"}), 3, 7)
    assert "search-fast" in head["search"] and tuple(head) == HEADER_KEYS
