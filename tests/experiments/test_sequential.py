"""The sequential test of `compare` (lotr_sim.experiments.sequential): the trinomial profile
likelihood, the interval, prefix-exactness, the agreement of verdict and interval, and, by
simulation on the fake game (known effect: `edge` shifts Good's win chance exactly), its
error rates at +delta, 0 and -delta."""
import math

import numpy as np
import pytest
from fakegame import FakeGame

from lotr_sim.experiments.compare import compare_headline
from lotr_sim.experiments.sequential import (LOWERS, NO_CHANGE, RAISES, ThreeWayTest, paired_interval,
                                             trinomial_profile_loglik)


def _brute_loglik(nm, n0, npl, mu, grid=200_001):
    if mu < 0:
        nm, npl, mu = npl, nm, -mu
    t = np.linspace(0.0, (1.0 - mu) / 2.0, grid)
    with np.errstate(divide="ignore", invalid="ignore"):
        f = sum(np.where(k > 0, k * np.log(p), 0.0) for k, p in ((nm, t), (npl, t + mu), (n0, 1 - 2 * t - mu)))
    return float(np.nanmax(f))


def test_profile_loglik_is_the_constrained_maximum():
    """The closed form (larger root of the quadratic, clipped) equals a brute-force maximum
    over the feasible trinomials with mean mu, zero counts included."""
    rng = np.random.default_rng(3)
    for _ in range(100):
        c = rng.integers(0, 40, 3) * (rng.random(3) < 0.7)
        if c.sum() == 0:
            continue
        mu = float(rng.uniform(-0.8, 0.8))
        got = float(trinomial_profile_loglik(c[0], c[1], c[2], mu))
        assert got == pytest.approx(_brute_loglik(c[0], c[1], c[2], mu), abs=1e-6), (c, mu)
    # closed forms: no pair differs -> n ln(1 - |mu|); every pair favours A -> n ln((1 + mu)/2)
    assert float(trinomial_profile_loglik(0, 150, 0, 0.02)) == pytest.approx(150 * math.log(0.98))
    assert float(trinomial_profile_loglik(0, 150, 0, -0.02)) == pytest.approx(150 * math.log(0.98))
    assert float(trinomial_profile_loglik(0, 0, 7, 0.1)) == pytest.approx(7 * math.log(0.55))
    # mirror symmetry and the unconstrained maximum at the empirical mean
    assert float(trinomial_profile_loglik(3, 50, 9, 0.05)) == pytest.approx(
        float(trinomial_profile_loglik(9, 50, 3, -0.05)))
    emp = 3 * math.log(3 / 62) + 50 * math.log(50 / 62) + 9 * math.log(9 / 62)
    assert float(trinomial_profile_loglik(3, 50, 9, 6 / 62)) == pytest.approx(emp)


def test_paired_interval_formula_and_no_degenerate_width():
    lo, hi = paired_interval(245, 4, 1)
    qp, qm = 5 / 247, 2 / 247
    m = qp - qm
    half = 1.959963984540054 * math.sqrt((qp + qm - m * m) / 247)
    assert (lo, hi) == pytest.approx((m - half, m + half))
    lo0, hi0 = paired_interval(148, 0, 0)     # no pair differs: still an honest width
    assert hi0 == pytest.approx(-lo0) == pytest.approx(1.959963984540054 * math.sqrt(2 / 150) / math.sqrt(150))
    # points_leader=4 vs 5: 20,000 paired games give +1.49 points; at 148 pairs
    # with none differing the interval must still reach it
    assert hi0 > 0.0149


@pytest.mark.parametrize("n,p_plus,p_minus", [(300, 0.05, 0.03), (148, 0.0149, 0.0), (100, 0.02, 0.0),
                                               (1000, 0.3, 0.28), (500, 0.002, 0.001)])
def test_paired_interval_covers_the_truth(n, p_plus, p_minus):
    """Exact coverage (sum over every outcome (n10, n01)) of the trinomial mean: at least
    93.5% also where discordant pairs are rare (Agresti-Min's half game gives 89% at
    148 pairs, p+ = 1.5%), and not absurdly conservative where they are common."""
    from scipy.stats import multinomial
    a, b = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    ok = a + b <= n
    a, b = a[ok], b[ok]
    pr = multinomial.pmf(np.stack([a, b, n - a - b], 1), n, [p_plus, p_minus, 1 - p_plus - p_minus])
    lo, hi = paired_interval(n, a, b)
    mu = p_plus - p_minus
    cover = pr[(lo <= mu) & (mu <= hi)].sum()
    assert cover >= 0.935, cover
    if p_plus > 0.1:
        assert cover < 0.96, cover


