"""Rules MT-1 ... MT-10 on small hand-made positions (lotr_sim.games.minas_tirith.position)."""
import numpy as np
import pytest

from lotr_sim.games.minas_tirith import board as B
from lotr_sim.games.minas_tirith import combat as CB
from lotr_sim.games.minas_tirith import config as C
from lotr_sim.games.minas_tirith import layout as L
from lotr_sim.games.minas_tirith import policies as PO
from lotr_sim.games.minas_tirith.position import Position

INF, CAV, CRE, LEADER = 0, 1, 2, 3


@pytest.fixture(scope="module")
def comp_with(game):
    cache = {}

    def get(*sets):
        if sets not in cache:
            cache[sets] = game.compile(game.load(None, list(sets)))
        return cache[sets]
    return get


def kinds(acts):
    return [tuple(int(x) for x in r) for r in acts]


def first_event(events, name):
    return [e for e in events if e["event"] == name]


# ---------------------------------------------------------------- MT-1
def test_mt_1_5_creature_hits(comp_with):
    """MT-1.5 [R]: with creature_hits = 2 a troll absorbs one loss and dies at the second."""
    for hits, alive_after_one in ((1, 0), (2, 1)):
        p = Position(comp_with(f"creature_hits={hits}"))
        p.set_units("Causeway", "evil", "troll", 1)
        t = p.t("Causeway")
        CB.take_losses_nb(p.cf, p.st, p.tr, 1, t, 1, 0, False, False)
        assert p.units("Causeway", "evil", "troll") == alive_after_one
        assert p.invariant()
    CB.take_losses_nb(p.cf, p.st, p.tr, 1, t, 1, 0, False, False)
    assert p.units("Causeway", "evil", "troll") == 0
    ev = p._events()
    assert [e["event"] for e in ev] == ["capture"] and ev[0]["by"] == "good"


def test_mt_1_4_conservation_on_positions(pos):
    p = pos()
    assert p.invariant()
    p.set_units("Gate Field", "good", "infantry", 5)
    p.set_units("Causeway", "evil", "infantry", 5)
    for _ in range(6):
        p.assault("Gate Field", "Causeway", 3, side="good")
        assert p.invariant()


# ---------------------------------------------------------------- MT-5 cards
def test_mt_5_2_sets_three_of_a_kind_jokers_wild(pos):
    p = pos()
    p.hand("good", ["infantry", "infantry", "joker"])
    ev = p.card_phase("good")
    tr = first_event(ev, "trade")
    assert len(tr) == 1 and tr[0]["set"] == "infantry"
    assert sorted(c["type"] for c in tr[0]["cards"]) == ["infantry", "infantry", "joker"]
    p = pos()
    p.hand("good", ["infantry", "cavalry", "creature"])  # one of each is NOT a set
    ev = p.card_phase("good")
    assert not first_event(ev, "trade")
    assert p.st[L.S_HN + 0] == 3


def test_mt_5_3_trade_draws_minas_tirith_card(pos):
    """MT-5.3: each trade draws the top Minas Tirith card; kept only if usable by the side."""
    seen_kept = seen_discarded = 0
    for seed in range(30):
        p = pos(seed=seed)
        p.hand("good", ["cavalry", "cavalry", "cavalry"])
        tr = first_event(p.card_phase("good"), "trade")[0]
        idx = p.names["card_instance_name"].index(tr["mt_card"].split(" #")[0])
        usable = bool(p.cf[C.O_CSIDES + idx] & 1)
        assert tr["mt_kept"] == usable
        seen_kept += usable
        seen_discarded += not usable
    assert seen_kept and seen_discarded


def test_mt_5_4_bonus_trade_only_with_own_shield(pos):
    p = pos()
    p.hand("evil", ["infantry:evil", "infantry", "infantry"])
    tr = first_event(p.card_phase("evil"), "trade")[0]
    assert tr["bonus"] == "draw_two" and len(tr["bonus_drawn"]) == 2
    p = pos()
    p.hand("evil", ["infantry:good", "infantry", "infantry"])  # Good's shield: no bonus for Evil
    tr = first_event(p.card_phase("evil"), "trade")[0]
    assert tr["bonus"] is None


def test_mt_5_4_bonus_unit_random_player(pos):
    """MT-5.4 c: the unit bonus places one unit of the card's type where the side has units."""
    found = False
    for seed in range(60):
        p = pos(policies=("random", "random"), seed=seed)
        p.set_units("Minas Tirith", "good", "infantry", 2)
        p.hand("good", ["creature:good", "creature", "creature"])
        ev = p.card_phase("good")
        tr = first_event(ev, "trade")
        if tr and tr[0]["bonus"] == "unit":
            # good_creature_as_infantry: Good takes an infantry (or archer) for a creature card
            assert tr[0]["bonus_unit"] in ("infantry", "archer")
            assert tr[0]["bonus_territory"] == "Minas Tirith"
            assert p.units("Minas Tirith", "good") == 3
            assert p.invariant()
            found = True
            break
    assert found


