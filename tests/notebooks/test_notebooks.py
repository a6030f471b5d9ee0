"""Every notebook runs top to bottom in a real Jupyter kernel against the public API."""
from pathlib import Path

import nbclient
import nbformat
import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


def test_there_are_notebooks():
    assert NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_notebook_executes_without_errors(path, tmp_path):
    nb = nbformat.read(path, as_version=4)
    # run in a scratch folder so the sweep's reports/ land there, not in the repo
    nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.output_type == "error"]
    text = "".join(o.get("text", "") for o in outputs if o.output_type == "stream")
    assert "Good " in text and "favours" in text and "crosses" in text
    assert list(tmp_path.glob("reports/minas-tirith/*/report.html"))
