"""Every output names the game's own sides: The Search has Frodo and Sam, no Good or Evil
(TS-2.3: the two players are Frodo and Sam)."""
from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from lotr_sim.cli.main import app

runner = CliRunner()

BALANCE = ["balance", "-g", "the-search", "--param", "ent_tokens", "--range", "0:6", "--target", "equal",
           "-n", "60", "--max-steps", "1", "-q"]


@pytest.mark.slow
def test_balance_equal_names_frodo_and_sam_not_evil():
    """TS-2.3: `balance --target equal` on The Search prints each value's rates as Frodo's and
    Sam's, never "evil"."""
    r = runner.invoke(app, BALANCE)
    assert r.exit_code == 0, r.output
    rows = [x for x in r.output.splitlines() if x.strip().startswith("ent_tokens=")]
    assert len(rows) == 2, r.output
    for x in rows:
        assert re.search(r"\bfrodo [\d.]+%", x) and re.search(r"\bsam [\d.]+%", x), x
    assert not re.search(r"\b(evil|good)\b", r.output, re.I), r.output


@pytest.mark.slow
def test_balance_json_names_the_second_side():
    """TS-2.3: the JSON result says which side each rate is, by the game's own names."""
    r = runner.invoke(app, BALANCE + ["--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.output[r.output.index("{"):])
    assert out["outcome"] == "frodo" and out["second_outcome"] == "sam"
    e = out["evaluated"][0]
    assert e["rate"] + e["rate_second"] <= 1.0 and "rate_evil" not in e


def test_bad_target_message_names_no_side():
    """The message for a bad --target serves every game (sweep/skill/report of The Search
    too): it speaks of the first and second side, not of Good and Evil."""
    from lotr_sim.errors import LotrSimError
    from lotr_sim.experiments.verdict import check_target
    with pytest.raises(LotrSimError) as e:
        check_target("fifty")
    assert "good50, equal" in str(e.value) and not re.search(r"\b(Good|Evil)\b", str(e.value)), str(e.value)
