"""two rule bugs found by an audit of traced games.

* MT-6.4 via MT-5.4 (c): a bonus-trade unit was placed on a wall whatever its type (a mounted
  archer on East Wall). No cavalry, nor Evil creature, may stand on a wall by any route.
* MT-9.1: the Siege Tower's +1 was given to an Evil assault *from* a wall down to the field;
  it applies only to assaults onto a wall, in the engine and in the odds the AI reads.
"""
import pytest

from lotr_sim.games.minas_tirith import board as B
from lotr_sim.games.minas_tirith import combat as CB
from lotr_sim.games.minas_tirith import config as C
from lotr_sim.games.minas_tirith import layout as L
from lotr_sim.games.minas_tirith import policies as PO
from lotr_sim.games.minas_tirith.position import Position

WALLS = ("North Wall", "East Wall", "South Wall")
# four cards that make no second set: with a set of three, 7 cards force a trade (MT-5.6)
FILLER = ["infantry", "infantry", "creature", "creature"]
FILLER_EVIL = ["infantry", "infantry", "cavalry", "cavalry"]


def _no_mounted_unit_on_walls(p):
    """(territory, side, unit) of every cavalry or creature standing on a wall."""
    bad = []
    for w in WALLS:
        t = p.t(w)
        for u, (name, side) in enumerate(zip(p.names["unit_types"], p.names["unit_sides"])):
            if p.cf[C.O_UCLS + u] != 0 and p.st[L.O_UNITS + t * C.MAXU + u] > 0:
                bad.append((w, side, name))
    return bad


# ---------------------------------------------------------------- MT-6.4 via MT-5.4 (c)
@pytest.mark.parametrize("policy", ["greedy", "random"])
def test_mt_6_4_bonus_cavalry_never_placed_on_a_wall(comp, policy):
    """Good holds only a wall and trades three cavalry cards with its own shield: the bonus
    unit (MT-5.4 c) may be a cavalry or a mounted archer, and neither may stand on a wall
    (MT-6.4), so the bonus unit goes nowhere (or another bonus is taken)."""
    for seed in range(40):
        p = Position(comp, policies=(policy, policy), seed=seed)
        p.set_units("East Wall", "good", "infantry", 2)
        p.st[L.S_MTTOP] = p.cf[C.C_NC]  # Minas Tirith deck empty, no discards: only bonus (c) is left
        p.hand("good", ["cavalry:good", "cavalry:good", "cavalry"] + FILLER)  # 7 cards: must trade
        ev = p.card_phase("good")
        tr = [e for e in ev if e["event"] == "trade"]
        assert tr, "the set was traded"
        assert _no_mounted_unit_on_walls(p) == [], (seed, tr)
        assert tr[0].get("bonus_territory") not in WALLS
        assert p.invariant()


def test_mt_6_4_bonus_unit_still_placed_where_legal(comp):
    """The fix does not drop the bonus: with a field territory held too, the cavalry goes there."""
    placed = 0
    for seed in range(20):
        p = Position(comp, policies=("random", "random"), seed=seed)
        p.set_units("East Wall", "good", "infantry", 2)
        p.set_units("Pelennor North", "good", "infantry", 1)
        p.st[L.S_MTTOP] = p.cf[C.C_NC]
        p.hand("good", ["cavalry:good", "cavalry:good", "cavalry"] + FILLER)
        ev = p.card_phase("good")
        tr = [e for e in ev if e["event"] == "trade"][0]
        assert tr["bonus"] == "unit"
        assert tr["bonus_territory"] == "Pelennor North"
        assert tr["bonus_unit"] in ("cavalry", "mounted_archer")
        placed += 1
    assert placed == 20


@pytest.mark.parametrize("policy", ["greedy", "random"])
def test_mt_6_6_bonus_creature_never_placed_on_a_wall(comp, policy):
    """Evil holding a wall (after a climb) trades creature cards with its shield: a troll or
    mumak may not be put on the wall (MT-6.6: only infantry climb)."""
    for seed in range(40):
        p = Position(comp, policies=(policy, policy), seed=seed)
        p.set_units("North Wall", "evil", "infantry", 2)
        p.give_card("evil", "Siege Tower")
        p.st[L.S_MTTOP] = p.cf[C.C_NC]
        p.hand("evil", ["creature:evil", "creature:evil", "creature"] + FILLER_EVIL)
        ev = p.card_phase("evil")
        assert [e for e in ev if e["event"] == "trade"]
        assert _no_mounted_unit_on_walls(p) == []
        assert p.invariant()


def test_mt_9_7_muster_of_cavalry_never_on_a_wall(game):
    """A designer's Muster card that names cavalry puts it only where cavalry may stand."""
    cfg = game.load(None)
    for c in cfg.data["mt_cards"]:
        if c["kind"] == "muster":
            c["units"] = {"cavalry": 2, "infantry": 1}
    comp = game.compile(cfg)
    for seed in range(20):
        p = Position(comp, policies=("greedy", "greedy"), seed=seed)
        p.set_units("East Wall", "good", "infantry", 2)
        p.set_units("South Wall", "good", "archer", 1)
        p.set_units("Harlond", "good", "infantry", 1)
        p.give_card("good", "Muster of Gondor")
        p.card_phase("good")
        assert _no_mounted_unit_on_walls(p) == []
        assert p.units("Harlond", "good", "cavalry") == 2
        assert p.invariant()


