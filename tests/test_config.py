"""every bad config / override / play argument gives ONE line
``lotr-sim: error: ...`` on stderr and exit code 2 (ConfigError / LotrSimError), never a
traceback, and nothing is accepted silently."""
import re
import textwrap

import pytest
from typer.testing import CliRunner

from lotr_sim.cli.main import app
from lotr_sim.config import configs_dir, load_toml
from lotr_sim.errors import ConfigError

runner = CliRunner()


@pytest.fixture(scope="module")
def game():
    from lotr_sim.games.registry import get_game
    return get_game("minas-tirith")


DEFAULT = configs_dir() / "games" / "minas-tirith.toml"


def one_error_line(r, *needles):
    """Exit 2 with exactly one 'lotr-sim: error:' line containing every needle, no traceback."""
    assert r.exit_code == 2, (r.exit_code, r.output, repr(r.exception))
    assert not isinstance(r.exception, Exception) or isinstance(r.exception, SystemExit), repr(r.exception)
    text = r.stderr if hasattr(r, "stderr") and r.stderr else r.output
    lines = [x for x in text.splitlines() if x.strip()]
    assert len(lines) == 1, lines
    assert lines[0].startswith("lotr-sim: error: "), lines[0]
    assert "Traceback" not in r.output
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return lines[0]


def _write(tmp_path, text, name="user.toml"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(text))
    return str(p)


def _edges_without(pred):
    """The default board's edges as TOML, without those for which pred(line) is true."""
    src = DEFAULT.read_text()
    body = re.search(r"edges = \[(.*?)\n\]", src, re.S).group(1)
    keep = [x for x in body.splitlines() if x.strip() and not pred(x)]
    return '[board]\ngrond_territory = "Gate Field"\nedges = [\n' + "\n".join(keep) + "\n]\n"


def play(*args):
    return runner.invoke(app, ["play", "-q", *args])


# ---------------------------------------------------------------- files that are not TOML text
def test_binary_config_file(tmp_path):
    p = tmp_path / "bin.toml"
    p.write_bytes(b"\xff\xfe\x00\x01\x89PNG\r\n\x1a\n" + bytes(range(256)))
    one_error_line(play("--config", str(p)), "not UTF-8 text", str(p))
    with pytest.raises(ConfigError):
        load_toml(p)


def test_nul_bytes_config_file(tmp_path):
    p = tmp_path / "nul.toml"
    p.write_bytes(b"[params]\x00\x00\n")
    with pytest.raises(ConfigError, match="NUL|not valid TOML"):
        load_toml(p)


def test_binary_sweep_file(tmp_path):
    """The sweep file goes through the same loader (lotr_sim.config.load_toml)."""
    p = tmp_path / "sweep.toml"
    p.write_bytes(b"\x80\x81\x82 not text")
    from lotr_sim.experiments.spec import load_sweep_file
    with pytest.raises(ConfigError, match="not UTF-8 text"):
        load_sweep_file(p)


# ---------------------------------------------------------------- impossible numbers
@pytest.mark.parametrize("text, needle", [
    ('[setup.good."Harlond"]\ninfantry = -3\n[setup.evil."Crossroads"]\ninfantry = 3\n', "infantry = -3"),
    ('[setup.good."Harlond"]\ninfantry = true\n[setup.evil."Crossroads"]\ninfantry = 3\n', "infantry = True"),
    ('[setup.good."Harlond"]\ninfantry = "3"\n[setup.evil."Crossroads"]\ninfantry = 3\n', "infantry = '3'"),
    ('[setup.good."Harlond"]\ninfantry = 1.5\n[setup.evil."Crossroads"]\ninfantry = 3\n', "infantry = 1.5"),
    ("[pools.good]\ninfantry = -1\n", "pools.good.infantry = -1"),
    ("[pools.evil]\ntroll = true\n", "pools.evil.troll = True"),
    ('[setup.good."Harlond"]\ninfantry = 0\n[setup.evil."Crossroads"]\ninfantry = 3\n', "no good unit"),
])
def test_negative_or_impossible_counts(tmp_path, text, needle):
    one_error_line(play("--config", _write(tmp_path, text)), needle)


def test_negative_setup_in_run_is_one_line(tmp_path):
    """A reported case: `run` with infantry = -3 died with ZeroDivisionError in the engine."""
    p = _write(tmp_path, '[setup.good."Harlond"]\ninfantry = -3\n[setup.evil."Crossroads"]\ninfantry = 3\n')
    one_error_line(runner.invoke(app, ["run", "-n", "10", "-q", "--config", p]), "must be a whole number >= 0")


