"""Combat kernels against the exact laws, their properties, and determinism."""
import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from lotr_sim.exact.battle import OUTCOMES, battle_law, roll_counts
from lotr_sim.exact.bombard import bombard_law
from lotr_sim.errors import LotrSimError
from lotr_sim.kernels.combat import (RULES, assault_roll_nb, battle_nb, bombard_dice, dice_each_nb,
                                     simulate_battles, simulate_bombardments, simulate_rolls)
from lotr_sim.kernels.reference import battles_py
from lotr_sim.kernels.rng import STATE_SIZE, PyStream, make_stream, stream_init_nb


def _z(k, n, p):
    if p in (0.0, 1.0):
        return 0.0 if k == n * p else np.inf
    return (k / n - p) / np.sqrt(p * (1 - p) / n)


@pytest.mark.parametrize("a,d,ab,db", [(3, 2, 0, 0), (2, 2, 1, 0), (1, 2, 0, 2), (3, 1, 2, 1), (2, 1, 0, 0)])
def test_roll_kernel_matches_exact_roll_law(a, d, ab, db):
    """MT-7.4 / LR-5.3: the roll kernel against the enumerated law of all dice."""
    n = 200_000
    r = simulate_rolls(a, d, n, seed=11, a_bonus=ab, d_bonus=db)
    law = roll_counts(a, d, ab, db) / 6.0 ** (a + d)
    for la in range(3):
        for ld in range(3):
            p = law[la, ld].sum()
            k = int(((r[:, 0] == la) & (r[:, 1] == ld)).sum())
            assert abs(_z(k, n, p)) < 4, (la, ld, k, p)
    # at least one six among the attacker's dice
    p6 = law[:, :, 1, :].sum()
    assert abs(_z(int((r[:, 2] > 0).sum()), n, p6)) < 4


@settings(max_examples=200, deadline=None)
@given(a=st.integers(1, 3), d=st.integers(1, 2), ab=st.integers(-3, 3), db=st.integers(-3, 3),
       seed=st.integers(0, 2**63 - 1), index=st.integers(0, 2**40))
def test_roll_kernel_properties(a, d, ab, db, seed, index):
    s = make_stream(seed, index)
    la, ld, a6, d6 = assault_roll_nb(s, a, d, ab, db)
    pairs = min(a, d)
    assert la >= 0 and ld >= 0
    assert la + ld == pairs          # every compared pair costs exactly one unit
    assert la <= pairs and ld <= pairs
    assert 0 <= a6 <= a and 0 <= d6 <= d


GRID = [
    ("classic", 11, 10, 0, 0, True, False),
    ("classic", 4, 3, 0, 0, True, False),
    ("lotr-risk", 6, 5, 1, 2, True, False),
    ("lotr-risk", 3, 4, 1, 0, True, False),
    ("minas-tirith", 3, 5, 1, 2, False, False),
    ("minas-tirith", 6, 4, 2, 1, False, True),
    ("minas-tirith", 8, 6, 1, 1, True, True),
    ("minas-tirith", 5, 5, 0, 2, True, False),
]


@pytest.mark.parametrize("rules,a,d,ab,db,good_att,wk", GRID)
def test_battle_kernel_matches_markov_chain(rules, a, d, ab, db, good_att, wk):
    n = 300_000
    r = simulate_battles(rules, a, d, n, seed=2024, attack_bonus=ab, defence_bonus=db,
                         good_attacks=good_att, witch_king=wk)
    law = battle_law(rules, a, d, ab, db, good_att, wk)
    counts = np.bincount(r["outcome"], minlength=4)
    for o, name in enumerate(OUTCOMES):
        assert abs(_z(int(counts[o]), n, law.prob(name))) < 4, (name, counts[o] / n, law.prob(name))
    # survivors: each attacker-survivor cell within 4 standard errors
    for k, p in enumerate(law.attacker_survivors):
        assert abs(_z(int((r["attackers_left"] == k).sum()), n, p)) < 4, k
    for k, p in enumerate(law.defender_survivors):
        assert abs(_z(int((r["defenders_left"] == k).sum()), n, p)) < 4, k
    sd = np.sqrt(r["rolls"].var() / n)
    assert abs(r["rolls"].mean() - law.expected_rolls) < 4 * sd


