"""A game's own analyses live in its package (LOTR Risk's Fellowship journey, LR-10; The
Search's tile draws, TS-1.2/TS-3) and stand on the layers below the games only: they import
nothing from ``analyses``, ``experiments``, ``reports``, ``api`` or ``cli``, which use them."""
import ast
import importlib
from pathlib import Path

import pytest

import lotr_sim

ROOT = Path(lotr_sim.__file__).parent
GAME_ANALYSES = [ROOT / "games" / "lotr_risk" / "fellowship" / n for n in ("__init__.py", "exact.py", "kernel.py",
                                                                            "analysis.py")] + \
                [ROOT / "games" / "the_search" / "tiles.py"]
ABOVE = ("lotr_sim.analyses", "lotr_sim.experiments", "lotr_sim.reports", "lotr_sim.api", "lotr_sim.cli")


def _imports(path: Path) -> list[str]:
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.append(node.module)
        elif isinstance(node, ast.Import):
            out.extend(a.name for a in node.names)
    return out


@pytest.mark.parametrize("path", GAME_ANALYSES, ids=lambda p: str(p.relative_to(ROOT)))
def test_game_analysis_imports_only_below_the_games(path):
    assert path.is_file()
    up = [m for m in _imports(path) if m.startswith(ABOVE)]
    assert up == [], up


@pytest.mark.parametrize("gone", ["lotr_sim.analyses.fellowship", "lotr_sim.analyses.tiles",
                                  "lotr_sim.exact.fellowship", "lotr_sim.kernels.fellowship"])
def test_game_analyses_are_not_left_in_the_shared_packages(gone):
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(gone)
