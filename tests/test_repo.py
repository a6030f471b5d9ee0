"""The README's two set-up commands and CI stay in step."""
import re
from pathlib import Path

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
