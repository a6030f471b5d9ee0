"""The Fellowship (LR-10): the track, its exact law (turns and rounds), the jitted step and
journeys against it, ``api.fellowship`` and ``lotr-sim fellowship``.

The rules' values as stated (min 14 turns, mean 17, P(14) = 1/8) are checked as
stated; every other expectation is derived here from the geometric law of a wait
(P(G = g) = (1-p)^(g-1) p, E[G] = 1/p) or from scipy's negative binomial, never copied
from the code under test."""
from __future__ import annotations

import json
import math
from fractions import Fraction

import numpy as np
import pytest
from scipy.stats import chi2 as chi2_dist
from scipy.stats import nbinom
from typer.testing import CliRunner

from lotr_sim import api
from lotr_sim.cli.main import app
from lotr_sim.errors import ConfigError
from lotr_sim.games.lotr_risk.fellowship.analysis import fellowship_result
from lotr_sim.games.lotr_risk.fellowship.exact import DEFAULT_PATH, FellowshipTrack, fellowship_law, rounds_law
from lotr_sim.games import registry
from lotr_sim.games.lotr_risk.fellowship.kernel import (
    fellowship_die_nb, fellowship_moves_nb, fellowship_step_nb, fellowship_turns_nb, simulate_fellowship,
)
from lotr_sim.kernels.rng import PyStream, make_stream

runner = CliRunner()


def track_without(name: str) -> FellowshipTrack:
    d = FellowshipTrack.default()
    keep = [i for i, n in enumerate(d.names) if n != name]
    return FellowshipTrack(tuple(d.names[i] for i in keep), tuple(d.marked[i] for i in keep))


# --- the track (LR-10.1, LR-10.2) ---------------------------------------------------------

def test_lr_10_1_default_path_has_14_territories_3_marked():
    """LR-10.1: The Shire ... Dead Marshes, 14 territories; LR-10.2: Moria, Lórien, Dead
    Marshes marked: 11 territories left in one turn each, plus three waits."""
    t = FellowshipTrack.default()
    assert t.names[0] == "The Shire" and t.names[-1] == "Dead Marshes"
    assert t.length == 14 and t.n_marked == 3 and t.n_plain == 11
    assert [n for n, m in zip(t.names, t.marked) if m] == ["Moria", "Lórien", "Dead Marshes"]
    assert t.roll_above == 3 and t.p_move == Fraction(1, 2)


def same_shape_as_rules(t: FellowshipTrack) -> bool:
    """The rules' path up to spelling (the data writes "Lorien", the rules "Lórien")."""
    d = FellowshipTrack.default()
    return (t.marked, t.roll_above, t.die_sides, t.names[0], t.names[-1]) == \
        (d.marked, d.roll_above, d.die_sides, d.names[0], d.names[-1]) and t.length == d.length


def test_track_from_game_config_is_the_rules_path():
    g = registry.get_game("lotr-risk")
    assert same_shape_as_rules(g.fellowship_track(g.load()))


@pytest.mark.parametrize("kwargs,needle", [
    (dict(names=(), marked=()), "empty"),
    (dict(names=("A", "B"), marked=(True,)), "2 territories but 1"),
    (dict(names=("A", "A"), marked=(False, True)), "twice"),
    (dict(names=("A", ""), marked=(False, True)), "non-empty"),
    (dict(names=("A", "B"), marked=(0, 1)), "true or false"),
    (dict(names=("A",), marked=(True,), roll_above=6), "0..5"),
    (dict(names=("A",), marked=(True,), roll_above=-1), "0..5"),
    (dict(names=("A",), marked=(True,), roll_above=8, die_sides=8), "die must be able"),
    (dict(names=("A",), marked=(True,), die_sides=0), "die_sides"),
    (dict(names=("A",), marked=(True,), roll_above=2.5), "whole number"),
    (dict(names="The Shire", marked=(True,)), "list"),
    (dict(names=tuple(f"T{i}" for i in range(101)), marked=(False,) * 101), "at most 100"),
])
def test_lr_10_2_bad_track_is_one_config_error(kwargs, needle):
    """An empty path, mismatched flags, or a threshold the die can never beat (the wait
    would be infinite, LR-10.2) is a ConfigError."""
    with pytest.raises(ConfigError, match=needle):
        FellowshipTrack(**kwargs)


# --- the exact law (LR-10.1 – LR-10.3) -----------------------------------------------------