def test_kernel_is_bit_identical_to_plain_python_reference():
    for rules, a, d, kw in [("classic", 11, 10, {}), ("lotr-risk", 5, 4, dict(a_bonus=1, d_bonus=2)),
                            ("minas-tirith", 7, 5, dict(a_bonus=1, d_bonus=2, good_attacks=False,
                                                         witch_king=True))]:
        r = simulate_battles(rules, a, d, 3000, seed=99, first=500,
                             attack_bonus=kw.get("a_bonus", 0), defence_bonus=kw.get("d_bonus", 0),
                             good_attacks=kw.get("good_attacks", True), witch_king=kw.get("witch_king", False))
        ref = battles_py(99, 500, 3000, a, d, RULES[rules], **kw)
        got = list(zip(*(r[k].tolist() for k in ("outcome", "attackers_left", "defenders_left", "rolls"))))
        assert got == ref


@pytest.mark.parametrize("a_dice,d_dice", [(1, 1), (1, 2), (2, 1), (2, 2), (3, 1), (3, 2)])
def test_dice_each_draws_one_d6_per_die_attacker_first(a_dice, d_dice):
    """MT-8.2 [R] modified6: dice_each_nb's faces are the plain-Python stream's d6 draws in
    the order a1, a2, a3, d1, d2 (unused faces 0), and it leaves the stream where they end."""
    s = make_stream(7, 100 * a_dice + d_dice)
    ref = PyStream(7, 100 * a_dice + d_dice)
    for _ in range(300):
        want = [ref.d6() if k < a_dice else 0 for k in range(3)]
        want += [ref.d6() if k < d_dice else 0 for k in range(2)]
        assert list(dice_each_nb(s, a_dice, d_dice)) == want
    assert int(s[0]) == ref.s[0] and int(s[5]) == ref.left


def test_same_seed_bit_identical_for_1_or_2_threads_and_any_chunking():
    args = ("minas-tirith", 9, 7)
    kw = dict(attack_bonus=1, defence_bonus=1, witch_king=True)
    numba.set_num_threads(1)
    try:
        one = simulate_battles(*args, 100_001, seed=5, **kw)
    finally:
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    assert numba.config.NUMBA_NUM_THREADS >= 2
    numba.set_num_threads(2)
    two = simulate_battles(*args, 100_001, seed=5, **kw)
    # chunked differently: three calls over consecutive index ranges
    parts = [simulate_battles(*args, n, seed=5, first=f, **kw)
             for f, n in ((0, 7), (7, 50_000), (50_007, 49_994))]
    for k in one:
        assert np.array_equal(one[k], two[k])
        assert np.array_equal(one[k], np.concatenate([p[k] for p in parts]))
    other = simulate_battles(*args, 1000, seed=6, **kw)
    assert not np.array_equal(other["rolls"], one["rolls"][:1000])


def test_bombard_dice_mt_7_2():
    """MT-7.2: a die per shooter; Evil at a banner needs 2 shooters (``divisor``) per die."""
    assert [bombard_dice(k, False) for k in (1, 4, 5)] == [1, 4, 5]
    assert [bombard_dice(k, True) for k in (1, 4, 5)] == [0, 2, 2]
    assert bombard_dice(6, True, divisor=3) == 2 and bombard_dice(6, False, divisor=3) == 6
    for bad in ((0, False, 2), (3, True, 0)):
        with pytest.raises(LotrSimError):
            bombard_dice(*bad)


@pytest.mark.parametrize("shooters,banner,dice", [(4, False, 4), (6, True, 3), (3, True, 1), (1, False, 1)])
def test_bombard_kernel_matches_binomial(shooters, banner, dice):
    """MT-7.2 bombardment against the exact binomial law of the dice the rule gives."""
    n = 200_000
    hits = simulate_bombardments(shooters, n, seed=3, evil_at_banner=banner)
    law = bombard_law(dice)
    c = np.bincount(hits, minlength=len(law))
    assert len(c) == len(law)
    for k, p in enumerate(law):
        assert abs(_z(int(c[k]), n, p)) < 4


# --- the fast battle kernel against the per-draw code path it replaced ---------
@njit(cache=True)
def _battle_per_draw(s, attackers, defenders, rules, stop_at, a_bonus, d_bonus, good_attacks, witch_king):
    """battle_nb on the per-draw path: every roll is assault_roll_nb on the array ``s``."""
    home = 0 if rules == 2 else 1
    floor = home if stop_at < home else stop_at
    a = attackers
    d = defenders
    rolls = 0
    while a > floor and d > 0:
        ad = min(a - home, 3)
        dd = 2 if d >= 2 else 1
        if rules == 1 and dd > ad:
            dd = ad
        la, ld, a6, d6 = assault_roll_nb(s, ad, dd, a_bonus, d_bonus)
        a -= la
        d -= ld
        rolls += 1
        if rules == 2 and d > 0 and a > home:
            good6 = a6 if good_attacks else d6
            evil6 = d6 if good_attacks else a6
            if good6 > 0:
                return (3 if good_attacks else 2), a, d, rolls, good6
            if witch_king and evil6 > 0:
                return (2 if good_attacks else 3), a, d, rolls, evil6
    return (0 if d == 0 else 1), a, d, rolls, 0


