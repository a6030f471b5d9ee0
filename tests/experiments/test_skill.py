"""``skill``: every pairing of players on the baseline, and whether the verdict
holds for stronger play (the search player on every seat)."""
from __future__ import annotations

import json
import math

import pytest
from typer.testing import CliRunner

from lotr_sim import api
from lotr_sim.cli.main import app

runner = CliRunner()


@pytest.mark.slow
def test_skill_pairs_every_player_and_checks_the_verdict(fake, tmp_path):
    from fakegame import win_probability
    res = api.skill(fake, ["random", "greedy", "search"], games=3000, sets=["strength=7"],
                    out=tmp_path / "sk", threads=2)
    v = res.verdict
    assert v["favoured"] == "good"
    cells = v["pairings"]["cells"]
    assert len(cells) == 9
    params = fake.load(None, {"strength": 7}).params
    for c in cells:   # the search player plays +1 like greedy: the exact law holds for every cell
        pg, _ = win_probability(params, c["policies"])
        n = c["games"]
        assert abs(c["rate"] - pg) / math.sqrt(pg * (1 - pg) / n) < 4, c
    sk = v["skill"]
    assert sk["player"] == "search" and sk["favoured"] == "good" and sk["same"] is True
    assert "the verdict holds for stronger play" in sk["text"]
    assert {x["side"] for x in sk["seats"]} == {"good", "evil"}
    assert any("Stronger play" in line for line in v["lines"])
    # exploitability: the search player's gain against each player, per side,
    # follows the exact law; greedy (which search plays like) is the least exploitable
    expl = {e["player"]: e for e in sk["exploitability"]}
    assert set(expl) == {"random", "greedy"} and sk["least_exploitable"] == "greedy"
    for P, e in expl.items():
        for x in e["sides"]:
            other = "evil" if x["side"] == "good" else "good"
            pa, da = win_probability(params, {x["side"]: "search", other: P})
            pb, db = win_probability(params, {"good": P, "evil": P})
            if x["side"] == "evil":     # Evil wins what is neither Good's nor a draw
                pa, pb = 1 - pa - da, 1 - pb - db
            n = x["games"]
            se = math.sqrt(pa * (1 - pa) / n + pb * (1 - pb) / n)
            assert abs(x["gain"] - (pa - pb)) / se < 4, (P, x)
            assert x["lo"] <= x["gain"] <= x["hi"]
    assert [x["player"] for x in sk["ladder"]] == ["random", "greedy", "search"]
    assert any(line.startswith("Least exploitable player: greedy") for line in v["lines"])
    assert (res.out / "report.md").read_text().count("Stronger play") >= 1
    from lotr_sim.experiments import skillfig     # the run's figures name the search player's settings
    fig = skillfig.read(res.out / skillfig.FILE)
    assert fig["strong"] == "search" and fig["strong_settings"]
    assert fig["strong_settings"] == skillfig.strong_fingerprint(fake.name, "search")


@pytest.mark.slow
def test_skill_cli_json_and_bad_player(fake, tmp_path):
    r = runner.invoke(app, ["skill", "-g", "fake", "--players", "random,search", "-n", "300", "-q",
                            "--json", "-o", str(tmp_path / "s")])
    assert r.exit_code == 0, r.output
    js = json.loads(r.stdout)
    assert len(js["verdict"]["pairings"]["cells"]) == 4 + 1  # 2 x 2 pairings plus the greedy baseline
    r = runner.invoke(app, ["skill", "-g", "fake", "--players", "random,clever", "-q"])
    assert r.exit_code == 2 and "unknown player 'clever'" in r.output


@pytest.mark.slow
def test_search_is_a_sweep_dimension(fake, tmp_path):
    """``--param good=greedy,search`` works in sweeps: the search point follows the exact law."""
    from fakegame import win_probability
    res = api.sweep(fake, params=["good=random,search"], games=4000, report=False, out=tmp_path / "sw")
    df = res.results.set_index("label")
    params = fake.load(None, {}).params
    for label, pol in (("good=random", "random"), ("good=search", "search")):
        r = df.loc[label]
        pg, _ = win_probability(params, {"good": pol, "evil": "greedy"})
        assert abs(r["rate_good"] - pg) / math.sqrt(pg * (1 - pg) / 4000) < 4, (label, r["rate_good"], pg)