def test_lr_10_exact_law_default_min_14_mean_17_p14_one_eighth():
    law = fellowship_law(FellowshipTrack.default())
    assert law.t_min == 14
    assert law.mean == 17
    assert law.prob(14) == pytest.approx(1 / 8, abs=1e-15)
    assert law.prob(13) == 0.0
    assert 0 <= law.tail < 1e-15
    assert math.fsum(law.pmf) + law.tail == pytest.approx(1.0, abs=1e-14)
    assert float(np.dot(law.turns, law.pmf)) == pytest.approx(17, abs=1e-10)
    # the variance of three geometric waits at p = 1/2: 3 (1-p)/p^2 = 6
    assert law.variance == 6


@pytest.mark.parametrize("roll_above,die_sides", [(3, 6), (4, 6), (5, 6), (1, 6), (3, 8), (9, 10)])
def test_lr_10_2_law_is_11_plus_three_geometric_waits(roll_above, die_sides):
    """T - 14 is negative binomial (3 successes, p = (sides - roll_above)/sides): the law
    agrees bin by bin with scipy's, and its mean is 11 + 3/p from the geometric mean."""
    t = FellowshipTrack.default(roll_above, die_sides)
    law = fellowship_law(t)
    p = Fraction(die_sides - roll_above, die_sides)
    assert law.mean == 11 + 3 / p
    ref = nbinom.pmf(law.turns - 14, 3, float(p))
    np.testing.assert_allclose(law.pmf, ref, rtol=1e-9, atol=1e-17)
    assert law.tail == pytest.approx(nbinom.sf(law.t_max - 14, 3, float(p)), rel=1e-6, abs=1e-20)
    assert law.tail < 1e-15


def test_lr_10_2_roll_above_4_gives_mean_20():
    """p = (6 - 4)/6 = 1/3, so each wait has mean 1/p = 3: 11 + 3 * 3 = 20 turns."""
    p = Fraction(6 - 4, 6)
    expected = 11 + 3 * (1 / p)
    law = fellowship_law(FellowshipTrack.default(roll_above=4))
    assert expected == 20 and law.mean == expected
    assert law.prob(14) == pytest.approx(float(p) ** 3, rel=1e-12)


def test_lr_10_2_roll_above_0_means_no_wait():
    """A die always shows more than 0: the Ring leaves every territory in one turn."""
    law = fellowship_law(FellowshipTrack.default(roll_above=0))
    assert law.t_min == law.t_max == 14 and law.prob(14) == 1.0 and law.mean == 14 and law.tail == 0.0


def test_lr_10_3_length_follows_the_path():
    """The count comes from the data: a path without South Downs (13 territories) gives
    10 plus three waits; without Moria, 11 plus two."""
    a = fellowship_law(track_without("South Downs"))
    assert a.t_min == 13 and a.mean == 16
    b = fellowship_law(track_without("Moria"))
    assert b.t_min == 13 and b.mean == 11 + 2 * 2 and b.prob(13) == pytest.approx(0.25)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_lr_10_1_rounds_law_is_ceil_turns_over_players(players):
    """The Ring moves after each player's turn (not the neutral army's): R = ceil(T/k).
    Checked against the definition summed by hand, and the last-seat shares."""
    law = fellowship_law(FellowshipTrack.default())
    rl = rounds_law(law, players)
    for r in rl.rounds[:12]:
        want = sum(law.prob(t) for t in range((r - 1) * players + 1, r * players + 1))
        assert rl.pmf[r - rl.r_min] == pytest.approx(want, abs=1e-15)
    assert rl.r_min == math.ceil(14 / players)
    assert math.fsum(rl.pmf) == pytest.approx(1.0, abs=1e-14)
    assert math.fsum(rl.last_seat) == pytest.approx(1.0, abs=1e-14)
    # seat j (0-based) ends the game when T = j + 1 (mod k)
    for j in range(players):
        want = sum(law.prob(t) for t in law.turns if (t - 1) % players == j)
        assert rl.last_seat[j] == pytest.approx(want, abs=1e-15)
    # E[R] >= E[T]/k, and < E[T]/k + 1
    assert 17 / players <= rl.mean < 17 / players + 1


# --- the kernel -----------------------------------------------------------------------------