@njit(cache=True)
def _battles_both(seed, first, n, attackers, defenders, rules, stop_at, a_bonus, d_bonus, good_attacks,
                  witch_king):
    """Per battle: [old outcome, a, d, rolls, sixes, new outcome, a, d, rolls, sixes], and the
    number of battles whose final stream words (s[0:6]) differ between the two paths."""
    out = np.empty((n, 10), np.int64)
    s_old = np.empty(STATE_SIZE, np.uint64)
    s_new = np.empty(STATE_SIZE, np.uint64)
    bad_state = 0
    for i in range(n):
        stream_init_nb(seed, first + i, s_old)
        stream_init_nb(seed, first + i, s_new)
        r_old = _battle_per_draw(s_old, attackers, defenders, rules, stop_at, a_bonus, d_bonus, good_attacks,
                                 witch_king)
        r_new = battle_nb(s_new, attackers, defenders, rules, stop_at, a_bonus, d_bonus, good_attacks, witch_king)
        for k in range(5):
            out[i, k] = r_old[k]
            out[i, 5 + k] = r_new[k]
        for k in range(STATE_SIZE):
            if s_old[k] != s_new[k]:
                bad_state += 1
                break
    return out, bad_state


def _check_fast_equals_per_draw(rules, a, d, ab, db, good_att, wk, stop_at, seed, first, n):
    code = RULES[rules]
    both, bad_state = _battles_both(seed, first, n, a, d, code, stop_at, ab, db, good_att, wk)
    assert bad_state == 0
    assert np.array_equal(both[:, :5], both[:, 5:])
    r = simulate_battles(rules, a, d, n, seed=seed, first=first, attack_bonus=ab, defence_bonus=db,
                         good_attacks=good_att, witch_king=wk, stop_at=stop_at)
    for k, name in enumerate(("outcome", "attackers_left", "defenders_left", "rolls")):
        assert np.array_equal(r[name], both[:, k]), name


@pytest.mark.parametrize("rules", list(RULES))
@pytest.mark.parametrize("ab,db", [(0, 0), (1, 2), (-3, 3), (3, -3), (2, 0)])
def test_fast_battle_kernel_bit_identical_to_per_draw_path(rules, ab, db):
    """battle_nb and battles_nb (state in local words) give the old results and leave the
    stream where the old per-draw path left it: every rule set and bonus, several sizes."""
    for k, (a, d, stop_at) in enumerate([(11, 10, 0), (4, 3, 0), (9, 12, 3), (2, 1, 0), (30, 25, 5)]):
        for good_att, wk in ((True, False), (False, True), (True, True)):
            _check_fast_equals_per_draw(rules, a, d, ab, db, good_att, wk, stop_at,
                                        seed=1000 + 7 * k + ab, first=k * 10**9, n=1500)


@settings(max_examples=40, deadline=None)
@given(rules=st.sampled_from(list(RULES)), a=st.integers(2, 40), d=st.integers(1, 40),
       ab=st.integers(-3, 3), db=st.integers(-3, 3), good_att=st.booleans(), wk=st.booleans(),
       stop_frac=st.floats(0, 0.9), seed=st.integers(0, 2**63 - 1), first=st.integers(0, 2**50))
def test_fast_battle_kernel_bit_identical_any_seed(rules, a, d, ab, db, good_att, wk, stop_frac, seed, first):
    _check_fast_equals_per_draw(rules, a, d, ab, db, good_att, wk, int(stop_frac * a), seed, first, 300)


def test_fast_battle_kernel_rejected_draw():
    """Lemire's rejection (p = 6e-7 a draw), inlined in the fast kernel: battles 1198842 and
    6634675 of seed 7 reject their very first draw; old and new paths still agree."""
    for index in (1198842, 6634675):
        st_ = PyStream(7, index)
        assert ((st_.next_u64() >> 32) * 7776) & 0xFFFFFFFF < (2**32 - 7776) % 7776
        for rules in RULES:
            _check_fast_equals_per_draw(rules, 11, 10, 1, 1, True, True, 0, seed=7, first=index, n=3)
        ref = battles_py(7, index, 1, 11, 10, RULES["classic"])
        r = simulate_battles("classic", 11, 10, 1, seed=7, first=index)
        assert [tuple(int(r[k][0]) for k in ("outcome", "attackers_left", "defenders_left", "rolls"))] == ref
