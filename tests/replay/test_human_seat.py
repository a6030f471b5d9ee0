"""``lotr-sim play --human SEAT`` driven through a pseudo-terminal (pexpect), as a person
would: a short game of each game played to its end, with bad input at the prompt (a letter,
an out-of-range number) refused with a clear line, Ctrl-D saving the game, ``--resume``
going on from the save, ``u`` taking back a decision, and the finished game traced with the
human's seat named in its header."""
from __future__ import annotations

import json
import os
import re
import sys

import pytest

pexpect = pytest.importorskip("pexpect", reason="pexpect drives the terminal (pip install -e '.[test]')")

PROMPT = r"Your choice \(1-(\d+); Enter = (\d+);"
# (game, the human's seat, options that keep the game short)
CASES = [
    ("minas-tirith", "good", ["--set", "deck_infantry=2", "--set", "deck_cavalry=2", "--set", "deck_creature=2",
                              "--set", "deck_jokers=0", "--set", "deck_good_shields=1", "--set", "deck_evil_shields=1"]),
    ("lotr-risk", "p1", ["--index", "2", "--set", "fellowship_roll_above=0"]),
    ("the-search", "frodo", ["--index", "3", "--policy", "sam=random"]),
]


def _spawn(args, cwd):
    env = dict(os.environ, COLUMNS="200", LOTR_SIM_TRACEBACK="")
    return pexpect.spawn(sys.executable, ["-m", "lotr_sim.cli.main", "play", *args], cwd=str(cwd), env=env,
                         encoding="utf-8", timeout=120, dimensions=(50, 200))


@pytest.mark.slow
@pytest.mark.parametrize("game, seat, extra", CASES, ids=[c[0] for c in CASES])
def test_human_plays_a_whole_game(tmp_path, game, seat, extra):
    save = tmp_path / "game.save.json"
    trace = tmp_path / "game.jsonl"
    p = _spawn(["-g", game, "--human", seat, *extra, "--save", str(save), "--board", str(tmp_path / "b.html")],
               tmp_path)
    p.expect(PROMPT)
    n = int(p.match.group(1))
    p.sendline("x")
    p.expect(r"'x' is not a choice: type a number from 1 to (\d+)")
    assert int(p.match.group(1)) == n
    p.expect(PROMPT)
    p.sendline(str(n + 1))
    p.expect(rf"'{n + 1}' is not a choice")
    p.expect(PROMPT)
    p.sendline("?")
    p.expect("Enter alone takes the suggested action")
    p.expect(PROMPT)
    p.sendline("")                                   # Enter: the suggested action
    p.expect("You: ")
    p.expect(PROMPT)
    p.sendeof()                                      # Ctrl-D: save and quit, never lose the game
    p.expect(r"saved 1 decision\(s\) to .*game\.save\.json")
    p.expect(pexpect.EOF)
    p.close()
    assert p.exitstatus == 0, p.before
    saved = json.loads(save.read_text())
    assert saved["game"] == game and saved["human"] == seat and len(saved["decisions"]) == 1
    assert (tmp_path / "b.html").stat().st_size > 10_000   # --board: the replay so far

    p = _spawn(["--resume", str(save), "--trace", str(trace)], tmp_path)
    prompts = undone = 0
    while True:
        k = p.expect([PROMPT, r"Game over after turn \d+ \(round \d+\): [^\r\n]*"])
        if k == 1:
            end = p.match.group(0)
            break
        prompts += 1
        if prompts == 2 and not undone:
            p.sendline("u")
            p.expect("Undone: back to your decision")
            undone += 1
            continue
        p.sendline("")
    p.expect(pexpect.EOF)
    p.close()
    assert p.exitstatus == 0, p.before
    assert undone == 1 and prompts >= 2
    events = [json.loads(x) for x in trace.read_text().splitlines()]
    head = events[0]
    assert head["seat_policies"][seat] == "human"
    assert events[-1]["event"] == "game_end"
    pts = events[-1]["points"]
    assert all(re.search(rf"\b{v}\b", end) for v in pts.values()), (end, pts)
    seat_id = head["seat_sides"].index(seat) if seat in head["seat_sides"] and game == "the-search" else seat
    mine = [e for e in events if e["event"] == "decision" and e["seat"] in (seat, seat_id)]
    # the saved one, then one per Enter at a prompt, less the one undone
    assert len(mine) == 1 + (prompts - undone) - undone