def test_mt_5_5_loading_holder_cards(pos):
    p = pos()
    c = p.give_card("good", "Theoden and the Riders of Rohan")
    pool_before = int(p.st[L.O_POOL + p.u("good", "cavalry")]) + int(p.st[L.O_POOL + p.u("good", "mounted_archer")])
    p.hand("good", ["cavalry"])
    ev = p.card_phase("good")
    ld = first_event(ev, "load")
    assert len(ld) == 1 and set(ld[0]["units"]) <= {"cavalry", "mounted_archer"}
    assert p.st[L.O_HOLD + c * C.MAXU: L.O_HOLD + c * C.MAXU + C.MAXU].sum() == 1
    pool_after = int(p.st[L.O_POOL + p.u("good", "cavalry")]) + int(p.st[L.O_POOL + p.u("good", "mounted_archer")])
    assert pool_after == pool_before - 1
    assert p.invariant()


def test_mt_5_6_hand_limit_discards_without_set(comp_with):
    p = Position(comp_with("hand_limit=3"))
    p.hand("good", ["infantry", "infantry", "cavalry", "cavalry", "creature"])
    ev = p.card_phase("good")
    d = first_event(ev, "discard")
    assert len(d) == 1 and len(d[0]["cards"]) == 2
    assert p.st[L.S_HN + 0] == 3
    p = Position(comp_with("hand_limit=3", "hand_limit_discard=false"))
    p.hand("good", ["infantry", "infantry", "cavalry", "cavalry", "creature"])
    p.card_phase("good")
    assert p.st[L.S_HN + 0] == 5


# ---------------------------------------------------------------- MT-6 movement
def test_mt_6_2_a_move_and_6_3_no_entry_to_enemy(pos):
    p = pos()
    p.set_units("Causeway", "evil", "infantry", 4)
    p.set_units("Gate Field", "good", "infantry", 2)
    acts = kinds(p.actions("evil"))
    gf, cw = p.t("Gate Field"), p.t("Causeway")
    assert any(a[0] == L.A_ASSAULT and a[1] == cw and a[2] == gf for a in acts)
    assert not any(a[0] in (L.A_MOVE, L.A_CAV2) and (a[2] == gf or (a[0] == L.A_CAV2 and a[5] == gf))
                   for a in acts)
    ev = p.move("Causeway", "East Fields", 4)
    assert ev[0]["event"] == "move" and ev[0]["units"] == {"infantry": 4} and ev[0]["cost"] == 1
    assert p.units("East Fields", "evil") == 4


def test_mt_6_2_c_cavalry_double_move(pos):
    p = pos()
    p.set_units("Pelennor North", "good", "cavalry", 3)
    p.set_units("Gate Field", "good", "infantry", 1)
    acts = kinds(p.actions("good"))
    pn, gf, cw = p.t("Pelennor North"), p.t("Gate Field"), p.t("Causeway")
    assert (L.A_CAV2, pn, gf, 3, 1, cw) in acts
    # not through a territory without own units
    assert not any(a[0] == L.A_CAV2 and a[2] == p.t("North Fields") for a in acts)
    ev = p.move("Pelennor North", "Causeway", 3, via="Gate Field")
    assert ev[0]["path"] == ["Pelennor North", "Gate Field", "Causeway"]
    assert p.units("Causeway", "good", "cavalry") == 3


def test_mt_6_2_d_leader_alone(pos):
    p = pos()
    p.set_units("Minas Tirith", "good", "infantry", 2)
    p.set_units("Gate Field", "good", "infantry", 1)
    p.set_units("Causeway", "good", "infantry", 1)
    p.set_units("Causeway Fort North", "good", "infantry", 1)
    p.put_leader("Denethor", "Minas Tirith")
    acts = kinds(p.actions("good"))
    l = p.leader("Denethor")
    dests = {p.names["territories"][a[2]] for a in acts if a[0] == L.A_LMOVE and a[1] == l}
    assert dests == {"Gate Field", "Causeway", "Causeway Fort North"}  # 1, 2, 3 steps via own troops


def test_mt_6_2_efg_holder_cards_enter_with_leader(pos):
    p = pos()
    p.set_units("Minas Tirith", "good", "infantry", 1)
    c = p.give_card("good", "Theoden and the Riders of Rohan")
    p.hand("good", ["cavalry"])
    p.card_phase("good")
    acts = kinds(p.actions("good"))
    entries = {p.names["territories"][a[2]] for a in acts if a[0] == L.A_HOLDER and a[1] == c}
    assert entries == {"Anorien", "Rammas North Gate"}
    ev = p.do("good", L.A_HOLDER, c, p.t("Anorien"))
    place = first_event(ev, "place")[0]
    assert place["leaders"] == ["Theoden"] and sum(place["units"].values()) == 1
    assert p.leader_loc("Theoden") == "Anorien"
    assert p.st[L.O_CST + c] == 3  # discarded
    assert p.invariant()
    # Evil: Mordor's reinforcements enter on Evil's edge only
    p.set_units("East Osgiliath", "good", "infantry", 1)
    m = p.give_card("evil", "Reinforcements from Mordor")
    acts = kinds(p.actions("evil"))
    entries = {p.names["territories"][a[2]] for a in acts if a[0] == L.A_HOLDER and a[1] == m}
    assert "East Osgiliath" not in entries and "Morgul Road" in entries and "Causeway" not in entries


def test_mt_6_2_h_exchange_mumak(pos):
    p = pos()
    p.set_units("South Ithilien", "evil", "mumak", 1)
    ev = p.do("evil", L.A_EXCHANGE, p.t("South Ithilien"))
    assert ev[0]["event"] == "exchange" and ev[0]["removed"] == {"mumak": 1} and ev[0]["added"] == {"infantry": 3}
    assert p.units("South Ithilien", "evil", "mumak") == 0
    assert p.units("South Ithilien", "evil", "infantry") == 3
    assert p.invariant()


