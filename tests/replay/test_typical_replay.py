"""The sweep report's replay of a typical baseline game (``lotr_sim.replay.typical``): the
favoured side's win of median length among the first baseline games, written beside the
report in about a second."""
from __future__ import annotations

import json

import numpy as np

from lotr_sim.experiments.spec import SweepSpec
from lotr_sim.games.registry import get_game
from lotr_sim.replay.typical import SAMPLE, write_typical_replay


def test_typical_game_is_a_median_win_of_the_favoured_side(tmp_path):
    spec = SweepSpec("minas-tirith", dims=[], seed=3)
    r = write_typical_replay(tmp_path, {"spec": spec.as_dict()})
    assert r is not None and r["path"].is_file() and (tmp_path / "replay.jsonl").is_file()
    assert r["seconds"] < 20
    g = get_game("minas-tirith")
    comp = g.compile(g.load())
    cols = g.simulate(comp, g.check_policies({}), 3, 0, SAMPLE, threads=1)
    w, t = np.asarray(cols["winner"]), np.asarray(cols["turns"])
    fav = int(np.argmax([(w == k).sum() for k in range(len(g.sides))]))
    wins = np.flatnonzero(w == fav)
    assert w[r["index"]] == fav
    below = int((t[wins] < t[r["index"]]).sum())
    above = int((t[wins] > t[r["index"]]).sum())
    assert abs(below - above) <= int((t[wins] == t[r["index"]]).sum())   # a median
    events = [json.loads(x) for x in (tmp_path / "replay.jsonl").read_text().splitlines()]
    assert events[0]["game_index"] == r["index"] and events[-1]["winner"] == g.outcomes[fav]
    assert "replay.html" not in r["why"] and str(r["index"]) in r["why"]


def test_no_replay_without_a_playable_spec(tmp_path):
    assert write_typical_replay(tmp_path, {}) is None
    assert write_typical_replay(tmp_path, {"spec": {"game": "no-such-game", "dims": []}}) is None
    assert not (tmp_path / "replay.html").exists()
