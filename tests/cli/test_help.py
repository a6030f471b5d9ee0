"""Help texts: nothing eaten by the markup, and game-neutral where the command serves every
game (it once went wrong: `play -g the-search --help` described Minas Tirith; `--config` read "(any
table, including , may be given)")."""
from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from lotr_sim.cli.main import COMMANDS, app

runner = CliRunner()


def _help(cmd: str) -> str:
    r = runner.invoke(app, [cmd, "--help"], env={"COLUMNS": "2000"})
    assert r.exit_code == 0, r.output
    return " ".join(re.sub(r"[│╭╮╰╯─]", " ", r.output).split())


def _click_command(cmd: str):
    import typer.main
    return typer.main.get_command(app).commands[cmd]


@pytest.mark.parametrize("cmd", [name for name, _ in COMMANDS])
def test_every_help_text_is_printed_whole(cmd):
    """Every option's help, as written, appears in the printed help (a word in square
    brackets is not swallowed as markup), and no sentence has a hole like "including ,"."""
    text = _help(cmd)
    assert "including ," not in text and "( " not in text
    for p in _click_command(cmd).params:
        h = " ".join((getattr(p, "help", None) or "").split())
        if not h or getattr(p, "hidden", False):
            continue
        for bracketed in re.findall(r"\[[^\]]*\]", h):
            assert bracketed in text, (cmd, p.name, bracketed)
        for word in re.findall(r"[A-Za-z]{4,}", h):
            assert word in text, (cmd, p.name, word)


def test_config_help_names_the_params_table():
    assert "the params table included" in _help("run")


def test_sides_help_names_every_games_sides_and_seats():
    from lotr_sim.cli._common import SIDES_HELP
    from lotr_sim.games.registry import game_names, get_game
    for name in game_names():
        g = get_game(name)
        assert name in SIDES_HELP, name
        for side in g.sides:
            assert side in SIDES_HELP, (name, side)
        if g.seat_keys:
            assert f"{g.seat_keys[0]}-{g.seat_keys[-1]}" in SIDES_HELP, (name, g.seat_keys)


@pytest.mark.parametrize("cmd", ["play", "run", "compare", "sweep", "balance"])
def test_game_commands_help_is_game_neutral(cmd):
    """The commands that play any game name every game's sides, not Minas Tirith's alone."""
    text = _help(cmd)
    for word in ("frodo", "sam", "good", "evil", "the-search", "lotr-risk", "minas-tirith"):
        assert word in text.lower(), (cmd, word)
    assert "missions" not in text and "retreats" not in text


def test_play_help_describes_no_single_game():
    text = _help("play")
    assert "Frodo and Sam" in text and "Good and Evil" in text


@pytest.mark.parametrize("cmd", [name for name, _ in COMMANDS])
def test_no_two_options_of_a_command_share_a_name(cmd):
    """Click lets a later option with the same short name shadow an earlier one silently
    (`bench -P` once meant both --policy and a list of players, and the list was ignored)."""
    seen: dict[str, str] = {}
    for p in _click_command(cmd).params:
        for o in list(getattr(p, "opts", [])) + list(getattr(p, "secondary_opts", [])):
            assert o not in seen, f"{cmd}: {o} is both {seen[o]} and {p.name}"
            seen[o] = p.name
