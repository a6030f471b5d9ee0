"""LOTR Risk seats: seats p1..pN dealt as LR-2.2/2.3 say, a policy per seat
(``--policy p1=random``, over its side's entry), ``--players N`` and the per-seat tables
(LR-11.4: balance per side, per seat and per player)."""
from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from lotr_sim.cli.main import app
from lotr_sim.errors import ConfigError
from lotr_sim.experiments.tally import Tally
from lotr_sim.games.registry import get_game
from lotr_sim.games.step import winner_scores

G = get_game("lotr-risk")
GREEDY = {"good": "greedy", "evil": "greedy"}
runner = CliRunner()


@pytest.fixture(scope="module")
def comps():
    return {n: G.compile(G.load(None, {"players": n})) for n in (2, 3, 4)}


def _cli(args):
    r = runner.invoke(app, args, catch_exceptions=False)
    return r.exit_code, r.stdout, r.stderr


@pytest.mark.parametrize("n, sides", [(2, ["good", "evil"]), (3, ["evil", "good", "evil"]),
                                      (4, ["good", "evil", "good", "evil"])])
def test_seats_in_rules_order_LR_2_2_LR_2_3(comps, n, sides):
    c = comps[n]
    assert G.seat_names(c) == tuple(f"p{i + 1}" for i in range(n))
    assert [G.sides[G.seat_side(c, i)] for i in range(n)] == sides == c.names["seat_sides"]
    # the loaded config gives the same seats as the compiled one (sweeps check seats before compiling)
    assert G.seat_names(G.load(None, {"players": n})) == G.seat_names(c)


def test_seat_entry_overrides_its_side_LR_2_3(comps):
    c = comps[3]
    good = G.default_policies["good"]     # p2 is Good's seat with 3 players: its side's default
    assert G.seat_policies(c, {"evil": "random", "p3": "cautious"}) == \
        {"p1": "random", "p2": good, "p3": "cautious"}
    assert G.seat_policies(c, {"p3": "cautious", "evil": "random"}) == \
        {"p1": "random", "p2": good, "p3": "cautious"}
    # the same seats by side or by seat play the same games
    a = G.simulate(c, {"evil": "random", "p3": G.default_policies["evil"]}, 4, 0, 200, threads=2)
    b = G.simulate(c, {"p1": "random"}, 4, 0, 200, threads=2)
    d = G.simulate(c, {"good": "cautious"}, 4, 0, 200, threads=2)
    e = G.simulate(c, {"p2": "cautious"}, 4, 0, 200, threads=2)
    for k in a:
        assert np.array_equal(a[k], b[k]), k
        assert np.array_equal(d[k], e[k]), k


@pytest.mark.slow
def test_seat_policy_is_played_LR_2_3(comps):
    """p1=random p3=greedy (and greedy Good on p2) with 3 players against all greedy, same
    seed: p1 (Evil) wins far less often, |z| > 4 from the standard error of the difference of
    two rates, and p3 takes its wins (p2 plays as in the reference, so only p1 differs)."""
    c, n = comps[3], 2000
    ref = G.simulate(c, GREEDY, 11, 0, n, threads=2)["winner_seat"]
    alt = G.simulate(c, {"good": "greedy", "p1": "random", "p3": "greedy"}, 11, 0, n, threads=2)["winner_seat"]
    for seat in (0, 2):
        pa, pb = float(np.mean(ref == seat)), float(np.mean(alt == seat))
        se = np.sqrt(pa * (1 - pa) / n + pb * (1 - pb) / n)
        z = (pa - pb) / se
        if seat == 0:
            assert z > 4, (pa, pb, z)     # the random seat loses its wins
        else:
            assert z < -4, (pa, pb, z)    # the greedy Evil seat next to it takes them


def test_bad_seat_is_one_config_error(comps):
    with pytest.raises(ConfigError, match="no seat 'p3'.*p1 good, p2 evil"):
        G.simulate(comps[2], {"p3": "random"}, 1, 0, 5)
    with pytest.raises(ConfigError, match="no side or seat 'p5'"):
        G.check_policies({"p5": "random"})
    with pytest.raises(ConfigError, match="no seat 'p4'"):
        G.bind(comps[3]).new_state({"p4": "random"}, 1, 0)
    code, out, err = _cli(["run", "-g", "lotr-risk", "-n", "10", "-q", "--policy", "p3=random"])
    assert code == 2 and err.strip().count("\n") == 0 and "no seat 'p3'" in err
    code, _, err = _cli(["sweep", "-g", "lotr-risk", "-p", "p4=random,greedy", "--players", "3", "-n", "10",
                         "-q", "--no-pairings", "--out", "/nonexistent/x"])
    assert code == 2 and "no seat 'p4'" in err


@pytest.mark.slow
def test_search_seat_is_a_seat_not_a_side(comps):
    """The driver hands a seat's decisions to its search player: ``to_move`` is the seat and
    the player scores playouts by that seat's side (LR-11.4)."""
    c = comps[3]
    row, events = G.play(c, {"p3": "search-fast"}, 2, 0)
    head = events[0]
    d = G.default_policies
    assert head["seat_policies"] == {"p1": d["evil"], "p2": d["good"], "p3": "search-fast"}
    assert "search-fast" in head["search"]
    G.simulate(c, {"p3": "search-fast"}, 2, 0, 1, threads=1)
    assert G.last_player_stats["decisions"] > 0
    st = G.bind(c).new_state(GREEDY, 2, 0)
    assert 0 <= st.to_move < 3
    # p1 and p3 are Evil: an Evil win scores 1 for them and 0 for p2
    w = np.array([0, 1])
    assert winner_scores(G, w, G.seat_side(c, 0)).tolist() == [0.0, 1.0]
    assert winner_scores(G, w, G.seat_side(c, 1)).tolist() == [1.0, 0.0]


