"""Every notebook runs top to bottom in a real Jupyter kernel against the public API, shows
its plots (image/png outputs: the reports module must not switch the backend to Agg) and
what its game's questions need (``EXPECT``), and writes its reports under the repository
root's reports/ folder even when started from notebooks/."""
import shutil
from pathlib import Path

import nbclient
import nbformat
import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))

# notebook -> (the game whose reports it writes, or None; texts its printed output must hold;
# the fewest inline plots)
EXPECT = {
    "explore.ipynb": ("minas-tirith", ["Good ", "Levers"], 2),
    "lotr-risk.ipynb": ("lotr-risk", ["exact", "players", "Levers"], 3),
    "the-search.ipynb": ("the-search", ["Mount Doom", "frodo", "Levers"], 3),
}


def _cells(path):
    return nbformat.read(path, as_version=4).cells


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_text_names_the_players_the_code_plays(path):
    """A markdown cell that says who plays ("tuned v tuned") says what the code after it
    plays: the game's default players unless that code gives policies= itself."""
    import re

    from lotr_sim.games.registry import get_game
    game = EXPECT[path.name][0]
    if game is None:
        return
    g = get_game(game)
    names = set(g.policies)
    default = {p for p in g.default_policies.values()}
    cells = _cells(path)
    for i, c in enumerate(cells):
        if c.cell_type != "markdown":
            continue
        code = ""
        for d in cells[i + 1:]:
            if d.cell_type == "markdown":
                break
            code += d.source
        for a, b in re.findall(r"\b(\w+) v (\w+)\b", c.source, re.I):
            if a.lower() in names and b.lower() in names and "policies=" not in code:
                assert {a.lower(), b.lower()} == default, (path.name, c.source[:200])


def test_notebooks_extra_installs_jupyter_and_the_readme_says_how_to_run_them():
    """`pip install -e ".[notebooks]"` brings what opening and running the notebooks needs (a
    Jupyter front end and the kernel; no upper pins), and the README says so in one line."""
    import re
    import tomllib
    root = Path(__file__).resolve().parents[2]
    extras = tomllib.loads((root / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    names = {re.split(r"[<>=!~ ;\[]", x, maxsplit=1)[0].lower(): x for x in extras["notebooks"]}
    assert "ipykernel" in names and ({"notebook", "jupyterlab", "jupyter"} & set(names)), names
    assert not [x for x in names.values() if "<" in x], names
    readme = (root / "README.md").read_text()
    assert re.search(r'pip install -e "\.\[notebooks\]".*notebooks/', readme), "README: how to run the notebooks"


def test_there_are_notebooks():
    assert NOTEBOOKS
    assert {p.name for p in NOTEBOOKS} <= set(EXPECT), "a new notebook needs its EXPECT entry"


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_executes_shows_plots_and_writes_under_repo_root(path, tmp_path):
    game, texts, min_plots = EXPECT[path.name]
    # a repository-like scratch folder (pyproject.toml + lotr_sim/), the notebook started
    # from its notebooks/ folder as a user would: reports must land in <root>/reports/
    root = tmp_path / "repo"
    (root / "lotr_sim").mkdir(parents=True)
    (root / "pyproject.toml").write_text("[project]\nname = 'scratch'\n")
    nbdir = root / "notebooks"
    nbdir.mkdir()
    shutil.copy(path, nbdir / path.name)
    nb = nbformat.read(nbdir / path.name, as_version=4)
    nbclient.NotebookClient(nb, timeout=900, kernel_name="python3",
                            resources={"metadata": {"path": str(nbdir)}}).execute()
    code = [c for c in nb.cells if c.cell_type == "code"]
    outputs = [o for c in code for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    # a set-up warning reads as the CLI's one line, not as Python's "path:line: SetupWarning"
    assert "SetupWarning" not in text and "Warning:" not in text, text[:2000]
    for t in texts:
        assert t in text, (t, text[-2000:])
    # the verdict is shown: its sentence and the levers
    assert "is favoured by" in text or "Fair within the interval" in text, text[-2000:]
    # plots are displayed inline (not blank): PNG data in the executed outputs
    pngs = [o for o in outputs if o.output_type in ("display_data", "execute_result")
            and "image/png" in o.get("data", {})]
    assert len(pngs) >= min_plots, [o.output_type for o in outputs]
    # every cell that calls compare/balance printed something
    for c in code:
        if "api.compare(" in c.source or "api.balance(" in c.source:
            assert any(o.output_type == "stream" and o.get("text") for o in c.outputs), c.source
    if game is not None:
        assert list((root / "reports" / game).glob("*/report.html"))
    assert not (nbdir / "reports").exists()