def test_lr_10_2_step_rolls_the_streams_die_only_on_marked_territories():
    """The step draws the stream's next d6 on a marked territory and moves iff it beats
    roll_above; unmarked: move, no die; off the path: nothing (LR-10.3)."""
    marked = FellowshipTrack.default().marked_array()
    moria = list(DEFAULT_PATH).index("Moria")
    s = make_stream(11, 5)
    ref = PyStream(11, 5)
    assert fellowship_step_nb(0, marked, 3, 6, s) == (1, 0)   # The Shire: no roll
    seen = set()
    for _ in range(200):
        pos, die = fellowship_step_nb(moria, marked, 3, 6, s)
        want = ref.d6()
        assert die == want
        assert pos == (moria + 1 if want > 3 else moria)
        seen.add(die)
    assert seen == {1, 2, 3, 4, 5, 6}
    assert fellowship_step_nb(len(marked), marked, 3, 6, s) == (len(marked), 0)
    # another die size: randint on the stream, 1..sides
    s8 = make_stream(2, 0)
    dice = {fellowship_step_nb(moria, marked, 3, 8, s8)[1] for _ in range(400)}
    assert dice == set(range(1, 9))


def test_lr_10_2_lr_9_3_step_modifier_is_added_to_the_die():
    """A card's modifier (Smeagol's +2, LR-9.3) is added to the die: with mod the Ring moves
    iff die + mod beats roll_above; the die drawn is the same stream draw as without; the
    halves (fellowship_die_nb, fellowship_moves_nb) compose to the step."""
    marked = FellowshipTrack.default().marked_array()
    moria = list(DEFAULT_PATH).index("Moria")
    s = make_stream(4, 2)
    ref = PyStream(4, 2)
    moved = held = 0
    for _ in range(200):
        pos, die = fellowship_step_nb(moria, marked, 3, 6, s, 2)
        want = ref.d6()
        assert die == want
        assert pos == (moria + 1 if want + 2 > 3 else moria)
        moved += pos > moria
        held += pos == moria
    assert moved > 0 and held > 0            # a 1 still holds it
    s2 = make_stream(4, 2)
    for _ in range(50):
        die = fellowship_die_nb(moria, marked, 6, s2)
        assert fellowship_moves_nb(moria, marked, 3, die, -1) == (die - 1 > 3)
    assert fellowship_die_nb(0, marked, 6, s2) == 0                  # unmarked: no draw
    assert fellowship_moves_nb(0, marked, 3, 0, -5)                   # unmarked: moves anyway
    assert not fellowship_moves_nb(len(marked), marked, 3, 6, 2)     # off the path (LR-10.3)


def test_journeys_use_stream_seed_first_plus_i():
    """Journey i uses stream (seed, first + i): a batch from first=500 repeats the tail of
    a batch from 0, and a plain Python replay of journey 7 gives the same turns."""
    t = FellowshipTrack.default()
    a = simulate_fellowship(t, 1000, 9, threads=1)
    b = simulate_fellowship(t, 500, 9, threads=1, first=500)
    np.testing.assert_array_equal(a[500:], b)
    ref = PyStream(9, 7)
    pos = turns = 0
    while pos < t.length:
        if not t.marked[pos] or ref.d6() > t.roll_above:
            pos += 1
        turns += 1
    assert a[7] == turns
    out = np.empty(3, np.int32)
    fellowship_turns_nb(np.int64(9), np.int64(0), np.int64(3), t.marked_array(), np.int64(3),
                        np.int64(6), out)
    np.testing.assert_array_equal(out, a[:3])


def test_journeys_bit_identical_on_1_and_2_threads():
    t = FellowshipTrack.default(roll_above=4)
    one = simulate_fellowship(t, 100_003, 5, threads=1)
    two = simulate_fellowship(t, 100_003, 5, threads=2)
    assert one.dtype == two.dtype and np.array_equal(one, two)


def _chi2_vs(law, counts):
    total = counts.sum()
    nb = len(law.pmf)
    while nb > 1 and (law.pmf[nb - 1:].sum() + law.tail) * total < 5:
        nb -= 1
    full = np.zeros(max(len(counts), law.t_max + 1))
    full[:len(counts)] = counts
    assert full[:law.t_min].sum() == 0
    obs = np.append(full[law.t_min:law.t_min + nb - 1], full[law.t_min + nb - 1:].sum())
    e = law.pmf[:nb - 1] * total
    e = np.append(e, total - e.sum())
    return float(((obs - e) ** 2 / e).sum()), nb - 1