def test_mt_6_4_walls(pos):
    p = pos()
    assert p.cross_ok("good", INF, "Minas Tirith", "North Wall")
    assert not p.cross_ok("good", CAV, "Minas Tirith", "North Wall")  # no cavalry on walls
    assert not p.cross_ok("good", INF, "North Wall", "Pelennor North")  # down to the city first
    assert p.cross_ok("good", INF, "North Wall", "East Wall")
    assert p.cross_ok("good", LEADER, "Minas Tirith", "East Wall")


def test_mt_6_5_gate(pos):
    p = pos()
    assert p.cross_ok("good", CAV, "Minas Tirith", "Gate Field")
    assert p.cross_ok("good", INF, "Gate Field", "Minas Tirith")
    assert not p.cross_ok("evil", INF, "Gate Field", "Minas Tirith")
    p.give_card("evil", "Grond")
    assert p.cross_ok("evil", CRE, "Gate Field", "Minas Tirith")


def test_mt_6_6_climbing_needs_siege_cards(pos):
    p = pos()
    assert not p.cross_ok("evil", INF, "Pelennor North", "North Wall")
    p.give_card("evil", "Scaling Ladders")
    assert p.cross_ok("evil", INF, "Pelennor North", "North Wall")
    assert p.cross_ok("evil", LEADER, "Pelennor North", "North Wall")
    assert not p.cross_ok("evil", CAV, "Pelennor North", "North Wall")
    assert not p.cross_ok("evil", CRE, "Pelennor North", "North Wall")
    assert p.cross_ok("evil", INF, "North Wall", "Minas Tirith")  # from a wall into the city
    assert not p.cross_ok("evil", INF, "Pelennor North", "Minas Tirith")  # not adjacent


# ---------------------------------------------------------------- MT-7 combat
def test_mt_7_2_bombard_banner_divisor_and_once_per_turn(pos):
    p = pos()
    p.set_units("Pelennor North", "evil", "crossbow", 2)
    p.set_units("North Wall", "good", "archer", 2)
    acts = kinds(p.actions("evil"))
    bw = [a for a in acts if a[0] == L.A_BOMBARD and a[2] == p.t("North Wall")]
    assert bw and bw[0][3] == 2 and bw[0][4] == 1  # 2 shooters -> 1 die against a banner
    ev = p.bombard("Pelennor North", "North Wall", 2, side="evil")
    b = ev[0]
    assert b["event"] == "bombard" and b["dice"] == 1 and b["banner"] is True
    assert len(first_event(ev, "capture")) == b["hits"]
    acts = kinds(p.actions("evil"))
    assert not any(a[0] == L.A_BOMBARD for a in acts)  # each shooter once per turn
    p = pos()
    p.set_units("Pelennor North", "evil", "crossbow", 1)
    p.set_units("North Wall", "good", "archer", 2)
    assert not any(a[0] == L.A_BOMBARD and a[2] == p.t("North Wall") for a in kinds(p.actions("evil")))


def test_mt_7_2_bombard_range_archers_2_catapult_3(pos):
    p = pos()
    p.set_units("North Wall", "good", "archer", 3)
    p.set_units("East Fields", "evil", "infantry", 1)     # distance 2
    p.set_units("Rammas North-East", "evil", "infantry", 1)  # distance 3
    acts = kinds(p.actions("good"))
    tg = {p.names["territories"][a[2]] for a in acts if a[0] == L.A_BOMBARD}
    assert tg == {"East Fields"}
    c = p.give_card("good", "Catapult")
    p.do("good", L.A_CATAPULT, c, p.t("North Wall"))
    acts = kinds(p.actions("good"))
    tg = {p.names["territories"][a[2]]: a[3] for a in acts if a[0] == L.A_BOMBARD}
    assert tg["Rammas North-East"] == 1 and tg["East Fields"] == 3


def test_mt_7_2_bombard_hit_rate(pos):
    """Each bombard die hits on a 6 (z-test against 1/6)."""
    p = pos()
    p.set_units("North Wall", "good", "archer", 3)
    p.set_units("Pelennor North", "evil", "infantry", 40)
    saved = p.st.copy()
    hits = dice = 0
    for _ in range(1500):
        p.st[:] = saved
        ev = p.bombard("North Wall", "Pelennor North", 3, side="good")
        hits += ev[0]["hits"]
        dice += ev[0]["dice"]
    z = (hits - dice / 6) / np.sqrt(dice * (1 / 6) * (5 / 6))
    assert abs(z) < 4


def test_mt_7_3_dice_counts_and_leave_one_behind(pos, comp_with):
    p = pos()
    p.set_units("Causeway", "evil", "infantry", 5)
    p.set_units("Gate Field", "good", "infantry", 1)
    acts = kinds(p.actions("evil"))
    ks = sorted(a[3] for a in acts if a[0] == L.A_ASSAULT)
    assert ks == [1, 2, 3]
    ev = p.assault("Causeway", "Gate Field", 3, side="evil")
    assert ev[0]["att_dice"] == 3 and ev[0]["def_dice"] == 1
    p = pos()
    p.set_units("Causeway", "evil", "infantry", 1)
    p.set_units("Gate Field", "good", "infantry", 4)
    ev = p.assault("Causeway", "Gate Field", 1, side="evil")
    assert ev[0]["att_dice"] == 1 and ev[0]["def_dice"] == 2  # 2 dice even against one
    p = Position(comp_with("leave_one_behind=true"))
    p.set_units("Causeway", "evil", "infantry", 2)
    p.set_units("Gate Field", "good", "infantry", 1)
    assert sorted(a[3] for a in kinds(p.actions("evil")) if a[0] == L.A_ASSAULT) == [1]