def test_feed_is_prefix_exact_and_matches_the_rule():
    """Uneven batches stop at the same pair with the same verdict as checking every prefix
    with the documented rule."""
    rng = np.random.default_rng(7)
    for rep in range(40):
        mu = rng.choice([-0.03, -0.01, 0.0, 0.01, 0.03])
        q = rng.uniform(0.02, 0.4)
        u = rng.random(60_000)
        a_only = u < (q + mu) / 2
        b_only = (u >= (q + mu) / 2) & (u < q)
        whole = ThreeWayTest(min_games=int(rng.integers(1, 200)))
        v1, j1 = whole.feed(a_only, b_only)
        batched = ThreeWayTest(min_games=whole.min_games)
        cuts = np.sort(rng.integers(0, a_only.size, 6))
        v2, used = None, 0
        for s, e in zip(np.r_[0, cuts], np.r_[cuts, a_only.size]):
            v2, j = batched.feed(a_only[s:e], b_only[s:e])
            used = s + j
            if v2:
                break
        assert (v1, j1) == (v2, used), rep
        # the rule, written out, at the stop and at every earlier prefix
        n = np.arange(1, j1 + 1)
        n10, n01 = np.cumsum(a_only[:j1]), np.cumsum(b_only[:j1])
        lp, lm = whole.llr(n, n10, n01)
        lo, hi = paired_interval(n, n10, n01)
        b, a = whole.bounds
        ok = n >= whole.min_games
        up = ok & (lp >= a) & (lm <= b) & (lo > 0) & (hi >= 0.02)
        down = ok & (lm >= a) & (lp <= b) & (hi < 0) & (lo <= -0.02)
        none = ok & (lp <= b) & (lm <= b) & (lo > -0.02) & (hi < 0.02)
        stop = up | down | none
        if v1 is None:
            assert not stop.any()
        else:
            assert not stop[:-1].any() and stop[-1]
            assert v1 == (RAISES if up[-1] else LOWERS if down[-1] else NO_CHANGE)


def test_few_discordant_pairs_do_not_decide():
    """the old normal SPRT said "A favours good" after 245 games with 4 pairs to 1,
    and decided points_leader=4 vs 5 on a single differing game."""
    t = ThreeWayTest()
    a = np.zeros(245, bool)
    b = np.zeros(245, bool)
    a[[17, 80, 150, 201]] = True
    b[99] = True
    assert t.feed(a, b) == (None, 245)
    t = ThreeWayTest()
    a = np.zeros(120, bool)
    a[110] = True
    v, _ = t.feed(a, np.zeros(120, bool))
    assert v is None


def test_bad_parameters():
    for kw in (dict(delta=0.0), dict(delta=0.6), dict(alpha=0.0), dict(beta=0.5), dict(min_games=0)):
        with pytest.raises(ValueError):
            ThreeWayTest(**kw)
    t = ThreeWayTest()
    with pytest.raises(ValueError):
        t.feed(np.array([True]), np.array([True]))


# --- error rates by simulation on the fake game ------------------------------------------

FAKE = FakeGame()
BASE = FAKE.compile(FAKE.load(None, {}))      # strength 5: P(Good) = 0.5, draws 10%
POL = {"good": "greedy", "evil": "greedy"}


def _replicate(effect: float, seed_a: int, seed_b: int, delta: float = 0.02, max_games: int = 400_000):
    """One run of the test on the fake game's own vectorised outcomes: A has edge=effect
    (Good's win chance + effect exactly), B the defaults; batches of 4096 games."""
    ca = dict(BASE, edge=effect)
    t = ThreeWayTest(delta=delta)
    done = 0
    while done < max_games:
        n = min(4096, max_games - done)
        a = FAKE.simulate(ca, POL, seed_a, done, n)["winner"] == 0
        b = FAKE.simulate(BASE, POL, seed_b, done, n)["winner"] == 0
        v, _ = t.feed(a & ~b, ~a & b)
        if v:
            break
        done += n
    return t


