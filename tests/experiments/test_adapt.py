"""experiments.adapt: a side keeps its re-tuned weights only where they play the changed
rules better than its start weights, on the same games."""
from __future__ import annotations

import pytest

from lotr_sim.experiments.adapt import adapt
from lotr_sim.games.registry import get_game



def _moved(sides=("good", "evil")) -> str:
    """An inline player whose weights differ from tuned's on ``sides``."""
    table = get_game("minas-tirith").policy_table
    rows = {s: r.copy() for s, r in table.rows("tuned").items()}
    for s in sides:
        w = table.side_weights(s)[0]
        rows[s][w.index] = w.lo if rows[s][w.index] != w.lo else w.hi
    return table.inline_name(rows)


def _known(player: str) -> dict:
    return {"start": "tuned", "generations": 1, "games": 10, "games_played": 0, "folder": "adapt-1",
            "player": player}


def _wins_table(good_tuned: int, evil_tuned: int, both: int, start: int, x: str = ""):
    """A fake ``wins``: Good's wins out of 1000 by which sides play the re-tuned weights."""
    calls = []

    def wins(pols, first, n):
        calls.append((dict(pols), first, n))
        key = (pols["good"] == x, pols["evil"] == x)
        return {(False, False): start, (True, False): good_tuned, (False, True): evil_tuned,
                (True, True): both}[key], n
    return wins, calls


@pytest.mark.parametrize("good_tuned, evil_tuned, kept", [
    (520, 480, {"good": True, "evil": True}),      # Good's rate up with Good's, down with Evil's
    (480, 520, {"good": False, "evil": False}),    # both made worse: keep the start weights
    (520, 520, {"good": True, "evil": False}),
    (500, 500, {"good": False, "evil": False}),    # no better: keep the start
])
def test_keeps_a_side_only_where_it_does_better(tmp_path, good_tuned, evil_tuned, kept):
    game = get_game("minas-tirith")
    x = _moved()
    wins, calls = _wins_table(good_tuned, evil_tuned, 500, 500, x)
    res = adapt(game, {"retreat_trigger": "off"}, wins, start={"good": "tuned", "evil": "tuned"},
                folder=tmp_path / "adapt-1", check_games=1000, first=77, known=_known(x))
    assert res.kept == kept
    assert res.players == {s: x if kept[s] else "tuned" for s in ("good", "evil")}
    assert all(first == 77 and n == 1000 for _, first, n in calls)      # every check on the same games
    assert res.checks["good"]["tuned"]["rate"] == good_tuned / 1000
    assert res.checks["evil"]["start"]["rate"] == 0.5
    assert (res.first_only is not None) == kept["good"]
    if kept["good"]:
        assert res.first_only["rate"] == good_tuned / 1000
    assert res.tune == _known(x)


def test_a_side_whose_tune_never_moved_is_not_checked(tmp_path):
    """Only the sides whose tuned weights differ from their start are checked (and may be
    kept); when none moved, no game is played."""
    game = get_game("minas-tirith")
    x = _moved(("evil",))
    wins, calls = _wins_table(520, 480, 500, 500, x)
    res = adapt(game, {}, wins, start={"good": "tuned", "evil": "tuned"}, folder=tmp_path, check_games=100,
                known=_known(x))
    assert res.kept == {"good": False, "evil": True} and set(res.checks) == {"evil"} and res.first_only is None
    assert len(calls) == 2          # the start pairing and Evil's tuned weights
    wins, calls = _wins_table(0, 0, 0, 0)
    res = adapt(game, {}, wins, start={"good": "tuned", "evil": "tuned"}, folder=tmp_path, check_games=100,
                known=_known("tuned"))
    assert not calls and res.players == {"good": "tuned", "evil": "tuned"} and not any(res.kept.values())


def test_a_game_without_weights_is_not_adapted(tmp_path):
    game = get_game("minas-tirith")

    class NoTable:
        policy_table = None
        sides = game.sides
    wins, calls = _wins_table(0, 0, 0, 0)
    assert adapt(NoTable(), {}, wins, start={}, folder=tmp_path) is None and not calls