def test_mt_7_4_one_roll_matches_exact_law(comp_with):
    """MT-7.4: P(defender loses 2) for 3 v 2 dice, no bonus = 2890/7776 (|z| < 4)."""
    p = Position(comp_with("retreat_trigger=off"))
    p.set_units("Gate Field", "good", "infantry", 3)
    p.set_units("Causeway", "evil", "infantry", 5)
    saved = p.st.copy()
    n = 3000
    k = 0
    for _ in range(n):
        p.st[:] = saved
        ev = p.assault("Gate Field", "Causeway", 3, side="good")
        a = ev[0]
        assert a["att_losses"] + a["def_losses"] == 2
        k += a["def_losses"] == 2
    q = 2890 / 7776
    assert abs((k - n * q) / np.sqrt(n * q * (1 - q))) < 4


def _find(make, setup, action, pred, tries=400):
    for seed in range(tries):
        p = make(seed)
        setup(p)
        ev = action(p)
        if pred(ev):
            return p, ev
    raise AssertionError("no seed produced the situation")


def test_mt_7_5_good_six_makes_evil_defenders_retreat(pos):
    def setup(p):
        p.set_units("Gate Field", "good", "infantry", 3)
        p.set_units("Causeway", "evil", "infantry", 10)
        p.put_leader("Gothmog", "Causeway")

    p, ev = _find(lambda s: pos(seed=s), setup, lambda p: p.assault("Gate Field", "Causeway", 3, side="good"),
                  lambda ev: any(e["event"] == "retreat" for e in ev))
    r = first_event(ev, "retreat")[0]
    assert r["retreating"] == "evil" and r["from"] == "Causeway" and len(r["path"]) >= 1
    de = {n: p.cf[C.O_DEVIL + i] for i, n in enumerate(p.names["territories"])}
    chain = ["Causeway"] + r["path"]
    assert all(de[b] < de[a] for a, b in zip(chain, chain[1:]))
    assert p.units("Causeway", "evil") == 0
    assert p.leader_loc("Gothmog") == r["path"][-1] and r["leaders"] == ["Gothmog"]
    assert p.invariant()


def test_mt_7_5_blocked_retreat_loses_units(pos):
    def setup(p):
        p.set_units("West Osgiliath", "good", "infantry", 3)
        p.set_units("East Osgiliath", "evil", "infantry", 10)  # on Evil's edge: cannot retreat

    p, ev = _find(lambda s: pos(seed=s), setup,
                  lambda p: p.assault("West Osgiliath", "East Osgiliath", 3, side="good"),
                  lambda ev: any(e["event"] == "retreat" for e in ev))
    r = first_event(ev, "retreat")[0]
    assert r["path"] == [] and r["losses"] >= 1
    after = ev[ev.index(r) + 1:]
    assert len([e for e in after if e["event"] == "capture"]) == r["losses"]
    a = ev[0]
    assert p.units("East Osgiliath", "evil") == 10 - a["def_losses"] - r["losses"]


def test_mt_7_5_evil_attack_ends_on_good_defending_six(pos):
    def setup(p):
        p.set_units("Causeway", "evil", "infantry", 10)
        p.set_units("Gate Field", "good", "infantry", 5)

    p, ev = _find(lambda s: pos(seed=s), setup, lambda p: p.assault("Causeway", "Gate Field", 3, side="evil"),
                  lambda ev: any(e["event"] == "retreat" for e in ev))
    r = first_event(ev, "retreat")[0]
    assert r["retreating"] == "evil" and r["from"] == "Causeway"
    assert sum(r["units"].values()) <= 3  # only the attacking units
    assert p.st[L.S_TURNEND] == 1


def test_mt_7_5_witch_king_reversal(pos):
    def setup(p):
        p.set_units("Causeway", "evil", "infantry", 10)
        p.put_leader("Witch-king", "Causeway")
        p.set_units("Gate Field", "good", "infantry", 5)

    p, ev = _find(lambda s: pos(seed=s), setup, lambda p: p.assault("Causeway", "Gate Field", 3, side="evil"),
                  lambda ev: any(e["event"] == "retreat" and e["retreating"] == "good" for e in ev))
    r = first_event(ev, "retreat")[0]
    assert r["from"] == "Gate Field"
    assert r["path"] == ["Minas Tirith"] or r["losses"] > 0
    assert p.units("Gate Field", "good") == 0 or r["path"] == []
    # without the Witch-king, Good never retreats
    for seed in range(60):
        q = pos(seed=seed)
        q.set_units("Causeway", "evil", "infantry", 10)
        q.set_units("Gate Field", "good", "infantry", 5)
        evs = q.assault("Causeway", "Gate Field", 3, side="evil")
        assert not any(e["event"] == "retreat" and e["retreating"] == "good" for e in evs)


def test_mt_7_5_retreat_trigger_off(comp_with):
    for seed in range(40):
        p = Position(comp_with("retreat_trigger=off"), seed=seed)
        p.set_units("Gate Field", "good", "infantry", 3)
        p.set_units("Causeway", "evil", "infantry", 10)
        ev = p.assault("Gate Field", "Causeway", 3, side="good")
        assert not first_event(ev, "retreat")


