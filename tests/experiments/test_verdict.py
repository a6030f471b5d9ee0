"""The sweep verdict (lotr_sim.experiments.verdict) on hand-made results frames whose every
number is known: the sentence and its interval, both parity targets, the players, the levers'
order, each parameter's value closest to parity (interpolated crossing and its interval,
"overshoots", "within", "never"), the pairings spread and the precision misses."""
import json
import math

import pytest

from framebuild import MANIFEST, frame, row
from lotr_sim.errors import LotrSimError
from lotr_sim.stats import wilson, z_value
from lotr_sim.experiments.verdict import check_target, parity_gap, verdict
from lotr_sim.reports.verdict_text import verdict_html, verdict_markdown

N = 100_000


def _wins(p_good, p_draw=0.05, n=N):
    g, d = round(p_good * n), round(p_draw * n)
    return (g, n - g - d, d)


def _dims(x=1, flag=False, mode="fair"):
    return dict(x=x, flag=flag, mode=mode)


@pytest.fixture
def df():
    rows = [
        row(0, "baseline", "baseline", _dims(), N, _wins(0.45)),
        row(1, "x=0", "x", _dims(x=0), N, _wins(0.40), delta=(0, 5000)),
        row(2, "x=2", "x", _dims(x=2), N, _wins(0.65), delta=(10000, 0)),
        row(3, "x=3", "x", _dims(x=3), N, _wins(0.70), delta=(15000, 0)),
        row(4, "flag=true", "flag", _dims(flag=True), N, _wins(0.501), delta=(5100, 0)),
        row(5, "mode=tilted", "mode", _dims(mode="tilted"), N, _wins(0.42), delta=(0, 3000)),
    ]
    return frame(rows)


def test_sentence_names_the_favoured_side_with_its_interval(df):
    v = verdict(df, MANIFEST)
    lo, hi = wilson(45000, N)
    assert v["target"] == "good50" and not v["fair"] and v["favoured"] == "evil"
    assert v["gap"] == pytest.approx(-0.05)
    assert v["gap_ci95"] == pytest.approx([lo - 0.5, hi - 0.5])
    assert v["sentence"] == (f"Evil is favoured by 5.0 percentage points [{100 * (0.5 - hi):.1f}, "
                             f"{100 * (0.5 - lo):.1f}] of games (the share of all games that would have to "
                             f"pass from Evil's wins to Good's for parity; parity = Good wins 50% of games).")
    assert v["baseline"]["good"]["rate"] == pytest.approx(0.45)
    assert v["baseline"]["draw"]["rate"] == pytest.approx(0.05)
    assert v["players"] == {"good": "greedy", "evil": "greedy"}
    assert "AI players: Good greedy v Evil greedy." in v["lines"]
    json.dumps(v)  # JSON-able (for --json and the manifest)


def test_fair_within_the_interval():
    d = frame([row(0, "baseline", "baseline", _dims(), 1000, (502, 450, 48))])
    v = verdict(d, MANIFEST)
    assert v["fair"] and v["favoured"] is None and v["sentence"].startswith("Fair within the interval: Good 50.2%")


def test_equal_target_uses_good_minus_evil():
    # Good 47%, Evil 47%, draw 6%: fair for Good = Evil, Evil favoured for Good = 50%
    d = frame([row(0, "baseline", "baseline", _dims(), 10_000, (4700, 4700, 600))])
    eq = verdict(d, MANIFEST, "equal")
    half = z_value() * math.sqrt(0.94 / 10_000) / 2      # half the win difference's interval
    assert eq["fair"] and eq["gap"] == 0 and eq["gap_ci95"] == pytest.approx([-half, half])
    assert "parity = Good wins as often as Evil" in eq["sentence"]
    g50 = verdict(d, MANIFEST)
    assert not g50["fair"] and g50["favoured"] == "evil"
    # the manifest's target is used when none is given
    assert verdict(d, {**MANIFEST, "target": "equal"})["target"] == "equal"
    assert parity_gap(10, 6, 2, "equal")[0] == pytest.approx(0.2)


