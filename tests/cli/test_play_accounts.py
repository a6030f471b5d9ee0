"""`lotr-sim play`: one account format for all three games (lotr_sim.games.account): the same
header line, one heading per turn, points written as names and numbers (never a Python dict),
and the same end line last, which `play --quiet` prints alone."""
from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from lotr_sim.cli.main import app
from lotr_sim.games.registry import get_game

runner = CliRunner()
GAMES = ["minas-tirith", "lotr-risk", "the-search"]
END = re.compile(r"^Game over after turn (\d+) \(round (\d+)\): (?:(.+) wins|a draw) \(([a-z_]+)\); "
                 r"points ((?:[A-Za-z0-9]+ -?\d+)(?:, [A-Za-z0-9]+ -?\d+)+)$")
TURN = re.compile(r"^== Turn (\d+) \(round (\d+)(?:, [^)]*)?\): \S")


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_play_account_has_the_shared_shape(game):
    g = get_game(game)
    r = runner.invoke(app, ["play", "-g", game, "-s", "3"])
    assert r.exit_code == 0, r.output
    lines = r.stdout.rstrip("\n").splitlines()
    # the header: title, seed, game, then the players by side name
    players = r"(?:Good|Evil|Frodo|Sam|p\d \((?:Good|Evil)\)) tuned"
    assert re.fullmatch(rf"{re.escape(g.title)}: seed 3, game 0; {players}(?: v |, ){players}", lines[0]), lines[0]
    assert r.stdout.count("seed 3, game 0") == 1, "the header is printed once"
    # one heading per turn, numbered from 1 in order
    turns = [TURN.match(x) for x in lines if x.startswith("== ")]
    assert turns and all(turns), [x for x in lines if x.startswith("== ")][:5]
    assert [int(m.group(1)) for m in turns] == list(range(1, len(turns) + 1))
    # the end line comes last, its numbers agree with the last turn
    m = END.match(lines[-1])
    assert m, lines[-1]
    assert int(m.group(1)) == int(turns[-1].group(1)) and int(m.group(2)) == int(turns[-1].group(2))
    assert sum(x.startswith("Game over") for x in lines) == 1
    # no raw Python containers anywhere in the account
    assert not re.search(r"\{'|': |\['", r.stdout), re.search(r".*(\{'|': |\[').*", r.stdout).group(0)
    # side names capitalised in every game
    assert not re.search(r"\b(frodo|sam|good|evil)\b (places|moves|draws|takes|wins|attacks|trades)", r.stdout)
    q = runner.invoke(app, ["play", "-g", game, "-s", "3", "-q"])
    assert q.exit_code == 0 and q.stdout.strip() == lines[-1], (q.stdout, lines[-1])


def test_end_line_of_a_draw_and_of_a_seat():
    from lotr_sim.games.account import end_line, header_line, points_text
    assert end_line(dict(turn=9, round=5, winner="draw", reason="cap", points={"frodo": 3, "sam": 3})).strip() \
        == "Game over after turn 9 (round 5): a draw (cap); points Frodo 3, Sam 3"
    assert end_line(dict(turn=16, round=8, winner="evil", winner_player="p2", reason="fellowship",
                         points={"p1": 17, "p2": 56})).strip() \
        == "Game over after turn 16 (round 8): p2 (Evil) wins (fellowship); points p1 17, p2 56"
    assert points_text({"good": 15, "evil": 18}) == "Good 15, Evil 18"
    h = header_line(dict(game_name="lotr-risk", seed=1, game_index=2, seat_sides=["evil", "good", "evil"],
                         seat_policies={"p1": "tuned", "p2": "greedy", "p3": "search"}))
    assert h.endswith("seed 1, game 2; p1 (Evil) tuned, p2 (Good) greedy, p3 (Evil) search"), h
