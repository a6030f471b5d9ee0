"""The README's two set-up commands and CI stay in step."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_readme_has_exactly_two_setup_commands_and_ci_runs_the_test_one():
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```bash\n(.*?)\n```", readme, re.S)
    assert len(blocks) == 2
    main_cmd, test_cmd = blocks
    assert "pip install" in main_cmd and "lotr-sim " in main_cmd
    assert "pytest" in test_cmd
    assert test_cmd in (ROOT / ".ci" / "run").read_text()


def test_closest_name_suggestions():
    from lotr_sim.config import closest
    names = ["leader_bonus", "banner_defence_bonus", "hand_limit", "retreat_trigger", "points_leader"]
    assert closest("banner_bonus", names) == "; did you mean 'banner_defence_bonus'?"
    assert closest("hand_limt", names) == "; did you mean 'hand_limit'?"
    assert closest("retreat", names) == "; did you mean 'retreat_trigger'?"
    assert closest("foo", names) == ""


@pytest.mark.slow
def test_wheel_ships_the_configs_folder(tmp_path):
    """a non-editable install could not find configs/. The wheel built from the
    source tree carries every file of configs/ as lotr_sim/configs/ (where
    ``config.configs_dir`` looks in an installed copy). CI also installs it and runs it."""
    import shutil
    import subprocess
    import sys
    import zipfile
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(".git", ".venv", "build", "dist", "*.egg-info",
                                                             "__pycache__", ".pytest_cache", "reports"))
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                        "-w", str(tmp_path / "dist"), str(src)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-2000:]
    (whl,) = (tmp_path / "dist").glob("lotr_sim-*.whl")   # built as pip builds it (isolated, pyproject.toml's setuptools)
    names = set(zipfile.ZipFile(whl).namelist())
    want = {"lotr_sim/configs/" + p.relative_to(ROOT / "configs").as_posix()
            for p in (ROOT / "configs").rglob("*") if p.is_file()}
    assert want and want <= names, sorted(want - names)
    assert "lotr_sim/configs/games/lotr-risk.toml" in names