@pytest.mark.parametrize("draws", [0, 1000])
def test_favoured_by_means_one_gap_whatever_the_target(draws):
    """"Favoured by N points" is the share of all games that would have to pass from the
    favoured side's wins to the other's for parity, under --target equal as under good50:
    Good 40%, Evil 60% (no draws) is 10.0 points under both, not 20 under equal; with 10%
    draws (Good 40%, Evil 50%) 5.0 under equal, half the difference, and the sentence says so."""
    n = 10_000
    d = frame([row(0, "baseline", "baseline", _dims(), n, (4000, n - 4000 - draws, draws))])
    eq, g50 = verdict(d, MANIFEST, "equal"), verdict(d, MANIFEST, "good50")
    assert g50["sentence"].startswith("Evil is favoured by 10.0 percentage points")
    assert eq["sentence"].startswith(f"Evil is favoured by {10.0 if not draws else 5.0} percentage points")
    for v in (eq, g50):
        assert "the share of all games that would have to pass from Evil's wins to Good's for parity" in v["sentence"]
    assert (f"half the difference between their win rates, {100 - 40 - draws / 100:.1f}% and 40.0%"
            in eq["sentence"])
    assert "half the difference" not in g50["sentence"]


def test_levers_ranked_by_largest_paired_change(df):
    lv = verdict(df, MANIFEST)["levers"]
    assert [x["label"] for x in lv] == ["x=3", "flag=true", "mode=tilted"]
    assert lv[0]["delta"] == pytest.approx(0.15) and lv[0]["lo"] < 0.15 < lv[0]["hi"]
    assert lv[2]["delta"] == pytest.approx(-0.03)


def test_a_lever_that_changed_no_game_says_so():
    """A rule the players never meet: at every swept value the same games end the same way, so
    its paired change is 0 [0, 0]; the verdict and the levers' table say that no game
    changed, rather than print a bare zero that reads as "no effect on the game"."""
    def rows(n_changed):
        d = [row(0, "baseline", "baseline", dict(x=1, idle=0), N, _wins(0.45)),
             row(1, "x=2", "x", dict(x=2, idle=0), N, _wins(0.65), delta=(10000, 0)),
             row(2, "idle=1", "idle", dict(x=1, idle=1), N, _wins(0.45), delta=(0, 0)),
             row(3, "idle=2", "idle", dict(x=1, idle=2), N, _wins(0.45), delta=(n_changed, 0))]
        return frame(d)

    v = verdict(rows(0), MANIFEST)
    lv = {x["param"]: x for x in v["levers"]}
    assert lv["idle"]["unchanged"] and (lv["idle"]["lo"], lv["idle"]["hi"]) == (0.0, 0.0)
    assert not any(x["unchanged"] for k, x in lv.items() if k != "idle")
    line = next(ln for ln in v["lines"] if ln.startswith("- idle="))
    assert "no game changed at any swept value under these players" in line
    assert "Good won never depended on it" in line
    assert not any("no game changed" in ln for ln in v["lines"] if ln.startswith("- x="))
    # one changed game at one value: the dimension is no longer "unchanged"
    v2 = verdict(rows(1), MANIFEST)
    assert not {x["param"]: x for x in v2["levers"]}["idle"]["unchanged"]
    assert "no game changed" in verdict_markdown(v) and "no game changed" not in verdict_markdown(v2)


def test_numeric_parameter_crossing_interpolated_and_overshoots(df):
    par = {p["param"]: p for p in verdict(df, MANIFEST)["parity"]}
    x = par["x"]
    assert x["numeric"] and x["status"] == "overshoots" and x["within"] == []
    cr = x["crossing"]
    assert cr["between"] == [1, 2]
    assert cr["estimate"] == pytest.approx(1.25)     # 45% at 1, 65% at 2
    # the interval from interpolating the Wilson bounds' crossings of 50%, as balance does
    lo1, hi1 = wilson(45000, N)
    lo2, hi2 = wilson(65000, N)
    a = 1 + (0.5 - lo1) / (lo2 - lo1)
    b = 1 + (0.5 - hi1) / (hi2 - hi1)
    assert cr["interval"] == pytest.approx(sorted([a, b]))
    assert x["closest"]["value"] == 1
    assert "x: parity at ≈ 1.25" in x["text"] and "overshoots" in x["text"]


