"""Statistics of the experiment layer: Wilson intervals and paired differences (the sequential
test of compare: test_sequential.py)."""
import math

import numpy as np
import pytest
from scipy import stats as st

from lotr_sim.stats import games_for_half_width, paired_diff, wilson, wilson_half_width


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
