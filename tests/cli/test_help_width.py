"""Every command's --help at 80 columns: the description flows as paragraphs, broken only where
a line is full (the docstrings' own line breaks mid-sentence are not printed), and nothing is
wider than the terminal."""
from __future__ import annotations

import pytest
from typer.testing import CliRunner

from lotr_sim.cli.main import COMMANDS, app

runner = CliRunner()


def _description(out: str) -> list[list[str]]:
    """The paragraphs of the text between the usage line and the first option box, each a
    list of its printed lines (stripped)."""
    lines = out.splitlines()
    start = next(i for i, x in enumerate(lines) if "Usage:" in x) + 1
    end = next((i for i, x in enumerate(lines) if x.lstrip().startswith("╭")), len(lines))
    paras, cur = [], []
    for x in lines[start:end]:
        if x.strip():
            cur.append(x.strip())
        elif cur:
            paras.append(cur)
            cur = []
    if cur:
        paras.append(cur)
    return paras


@pytest.mark.parametrize("cmd", [name for name, _ in COMMANDS])
def test_help_description_breaks_only_full_lines(cmd):
    r = runner.invoke(app, [cmd, "--help"], env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.output
    assert max(len(x) for x in r.output.splitlines()) <= 80
    width = 80 - 2      # the description is printed with one space either side
    for para in _description(r.output):
        if any(x.startswith(("* ", "- ", "• ")) for x in para):
            continue   # a list keeps its lines
        for a, b in zip(para, para[1:]):
            nxt = b.split()[0]
            assert len(a) + 1 + len(nxt) > width, f"{cmd} --help breaks a line early: {a!r} / {b!r}"