@pytest.mark.parametrize("roll_above,die_sides", [(3, 6), (4, 6), (2, 8)])
def test_lr_10_monte_carlo_matches_exact_law(roll_above, die_sides):
    """200,000 journeys (fixed seed): every bin with expected count >= 5 within |z| < 4,
    the mean within 4 standard errors, and the chi-square not in its 1e-4 upper tail.
    The same counts against the law of another threshold fail (the test has power)."""
    t = FellowshipTrack.default(roll_above, die_sides)
    law = fellowship_law(t)
    n = 200_000
    turns = simulate_fellowship(t, n, 3)
    counts = np.bincount(turns)
    for k, c in enumerate(counts):
        p = law.prob(k)
        if p * n >= 5:
            assert abs((c / n - p) / math.sqrt(p * (1 - p) / n)) < 4, (k, c, p)
        elif p == 0:
            assert c == 0, k
    se = math.sqrt(float(law.variance) / n)
    assert abs(turns.mean() - float(law.mean)) < 4 * se
    stat, df = _chi2_vs(law, counts)
    assert chi2_dist.sf(stat, df) > 1e-4
    other = fellowship_law(FellowshipTrack.default(roll_above + 1, die_sides))
    bad, dfb = _chi2_vs(other, counts)
    assert chi2_dist.sf(bad, dfb) < 1e-10


