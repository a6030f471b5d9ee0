"""Exact references (lotr_sim/exact): Osborne's table, single-roll counts, bonuses,
agreement between the forward law and the backward table, bombardment binomials."""
import csv
from pathlib import Path

import numpy as np
import pytest

from lotr_sim.errors import LotrSimError
from lotr_sim.exact.battle import battle_law, roll_counts, win_table
from lotr_sim.exact.bombard import bombard_law

DATA = Path(__file__).parent / "data"


def test_osborne_2003_table3_all_100_entries():
    rows = list(csv.DictReader(open(DATA / "osborne-2003-table3.csv")))
    assert len(rows) == 100
    W = win_table("classic", 11, 10)
    for r in rows:
        a, d = int(r["attackers_excluding_home"]), int(r["defenders"])
        # --attackers counts the unit left home, so Osborne's a is our a + 1
        assert round(W[a + 1, d], 3) == pytest.approx(float(r["p_attacker_wins_3dp"]), abs=1e-9), (a, d)
        assert round(battle_law("classic", a + 1, d).attacker_wins, 3) == pytest.approx(
            float(r["p_attacker_wins_3dp"]), abs=1e-9)


def test_osborne_examples():
    assert round(battle_law("classic", 6, 5).attacker_wins, 3) == 0.506
    assert round(battle_law("classic", 11, 10).attacker_wins, 3) == 0.568


@pytest.mark.parametrize("a,d,counts", [
    (3, 2, {(0, 2): 2890, (1, 1): 2611, (2, 0): 2275}),
    (2, 2, {(0, 2): 295, (1, 1): 420, (2, 0): 581}),
    (1, 1, {(0, 1): 15, (1, 0): 21}),
    (3, 1, {(0, 1): 855, (1, 0): 441}),
])
def test_single_roll_counts(a, d, counts):
    c = roll_counts(a, d).sum(axis=(2, 3))
    assert c.sum() == 6 ** (a + d)
    got = {(la, ld): int(c[la, ld]) for la in range(3) for ld in range(3) if c[la, ld]}
    assert got == counts


@pytest.mark.parametrize("a,d", [(1, 1), (2, 1), (3, 1), (1, 2), (2, 2), (3, 2)])
def test_equal_plus_one_bonus_gives_plain_tables(a, d):
    assert np.array_equal(roll_counts(a, d, 1, 1), roll_counts(a, d))


def test_equal_bonus_plain_battle_tables_all_rule_sets():
    for rules in ("classic", "lotr-risk", "minas-tirith"):
        assert np.allclose(win_table(rules, 12, 12, 1, 1), win_table(rules, 12, 12), atol=1e-15)


def test_bonus_moves_odds_the_right_way():
    base = battle_law("lotr-risk", 6, 4).attacker_wins
    assert battle_law("lotr-risk", 6, 4, attack_bonus=1).attacker_wins > base
    assert battle_law("lotr-risk", 6, 4, defence_bonus=1).attacker_wins < base


def test_six_counts_in_roll_law():
    # P(defender rolls at least one 6 with two dice) = 11/36, whatever the attacker rolls
    c = roll_counts(3, 2)
    assert c[:, :, :, 1].sum() * 36 == 11 * 6 ** 5


@pytest.mark.parametrize("rules,kw", [
    ("classic", {}), ("lotr-risk", {"attack_bonus": 1, "defence_bonus": 2}),
    ("minas-tirith", {}), ("minas-tirith", {"good_attacks": False, "witch_king": True}),
    ("minas-tirith", {"attack_bonus": 2, "defence_bonus": 1, "witch_king": True}),
])
def test_forward_law_agrees_with_backward_table(rules, kw):
    W = win_table(rules, 9, 8, **kw)
    for a in range(1 if rules == "minas-tirith" else 2, 10):
        for d in range(1, 9):
            law = battle_law(rules, a, d, **kw)
            assert law.p.sum() == pytest.approx(1.0, abs=1e-12)
            assert law.attacker_wins == pytest.approx(W[a, d], abs=1e-12)


