"""A sweep's results as CSV, for a spreadsheet: `sweep --csv` writes results.csv beside
results.parquet, and `report DIR --csv` writes it for a folder swept before."""
from __future__ import annotations

import csv
import json

import pandas as pd
from typer.testing import CliRunner

from lotr_sim.cli.main import app

runner = CliRunner()


def _check(folder):
    df = pd.read_parquet(folder / "results.parquet")
    with open(folder / "results.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(df) and list(rows[0]) == list(df.columns)
    for r, (_, x) in zip(rows, df.iterrows()):
        assert r["label"] == str(x["label"]) and int(r["games"]) == int(x["games"])
        assert float(r["rate_good"]) == float(x["rate_good"])      # full precision, not rounded
        assert json.loads(r["rounds_hist"]) == [int(v) for v in x["rounds_hist"]]
        assert json.loads(r["dims"]) == json.loads(x["dims"])


def test_sweep_csv_writes_results_csv(fake, tmp_path):
    out = tmp_path / "s"
    r = runner.invoke(app, ["sweep", "-g", "fake", "-q", "-n", "100", "-p", "strength=1,3", "-o", str(out), "--csv"])
    assert r.exit_code == 0, r.output
    _check(out)
    assert "results.csv" in r.output


def test_report_csv_exports_an_earlier_sweep(fake, tmp_path):
    out = tmp_path / "s"
    r = runner.invoke(app, ["sweep", "-g", "fake", "-q", "-n", "100", "-p", "strength=1,3", "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert not (out / "results.csv").exists()
    r = runner.invoke(app, ["report", str(out), "--csv"])
    assert r.exit_code == 0, r.output
    _check(out)
    assert "results.csv" in r.output