def test_skill_bad_input_is_one_line(fake, tmp_path):
    for args, msg in ((["--games", "0"], "--games must be at least 1"),
                      (["--players", "search-wide"], "at least two players"),
                      (["--judge", "greedy"], "--judge must be a search player"),
                      (["--threads", "0"], "--threads must be"),
                      (["--max-games", "40", "--chunk", "50"], "--max-games 40 is below --chunk 50"),
                      (["--half-width", "0"], "--half-width must be above 0"),
                      (["--half-width", "-2"], "--half-width must be above 0"),
                      (["--half-width", "nan"], "--half-width must be above 0"),
                      (["--games", "100", "--half-width", "3"], "give either --games"),
                      (["--resume", str(tmp_path), "--max-games", "400"], "--resume continues a run")):
        r = runner.invoke(app, ["skill", "-g", "fake", "-q", "-o", str(tmp_path / "never"), *args]
                          if "--resume" not in args else ["skill", "-g", "fake", "-q", *args])
        assert r.exit_code == 2, (args, r.output)
        assert msg in r.stderr and r.stderr.count("\n") == 1, r.stderr


def _gain_rows(res):
    df = res.results
    return df[df["precision_on"] == "gain"].set_index("label") if "precision_on" in df else df.iloc[:0]


@pytest.mark.slow
def test_skill_plays_each_side_until_its_gain_is_known_to_the_half_width(fake, tmp_path):
    """Sequential skill: every judge-v-P cell plays batches (in hundreds) until the paired 95%
    interval of the judge's gain on that side is within the goal, each side on its own; a
    reference cell (P v P) plays as many games as the gains paired with it."""
    from lotr_sim.experiments.sequential import paired_interval
    res = api.skill(fake, ["random", "greedy"], half_width=0.05, max_games=3000, chunk=50,
                    out=tmp_path / "sk", threads=1, report=False)
    g = _gain_rows(res)
    assert len(g) == 4 and set(g["gain_side"]) == {"good", "evil"}
    for label, r in g.iterrows():
        assert r["games"] % 100 == 0 and r["games"] >= 100 and r["games"] == r["gain_n"]
        lo, hi = paired_interval(int(r["gain_n"]), int(r["gain_n10"]), int(r["gain_n01"]))
        assert r["half_width"] == pytest.approx((hi - lo) / 2) and r["half_width"] <= 0.05, label
        assert bool(r["precision_met"])
    # greedy already plays the best action: the judge changes no game and stops at the first
    # batch; against random it finds a gain and needs more games to pin it down
    assert g.loc["good=search-wide,evil=greedy", "games"] == 100
    assert g.loc["good=search-wide,evil=random", "gain_n10"] > g.loc["good=search-wide,evil=random", "gain_n01"]
    assert g.loc["good=search-wide,evil=random", "games"] > 100
    df = res.results.set_index("label")
    assert df.loc["good=random,evil=random", "games"] >= max(g.loc["good=search-wide,evil=random", "games"],
                                                              g.loc["good=random,evil=search-wide", "games"])
    expl = {e["player"]: e for e in res.verdict["skill"]["exploitability"]}
    assert all(x["paired"] for e in expl.values() for x in e["sides"])
    assert res.verdict["skill"]["answer"] is None
    assert not res.verdict["sentence"].startswith("Not yet an answer")
    from lotr_sim.experiments import skillfig     # the figures keep each side's games and interval
    fig = skillfig.read(res.out / skillfig.FILE)
    assert fig["strong"] == "search-wide" and fig["half_width_goal"] == 0.05
    x = fig["players"]["random"]["good"]
    assert x["games"] == g.loc["good=search-wide,evil=random", "games"] and (x["hi"] - x["lo"]) / 2 <= 0.05