def test_categorical_parameters_within_and_never(df):
    par = {p["param"]: p for p in verdict(df, MANIFEST)["parity"]}
    flag = par["flag"]
    assert not flag["numeric"] and flag["status"] == "within" and flag["within"] == [True]
    assert flag["closest"]["value"] is True
    assert flag["crossing"] is not None and "estimate" not in flag["crossing"]   # no interpolation
    mode = par["mode"]
    assert mode["status"] == "never" and mode["side"] == "below" and mode["crossing"] is None
    assert "never reaches parity" in mode["text"]


def test_pairings_spread():
    pols = [("greedy", "greedy", 0.45), ("greedy", "cautious", 0.40), ("cautious", "greedy", 0.343),
            ("cautious", "cautious", 0.50), ("greedy", "aggressive", 0.556)]
    rows = [row(0, "baseline", "baseline", _dims(), N, _wins(0.45))]
    for i, (g, e, p) in enumerate(pols[1:], start=1):
        rows.append(row(i, f"good={g},evil={e}", "pairings", _dims(), N, _wins(p),
                        policies={"good": g, "evil": e}))
    v = verdict(frame(rows), MANIFEST)
    pr = v["pairings"]
    assert pr["min"] == pytest.approx(0.343) and pr["max"] == pytest.approx(0.556)
    assert pr["lowest"] == {"good": "cautious", "evil": "greedy"}
    assert pr["highest"] == {"good": "greedy", "evil": "aggressive"}
    assert pr["text"].startswith("Depends on the AI: Good wins 34%–56% across 5 pairings")
    assert pr["text"] in v["lines"]
    # a random player is reported with and without
    rows.append(row(9, "good=random,evil=greedy", "pairings", _dims(), N, _wins(0.02),
                    policies={"good": "random", "evil": "greedy"}))
    pr = verdict(frame(rows), MANIFEST)["pairings"]
    assert pr["min"] == pytest.approx(0.02) and pr["without_random"] == pytest.approx([0.343, 0.556])
    assert "without the random player 34%–56%" in pr["text"]


def test_no_pairings_key_without_pairing_points(df):
    assert verdict(df, MANIFEST)["pairings"] is None


def test_precision_misses_named():
    rows = [row(0, "baseline", "baseline", _dims(), 100, (45, 50, 5), precision_met=False),
            row(1, "x=2", "x", _dims(x=2), 100, (55, 40, 5), precision_met=False),
            row(2, "x=0", "x", _dims(x=0), 4000, (2000, 1900, 100), precision_met=True)]
    m = {**MANIFEST, "spec": {"precision": 0.001, "max_games": 100}}
    v = verdict(frame(rows), m)
    assert v["precision"]["missed"] == ["baseline", "x=2"]
    assert "missed at 2 of 3 points" in v["precision"]["text"] and v["precision"]["text"] in v["lines"]


def test_markdown_and_html_open_with_the_sentence(df):
    v = verdict(df, MANIFEST)
    md = verdict_markdown(v)
    assert md.startswith("## Verdict\n\n**Evil is favoured by 5.0 percentage points")
    assert "- x=3: +15.0" in md
    h = verdict_html(v)
    assert h.startswith("<h2>Verdict</h2>") and "<li>x=3: +15.0" in h


@pytest.mark.parametrize("bad", ["fifty", "", "Good50 ", "0.5"])
def test_bad_target_is_one_clear_error(bad):
    if bad.strip().lower() == "good50":
        assert check_target(bad) == "good50"
        return
    with pytest.raises(LotrSimError, match="--target must be one of good50, equal"):
        check_target(bad)


def test_no_baseline_is_an_error():
    d = frame([row(1, "x=2", "x", _dims(x=2), 100, (55, 40, 5))])
    with pytest.raises(LotrSimError, match="no baseline"):
        verdict(d, MANIFEST)