def test_card_counts_and_ranges(game, tmp_path):
    cfg_text = DEFAULT.read_text()
    bad = cfg_text.replace('name = "Trebuchet of Gondor"\nsides = ["good"]\ncount = 1\nkind = "catapult"\nrange = 3',
                           'name = "Trebuchet of Gondor"\nsides = ["good"]\ncount = 1\nkind = "catapult"\nrange = 0')
    assert bad != cfg_text
    p = tmp_path / "full.toml"
    p.write_text(bad)
    with pytest.raises(ConfigError, match="range = 0"):
        game.load(str(p))
    bad = cfg_text.replace("units = { infantry = 2 }", "units = { infantry = -2 }")
    p.write_text(bad)
    with pytest.raises(ConfigError, match=r"units.infantry = -2"):
        game.load(str(p))


# ---------------------------------------------------------------- MT-6.4 in the set-up and holder cards
def test_setup_cavalry_on_a_wall(tmp_path):
    one_error_line(play("--config", _write(tmp_path, '[setup.good."East Wall"]\ncavalry = 2\n'
                                                     '[setup.evil."Crossroads"]\ninfantry = 3\n')),
                   "cavalry on a wall", "MT-6.4")


def test_setup_evil_in_the_city(tmp_path):
    one_error_line(play("--config", _write(tmp_path, '[setup.good."Harlond"]\ninfantry = 2\n'
                                                     '[setup.evil."Minas Tirith"]\ninfantry = 3\n')),
                   "Evil in 'Minas Tirith'", "MT-10.2")


def test_setup_both_sides_in_one_territory(tmp_path):
    one_error_line(play("--config", _write(tmp_path, '[setup.good."Harlond"]\ninfantry = 2\n'
                                                     '[setup.evil."Harlond"]\ninfantry = 3\n')),
                   "both sides in 'Harlond'")


def test_holder_entering_on_a_wall_with_cavalry(game, tmp_path):
    text = DEFAULT.read_text().replace('enter = ["Anorien", "Rammas North Gate"]', 'enter = ["North Wall"]')
    p = tmp_path / "full.toml"
    p.write_text(text)
    with pytest.raises(ConfigError, match="enters at wall 'North Wall' but carries cavalry"):
        game.load(str(p))


# ---------------------------------------------------------------- connectivity
def test_isolated_territory_is_named(tmp_path):
    """Lebennin (no set-up) cut off: named."""
    p = _write(tmp_path, _edges_without(lambda x: '"Lebennin"' in x))
    one_error_line(play("--config", p), "'Lebennin'", "not connected")


def test_board_cut_so_evil_cannot_reach_the_city(tmp_path):
    """A reported case: the Anduin crossings removed; Good then won 80% of the games."""
    crossings = ('"West Osgiliath", "East Osgiliath"', '"Anduin North Bank", "Cair Andros"',
                 '"Anduin South Bank", "Emyn Arnen"', '"Anduin South Reach", "South Ithilien"')
    p = _write(tmp_path, _edges_without(lambda x: any(c in x for c in crossings)))
    one_error_line(play("--config", p), "the board is cut", "evil's set-up territory")


def test_connected_default_board_loads(game):
    cfg = game.load()
    assert cfg.data["territories"]


# ---------------------------------------------------------------- unknown tables, malformed shapes
def test_unknown_top_level_table(tmp_path):
    one_error_line(play("--config", _write(tmp_path, "[bogus_table]\nx = 1\n")), "unknown table [bogus_table]")
    one_error_line(play("--config", _write(tmp_path, "[parms]\nleader_bonus = 2\n")),
                   "unknown table [parms]", "did you mean 'params'")


@pytest.mark.parametrize("text", [
    "territories = 3\n",
    "unit_types = 3\n",
    "leaders = [1, 2]\n",
    "mt_cards = \"x\"\n",
    "[board]\nedges = 5\ngrond_territory = \"Gate Field\"\n",
    "setup = 1\n",
    "pools = 1\n",
    "[setup.good]\nHarlond = 3\n",
    "[setup.good.\"Harlond\"]\nleaders = \"Denethor\"\n",
    "[[territories]]\nkind = \"field\"\n",
    "[[territories]]\nname = 7\n",
])
def test_malformed_shapes_are_one_line(tmp_path, text):
    r = play("--config", _write(tmp_path, text))
    one_error_line(r, "config")


# ---------------------------------------------------------------- --set given twice
def test_same_set_twice_is_named():
    one_error_line(play("--set", "leader_bonus=1", "--set", "leader_bonus=2"), "leader_bonus", "twice")
    one_error_line(runner.invoke(app, ["run", "-n", "10", "-q", "--set", "leader-bonus=1",
                                       "--set", "leader_bonus=1"]), "leader_bonus", "twice")