def test_mt_7_6_free_cavalry_move_in(pos):
    def setup(p):
        p.set_units("Gate Field", "good", "cavalry", 3)
        p.set_units("Causeway", "evil", "infantry", 1)

    p, ev = _find(lambda s: pos(seed=s), setup, lambda p: p.assault("Gate Field", "Causeway", 3, side="good"),
                  lambda ev: ev[0]["def_losses"] == 1 and not any(e["event"] == "retreat" for e in ev))
    mv = first_event(ev, "move")
    assert mv and mv[0]["cost"] == 0 and mv[0]["to"] == "Causeway"
    assert p.units("Causeway", "good", "cavalry") == 3 - ev[0]["att_losses"]


# ---------------------------------------------------------------- MT-8 leaders
def test_mt_8_2_modifiers(pos):
    p = pos()
    p.set_units("Causeway", "evil", "infantry", 5)
    p.set_units("Causeway Fort North", "good", "infantry", 2)
    p.put_leader("Faramir", "Causeway Fort North")
    ev = p.assault("Causeway", "Causeway Fort North", 3, side="evil")
    assert ev[0]["att_bonus"] == 0 and ev[0]["def_bonus"] == 2  # leader and banner
    p = pos()
    p.set_units("Pelennor North", "evil", "infantry", 5)
    p.put_leader("Gothmog", "Pelennor North")
    p.set_units("North Wall", "good", "archer", 2)
    p.give_card("evil", "Siege Tower")
    ev = p.assault("Pelennor North", "North Wall", 3, side="evil")
    assert ev[0]["att_bonus"] == 2 and ev[0]["def_bonus"] == 1  # leader+tower / banner
    p = pos()
    p.set_units("Pelennor North", "evil", "infantry", 5)
    p.set_units("North Wall", "good", "archer", 2)
    p.give_card("evil", "Scaling Ladders")
    ev = p.assault("Pelennor North", "North Wall", 3, side="evil")
    assert ev[0]["att_bonus"] == 0  # ladders: access, no bonus (MT-9.2)
    p = pos()
    p.set_units("Gate Field", "good", "infantry", 3)
    p.put_leader("Denethor", "Gate Field")
    p.set_units("Causeway", "evil", "infantry", 3)
    ev = p.assault("Gate Field", "Causeway", 3, side="good")
    assert ev[0]["att_bonus"] == 1 and ev[0]["def_bonus"] == 0  # no banner bonus for Evil


def test_mt_8_3_leaders_removed_at_end_of_turn(pos):
    p = pos()
    p.set_units("Minas Tirith", "good", "infantry", 2)
    p.put_leader("Denethor", "Minas Tirith")
    p.put_leader("Faramir", "Minas Tirith")     # same colour (green): one goes
    p.put_leader("Gandalf", None)
    p.st[L.O_LLOC + p.leader("Gandalf")] = p.t("Minas Tirith")  # yellow with green: fine
    p.put_leader("Theoden", "Gate Field")        # alone: removed
    ev = p.end_turn("good")
    rem = {e["name"]: e["why"] for e in ev if e["event"] == "leader_removed"}
    assert rem == {"Theoden": "alone", "Faramir": "same_colour"}
    assert p.leader_loc("Theoden") == "pool" and p.leader_loc("Denethor") == "Minas Tirith"
    assert p.leader_loc("Gandalf") == "Minas Tirith"
    q = pos()
    q.set_units("Morgul Road", "evil", "infantry", 1)
    q.put_leader("Witch-king", "Morgul Road")
    q.put_leader("Gothmog", "Morgul Road")       # red with black: fine
    assert not [e for e in q.end_turn("evil") if e["event"] == "leader_removed"]


def test_mt_8_3_removed_to_captured_param(comp_with):
    p = Position(comp_with("leader_removed_to=captured"))
    p.put_leader("Gothmog", "Causeway")
    ev = p.end_turn("evil")
    assert ev[0]["to"] == "captured"
    assert p.st[L.S_LCAP + 0] == 1


def test_mt_8_4_leader_captured_with_last_unit(pos, comp_with):
    def setup(p):
        p.set_units("Gate Field", "good", "infantry", 3)
        p.set_units("Causeway", "evil", "infantry", 1)
        p.put_leader("Gothmog", "Causeway")

    p, ev = _find(lambda s: pos(seed=s), setup, lambda p: p.assault("Gate Field", "Causeway", 3, side="good"),
                  lambda ev: ev[0]["def_losses"] == 1)
    caps = [e for e in ev if e["event"] == "capture" and "leader" in e]
    assert caps and caps[0]["leader"] == "Gothmog" and caps[0]["by"] == "good"
    assert p.leader_loc("Gothmog") == "captured"
    p, ev = _find(lambda s: Position(comp_with("leader_captured_with_last_unit=false"), seed=s), setup,
                  lambda p: p.assault("Gate Field", "Causeway", 3, side="good"),
                  lambda ev: ev[0]["def_losses"] == 1)
    assert p.leader_loc("Gothmog") == "pool"