def test_verdict_cites_the_shipped_skill_figures_for_its_rules(df, tmp_path, monkeypatch):
    """the verdict says how exploitable its players are, from the skill figures
    shipped for these rules, and 'not measured for these rules' when the rules differ."""
    from lotr_sim.experiments import skillfig
    fig = dict(game="fake", rules_hash="r1", date="2026-12-02", strong="search", games_per_pairing=400, seed=1,
               strong_settings=skillfig.strong_fingerprint("fake", "search"),
               players={"greedy": {"good": dict(gain=0.123, lo=0.05, hi=0.2, games=400),
                                   "evil": dict(gain=-0.01, lo=-0.08, hi=0.06, games=400)}})
    path = skillfig.write(tmp_path / "fake.toml", fig)
    monkeypatch.setattr(skillfig, "shipped_path", lambda game: path)
    man = dict(MANIFEST, config={"hashes": {"baseline": "r1"}})
    v = verdict(df, man)
    assert v["exploitability"]["status"] == "measured"
    line = [x for x in v["lines"] if x.startswith("How exploitable")][0]
    assert "search gains as Good +12.3 [+5.0, +20.0], as Evil -1.0 [-8.0, +6.0]" in line
    assert "2026-12-02" in line and "400 games per pairing" in line
    v = verdict(df, dict(MANIFEST, config={"hashes": {"baseline": "other"}}))
    assert v["exploitability"]["status"] == "not measured"
    assert any("not measured for these rules" in x for x in v["lines"])
    man = dict(man, policies={"baseline": {"good": "cautious", "evil": "greedy"}})
    v = verdict(df, man)
    assert "not measured for cautious as good" in v["exploitability"]["why"]


def _grid_frame(n=2000):
    """A 2 x 2 grid of x in 1, 2 and mode fair, tilted, the baseline (x=1, fair) one of its
    cells: Good 30%, 36% and 36% in three cells and 50% only at x=2, mode=tilted, so each
    value's average over the other dimension's cells stays below parity (43% at x=2, at
    mode=tilted) while one real rule set is at parity."""
    cells = [((1, "fair"), 0.30), ((1, "tilted"), 0.36), ((2, "fair"), 0.36), ((2, "tilted"), 0.50)]
    rows = [row(0, "baseline", "baseline", dict(x=1, mode="fair"), n, _wins(0.30, n=n))]
    for i, ((x, mode), p) in enumerate(cells[1:], start=1):
        rows.append(row(i, f"x={x},mode={mode}", "grid", dict(x=x, mode=mode), n, _wins(p, n=n),
                        delta=(round((p - 0.30) * n), 0)))
    return frame(rows)


def test_grid_verdict_names_the_cell_at_parity():
    """A grid's "closest to parity" speaks of cells: the one cell at parity (x=2,
    mode=tilted, Good 50%) is named as closest and as the only one within the interval of
    parity; no line says a dimension "never reaches parity" from an average over rows."""
    v = verdict(_grid_frame(), {**MANIFEST, "spec": {"dims": [["x", [1, 2]], ["mode", ["fair", "tilted"]]]}})
    assert [c["label"] for c in v["cells"]][:1] == ["x=2, mode=tilted"]
    assert v["cells"][0]["rate"] == pytest.approx(0.50) and v["cells"][0]["within"]
    assert [c["label"] for c in v["cells"] if c["within"]] == ["x=2, mode=tilted"]
    after = v["lines"][v["lines"].index(v["parity_title"]) + 1:]
    assert after[0] == "- Closest cell (a full rule set): x=2, mode=tilted: Good 50.0% [47.8, 52.2]; within the interval of parity."
    assert after[1].startswith("- Cells within the interval of parity (1 of 4): x=2, mode=tilted: Good 50.0%")
    assert not any("never reaches parity" in ln or "43.0" in ln for ln in v["lines"])
    # the lines through the cell at parity: x at mode=tilted and mode at x=2, each within at that cell
    lines = {(p["param"], json.dumps(p["at"])): p for p in v["parity"]}
    assert set(lines) == {("x", '{"mode": "tilted"}'), ("mode", '{"x": 2}')}
    assert lines[("x", '{"mode": "tilted"}')]["within"] == [2]
    # the report's table lists the cells, closest first
    from lotr_sim.reports.verdict_text import parity_rows
    head, body = parity_rows(v)
    assert head[:2] == ["x", "mode"] and body[0][:2] == ["2", "tilted"] and body[0][-1] == "yes"