@pytest.mark.slow
@pytest.mark.parametrize("g,e", [("random", "random"), ("greedy", "random"), ("aggressive", "aggressive")])
def test_mt_6_4_no_cavalry_or_creature_on_a_wall_in_whole_games(game, comp, g, e):
    """By any route (moves, retreats, bonus units, musters, holder cards, cavalry move-in):
    the debug check flags a cavalry or creature on a wall after every action (MT-6.4, MT-6.6)."""
    r = game.simulate(comp, {"good": g, "evil": e}, seed=101, first=0, n=1500, threads=2, debug=True)
    assert r["invariant_broken"].sum() == 0


def test_mt_6_4_wall_check_can_fail(comp):
    p = Position(comp)
    p.set_units("East Wall", "good", "infantry", 1)
    assert B.walls_ok_nb(p.cf, p.st)
    p.set_units("East Wall", "good", "mounted_archer", 1)
    assert not B.walls_ok_nb(p.cf, p.st)


def test_mt_6_4_audit_game_seed_101_index_3(game, comp):
    """The audit's game (seed 101, index 3, random v random) no longer puts a mounted unit on a wall."""
    _, events = game.play(comp, {"good": "random", "evil": "random"}, 101, 3, debug=True)
    for ev in events:
        if ev["event"] == "place" and ev["territory"] in WALLS:
            assert set(ev["units"]) <= {"infantry", "archer", "crossbow"}, ev
        if ev["event"] in ("setup", "turn_start"):
            for w in WALLS:
                for side, units in ev["units"].get(w, {}).items():
                    assert set(units) <= {"infantry", "archer", "crossbow"}, (ev["turn"], w, units)


# ---------------------------------------------------------------- MT-9.1 siege tower bonus
def _tower_position(comp):
    p = Position(comp)
    p.set_units("East Wall", "evil", "infantry", 3)
    p.set_units("Pelennor North", "good", "cavalry", 2)
    p.give_card("evil", "Siege Tower")
    return p


def test_mt_9_1_tower_bonus_not_for_an_assault_from_a_wall(comp):
    """Evil on East Wall assaults Pelennor North (down a climb edge): no tower bonus."""
    p = _tower_position(comp)
    ab, db, wk = CB.assault_bonus_nb(p.cf, p.st, 1, p.t("East Wall"), p.t("Pelennor North"))
    assert (ab, db, wk) == (0, 0, 0)
    ev = p.assault("East Wall", "Pelennor North", 3, side="evil")
    assert ev[0]["event"] == "assault" and ev[0]["att_bonus"] == 0


def test_mt_9_1_tower_bonus_still_given_onto_a_wall(comp):
    p = Position(comp)
    p.set_units("Pelennor North", "evil", "infantry", 3)
    p.set_units("East Wall", "good", "archer", 2)
    p.give_card("evil", "Siege Tower")
    ab, db, _ = CB.assault_bonus_nb(p.cf, p.st, 1, p.t("Pelennor North"), p.t("East Wall"))
    assert (ab, db) == (1, 1)


def test_mt_9_1_ai_odds_from_a_wall_without_tower_bonus(comp):
    """The odds the AI reads (winp_nb) use the same modifiers: from a wall, no +1."""
    p = _tower_position(comp)
    B.refresh_tot_nb(p.cf, p.st)
    a, b = p.t("East Wall"), p.t("Pelennor North")
    got = PO.winp_nb(p.cf, p.st, comp.wp, 1, a, b, 3)
    assert got == pytest.approx(comp.wp[1, 0, 0, 0, 3, 2])
    assert got != pytest.approx(comp.wp[1, 0, 1, 0, 3, 2])
    q = Position(comp)
    q.set_units("Pelennor North", "evil", "infantry", 3)
    q.set_units("East Wall", "good", "archer", 2)
    q.give_card("evil", "Siege Tower")
    B.refresh_tot_nb(q.cf, q.st)
    assert PO.winp_nb(q.cf, q.st, comp.wp, 1, b, a, 3) == pytest.approx(comp.wp[1, 0, 1, 1, 3, 2])


def test_mt_9_1_audit_game_seed_213_index_132(game):
    """The audit's game (seed 213, index 132, random v random, mission_card_base=4): turn 68's
    assault from East Wall down to Pelennor North has no tower bonus (random players never read
    the odds, so the game is the same up to that roll)."""
    c = game.compile(game.load(None, ["mission_card_base=4"]))
    _, events = game.play(c, {"good": "random", "evil": "random"}, 213, 132)
    hits = [e for e in events if e["event"] == "assault" and e["turn"] == 68
            and e["from"] == "East Wall" and e["to"] == "Pelennor North"]
    assert hits
    assert all(e["att_bonus"] == 0 for e in hits), hits