def test_mt_7_5_retreat_law_structure():
    """MT-7.5: Good defending, every Good 6 makes Evil retreat: with Good holding 2 dice
    the first roll alone ends in retreat with P(defender rolls a 6 and someone survives)."""
    law = battle_law("minas-tirith", 3, 5, good_attacks=False)
    assert law.prob("defender_retreated") == 0.0
    assert law.prob("attacker_retreated") > 11 / 36 * 0.5
    assert battle_law("minas-tirith", 3, 5, good_attacks=True).prob("attacker_retreated") == 0.0
    wk = battle_law("minas-tirith", 3, 5, good_attacks=True, witch_king=True)
    assert wk.prob("attacker_retreated") > 0.0


def test_minas_tirith_no_unit_stays_home():
    """MT-7.3: one attacking unit may attack, and the attacker can be wiped out."""
    law = battle_law("minas-tirith", 1, 1, good_attacks=True, witch_king=False)
    # Good attacks 1 v 1 with no bonus: wins iff its die beats the defender's (15/36)
    assert law.attacker_wins == pytest.approx(15 / 36)
    assert law.attacker_survivors[0] == pytest.approx(21 / 36)


def test_stop_at():
    full = battle_law("classic", 11, 10)
    stop = battle_law("classic", 11, 10, stop_at=5)
    assert stop.attacker_wins < full.attacker_wins
    # it stops at 5 or fewer; a roll costs at most 2 units, so it ends holding 4 or 5
    held = stop.p[1].sum(axis=1)
    assert held[:4].sum() == 0.0 and held[4] > 0 and held[5] > 0 and held[6:].sum() == 0.0


def test_bad_battles_rejected():
    with pytest.raises(LotrSimError):
        battle_law("classic", 1, 3)
    with pytest.raises(LotrSimError):
        battle_law("nope", 3, 3)
    with pytest.raises(LotrSimError):
        battle_law("minas-tirith", 3, 0)


def test_bombard_law_mt_7_2():
    """MT-7.2: a hit per 6 (the law of the dice rolled)."""
    p = bombard_law(4)
    assert len(p) == 5 and p.sum() == pytest.approx(1.0)
    assert p @ np.arange(5) == pytest.approx(4 / 6)
    assert bombard_law(0).tolist() == [1.0]
    with pytest.raises(LotrSimError):
        bombard_law(-1)
    capped = bombard_law(6, targets=2)
    assert len(capped) == 3 and capped.sum() == pytest.approx(1.0)


def test_win_tables_are_kept_on_disk_and_read_back_unchanged(tmp_path, monkeypatch):
    """win_table keeps each table under NUMBA_CACHE_DIR (1.4 s of Minas Tirith's start):
    the second call reads the file, equal to the computed table; without a cache
    directory, or with a damaged file, it computes the table again."""
    from lotr_sim.exact import battle as B
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    args = ("minas-tirith", 6, 5, 1, 0)
    fresh = B._win_table(*args, good_attacks=False, witch_king=True)
    first = B.win_table(*args, good_attacks=False, witch_king=True)
    files = list(tmp_path.rglob("win-*.npy"))
    assert len(files) == 1 and np.array_equal(first, fresh)
    calls = []
    monkeypatch.setattr(B, "_win_table", lambda *a, **k: calls.append(a) or fresh)
    again = B.win_table(*args, good_attacks=False, witch_king=True)
    assert np.array_equal(again, fresh) and calls == []          # read from disk
    # other arguments are another file, not the cached one
    assert B.win_table("minas-tirith", 6, 5, 1, 0, good_attacks=True, witch_king=True) is fresh
    assert len(calls) == 1
    files[0].write_bytes(b"not a table")                          # damaged: computed again
    assert np.array_equal(B.win_table(*args, good_attacks=False, witch_king=True), fresh)
    assert len(calls) == 2
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    monkeypatch.setattr("lotr_sim._numba.cache.cache_root", lambda: None)
    B.win_table(*args, good_attacks=False, witch_king=True)       # no cache: computed
    assert len(calls) == 3