def test_players_option():
    base = ["run", "-g", "lotr-risk", "-n", "200", "-q", "--json"]
    c1, o1, _ = _cli(base + ["--players", "3"])
    c2, o2, _ = _cli(base + ["--set", "players=3"])
    c3, o3, _ = _cli(base + ["-p", "3", "--set", "players=3"])
    assert c1 == c2 == c3 == 0
    s1, s2 = json.loads(o1), json.loads(o2)
    assert s1["params"]["players"] == 3 and s1["wins"] == s2["wins"] == json.loads(o3)["wins"]
    for args, words in ((["-p", "3", "--set", "players=4"], "disagree"), (["-p", "5"], "players"),
                        (["-g", "minas-tirith", "-p", "3"], "no players parameter")):
        code, _, err = _cli(base + args)
        assert code == 2 and words in err and err.strip().count("\n") == 0, err


def test_run_summary_has_seats_LR_11_4():
    code, out, _ = _cli(["run", "-g", "lotr-risk", "-p", "4", "-n", "300", "-q", "--json", "--policy", "p2=random"])
    s = json.loads(out)
    seats = s["seats"]
    assert [x["seat"] for x in seats] == ["p1", "p2", "p3", "p4"]
    assert [x["side"] for x in seats] == ["good", "evil", "good", "evil"]
    d = G.default_policies
    assert [x["policy"] for x in seats] == [d["good"], "random", d["good"], d["evil"]]
    assert sum(x["wins"] for x in seats) == s["games"]
    # a side's wins are its seats' wins
    assert seats[0]["wins"] + seats[2]["wins"] == s["wins"]["good"]
    code, out, _ = _cli(["run", "-g", "minas-tirith", "-n", "50", "-q", "--json"])
    assert "seats" not in json.loads(out)
    code, out, _ = _cli(["run", "-g", "lotr-risk", "-p", "3", "-n", "100", "-q"])
    assert "per seat" in out and "p3" in out


@pytest.mark.slow
def test_seat_table_in_the_sweep_report_only_for_seated_games(tmp_path):
    code, _, err = _cli(["sweep", "-g", "lotr-risk", "-p", "players=2,3", "-n", "60", "-q", "--no-pairings",
                         "--policy", "p1=cautious", "--out", str(tmp_path / "lr")])
    assert code == 0, err
    md = (tmp_path / "lr" / "report.md").read_text()
    html = (tmp_path / "lr" / "report.html").read_text()
    assert "## Win rate per seat" in md and "Win rate per seat" in html
    assert f"| players=3 | p3 | Evil | {G.default_policies['evil']} |" in md and "| baseline | p1 | Good | cautious |" in md
    code, _, err = _cli(["sweep", "-g", "minas-tirith", "-p", "leader_bonus=0,1", "-n", "20", "-q",
                         "--no-pairings", "--out", str(tmp_path / "mt")])
    assert code == 0, err
    assert "per seat" not in (tmp_path / "mt" / "report.md").read_text()


def test_tally_seats_merge_like_one_chunk(comps):
    cols = G.simulate(comps[4], {"p1": "random"}, 6, 0, 300, threads=1)
    whole = Tally.empty(G)
    whole.add(cols)
    a, b = Tally.empty(G), Tally.empty(G)
    a.add({k: v[:120] for k, v in cols.items()})
    b.add({k: v[120:] for k, v in cols.items()})
    a.merge(b)
    assert a == whole and Tally.from_dict(whole.to_dict()) == whole
    assert whole.seat_n == 300 and sum(whole.seat_wins) == 300
    assert whole.seat_wins == np.bincount(cols["winner_seat"], minlength=4).tolist()[:len(whole.seat_wins)]


@pytest.mark.parametrize("cmd", [["run", "-n", "10", "-q"], ["play", "-q"],
                                 ["compare", "--set", "leader_bonus=0", "--vs", "leader_bonus=1", "-q"],
                                 ["balance", "-p", "leader_bonus", "-r", "0:2", "-q"],
                                 ["sweep", "-p", "leader_bonus=0,1", "-n", "10", "-q"],
                                 ["bench", "-n", "10"]])
def test_players_option_on_every_command_that_takes_set(cmd):
    """``--players`` is refused in one line for a game without a players parameter, on every
    command that takes ``--set`` (the shared option)."""
    code, _, err = _cli(cmd + ["--game", "minas-tirith", "--players", "3"])
    assert code == 2 and "no players parameter" in err and err.strip().count("\n") == 0, err


def test_play_names_every_seat_LR_2_3():
    code, out, _ = _cli(["play", "-g", "lotr-risk", "-p", "4", "--policy", "p2=random", "--good", "cautious"])
    assert code == 0
    evil = G.default_policies["evil"]
    assert f"p1 (Good) cautious, p2 (Evil) random, p3 (Good) cautious, p4 (Evil) {evil}" in out.splitlines()[0]
