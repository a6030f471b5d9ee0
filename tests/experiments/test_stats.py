"""Statistics of the experiment layer: Wilson, paired differences, Wald's SPRT."""
import math

import numpy as np
import pytest
from scipy import stats as st

from lotr_sim.experiments.stats import (SPRT, games_for_half_width, paired_diff,
                                        wilson, wilson_half_width)


@pytest.mark.parametrize("k,n", [(0, 10), (3, 10), (10, 10), (4802, 9604), (17, 1000), (1, 1)])
def test_wilson_matches_scipy(k, n):
    lo, hi = wilson(k, n)
    ci = st.binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    assert lo == pytest.approx(ci.low, abs=1e-12)
    assert hi == pytest.approx(ci.high, abs=1e-12)


def test_wilson_vectorised_and_default_games():
    k = np.array([0, 5, 50])
    lo, hi = wilson(k, np.array([10, 10, 100]))
    assert lo.shape == (3,) and np.all(lo <= k / np.array([10, 10, 100])) and np.all(hi >= lo)
    n = games_for_half_width(0.01)
    assert n == 9604
    assert wilson_half_width(n // 2, n) <= 0.01 + 1e-6


def test_paired_diff_matches_direct_t_interval():
    rng = np.random.default_rng(5)
    x = rng.random(500) < 0.5
    y = x.copy()
    flip = rng.random(500) < 0.1
    y[flip] = ~y[flip]
    d = x.astype(float) - y.astype(float)
    pd_ = paired_diff(x, y)
    half = st.t.ppf(0.975, d.size - 1) * d.std(ddof=1) / math.sqrt(d.size)
    assert pd_.mean == pytest.approx(d.mean())
    assert pd_.lo == pytest.approx(d.mean() - half)
    assert pd_.hi == pytest.approx(d.mean() + half)
    # scipy's one-sample t interval on the differences agrees
    ci = st.ttest_1samp(d, 0).confidence_interval(0.95)
    assert pd_.lo == pytest.approx(ci.low) and pd_.hi == pytest.approx(ci.high)


def test_sprt_bounds_and_first_decision_equals_stepwise():
    s = SPRT(d0=-0.01, d1=0.01, alpha=0.05, beta=0.1, min_games=50)
    lo, hi = s.bounds
    assert lo == pytest.approx(math.log(0.1 / 0.95)) and hi == pytest.approx(math.log(0.9 / 0.05))
    rng = np.random.default_rng(1)
    u = rng.random(20000)
    a_only = u < 0.05
    b_only = (u >= 0.05) & (u < 0.08)
    # feed in uneven batches: same decision and games as one batch
    dec, used = None, 0
    for a, b in ((0, 7), (7, 300), (300, 20000)):
        dec, j = s.first_decision(a_only[a:b], b_only[a:b])
        used = a + j
        if dec:
            break
    # replay game by game with the formula
    s1 = s2 = 0.0
    for i in range(a_only.size):
        d = float(a_only[i]) - float(b_only[i])
        s1 += d
        s2 += d * d
        n = i + 1
        var = max((s2 - s1 * s1 / n) / max(n - 1, 1), 1.0 / n)
        llr = 0.02 / var * (s1 - n * 0.0)
        if n >= 50 and (llr >= hi or llr <= lo):
            break
    assert used == i + 1 and dec == ("H1" if llr >= hi else "H0") and dec == "H1"
    assert s.llr == pytest.approx(llr)


def test_sprt_rejects_bad_hypotheses():
    with pytest.raises(ValueError):
        SPRT(d0=0.02, d1=0.01)
    with pytest.raises(ValueError):
        SPRT(alpha=0.7)
