"""The README's main job is the default sweep: its command is the first set-up block, and
every figure its section states about that sweep is the one the sweep file gives, counted
as ``lotr-sim sweep --game minas-tirith`` counts it (``api.sweep``: the spec from the
default sweep file, its ``pairings``, then ``build_points``). The default sweep
is the paired mode (``experiments.sweep``): the goals and the cap are checked exactly; the
games it took are a measurement, checked against what the allocation allows (at least the
first batch, at most the cap, per point). Nothing is run: only the points are built."""
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
    """The first paragraph of the README's main-job section, on one line."""
    m = re.search(r"^## The main job\n\n(.*?)(?=\n\n)", readme, re.S | re.M)
    assert m, "README: no '## The main job' section"
    return " ".join(m.group(1).split())


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
    from lotr_sim.experiments.sweep import default_max_games, first_targets, point_goals
    g, spec, points = default_sweep
    text = _main_job_paragraph(readme)
    assert spec.games is None and spec.precision is None and spec.paired_precision is not None
    assert not spec.grid

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

    # the goals: each kind of point's 95% half-width, in percentage points
    for pattern, goal in ((r"baseline's Good win rate to ±(\d+) percentage point", spec.baseline_precision),
                          (r"every lever's paired change against the baseline to ±(\d+) percentage point",
                           spec.paired_precision),
                          (r"every AI pairing's Good win rate to ±(\d+) percentage point", spec.pairings_precision)):
        m = re.search(pattern, text)
        assert m, (pattern, text)
        assert int(m.group(1)) / 100 == goal, (m.group(0), goal)

    # the cap per point run_sweep uses when the file sets none
    cap = spec.max_games or default_max_games(spec)
    m = re.search(r"at most ([\d,]+) games per point", text)
    assert m, text
    assert _number(m.group(1)) == cap, (m.group(0), cap)

    # the "after adaptation" figure: how many levers, the tune's and the keep checks' budget, the goal
    m = re.search(r"measures its (\w+) largest levers again \"after adaptation\": .*?\((\d+) generations x "
                  r"(\d+) games\), each side's kept where they beat the tuned weights on ([\d,]+) paired games, "
                  r"and Good's paired change .*? played to ±(\d+) percentage point", text)
    assert m, text
    assert [_number(x) for x in m.groups()] == [spec.adapt_levers, spec.adapt_generations, spec.adapt_games,
                                                 spec.adapt_check_games, round(100 * spec.paired_precision)]

    # the games it took (measured): each point between its first batch and the cap
    m = re.search(r"([\d,]+) to ([\d,]+) games per point, ([\d,]+) games:", text)
    assert m, text
    lo, hi, total = (_number(x) for x in m.groups())
    first = first_targets(point_goals(spec, points), cap)
    assert min(first.values()) <= lo <= hi <= cap, (m.group(0), min(first.values()), cap)
    assert max(sum(first.values()), len(points) * lo) <= total <= len(points) * hi, (m.group(0), len(points))


def test_the_tour_names_every_command():
    """The README's tour of the commands has a row for every command of the CLI (a README
    edit once dropped the whole table and no test noticed)."""
    from lotr_sim.cli.main import COMMANDS
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    m = re.search(r"^## A tour of the commands\n(.*?)(?=^## )", text, re.S | re.M)
    assert m, "README: no '## A tour of the commands' section"
    rows = [ln for ln in m.group(1).splitlines() if ln.startswith("| `lotr-sim ")]
    named = {re.match(r"\| `lotr-sim (\w+)", ln).group(1) for ln in rows}
    missing = {name for name, _ in COMMANDS} - named
    assert not missing, f"README's tour lacks {sorted(missing)}"


def test_links_to_docs_resolve(readme):
    """Every relative link of the README and of docs/*.md names a file or folder of the repository."""
    pages = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    broken = []
    for page in pages:
        for target in re.findall(r"\]\(([^)#\s]+)\)", page.read_text(encoding="utf-8")):
            if "://" not in target and not (page.parent / target).exists():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert not broken, broken