RIGHT = {0.02: RAISES, 0.0: NO_CHANGE, -0.02: LOWERS}
REPS = 1000


@pytest.mark.slow
@pytest.mark.parametrize("paired", [True, False], ids=["paired", "unpaired"])
@pytest.mark.parametrize("effect", [0.02, 0.0, -0.02])
def test_error_rates_by_simulation(effect, paired):
    """1,000 replications (one per seed) at +delta, 0 and -delta: wrong verdicts (or none
    within 400,000 games) at most alpha at 0 and beta at +-delta, plus 3 Monte Carlo
    standard errors. Paired: B on the same streams (d in {0, +-1} one way only); unpaired:
    B on its own streams (a full trinomial, discordance ~50%). Every stop also agrees with
    its interval."""
    wrong, games = 0, []
    for r in range(REPS):
        sa = 1000 + r if paired else 100_000 + 2 * r
        t = _replicate(effect, sa, sa if paired else sa + 1)
        wrong += t.verdict != RIGHT[effect]
        games.append(t.n)
        lo, hi = paired_interval(t.n, t.n10, t.n01)
        if t.verdict == RAISES:
            assert lo > 0 and hi >= 0.02
        elif t.verdict == LOWERS:
            assert hi < 0 and lo <= -0.02
        elif t.verdict == NO_CHANGE:
            assert -0.02 < lo and hi < 0.02
    level = 0.05        # alpha at 0 (both ways together), beta at +-delta
    bound = level + 3 * math.sqrt(level * (1 - level) / REPS)
    assert wrong / REPS <= bound, (effect, paired, wrong, np.mean(games))
    # not vacuous: the right verdict is the usual one and takes games
    assert wrong / REPS < 0.5 and np.mean(games) >= 100


@pytest.mark.parametrize("seed", range(12))
def test_headline_never_contradicts_the_interval(seed):
    """Over many seeds, effects (inside the indifference zones too), deltas and error levels:
    whatever the test says, the interval printed under it agrees, and the headline's words
    follow the verdict."""
    rng = np.random.default_rng(seed)
    delta = float(rng.choice([0.01, 0.02, 0.05]))
    alpha, beta = float(rng.choice([0.01, 0.05, 0.2])), float(rng.choice([0.01, 0.05, 0.2]))
    for effect in (-2 * delta, -delta, -delta / 2, -delta / 4, 0.0, delta / 3, delta / 2, delta, 1.5 * delta):
        u = rng.random(30_000)
        q = float(rng.uniform(abs(effect) + 0.001, 0.6))
        a_only = u < (q + effect) / 2
        b_only = (u >= (q + effect) / 2) & (u < q)
        t = ThreeWayTest(delta=delta, alpha=alpha, beta=beta, min_games=int(rng.integers(1, 300)))
        v, j = t.feed(a_only, b_only)
        lo, hi = paired_interval(t.n, t.n10, t.n01)
        text = compare_headline(v, "good", "x=1", "x=2", delta, lo, hi, 30_000)
        if v == RAISES:
            assert lo > 0 and hi >= delta and "raises" in text
        elif v == LOWERS:
            assert hi < 0 and lo <= -delta and "lowers" in text
        elif v == NO_CHANGE:
            assert -delta < lo and hi < delta and text.startswith("no change as large as")
        else:
            assert t.n == 30_000 and text.startswith("undecided")
            assert "raises" not in text and "lowers" not in text


# --- fast exact checks: the headline, the bounds, the sign of delta, the decision ---------

