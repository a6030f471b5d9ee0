"""Every game's default sweep (``configs/sweeps/<game>.toml``, what a bare ``lotr-sim sweep
--game GAME`` runs) is the paired allocation with these goals: the baseline's own
rate ±1 point, every lever's paired change ±1, every AI pairing ±2; no fixed game count.
The figures each file's header states are checked against what the file gives: the points
(``N + M points``: the baseline and the levers, then the pairings), the AI players, the cap,
and the measured games (each point between its first batch and the cap). Nothing is run:
only the points are built."""
import re

import pytest

from lotr_sim.config import configs_dir
from lotr_sim.games.registry import game_names, get_game

WORDS = {w: i for i, w in enumerate("zero one two three four five six seven eight nine ten".split())}


def _header(path) -> str:
    """The file's leading comment as one line of text."""
    lines = []
    for ln in path.read_text().splitlines():
        if not ln.startswith("#"):
            break
        lines.append(ln.lstrip("#").strip())
    return " ".join(lines)


def _n(text: str) -> int:
    return WORDS[text] if text in WORDS else int(text.replace(",", ""))


@pytest.fixture(scope="module", params=game_names())
def default_sweep(request):
    """(game, spec, points, header) of a bare ``lotr-sim sweep --game GAME``."""
    from lotr_sim.experiments.spec import build_points, make_spec, sweep_file_options
    g = get_game(request.param)
    path = configs_dir() / "sweeps" / f"{g.name}.toml"
    assert path.is_file(), f"{g.name} has no default sweep file"
    spec = make_spec(g)
    spec.pairings = sweep_file_options(g.name, None, None).get("pairings", False)
    points, _ = build_points(g, spec)
    return g, spec, points, _header(path)


def test_default_sweep_is_the_paired_allocation(default_sweep):
    from lotr_sim.experiments.spec import load_sweep_file
    g, spec, _, _ = default_sweep
    d = load_sweep_file(configs_dir() / "sweeps" / f"{g.name}.toml")
    assert "games" not in d and "precision" not in d, f"{g.name}: a fixed count or own-rate precision"
    assert (spec.games, spec.precision) == (None, None)
    assert (spec.baseline_precision, spec.paired_precision, spec.pairings_precision) == (0.01, 0.01, 0.02)
    assert d["pairings"] is True


def test_header_figures_match_the_file(default_sweep):
    from lotr_sim.experiments.spec import pairing_players
    from lotr_sim.experiments.sweep import default_max_games, first_targets, point_goals
    g, spec, points, text = default_sweep

    # "19 + 24 points": the baseline and the levers, then the pairings
    m = re.search(r"(\d+) \+ (\d+) points", text)
    assert m, text
    pairings = sum(p.varied == "pairings" for p in points)
    assert (int(m.group(1)), int(m.group(2))) == (len(points) - pairings, pairings), m.group(0)

    # "every pairing of the five AI players"
    m = re.search(r"every pairing of the (\w+) AI players", text)
    assert m, text
    assert _n(m.group(1)) == len(pairing_players(g, spec.pairings)), m.group(0)

    # the goals as the header states them
    for pattern, goal in ((r"baseline_precision: .*? ±(\d+) point", spec.baseline_precision),
                          (r"paired_precision: .*? ±(\d+) point", spec.paired_precision),
                          (r"pairings_precision: .*? ±(\d+) points", spec.pairings_precision)):
        m = re.search(pattern, text)
        assert m and int(m.group(1)) / 100 == goal, (pattern, goal)

    # "max_games (not set): 4 x 9,604 = 38,416 per point"
    cap = default_max_games(spec)
    m = re.search(r"max_games \(not set\): 4 x [\d,]+ = ([\d,]+) per point", text)
    assert m and _n(m.group(1)) == cap, (m and m.group(0), cap)

    # "Measured ...: 400 to 18,700 games per point, 203,400 in all": what the allocation allows
    m = re.search(r"Measured [^:]*: ([\d,]+) to ([\d,]+) games per point, ([\d,]+) in all", text)
    assert m, text
    lo, hi, total = (_n(x) for x in m.groups())
    first = first_targets(point_goals(spec, points), cap)
    assert min(first.values()) <= lo <= hi <= cap, (m.group(0), min(first.values()), cap)
    assert max(sum(first.values()), len(points) * lo) <= total <= len(points) * hi, (m.group(0), len(points))
