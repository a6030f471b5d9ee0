"""The API (what the notebooks call) shows a set-up that departs from the rulebook as the CLI
does, one line `lotr-sim: warning: ...` on stderr (TS-1.1: 8 blue, 20 brown, 8 green and 8
yellow tokens), not as a raw Python warning with a source path; and a filter that ignores
SetupWarning is respected."""
from __future__ import annotations

import warnings

import pytest

from lotr_sim import api
from lotr_sim.games.base import SetupWarning


@pytest.mark.slow
def test_ts_1_1_api_prints_setup_warning_as_one_line(capsys):
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        api.run_games("the-search", games=20, sets={"orc_tokens": 6})
        api.run_games("the-search", games=20, sets={"orc_tokens": 6})
    err = capsys.readouterr().err
    lines = [x for x in err.splitlines() if x.strip()]
    assert lines and all(x.startswith("lotr-sim: warning: the set-up departs from the rulebook (TS-1.1)")
                         for x in lines), err
    assert len(lines) == 2, err            # once per call, every call (not once per session)
    assert "SetupWarning" not in err and ".py:" not in err


@pytest.mark.slow
def test_ts_1_1_ignored_setup_warning_stays_silent(capsys):
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", category=SetupWarning)
        api.run_games("the-search", games=20, sets={"orc_tokens": 6})
    assert "departs" not in capsys.readouterr().err
