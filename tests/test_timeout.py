"""A hanging test fails instead of hanging the suite (a legal-action list left
stale after `apply` once made the contract tests hang): pytest-timeout is configured for every
test in pyproject.toml, and a test that never ends is stopped and reported."""
from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_every_test_has_a_timeout():
    ini = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert 0 < int(ini["timeout"]) <= 1800 and ini["timeout_method"] == "thread"
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["test"]
    assert any(d.startswith("pytest-timeout") for d in extra)


@pytest.mark.slow
def test_a_hanging_test_fails(tmp_path):
    """The repository's own pytest settings (its pyproject.toml), with the timeout cut to 2 s,
    on a test that loops forever: pytest stops it and fails."""
    (tmp_path / "test_hang.py").write_text("def test_forever():\n    while True:\n        pass\n")
    r = subprocess.run([sys.executable, "-m", "pytest", "-c", str(ROOT / "pyproject.toml"), "--rootdir",
                        str(tmp_path), "-p", "no:cacheprovider", "-o", "timeout=2", "-q",
                        str(tmp_path / "test_hang.py")],
                       capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert r.returncode != 0, r.stdout
    assert "Timeout" in r.stdout + r.stderr, (r.stdout + r.stderr)[-2000:]
