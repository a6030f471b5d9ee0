"""The Search config, catalogue generator (TS-1.2, TS-1.3) and CLI: bad input gives one
clear ConfigError line; the generator is seeded and honours its settings."""
from __future__ import annotations

import collections

import pytest
from typer.testing import CliRunner

from lotr_sim.cli.main import app
from lotr_sim.errors import ConfigError
from lotr_sim.games.the_search.catalogue import DEFAULT_GENERATOR, generate


def test_ts_1_2_default_catalogue_is_the_generator_output(game):
    """TS-1.2 [R]: the default catalogue is the seeded generator's output (seed 2026)."""
    cfg = game.load()
    assert cfg.data["catalogue"]["tiles"] == generate(cfg.data["catalogue"]["generator"])
    assert cfg.data["catalogue"]["generator"]["seed"] == 2026 == DEFAULT_GENERATOR["seed"]
    assert len(cfg.data["catalogue"]["tiles"]) == 47


def test_ts_1_3_generator_settings():
    """TS-1.3: the generator is deterministic in its seed, caps mountains per tile, and its
    same-terrain share changes how often a section repeats its neighbour."""
    assert generate({"seed": 3}) == generate({"seed": 3}) != generate({"seed": 4})
    for t in generate({"seed": 5, "max_mountains": 2}):
        assert t.count("M") < 2
    for t in generate({"seed": 5, "mountain_pairs": False}):
        assert not any(t[d] == "M" == t[(d + 1) % 4] for d in range(4))

    def repeats(share):
        tiles = generate({"seed": 6, "same_share": share}, n=2000)
        return sum(t[d] == t[d + 1] and t[d] != "M" for t in tiles for d in range(3)) / (3 * 2000)
    lo, hi = repeats(0.0), repeats(0.8)
    assert hi > lo + 0.3
    mix = collections.Counter("".join(generate({"seed": 7, "same_share": 0.0, "max_mountains": 4}, n=4000)))
    # the mix's mountain weight q, tiles of four mountains redrawn: |z| < 4 on 16000 sections
    q = DEFAULT_GENERATOR["mix"]["M"]
    p = (4 * q - 4 * q ** 4) / (1 - q ** 4) / 4
    se = (p * (1 - p) / 16000) ** 0.5
    assert abs(mix["M"] / 16000 - p) < 4 * se


@pytest.mark.parametrize("over, text", [
    ({"phase3_cap": 0}, "phase3_cap"),
    ({"phase1_cross": "half"}, "phase1_cross"),
    ({"unplacable_hand": "neutral"}, "did you mean 'unplaceable_hand'"),
    ({"map_orientation": "free"}, "map_orientation"),
    ({"neutral_join": "link"}, "neutral_join"),
])
def test_bad_parameters(game, over, text):
    with pytest.raises(ConfigError, match=text):
        game.load(overrides=over)


@pytest.mark.parametrize("body, text", [
    ('[catalogue]\ntiles = ["WWWW"]\n', "exactly 47"),
    ('[catalogue]\nshire = "WXYZ"\n', "catalogue.shire"),
    ('[catalogue]\ncolour = 1\n', "unknown key 'colour'"),
    ('[[tokens]]\nname = "X"\ncolour = "red"\nvalue = 1\n', "colour must be one of"),
    ('[[tokens]]\nname = "X"\ncolour = "brown"\nvalue = 1\npower = "monster"\n', "dots > 0"),
    ('[[tokens]]\nname = "X"\ncolour = "green"\nvalue = 1\ncount = 99\n', "count must be"),
    ('[tokenz]\n', "unknown table"),
])
def test_bad_config_files(game, tmp_path, body, text):
    p = tmp_path / "c.toml"
    p.write_text(body)
    with pytest.raises(ConfigError, match=text):
        game.load(str(p))


def test_cli_tiles_generate_round_trip(tmp_path, game):
    """``lotr-sim tiles generate --seed S --out F`` writes a catalogue ``--config F`` accepts."""
    out = tmp_path / "cat.toml"
    r = CliRunner().invoke(app, ["tiles", "generate", "--seed", "11", "--out", str(out)])
    assert r.exit_code == 0, r.output
    cfg = game.load(str(out))
    assert cfg.data["catalogue"]["tiles"] == generate({"seed": 11})
    r = CliRunner().invoke(app, ["tiles", "generate", "--seed", "11", "--out", str(out)])
    assert r.exit_code != 0
    r = CliRunner().invoke(app, ["run", "-g", "the-search", "-n", "20", "-q", "--config", str(out)])
    assert r.exit_code == 0, r.output
    r = CliRunner().invoke(app, ["tiles", "shuffle"])
    assert r.exit_code != 0 and "unknown tiles action" in r.output


def test_cli_tiles_report(tmp_path):
    """``lotr-sim tiles --games N --out DIR``: the tile-draw table with intervals, the Mount
    Doom heat map (6 x 8, one cell per game) and the files."""
    import json
    out = tmp_path / "rep"
    r = CliRunner().invoke(app, ["tiles", "--games", "300", "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert "unplaceable hand" in r.output and "Mount Doom's cell" in r.output
    rep = json.loads((out / "report.json").read_text())
    heat = rep["doom_heat"]
    assert len(heat) == 6 and all(len(row) == 8 for row in heat)
    assert sum(map(sum, heat)) <= 300 and sum(map(sum, heat)) >= 290
    for row in rep["rows"]:
        assert row["lo"] <= row["value"] <= row["hi"]
    assert (out / "doom_heat.png").stat().st_size > 0
    r = CliRunner().invoke(app, ["tiles", "--games", "10", "--out", str(out)])
    assert r.exit_code != 0


def test_ts_3_5_neutral_join_is_a_reconstruction_with_todays_default(game):
    """TS-3.5 [R]: ``neutral_join`` (a neutral tile barred from every legal cell) is declared
    a reconstruction citing TS-3.5, defaults to ``skip_link``, and is in the default config."""
    p = next(p for p in game.params() if p.name == "neutral_join")
    assert "TS-3.5" in p.rule and "[R]" in p.rule
    assert p.default == "skip_link" and tuple(p.choices) == ("skip_link", "no_tile")
    assert game.load().params["neutral_join"] == "skip_link"
    assert game.load(overrides={"neutral_join": "no_tile"}).params["neutral_join"] == "no_tile"