def test_result_summary_agrees_with_own_chi_square_and_rounds():
    res = fellowship_result(FellowshipTrack.default(), games=50_000, seed=4, players=3)
    stat, df = _chi2_vs(res.law, res.counts)
    mc = res.mc
    assert mc["chi2"] == pytest.approx(stat) and mc["chi2_df"] == df and mc["chi2_p"] > 1e-4
    assert abs(mc["mean_z"]) < 4 and mc["mean_ci95"][0] < mc["mean"] < mc["mean_ci95"][1]
    assert mc["impossible"] == 0 and sum(res.counts) == 50_000
    # Monte Carlo rounds = ceil(turns / 3), counted from the same journeys
    turns = simulate_fellowship(FellowshipTrack.default(), 50_000, 4)
    want = np.bincount(-(-turns // 3)) / 50_000
    got = {int(k): v for k, v in mc["rounds"]["distribution"].items()}
    assert got == {r: pytest.approx(p) for r, p in enumerate(want) if p > 0}


# --- API ---------------------------------------------------------------------------------

def test_api_fellowship_reads_the_games_config():
    r = api.fellowship(games=0)
    assert same_shape_as_rules(r.track) and r.law.mean == 17 and r.mc is None
    r4 = api.fellowship(sets=["fellowship_roll_above=4"], games=0)
    assert r4.law.mean == 20
    r5 = api.fellowship(sets={"fellowship_roll_above": 5}, games=0, players=4)
    assert r5.law.mean == 11 + 3 * 6 and r5.players == 4


def test_api_fellowship_with_a_track_and_errors():
    t = track_without("Lórien")
    r = api.fellowship(track=t, games=2000, seed=2)
    assert r.law.t_min == 13 and r.mc["games"] == 2000
    with pytest.raises(ConfigError, match="not both"):
        api.fellowship(track=t, sets=["fellowship_roll_above=4"])
    with pytest.raises(ConfigError, match="unknown parameter"):
        api.fellowship(sets=["fellowship_rol_above=4"], games=0)
    with pytest.raises(ConfigError, match="fellowship_roll_above"):  # the track's or the Param's bound
        api.fellowship(sets=["fellowship_roll_above=6"], games=0)
    with pytest.raises(ConfigError, match="players"):
        api.fellowship(games=0, players=1)


# --- CLI ---------------------------------------------------------------------------------

def invoke(*args):
    return runner.invoke(app, [str(a) for a in args])


def test_cli_text_shows_exact_beside_monte_carlo():
    r = invoke("fellowship", "-n", "20000", "--seed", "3", "--players", "3")
    assert r.exit_code == 0, r.output
    for needle in ("Dead Marshes", "exact P", "Monte Carlo (20,000)", "95% Wilson", "chi-square",
                   "mean 17.0000", "rounds with 3 players"):
        assert needle in r.output, needle


def test_cli_json_shape():
    r = invoke("fellowship", "-n", "30000", "--seed", "2", "--json", "--set", "fellowship_roll_above=4")
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    ex, mc = out["exact"], out["monte_carlo"]
    assert ex["mean"] == 20 and ex["turns_min"] == 14
    assert ex["distribution"]["14"] == pytest.approx((1 / 3) ** 3)
    assert math.fsum(ex["distribution"].values()) == pytest.approx(1.0, abs=1e-12)
    assert ex["rounds"]["players"] == 2 and out["players"] == 2
    assert mc["games"] == 30000 and mc["seed"] == 2
    assert set(mc["distribution"]["14"]) == {"p", "ci95", "z"}
    assert abs(mc["mean_z"]) < 4 and mc["chi2_p"] > 1e-4
    assert out["track"]["roll_above"] == 4 and len(out["track"]["names"]) == 14
    assert out["exact"]["rounds"]["distribution"]["7"] == pytest.approx((1 / 3) ** 3)


def test_cli_exact_only_and_plot(tmp_path):
    png = tmp_path / "f.png"
    r = invoke("fellowship", "-n", "0", "--json", "--plot", png)
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)
    assert "monte_carlo" not in out and out["exact"]["mean"] == 17 and out["plot"] == str(png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    png2 = tmp_path / "g.png"
    r = invoke("fellowship", "-n", "5000", "--plot", png2)
    assert r.exit_code == 0 and png2.stat().st_size > 1000


@pytest.mark.parametrize("args,needle", [
    (["--set", "fellowship_roll=4"], "did you mean 'fellowship_roll_above'"),
    (["--set", "fellowship_roll_above=6"], "fellowship_roll_above"),
    (["--set", "fellowship_roll_above=-1"], "fellowship_roll_above"),
    (["--set", "fellowship_roll_above=x"], "expected int"),
    (["--games", "-5"], "--games must be 0 or more"),
    (["--games", "1.5"], "not a whole number"),
    (["--players", "5"], "--players must be 2, 3 or 4"),
    (["--seed", "-1"], "seed"),
    (["--threads", "0"], "--threads"),
    (["--game", "minas-tirith"], "fellowship is for lotr-risk only"),
    (["-g", "the-search"], "fellowship is for lotr-risk only"),
    (["-g", "lotr-rsk"], "did you mean 'lotr-risk'"),
])
def test_cli_bad_input_is_one_line(args, needle):
    r = invoke("fellowship", "-n", "0", *args)
    assert r.exit_code == 2, r.output
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("lotr-sim: error: ") and needle in lines[0], r.stderr
    assert "Traceback" not in r.output


def test_cli_config_file_sets_the_threshold(tmp_path):
    cfg = tmp_path / "lr.toml"
    cfg.write_text("[params]\nfellowship_roll_above = 4\n")
    r = invoke("fellowship", "-n", "0", "--json", "-c", cfg)
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["exact"]["mean"] == 20
    r = invoke("fellowship", "-n", "0", "-c", tmp_path / "missing.toml")
    assert r.exit_code == 2 and r.stderr.startswith("lotr-sim: error: config file not found")


def test_cli_accepts_its_game():
    """`fellowship` says which game it is for and takes -g/--game lotr-risk."""
    for args in (["-g", "lotr-risk"], ["--game", "lotr-risk"], []):
        r = invoke("fellowship", "-n", "0", "--json", *args)
        assert r.exit_code == 0, r.output
        assert json.loads(r.stdout)["exact"]["mean"] == 17


@pytest.mark.parametrize("value,ok", [(0, True), (5, True), (6, False), (7, False), (-1, False)])
def test_roll_above_has_one_range_for_run_and_fellowship(value, ok):
    """fellowship_roll_above=6 was accepted by `run` (the Ring never leaves: 100%
    conquest) but refused by `fellowship`. The game's parameter and the track agree: 0..5."""
    from lotr_sim.errors import ConfigError
    from lotr_sim.games.lotr_risk.fellowship.exact import DEFAULT_DIE_SIDES, FellowshipTrack
    from lotr_sim.games.registry import get_game
    g = get_game("lotr-risk")
    p = {q.name: q for q in g.params()}["fellowship_roll_above"]
    assert (p.lo, p.hi) == (0, DEFAULT_DIE_SIDES - 1)
    sets = [f"fellowship_roll_above={value}"]
    if ok:
        g.load(None, sets)
        FellowshipTrack.default(value)
        api.fellowship(sets=sets, games=0)
    else:
        with pytest.raises(ConfigError, match="fellowship_roll_above"):
            g.load(None, sets)          # what `run --set` checks
        with pytest.raises(ConfigError, match="fellowship_roll_above"):
            api.fellowship(sets=sets, games=0)