# ---------------------------------------------------------------- MT-9 cards
def test_mt_9_3_grond_breaks_the_gate(pos):
    p = pos()
    p.set_units("Gate Field", "evil", "troll", 3)
    p.set_units("Minas Tirith", "good", "infantry", 3)
    p.give_card("evil", "Grond")
    acts = kinds(p.actions("evil"))
    assert any(a[0] == L.A_ASSAULT and a[2] == p.t("Minas Tirith") for a in acts)
    ev = p.assault("Gate Field", "Minas Tirith", 3, side="evil")
    assert any(e["event"] == "gate_broken" for e in ev)
    assert p.st[L.S_GATE] == 1
    pg, pe = p.points()
    assert pe >= 3


def test_mt_9_4_catapult_lost_when_territory_empty(pos):
    p = pos()
    p.set_units("Causeway", "evil", "infantry", 1)
    c = p.give_card("evil", "Catapult")
    p.do("evil", L.A_CATAPULT, c, p.t("Causeway"))
    assert p.st[L.O_CST + c] == 5 and p.st[L.O_CLOC + c] == p.t("Causeway")
    p.set_units("Causeway", "evil", "infantry", 0)
    CB.catapults_check_nb(p.cf, p.st, p.tr)
    ev = p._events()
    assert ev[0]["event"] == "catapult_lost" and p.st[L.O_CST + c] == 3


def test_mt_9_6_leader_card(pos):
    p = pos()
    p.set_units("Minas Tirith", "good", "infantry", 2)
    c = p.give_card("good", "Gandalf the White")
    acts = kinds(p.actions("good"))
    assert (L.A_LCARD, c, p.t("Minas Tirith"), 0, 0, 0) in acts
    ev = p.do("good", L.A_LCARD, c, p.t("Minas Tirith"))
    assert p.leader_loc("Gandalf") == "Minas Tirith"
    assert first_event(ev, "place")[0]["leaders"] == ["Gandalf"]


def test_mt_9_7_muster(pos):
    p = pos()
    p.set_units("Minas Tirith", "good", "infantry", 2)
    p.give_card("good", "Muster of Gondor")
    ev = p.card_phase("good")
    assert first_event(ev, "card_played")[0]["effect"] == "muster"
    assert p.units("Minas Tirith", "good", "infantry") == 4
    assert p.invariant()


# ---------------------------------------------------------------- MT-10 end
def test_mt_10_1_good_wins_with_two_leaders(pos):
    p = pos()
    for name in ("Gothmog", "Black Captain"):
        p.put_leader(name, "Causeway")
        CB.capture_leader_nb(p.cf, p.st, p.tr, p.leader(name), p.t("Causeway"))
    B.check_win_nb(p.cf, p.st, p.tr)
    assert p.over() == ("good", "leaders")


def test_mt_10_2_evil_wins_in_the_city(pos):
    p = pos()
    p.set_units("North Wall", "evil", "infantry", 2)
    p.give_card("evil", "Siege Tower")
    p.move("North Wall", "Minas Tirith", 2, side="evil")
    assert p.over() == ("evil", "city")


def test_mt_10_3_points(comp_with):
    p = Position(comp_with("points_wall=4", "points_cavalry=5"))
    p.set_units("North Wall", "evil", "infantry", 1)
    p.set_units("East Wall", "evil", "infantry", 1)
    p.st[L.S_GATE] = 1
    p.st[L.O_CAPT + p.u("good", "cavalry")] = 2     # Evil captured 2 cavalry
    p.st[L.O_CAPT + p.u("evil", "troll")] = 1       # Good captured a troll
    p.st[L.O_CAPT + p.u("evil", "infantry")] = 2
    p.st[L.S_LCAP + 0] = 1                            # Good captured one leader
    pg, pe = p.points()
    assert pg == 3 + 2 + 5
    assert pe == 2 * 5 + 2 * 4 + 3


def test_mt_2_2_rammas_is_ordinary_and_2_3_banners(pos):
    p = pos()
    for cls in (INF, CAV, CRE):
        assert p.cross_ok("evil", cls, "Anduin North Bank", "Rammas North-East")
        assert p.cross_ok("good", cls, "Rammas North-East", "North Fields")
    assert p.cf[C.O_BANNER + p.t("Causeway Fort North")] == 1
    assert p.cf[C.O_BANNER + p.t("Causeway")] == 0


def test_mt_8_1_leader_is_not_a_combat_unit(pos):
    p = pos()
    p.set_units("Causeway", "evil", "infantry", 1)
    p.put_leader("Gothmog", "Causeway")
    p.put_leader("Black Captain", "Causeway")
    p.set_units("Gate Field", "good", "infantry", 2)
    acts = kinds(p.actions("evil"))
    assert sorted(a[3] for a in acts if a[0] == L.A_ASSAULT) == [1]  # leaders roll no dice
    q = pos()
    q.put_leader("Gothmog", "Causeway")  # a leader alone holds nothing: no unit actions from there
    q.set_units("Gate Field", "good", "infantry", 2)
    assert not any(a[0] == L.A_ASSAULT for a in kinds(q.actions("evil")))


def test_mt_9_1_siege_tower_kept_and_gives_wall_access(pos):
    p = pos()
    p.set_units("Pelennor North", "evil", "infantry", 4)
    c = p.give_card("evil", "Siege Tower")
    acts = kinds(p.actions("evil"))
    nw = p.t("North Wall")
    assert any(a[0] == L.A_MOVE and a[2] == nw for a in acts)  # onto an empty wall
    p.move("Pelennor North", "North Wall", 4, side="evil")
    assert p.units("North Wall", "evil") == 4
    assert p.st[L.O_CST + c] == 2  # kept, not discarded
    assert p.points()[1] == 2  # MT-10.3: 2 points per wall section Evil occupies


