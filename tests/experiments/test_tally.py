"""Tally / PairTally: chunked statistics equal the statistics of all games at once, computed
independently with numpy, whatever the chunking."""
from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lotr_sim.experiments.aggregate import QS, point_row, point_row_tally, summarize, summarize_tally
from lotr_sim.experiments.tally import PairTally, Tally, hist_quantiles


class _G:
    outcomes = ("good", "evil", "draw")
    reasons = ("leaders", "city", "deck")
    sides = ("good", "evil")


def _cols(rng, n):
    return dict(winner=rng.integers(0, 3, n).astype(np.int8), reason=rng.integers(0, 3, n).astype(np.int8),
                rounds=rng.integers(1, 40, n).astype(np.int32), turns=rng.integers(2, 120, n).astype(np.int32),
                points_good=rng.integers(0, 30, n).astype(np.int32),
                points_evil=rng.integers(-5, 30, n).astype(np.int32))


def _chunks(cols, cuts):
    edges = [0] + sorted(cuts) + [len(cols["winner"])]
    return [{k: v[a:b] for k, v in cols.items()} for a, b in zip(edges[:-1], edges[1:])]


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 400), seed=st.integers(0, 2**32 - 1), data=st.data())
def test_chunked_tally_equals_whole(n, seed, data):
    rng = np.random.default_rng(seed)
    cols = _cols(rng, n)
    cuts = data.draw(st.lists(st.integers(0, n), max_size=6))
    parts = _chunks(cols, cuts)
    order = data.draw(st.permutations(range(len(parts))))
    whole = Tally.empty(_G)
    whole.add(cols)
    merged = Tally.empty(_G)
    for i in order:
        t = Tally.empty(_G)
        t.add(parts[i])
        merged.merge(Tally.from_dict(json.loads(json.dumps(t.to_dict()))))
    assert merged == whole
    s = summarize_tally(_G, merged)
    # independent numpy oracle
    w = cols["winner"]
    assert s["games"] == n
    for i, o in enumerate(_G.outcomes):
        assert s["wins"][o] == int(np.count_nonzero(w == i))
    for key in ("rounds", "turns"):
        v = cols[key]
        assert s[f"{key}_mean"] == pytest.approx(v.mean(), rel=1e-12)
        if n > 1:
            assert s[f"{key}_sd"] == pytest.approx(v.std(ddof=1), rel=1e-9, abs=1e-12)
        assert list(s[f"{key}_quantiles"].values()) == pytest.approx(list(np.quantile(v, QS)), abs=1e-9)
    for side in _G.sides:
        v = cols[f"points_{side}"].astype(float)
        assert s["points"][side]["mean"] == pytest.approx(v.mean(), rel=1e-12, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 50), min_size=1, max_size=300),
       st.lists(st.floats(0, 1), min_size=1, max_size=5))
def test_hist_quantiles_equal_numpy(values, qs):
    v = np.asarray(values)
    h = np.bincount(v).tolist()
    assert hist_quantiles(h, qs) == pytest.approx(list(np.quantile(v, qs)), abs=1e-9)


def test_sums_do_not_overflow_int64():
    t = Tally.empty(_G)
    big = dict(winner=np.zeros(3, np.int8), reason=np.zeros(3, np.int8),
               points_good=np.full(3, 2**31 - 1, np.int64), points_evil=np.zeros(3, np.int64))
    for _ in range(4):
        t.add(big)
    mean, sd = t.mean_sd("points_good")
    assert mean == 2**31 - 1 and sd == 0.0


def test_pair_tally_and_point_row_wrapper_agree():
    import pandas as pd
    rng = np.random.default_rng(5)
    a, b = _cols(rng, 500), _cols(rng, 500)

    class P:
        index, label, varied, value, sets, policies = 1, "x=1", "x", 1, {"x": 1}, {"good": "greedy"}

    row = point_row(_G, P, pd.DataFrame(a), pd.DataFrame(b))
    t = Tally.empty(_G)
    pair = PairTally()
    for k in range(0, 500, 128):
        t.add({c: v[k:k + 128] for c, v in a.items()})
        pair.add(a["winner"][k:k + 128], b["winner"][k:k + 128])
    row2 = point_row_tally(_G, P, t, pair)
    assert row == row2
    x, y = a["winner"] == 0, b["winner"] == 0
    assert (pair.n10, pair.n01) == (int((x & ~y).sum()), int((~x & y).sum()))
    assert row["delta_good"] == pytest.approx(x.mean() - y.mean())
    assert row["rate_evil"] == pytest.approx((a["winner"] == 1).mean())


def test_summarize_wrapper_matches_tally():
    cols = _cols(np.random.default_rng(2), 300)
    t = Tally.empty(_G)
    t.add(cols)
    assert summarize(_G, cols) == summarize_tally(_G, t)


def test_bad_labels_are_refused():
    t = Tally.empty(_G)
    with pytest.raises(ValueError):
        t.add(dict(winner=np.array([5]), reason=np.array([0])))
    with pytest.raises(ValueError):
        Tally.from_dict({**t.to_dict(), "n": 3})
