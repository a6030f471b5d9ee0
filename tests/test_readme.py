"""The README's main job is the default sweep (issue 21): its command is the first set-up
block, and every figure its paragraph states about that sweep is the one the sweep file
gives, counted as ``lotr-sim sweep --game minas-tirith`` counts it (``api.sweep``: the spec
from the default sweep file, its ``pairings``, then ``build_points``; one target of
``spec.games`` per point). Nothing is run: only the points are built."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SWEEP_FILE = ROOT / "configs" / "sweeps" / "minas-tirith.toml"
WORDS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty".split())}


def _number(text: str) -> int:
    text = text.lower()
    return WORDS[text] if text in WORDS else int(text.replace(",", ""))


def _main_job_paragraph(readme: str) -> str:
    m = re.search(r"^The main job runs .*?(?=\n\n)", readme, re.S | re.M)
    assert m, "README: no paragraph starting 'The main job runs'"
    return " ".join(m.group(0).split())


@pytest.fixture(scope="module")
def readme() -> str:
    return (ROOT / "README.md").read_text()


@pytest.fixture(scope="module")
def default_sweep():
    """(game, spec, points) of a bare ``lotr-sim sweep --game minas-tirith``."""
    from lotr_sim.config import configs_dir
    from lotr_sim.experiments.spec import build_points, make_spec, sweep_file_options
    from lotr_sim.games.registry import get_game
    assert configs_dir() / "sweeps" / "minas-tirith.toml" == SWEEP_FILE
    g = get_game("minas-tirith")
    spec = make_spec(g)                                   # the default sweep file
    spec.pairings = sweep_file_options(g.name, None, None).get("pairings", False)
    points, _ = build_points(g, spec)
    return g, spec, points


def test_main_job_command_is_the_default_sweep(readme):
    main_cmd = re.findall(r"```bash\n(.*?)\n```", readme, re.S)[0]
    assert main_cmd.rstrip().endswith("lotr-sim sweep --game minas-tirith"), main_cmd
    assert "`configs/sweeps/minas-tirith.toml`" in _main_job_paragraph(readme)


def test_main_job_figures_match_the_default_sweep(readme, default_sweep):
    from lotr_sim.stats import games_for_half_width
    g, spec, points = default_sweep
    text = _main_job_paragraph(readme)
    assert spec.precision is None and spec.games is not None and not spec.grid

    # "eight rule parameters one at a time": every dimension is a rule parameter
    m = re.search(r"(\w+) rule parameters one at a time", text)
    assert m, text
    rule_names = {p.name for p in g.params()}
    assert all(name in rule_names for name, _ in spec.dims)
    assert _number(m.group(1)) == len(spec.dims), (m.group(0), [n for n, _ in spec.dims])

    # "the baseline under every pairing of the four AI players"
    m = re.search(r"every pairing of the (\w+) AI players", text)
    assert m, text
    from lotr_sim.experiments.spec import pairing_players
    assert spec.pairings, "the README says the main job plays the pairings; the sweep file does not"
    assert _number(m.group(1)) == len(pairing_players(g, spec.pairings))

    # games per point, and the ±1-point interval they are said to give
    per_point = min(spec.games, spec.max_games or spec.games)    # run_sweep's target per point
    m = re.search(r"([\d,]+) paired games per point", text)
    if m:
        assert _number(m.group(1)) == per_point, (m.group(0), per_point)
    m = re.search(r"for a ±(\d+)-percentage-point 95% interval", text)
    if m:
        assert spec.games == games_for_half_width(int(m.group(1)) / 100)

    # total games: one target of spec.games per point (experiments/sweep.py, no precision)
    m = re.search(r"([\d,]+) games:", text)
    if m:
        total = len(points) * per_point
        assert _number(m.group(1)) == total, (m.group(0), len(points), total)
