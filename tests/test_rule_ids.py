"""Every rule ID of the rules files (docs/rules/*.md: the bullets ``- MT-7.5 ...``,
``- LR-10.2 ...``, ``- TS-4.3 ...``) is named by some test, as text ("LR-2.5") or in a test's
name (``test_lr_2_5_...``), so every rule has a test that could fail on it."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RULES = ROOT / "docs" / "rules"
BULLET = re.compile(r"^\s*[-*]\s+\**((MT|LR|TS)-(\d+)\.(\d+))\b", re.M)


def rule_ids() -> list[str]:
    """The bullet IDs of every rules file, in file order."""
    out: list[str] = []
    for f in sorted(RULES.glob("*.md")):
        out += [m.group(1) for m in BULLET.finditer(f.read_text(encoding="utf-8"))]
    return out


def _named(rid: str, text: str) -> bool:
    game, sec, item = re.fullmatch(r"(MT|LR|TS)-(\d+)\.(\d+)", rid).groups()
    as_text = re.search(rf"(?<![A-Za-z]){game}-{sec}\.{item}(?![0-9])", text, re.I)
    as_name = re.search(rf"(?<![A-Za-z]){game}_?{sec}_{item}(?![0-9])", text, re.I)
    return bool(as_text or as_name)


def test_the_rules_files_are_in_the_repository():
    """The three games' rules are here, so a reader can follow a citation."""
    names = {f.name for f in RULES.glob("*.md")}
    assert {"minas-tirith.md", "lotr-risk.md", "the-search.md"} <= names
    ids = rule_ids()
    assert len(ids) == len(set(ids)), sorted({i for i in ids if ids.count(i) > 1})
    for game in ("MT", "LR", "TS"):
        assert sum(i.startswith(game + "-") for i in ids) >= 20, game
    assert "LR-10.2" in ids and "MT-7.5" in ids and "TS-4.3" in ids


@pytest.mark.slow
def test_every_rule_id_is_named_by_a_test():
    text = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "tests").rglob("*.py")
                     if p.name != Path(__file__).name)
    missing = [rid for rid in rule_ids() if not _named(rid, text)]
    assert not missing, f"{len(missing)} rule IDs named by no test: {', '.join(missing)}"


def test_the_matcher():
    assert _named("LR-2.5", "# LR-2.5: the die") and _named("LR-2.5", "def test_lr_2_5_deal():")
    assert _named("MT-7.1", "def test_mt7_1():")
    assert not _named("LR-2.5", "LR-2.50 and LR-12.5") and not _named("LR-2.5", "LR-2.1-2.5")
