"""``--policy SEAT=NAME`` (repeatable) on every command that plays games; ``--good``/``--evil``
are its aliases (games with 3-4 seats need it)."""
from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from lotr_sim.cli.main import app

runner = CliRunner()


def _run(args):
    r = runner.invoke(app, args, catch_exceptions=False)
    return r.exit_code, r.stdout, r.stderr


def test_policy_and_aliases_give_the_same_games():
    base = ["run", "-g", "minas-tirith", "-n", "300", "-s", "5", "-q", "--json"]
    c1, o1, _ = _run(base + ["--policy", "good=random", "--policy", "evil=cautious"])
    c2, o2, _ = _run(base + ["--good", "random", "--evil", "cautious"])
    c3, o3, _ = _run(base + ["--good", "random"])
    assert c1 == c2 == c3 == 0
    s1, s2, s3 = json.loads(o1), json.loads(o2), json.loads(o3)
    assert s1["policies"] == s2["policies"] == {"good": "random", "evil": "cautious"}
    assert s1["wins"] == s2["wins"]
    assert s3["policies"]["evil"] != "cautious"


@pytest.mark.parametrize("cmd", [["run", "-n", "10", "-q"], ["play", "-q"],
                                 ["compare", "--set", "leader_bonus=0", "--vs", "leader_bonus=1", "-q"],
                                 ["balance", "-p", "leader_bonus", "-r", "0:2", "-q"],
                                 ["sweep", "-p", "leader_bonus=0,1", "-n", "10", "-q"]])
@pytest.mark.parametrize("bad, words", [
    (["--policy", "good=random", "--policy", "good=greedy"], "--policy good is given twice"),
    (["--good", "greedy", "--policy", "good=random"], "disagree"),
    (["--policy", "ugly=random"], "no side 'ugly'"),
    (["--policy", "good=genius"], "unknown policy 'genius'"),
])
def test_bad_policy_is_one_line(cmd, bad, words, tmp_path):
    if cmd[0] == "sweep":
        cmd = cmd + ["-o", str(tmp_path / "sw")]
    code, _, err = _run(cmd + bad)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("lotr-sim: error:"), err
    assert words in lines[0]


def test_params_lists_every_games_sides_and_players():
    """`lotr-sim params` ends with the game's sides and every player name a side may take."""
    from typer.testing import CliRunner

    from lotr_sim.cli.main import app
    from lotr_sim.games.registry import game_names, get_game
    for name in game_names():
        g = get_game(name)
        for cols in ("80", "200"):
            r = CliRunner().invoke(app, ["params", "--game", name], env={"COLUMNS": cols})
            assert r.exit_code == 0, r.output
            lines = r.output.splitlines()
            start = [i for i, ln in enumerate(lines) if ln.startswith("sides: ")]
            assert len(start) == 1, r.output[-400:]
            last = " ".join(lines[start[0]:])
            for word in list(g.sides) + list(g.policies):
                assert word in last, (name, word, last)


@pytest.mark.parametrize("cols", [80, 100, 160])
def test_params_fits_the_terminal(cols):
    """`params --game lotr-risk` printed a table over 200 columns wide. Every line
    fits $COLUMNS, and every parameter's name and rule ID are still printed whole."""
    from typer.testing import CliRunner

    from lotr_sim.cli.main import app
    from lotr_sim.games.registry import game_names, get_game
    for name in game_names():
        r = CliRunner().invoke(app, ["params", "--game", name], env={"COLUMNS": str(cols)})
        assert r.exit_code == 0, r.output
        widths = [len(ln) for ln in r.output.splitlines()]
        assert max(widths) <= cols, (name, cols, max(widths))
        for row in get_game(name).describe_params():
            assert row["name"] in r.output, (name, row["name"])
            for rid in row["rule"].replace(",", " ").split():
                assert rid in r.output, (name, rid)


def _one_side_file(tmp_path, game: str, keep: str):
    """The shipped tuned file of ``game`` with only ``[weights.<keep>]`` left."""
    from lotr_sim.games.weights import shipped_path
    lines, skip = [], False
    for ln in shipped_path(game).read_text().splitlines():
        if ln.startswith("[weights."):
            skip = ln.strip() != f"[weights.{keep}]"
        if not skip:
            lines.append(ln)
    f = tmp_path / f"{game}-{keep}.toml"
    f.write_text("\n".join(lines) + "\n")
    return f


@pytest.mark.parametrize("game, keep, seat", [("minas-tirith", "evil", "good"),
                                              ("lotr-risk", "evil", "p1"), ("the-search", "frodo", "sam")])
def test_tuned_file_without_the_seats_side_is_an_error(tmp_path, game, keep, seat):
    """A tuned file with no weights table for the side it is given to would play greedy's
    weights under the name 'tuned': refused, naming the missing table."""
    f = _one_side_file(tmp_path, game, keep)
    code, _, err = _run(["run", "-g", game, "-n", "10", "-q", "--policy", f"{seat}=tuned:{f}"])
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith("lotr-sim: error:"), err
    side = "good" if seat == "p1" else seat
    assert f"[weights.{side}]" in lines[0] and str(f) in lines[0], lines[0]
    code, out, err = _run(["run", "-g", game, "-n", "10", "-q", "--json", "--policy", f"{keep}=tuned:{f}"])
    assert code == 0, err