def test_mt_9_2_ladders_without_bonus(pos):
    p = pos()
    p.set_units("Pelennor South", "evil", "infantry", 4)
    p.set_units("South Wall", "good", "archer", 1)
    assert not any(a[0] == L.A_ASSAULT for a in kinds(p.actions("evil")))
    p.give_card("evil", "Scaling Ladders")
    acts = kinds(p.actions("evil"))
    assert any(a[0] == L.A_ASSAULT and a[2] == p.t("South Wall") for a in acts)
    ev = p.assault("Pelennor South", "South Wall", 3, side="evil")
    assert ev[0]["att_bonus"] == 0 and ev[0]["def_bonus"] == 1


def test_mt_9_5_holder_capacity(comp_with):
    p = Position(comp_with("holder_capacity=2"))
    c = p.give_card("evil", "Reinforcements from Mordor")
    p.hand("evil", ["infantry", "cavalry", "creature", "infantry:evil"])
    ev = p.card_phase("evil")
    assert len(first_event(ev, "load")) == 2
    assert p.st[L.O_HOLD + c * C.MAXU: L.O_HOLD + (c + 1) * C.MAXU].sum() == 2
    assert p.invariant()


def test_mt_6_2_h_greedy_does_not_waste_a_mumak(pos):
    p = pos()
    p.set_units("South Ithilien", "evil", "mumak", 1)
    p.st[L.O_POOL + p.u("evil", "infantry")] = 0  # pool empty: the units are 'elsewhere'
    p.st[L.O_CAPT + p.u("evil", "infantry")] += 40
    acts = p.actions("evil")
    i = [k for k in range(len(acts)) if acts[k, 0] == L.A_EXCHANGE]
    assert i
    assert PO.score_action_nb(p.cf, p.st, p.comp.wp, p.pol, 1, acts, i[0]) < 0


# ---------------------------------------------------------------- parameters are wired
def test_param_blocked_retreat_loss_per_six(comp_with):
    """MT-7.5 [R]: a force that retreats one step and is then blocked loses one unit per step
    it could not take (per_step) or one per six rolled (per_six). Same seed, same dice."""
    def run(param, seed):
        p = Position(comp_with(f"blocked_retreat_loss={param}"), seed=seed)
        p.set_units("Causeway", "good", "infantry", 3)
        p.set_units("Causeway Fort North", "evil", "infantry", 10)
        p.set_units("East Osgiliath", "good", "infantry", 1)  # blocks the second step
        ev = p.assault("Causeway", "Causeway Fort North", 3, side="good")
        r = first_event(ev, "retreat")
        return r[0] if r else None

    for seed in range(600):
        a = run("per_step", seed)
        if a is not None and a["path"] == ["West Osgiliath"] and a["losses"] >= 1:
            b = run("per_six", seed)
            assert b["path"] == ["West Osgiliath"]
            assert b["losses"] == a["losses"] + 1  # sixes = steps taken + steps blocked
            return
    raise AssertionError("no two-six retreat found")


def test_param_bombard_loss_choice_shooter(comp_with):
    for choice, lost in (("owner", "infantry"), ("shooter", "troll")):
        c = comp_with(f"bombard_loss_choice={choice}")
        for seed in range(200):
            p = Position(c, seed=seed)
            p.set_units("North Wall", "good", "archer", 3)
            p.set_units("Pelennor North", "evil", "infantry", 3)
            p.set_units("Pelennor North", "evil", "troll", 3)
            ev = p.bombard("North Wall", "Pelennor North", 3, side="good")
            caps = first_event(ev, "capture")
            if caps:
                assert caps[0]["unit"] == lost
                break
        else:
            raise AssertionError("no hit")


def test_param_evil_banner_divisor(comp_with):
    for div, dice in ((1, 3), (3, 1)):
        p = Position(comp_with(f"evil_banner_divisor={div}"))
        p.set_units("Pelennor North", "evil", "crossbow", 3)
        p.set_units("North Wall", "good", "archer", 1)
        ev = p.bombard("Pelennor North", "North Wall", 3, side="evil")
        assert ev[0]["dice"] == dice


@pytest.mark.parametrize("sets, att, dfn", [
    ((), 2, 2), (("leader_bonus=0",), 1, 1), (("siege_tower_bonus=3",), 4, 2),
    (("banner_defence_bonus=0",), 2, 1), (("leader_bonus=2", "banner_defence_bonus=3"), 3, 5)])
def test_param_bonuses_mt_8_2(comp_with, sets, att, dfn):
    p = Position(comp_with(*sets))
    p.set_units("Pelennor North", "evil", "infantry", 5)
    p.put_leader("Gothmog", "Pelennor North")
    p.set_units("North Wall", "good", "archer", 2)
    p.put_leader("Denethor", "North Wall")
    p.give_card("evil", "Siege Tower")
    ev = p.assault("Pelennor North", "North Wall", 3, side="evil")
    assert (ev[0]["att_bonus"], ev[0]["def_bonus"]) == (att, dfn)


def test_param_leaders_to_win(comp_with):
    p = Position(comp_with("leaders_to_win=1"))
    p.put_leader("Gothmog", "Causeway")
    CB.capture_leader_nb(p.cf, p.st, p.tr, p.leader("Gothmog"), p.t("Causeway"))
    B.check_win_nb(p.cf, p.st, p.tr)
    assert p.over() == ("good", "leaders")