@pytest.mark.slow
def test_skill_run_is_bit_identical_across_chunk_sizes(fake, tmp_path):
    """The batch targets are a function of the games played, not of how they were chunked."""
    import pandas as pd
    runs = [api.skill(fake, ["random", "greedy"], half_width=0.05, max_games=3000, chunk=c,
                      out=tmp_path / f"c{c}", threads=1, report=False).results for c in (7, 50)]
    pd.testing.assert_frame_equal(runs[0], runs[1])


@pytest.mark.slow
def test_a_small_skill_run_says_it_is_not_yet_an_answer(fake, tmp_path):
    """Ten games a pairing (or a cap short of the goal) give no verdict headline: one sentence
    saying it is not an answer yet and about how many games a pairing would make it one."""
    res = api.skill(fake, ["random", "greedy"], games=10, out=tmp_path / "few", threads=1, report=False)
    v = res.verdict
    assert v["sentence"].startswith("Not yet an answer: search-wide's gains rest on 10 games a pairing")
    assert v["lines"][0] == v["sentence"] and v["sentence"].count(". ") == 0
    need = v["skill"]["answer"]["games_needed"]
    assert need >= 100 and f"about {need:,} games a pairing" in v["sentence"]
    capped = api.skill(fake, ["random", "greedy"], half_width=0.01, max_games=100, chunk=50,
                       out=tmp_path / "cap", threads=1, report=False)
    g = _gain_rows(capped)
    assert (g["games"] == 100).all() and not g["precision_met"].any()
    assert capped.verdict["sentence"].startswith("Not yet an answer: search-wide's gains rest on 100 games")
    assert "against a goal of ±1;" in capped.verdict["sentence"]


def test_an_interrupted_skill_run_says_how_to_continue_and_resumes_without_its_game(fake, tmp_path, monkeypatch):
    """Ctrl-C in a skill run: one line naming ``lotr-sim skill --game fake --resume DIR`` (the
    sweep underneath is the skill's); ``skill --resume DIR`` alone takes the game from the
    folder and finishes the run."""
    out = tmp_path / "s"
    calls = {"n": 0}
    simulate = type(fake).simulate

    def stop_on_the_third_chunk(self, *a, **k):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return simulate(self, *a, **k)
    monkeypatch.setattr(type(fake), "simulate", stop_on_the_third_chunk)
    r = runner.invoke(app, ["skill", "-g", "fake", "--players", "random,greedy", "-n", "100", "--chunk", "50",
                            "-q", "-o", str(out)])
    assert r.exit_code != 0
    assert f"continue with: lotr-sim skill --game fake --resume {out}" in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    monkeypatch.setattr(type(fake), "simulate", simulate)
    r = runner.invoke(app, ["skill", "--resume", str(out), "-q", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["verdict"]["pairings"]["cells"]
    # the summary counts every game of the run, not only those played after the resume
    r = runner.invoke(app, ["skill", "--resume", str(out), "-q"])
    assert r.exit_code == 0, r.output
    assert "games in all; 0 games in" in r.stdout, r.stdout


def test_pairings_take_a_weights_file_or_inline_weights_and_name_a_broken_one(tmp_path):
    """``skill --players tuned:FILE`` measures a candidate weights file (a learn run's, or one
    in docs/learned) as it does a built-in player; a missing file is one clear error."""
    from lotr_sim.errors import ConfigError
    from lotr_sim.experiments.spec import pairing_players
    g = api.get_game("minas-tirith")
    t = g.policy_table
    inline = t.inline_name(t.rows("tuned"))
    path = tmp_path / "w.toml"
    t.write(path, t.rows("tuned"), g.load().hash, {"seed": 1}, by="a test")
    assert pairing_players(g, ["tuned", f"tuned:{path}", inline]) == ["tuned", f"tuned:{path}", inline]
    with pytest.raises(ConfigError, match="nowhere.toml"):
        pairing_players(g, [f"tuned:{tmp_path / 'nowhere.toml'}"])
    with pytest.raises(ConfigError, match="unknown player 'clever'"):
        pairing_players(g, ["clever"])
