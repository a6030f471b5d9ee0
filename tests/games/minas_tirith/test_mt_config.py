"""Config loading, validation and compilation (MT-1, MT-2, MT-3)."""
import textwrap

import numpy as np
import pytest

from lotr_sim.errors import ConfigError
from lotr_sim.games.minas_tirith import config as C


def _write(tmp_path, text):
    p = tmp_path / "user.toml"
    p.write_text(textwrap.dedent(text))
    return str(p)


def test_mt_1_1_mt_1_2_totals_and_setup(game, comp):
    """MT-1.1/1.2: the side totals; MT-1.3 the set-up comes out of them."""
    cfg = game.load()
    pools = cfg.data["pools"]
    assert pools["good"] == {"infantry": 20, "archer": 12, "cavalry": 18, "mounted_archer": 3}
    assert sum(pools["evil"].values()) == 40 + 10 + 10 + 10
    lead = {s: [l["name"] for l in cfg.data["leaders"] if l["side"] == s] for s in ("good", "evil")}
    assert len(lead["good"]) == 5 and len(lead["evil"]) == 3
    cf = comp.cf
    NU = cf[C.C_NU]
    tot = cf[C.O_UTOT:C.O_UTOT + NU]
    setup = cf[C.O_SETUP:C.O_SETUP + C.MAXT * C.MAXU].reshape(C.MAXT, C.MAXU)[:, :NU].sum(axis=0)
    assert np.all(setup <= tot)
    assert setup.sum() == 36 + 53


def test_mt_2_1_board_symmetric_and_kinds(comp):
    """MT-2.1: 36 territories (32 + 3 walls + city); adjacency symmetric, no self loops."""
    cf = comp.cf
    T = cf[C.C_T]
    assert T == 36
    ek = cf[C.O_EK:C.O_EK + C.MAXT * C.MAXT].reshape(C.MAXT, C.MAXT)[:T, :T]
    assert np.array_equal(ek, ek.T)
    assert np.all(np.diag(ek) == -1)
    kinds = cf[C.O_TKIND:C.O_TKIND + T]
    assert (kinds == 2).sum() == 3 and (kinds == 3).sum() == 1
    names = comp.names["territories"]
    assert names[cf[C.C_GROND]] == "Gate Field"
    city = cf[C.C_CITY]
    assert ek[city, cf[C.C_GROND]] == 3  # MT-6.5 the gate


def test_mt_2_4_edges_distances(comp):
    """MT-2.4: distance to Evil's edge is 0 on the edge, grows westwards."""
    cf = comp.cf
    names = comp.names["territories"]
    de = {n: cf[C.O_DEVIL + i] for i, n in enumerate(names)}
    assert de["East Osgiliath"] == 0 and de["West Osgiliath"] == 1
    assert de["Minas Tirith"] > de["Gate Field"] > de["Causeway"]
    dg = {n: cf[C.O_DGOOD + i] for i, n in enumerate(names)}
    assert dg["Minas Tirith"] == 0


def test_mt_3_1_deck_composition(game, comp):
    """MT-3.1: 66 cards: 21/21/22 + 2 jokers; 14 Good and 14 Evil shields."""
    t = comp.names["deck_types"]
    s = comp.names["deck_shields"]
    assert len(t) == 66
    assert [t.count(k) for k in ("infantry", "cavalry", "creature", "joker")] == [21, 21, 22, 2]
    assert s.count("good") == 14 and s.count("evil") == 14
    # every type carries shields (interleaved)
    for k in ("infantry", "cavalry", "creature"):
        assert sum(1 for a, b in zip(t, s) if a == k and b == "good") >= 4
    c2 = game.compile(game.load(None, ["deck_infantry=30", "deck_jokers=0", "deck_good_shields=3"]))
    t2 = c2.names["deck_types"]
    assert len(t2) == 30 + 21 + 22 and t2.count("joker") == 0
    assert c2.names["deck_shields"].count("good") == 3


def test_mt_3_2_minas_tirith_deck(comp):
    """MT-3.2: the 16-card Minas Tirith deck."""
    inst = comp.names["card_instance_name"]
    assert len(inst) == 16
    assert inst.count("Reinforcements from Mordor") == 3
    assert inst.count("Siege Tower") == 2 and inst.count("Grond") == 1


def test_params_defaults_match_toml(game):
    """Every parameter is in the TOML's [params] table at its default."""
    from lotr_sim.config import configs_dir, load_toml
    raw = load_toml(configs_dir() / "games" / "minas-tirith.toml")["params"]
    for p in game.params():
        assert raw[p.name] == p.default, p.name
    assert set(raw) == {p.name for p in game.params()}


def test_overrides_and_user_config(game, tmp_path):
    cfg = game.load(None, ["hand_limit=8", "retreat_trigger=off"])
    assert cfg.params["hand_limit"] == 8 and cfg.params["retreat_trigger"] == "off"
    f = _write(tmp_path, """
        [params]
        points_gate = 5
        [pools.evil]
        infantry = 45
    """)
    cfg = game.load(f, ["points_wall=4"])
    assert cfg.params["points_gate"] == 5 and cfg.params["points_wall"] == 4
    assert cfg.data["pools"]["evil"]["infantry"] == 45
    assert cfg.data["pools"]["evil"]["troll"] == 6  # merged, not replaced


@pytest.mark.parametrize("text, needle", [
    ('[params]\nhand_limt = 4\n', "did you mean 'hand_limit'"),
    ('[params]\nretreat_trigger = "sometimes"\n', "retreat_trigger"),
    ('[board]\ngrond_territory = "Gate Feld"\n', "unknown territory 'Gate Feld'"),
    ('[board]\ngrond_territory = "Gate Field"\nedges = [["Minas Tirith", "Minas Tirith", "land"]]\n', "to itself"),
    ('[board]\ngrond_territory = "Gate Field"\nedges = [["Minas Tirith", "Gate Field", "moat"]]\n', "unknown kind 'moat'"),
    ('[board]\ngrond_territory = "Gate Field"\nedges = [["Minas Tirith", "Gate Field", "gate"], '
     '["Gate Field", "Minas Tirith", "land"]]\n', "symmetric"),
    ('[pools.good]\narcher = 3\n', "the pool holds 3"),
    ('[params]\ndeck_good_shields = 40\ndeck_evil_shields = 40\n', "shields exceed"),
    ('[params]\ndeck_infantry = 0\ndeck_cavalry = 0\ndeck_creature = 0\ndeck_jokers = 0\ndeck_good_shields = 0\ndeck_evil_shields = 0\n', "empty"),
    ('[setup.good."Nowhere"]\ninfantry = 1\n', "unknown territory 'Nowhere'"),
    ('[[mt_cards]]\nname = "X"\nsides = ["good"]\nkind = "banana"\n', "unknown kind 'banana'"),
    ('[params]\nleaders_to_win = 3\n[[leaders]]\nname="A"\nside="evil"\n', "leaders"),
    ('this is = = not toml', "not valid TOML"),
])
def test_broken_config_is_one_clear_error(game, tmp_path, text, needle):
    f = _write(tmp_path, text)
    with pytest.raises(ConfigError) as e:
        game.load(f)
    msg = str(e.value)
    assert needle in msg
    assert "\n" not in msg


def test_bad_override_values(game):
    with pytest.raises(ConfigError, match="outside"):
        game.load(None, ["hand_limit=99"])
    with pytest.raises(ConfigError, match="did you mean 'leave_one_behind'"):
        game.load(None, ["leave_one_behnd=true"])
    with pytest.raises(ConfigError, match="not found"):
        game.load("/nonexistent/x.toml")