def test_param_good_creature_as_infantry(comp_with):
    for flag, loads in (("true", 1), ("false", 0)):
        p = Position(comp_with(f"good_creature_as_infantry={flag}"))
        p.give_card("good", "Aragorn and the Black Ships")
        p.hand("good", ["creature"])
        assert len(first_event(p.card_phase("good"), "load")) == loads


def test_param_points_and_mission_base_in_engine(comp_with):
    p = Position(comp_with("points_leader=9", "points_gate=7", "points_infantry=4"))
    p.st[L.S_LCAP + 1] = 1
    p.st[L.S_GATE] = 1
    p.st[L.O_CAPT + p.u("good", "archer")] = 1
    assert p.points() == (0, 9 + 7 + 4)


def _fired_archers_lost_in_an_assault(pos):
    """Good's turn on a hand-made position: 3 archers at Pelennor North bombard North Fields,
    then the 3 assault it (the built-in players take the losses) and 2 of them are lost; the
    first seed where that happens with North Fields still Evil's. Returns the position."""
    for seed in range(200):
        p = pos(seed=seed)
        p.set_units("Pelennor North", "good", "archer", 3)
        p.set_units("Gate Field", "good", "archer", 2)
        p.set_units("North Fields", "evil", "infantry", 6)
        p.set_units("East Fields", "evil", "infantry", 6)
        X, Y = p.t("Pelennor North"), p.t("North Fields")
        b = first_event(p.do("good", L.A_BOMBARD, X, Y, 3), "bombard")
        assert [(e["archers"], e["archers_fired_before"]) for e in b] == [(3, 0)]
        p.do("good", L.A_ASSAULT, X, Y, 3)
        if p.units("Pelennor North", "good", "archer") == 1 and p.units("North Fields", "evil") > 0:
            return p
    raise AssertionError("no seed in 200 where the assault cost exactly 2 archers")


def test_mt_6_1_archers_lost_after_firing_leave_a_true_fired_count(pos):
    """MT-6.1 / MT-7.2 ("En bågskytteenhet eller kastmaskin får utföra ett bombardemang per
    runda"): 3 archers fire, 2 of them are lost in an assault, so the one left has fired and
    the count of archers that fired there is 1 (not 3). Two archers that have not fired this
    turn then arrive: they are owed their shot, and the bombardment logs the true count."""
    p = _fired_archers_lost_in_an_assault(pos)
    X, Y = p.t("Pelennor North"), p.t("East Fields")
    assert int(p.st[L.O_FIRED + X]) == 1, "the archer left has fired; the lost ones are gone"
    assert not any(a[0] == L.A_BOMBARD and a[1] == X for a in kinds(p.actions("good")))
    p.do("good", L.A_MOVE, p.t("Gate Field"), X, 2)
    assert p.units("Pelennor North", "good", "archer") == 3
    offers = [a for a in kinds(p.actions("good")) if a[0] == L.A_BOMBARD and a[1] == X and a[2] == Y]
    assert offers and max(a[3] for a in offers) == 2, "the 2 archers that arrived may fire"
    b = first_event(p.do("good", L.A_BOMBARD, X, Y, 2), "bombard")
    assert [(e["archers"], e["archers_fired_before"], e["archers_at"]) for e in b] == [(2, 1, {"archer": 3})]
    assert int(p.st[L.O_FIRED + X]) == 3
    assert not any(a[0] == L.A_BOMBARD and a[1] == X for a in kinds(p.actions("good")))


def test_mt_6_1_fired_count_follows_losses_and_retreats(pos):
    """MT-6.1: the count of archers that fired at a territory never exceeds the archers there:
    a loss takes an archer that fired first (the owner keeps the ones that may still shoot),
    and archers that fired take their count along when they move or retreat."""
    p = pos()
    p.set_units("Pelennor North", "good", "archer", 4)
    p.set_units("North Fields", "evil", "infantry", 6)
    X, Y = p.t("Pelennor North"), p.t("North Fields")
    p.do("good", L.A_BOMBARD, X, Y, 2)                 # 2 of the 4 fired
    arch = p.u("good", "archer")
    CB.lose_one_nb(p.cf, p.st, p.tr, X, arch)
    assert int(p.st[L.O_FIRED + X]) == 1               # 3 archers, 2 may still fire
    CB.lose_one_nb(p.cf, p.st, p.tr, X, arch)
    CB.lose_one_nb(p.cf, p.st, p.tr, X, arch)
    assert int(p.st[L.O_FIRED + X]) == 0 and p.units("Pelennor North", "good", "archer") == 1
    p.do("good", L.A_BOMBARD, X, Y, 1)
    assert int(p.st[L.O_FIRED + X]) == 1
    p.st[L.S_RT_CUR] = X                               # the force retreats one step (MT-7.5)
    p.st[L.S_RT_VEC] = L.O_SCB
    p.st[L.O_SCB:L.O_SCB + C.MAXU] = 0
    p.st[L.O_SCB + arch] = 1
    p.st[L.S_RT_LMASK] = 0
    p.st[L.S_RT_NP] = 0
    Z = p.t("Mindolluin Slopes")
    CB.retreat_step_nb(p.cf, p.st, Z)
    assert p.units("Mindolluin Slopes", "good", "archer") == 1
    assert (int(p.st[L.O_FIRED + X]), int(p.st[L.O_FIRED + Z])) == (0, 1)