def test_parse_overrides():
    from lotr_sim.config import parse_overrides
    assert parse_overrides(["a=1", "b = 2"]) == {"a": "1", "b": "2"}
    with pytest.raises(ConfigError, match="--set a is given twice"):
        parse_overrides(["a=1", "a=1"])


# ---------------------------------------------------------------- play --index
@pytest.mark.parametrize("index", ["99999999999999999999", "9223372036854775808", "-1"])
def test_play_index_out_of_range(index):
    one_error_line(play("--index", index), "--index must be in 0..9223372036854775807")


def test_play_largest_index_plays():
    r = play("--index", "9223372036854775807")
    assert r.exit_code == 0, r.output
    assert "Game over" in r.output


def test_play_output_has_no_spinner_when_not_a_terminal():
    """The compile spinner goes to stderr and only on a terminal: the account
    on stdout stays clean."""
    r = play("--seed", "4")
    assert r.exit_code == 0
    assert "preparing the minas-tirith engine" not in r.output


@pytest.mark.parametrize("text, needle", [
    ('[setup.orcs."Harlond"]\ninfantry = 1\n', "unknown side 'orcs'"),
    ("[pools.goood]\ninfantry = 1\n", "unknown side 'goood'"),
])
def test_unknown_side_in_setup_or_pools(tmp_path, text, needle):
    one_error_line(play("--config", _write(tmp_path, text)), needle)


def test_leader_listed_twice(game, tmp_path):
    text = DEFAULT.read_text().replace('name = "Faramir"', 'name = "Denethor"')
    p = tmp_path / "full.toml"
    p.write_text(text)
    with pytest.raises(ConfigError, match="leader 'Denethor' is listed twice"):
        game.load(str(p))


# ---------------------------------------------------------------- property: any data, one error
def _mutations():
    from hypothesis import strategies as st
    leaf = st.one_of(st.integers(-5, 50), st.booleans(), st.text(max_size=6), st.floats(allow_nan=False),
                     st.just([]), st.just({}), st.lists(st.integers(-2, 3), max_size=3),
                     st.dictionaries(st.text(max_size=4), st.integers(-3, 3), max_size=2))
    return st.lists(st.tuples(st.lists(st.integers(0, 40), min_size=1, max_size=4), leaf,
                              st.booleans()), min_size=1, max_size=4)


def _apply(data, path, value, delete):
    """Replace (or delete) the node reached by following ``path`` (indices into keys/items)."""
    node = data
    for depth, i in enumerate(path):
        keys = list(node) if isinstance(node, dict) else list(range(len(node))) if isinstance(node, list) else []
        if not keys:
            return
        k = keys[i % len(keys)]
        last = depth == len(path) - 1 or not isinstance(node[k], (dict, list))
        if last:
            if delete and isinstance(node, dict):
                del node[k]
            else:
                node[k] = value
            return
        node = node[k]


@pytest.mark.slow
def test_any_mutated_config_is_valid_or_one_config_error():
    """Random edits of the default game data (values of any type, deleted keys): loading and
    compiling either works or raises ConfigError - never another exception."""
    import copy

    from hypothesis import HealthCheck, given, settings

    from lotr_sim.games.minas_tirith import config as MC

    base = load_toml(DEFAULT)
    base.pop("params")
    params = {p.name: p.default for p in MC.PARAMS}

    @settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(_mutations())
    def check(muts):
        data = copy.deepcopy(base)
        for path, value, delete in muts:
            _apply(data, path, value, delete)
        try:
            MC.checked(MC.validate, data, params)
        except ConfigError:
            return
        from lotr_sim.config import GameConfig
        try:
            MC.checked(MC.compile_config, GameConfig("minas-tirith", data, params))
        except ConfigError:
            pass

    check()


def test_merge_tables_merges_key_by_key_and_replaces_whole_tables():
    from lotr_sim.config import merge_tables
    base = {"a": {"x": 1, "y": {"p": 1, "q": 2}}, "setup": {"good": {"t": 1}, "evil": {"u": 2}}, "n": 3}
    over = {"a": {"y": {"q": 5}}, "setup": {"good": {"t": 9}}, "n": 4}
    out = merge_tables(base, over, whole=("setup",))
    assert out == {"a": {"x": 1, "y": {"p": 1, "q": 5}}, "setup": {"good": {"t": 9}}, "n": 4}
    assert base["a"]["y"]["q"] == 2          # the base is not touched
    assert merge_tables(base, over)["setup"] == {"good": {"t": 9}, "evil": {"u": 2}}