@pytest.mark.parametrize("decision,lo,hi,claim", [
    # not "lowers ... by 2 percentage points or more" beside [-2.23, -0.49]
    (LOWERS, -0.0223, -0.0049, "lowers Good's win rate: A - B in [-2.23, -0.49] percentage points"),
    (LOWERS, -0.041, -0.020, "lowers Good's win rate by at least 2 percentage points: A - B in [-4.10, -2.00]"),
    (LOWERS, -0.041, -0.0199, "lowers Good's win rate: A - B in [-4.10, -1.99]"),
    (RAISES, 0.0049, 0.0223, "raises Good's win rate: A - B in [+0.49, +2.23] percentage points"),
    (RAISES, 0.02, 0.05, "raises Good's win rate by at least 2 percentage points: A - B in [+2.00, +5.00]"),
    (RAISES, 0.0199, 0.05, "raises Good's win rate: A - B in [+1.99, +5.00]"),
    (NO_CHANGE, -0.011, 0.013, "no change as large as 2 percentage points"),
])
def test_headline_claims_at_least_delta_only_when_the_interval_excludes_less(decision, lo, hi, claim):
    """The headline states the direction and the interval, and "at least delta" only when
    the interval lies wholly beyond delta; never "or more" beside an interval that reaches
    below delta."""
    text = compare_headline(decision, "good", "x=1", "x=2", 0.02, lo, hi, 1000)
    assert claim in text, text
    assert "or more" not in text
    assert ("at least" in text) == (hi <= -0.02 or lo >= 0.02)
    if "at least" not in text and decision != NO_CHANGE:
        assert "not established" in text


def test_bounds_are_exact():
    """a = ln((1 - beta)/(alpha/2)), b = ln(beta/(1 - alpha/2)), computed by hand for unequal
    alpha and beta (swapping them changes both)."""
    t = ThreeWayTest(alpha=0.1, beta=0.02)
    b, a = t.bounds
    assert a == pytest.approx(math.log(0.98 / 0.05), rel=1e-12)     # 2.9704...
    assert b == pytest.approx(math.log(0.02 / 0.95), rel=1e-12)     # -3.8607...
    assert a == pytest.approx(2.97553, abs=1e-5) and b == pytest.approx(-3.86073, abs=1e-5)
    s = ThreeWayTest(alpha=0.02, beta=0.1)
    assert s.bounds != pytest.approx(t.bounds)
    assert s.bounds == pytest.approx((math.log(0.1 / 0.99), math.log(0.9 / 0.01)))


def test_sign_of_delta_in_the_likelihood_ratios():
    """L+ compares mu = +delta with 0 on pairs won under A only (n10): many A-only pairs make
    L+ large and L- small, and the mirror counts swap them exactly."""
    t = ThreeWayTest(delta=0.05)
    lp, lm = t.llr(1000, 120, 40)
    assert lp > 5 and lm < 0
    lp2, lm2 = t.llr(1000, 40, 120)
    assert lp2 == pytest.approx(lm) and lm2 == pytest.approx(lp)
    # by hand at n10 = n, n01 = 0: l(mu) = n ln((1 + mu)/2) for mu >= 0, and l(0) = n ln(1/2)
    lp, lm = t.llr(10, 10, 0)
    assert lp == pytest.approx(10 * math.log(1.05)) and lp > 0
    # and l(-delta) = n ln((1 - delta)/2): every pair A-only is the least likely under a fall
    assert lm == pytest.approx(10 * math.log(0.95))


@pytest.mark.parametrize("n,n10,n01,want", [
    (2000, 160, 60, RAISES),        # L+ well above a, interval [+3.4, +6.6]: raises
    (2000, 60, 160, LOWERS),
    (20000, 300, 300, NO_CHANGE),   # no difference, tight interval within +-2 points
    (300, 8, 2, None),              # too little evidence: go on
    (99, 99, 0, None),              # below min_games (100): go on
])
def test_decision_on_hand_built_counts(n, n10, n01, want):
    """The documented rule, on counts built by hand: the verdict comes from the likelihood
    ratios against the exact bounds and the interval; checked with the values written out."""
    t = ThreeWayTest()
    b, a = t.bounds
    lp, lm = (float(x) for x in t.llr(n, n10, n01))
    lo, hi = paired_interval(n, n10, n01)
    code = int(t.codes(n, n10, n01))
    got = {1: RAISES, -1: LOWERS, 2: NO_CHANGE, 0: None}[code]
    assert got == want, (lp, lm, lo, hi, a, b)
    if want == RAISES:
        assert lp >= a and lm <= b and lo > 0
    elif want == LOWERS:
        assert lm >= a and lp <= b and hi < 0
    elif want == NO_CHANGE:
        assert lp <= b and lm <= b and -0.02 < lo and hi < 0.02

