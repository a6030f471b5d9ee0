"""Rule-by-rule audit of the Minas Tirith engine: regression tests for the bugs the audit
found (each failed before its fix). Hand-made positions (lotr_sim.games.minas_tirith.position)."""

from lotr_sim.games.minas_tirith import config as C
from lotr_sim.games.minas_tirith import layout as L
from lotr_sim.kernels.combat import assault_roll_nb


def kinds(acts):
    return [tuple(int(x) for x in r) for r in acts]


def bombards(p, side, frm):
    """{target name: (shooters, dice)} of the legal bombard actions from ``frm``."""
    return {p.names["territories"][a[2]]: (a[3], a[4]) for a in kinds(p.actions(side))
            if a[0] == L.A_BOMBARD and a[1] == p.t(frm)}


# ---------------------------------------------------------------- MT-7.2
def test_mt_7_2_evil_names_up_to_six_shooters_against_a_banner(pos):
    """MT-7.2: Evil firing at a banner territory needs 2 shooters per die: 2 -> 1 die,
    4 -> 2 dice, 6 -> 3 dice. It names only the shooters it needs (5 crossbows -> 4 named,
    2 dice; the fifth may still fire at another target). Other targets: at most 3 shooters."""
    for n, want in ((6, (6, 3)), (5, (4, 2)), (4, (4, 2)), (3, (2, 1)), (2, (2, 1))):
        p = pos()
        p.set_units("Pelennor North", "evil", "crossbow", n)
        p.set_units("North Wall", "good", "archer", 3)        # banner, distance 1
        p.set_units("East Fields", "good", "infantry", 1)     # no banner, distance 1
        b = bombards(p, "evil", "Pelennor North")
        assert b["North Wall"] == want, n
        assert b["East Fields"] == (min(n, 3), min(n, 3)), n
    # doing it: 6 crossbows -> 3 dice, all six have fired
    p = pos()
    p.set_units("Pelennor North", "evil", "crossbow", 6)
    p.set_units("North Wall", "good", "archer", 3)
    p.set_units("East Fields", "good", "infantry", 1)
    ev = p.bombard("Pelennor North", "North Wall", 6, side="evil")
    assert ev[0]["dice"] == 3 and ev[0]["shooters"] == 6 and ev[0]["banner"] is True
    assert "East Fields" not in bombards(p, "evil", "Pelennor North")
    # 3 crossbows: 2 named at the banner, the third still fires at the unbannered target
    p = pos()
    p.set_units("Pelennor North", "evil", "crossbow", 3)
    p.set_units("North Wall", "good", "archer", 3)
    p.set_units("East Fields", "good", "infantry", 1)
    b = bombards(p, "evil", "Pelennor North")
    p.bombard("Pelennor North", "North Wall", b["North Wall"][0], side="evil")
    assert bombards(p, "evil", "Pelennor North") == {"East Fields": (1, 1)}
    # Good is never divided
    p = pos()
    p.set_units("North Wall", "good", "archer", 6)
    p.set_units("Pelennor North", "evil", "infantry", 1)
    assert bombards(p, "good", "North Wall")["Pelennor North"] == (3, 3)


# ---------------------------------------------------------------- MT-6.1 / MT-7.2
def test_mt_6_1_mt_7_2_archer_bombards_once_per_turn_even_after_moving(pos):
    """MT-6.1 / MT-7.2: each archer bombards at most once per turn - moving the archers that
    have fired to another territory must not let them fire again."""
    p = pos()
    p.set_units("Causeway", "evil", "crossbow", 3)
    p.set_units("Gate Field", "good", "infantry", 5)      # 1 from Causeway, 1 from East Fields
    assert bombards(p, "evil", "Causeway")["Gate Field"] == (3, 3)
    p.bombard("Causeway", "Gate Field", 3, side="evil")
    p.move("Causeway", "East Fields", 3, side="evil")
    assert p.units("East Fields", "evil", "crossbow") == 3
    assert bombards(p, "evil", "East Fields") == {}
    # split stack: 5 crossbows, 3 fire, 2 move away -> the 2 that are left have not fired
    p = pos()
    p.set_units("Causeway", "evil", "crossbow", 5)
    p.set_units("Gate Field", "good", "infantry", 5)
    p.bombard("Causeway", "Gate Field", 3, side="evil")
    p.move("Causeway", "East Fields", 2, side="evil")
    n_left = bombards(p, "evil", "Causeway").get("Gate Field", (0, 0))[0]
    n_moved = bombards(p, "evil", "East Fields").get("Gate Field", (0, 0))[0]
    assert n_left + n_moved == 2  # 5 crossbows, 3 fired: two shots left in all
    # the mounted archers' double move (MT-6.2 c) and a new turn
    p = pos()
    p.set_units("Gate Field", "good", "mounted_archer", 1)
    p.set_units("Pelennor North", "good", "infantry", 1)
    p.set_units("Causeway", "evil", "infantry", 3)
    p.bombard("Gate Field", "Causeway", 1, side="good")
    p.move("Gate Field", "North Fields", 1, side="good", via="Pelennor North")
    assert bombards(p, "good", "North Fields") == {}
    p.st[L.O_FIRED:L.O_FIRED + C.MAXT] = 0   # what play_turn_nb does at a turn's start
    assert bombards(p, "good", "North Fields")["Causeway"] == (1, 1)


# ---------------------------------------------------------------- MT-7.5
def _predict(p, k, dd, ab, db):
    s = p.s.copy()
    return tuple(int(x) for x in assault_roll_nb(s, k, dd, ab, db))


def test_mt_7_5_good_defending_six_ends_evil_turn_even_if_attackers_wiped_out(pos):
    """MT-7.5: 'If Good rolls a 6 when defending, Evil must retreat at once and its turn
    ends' - also when the Good 6 killed the whole attacking force (nothing left to retreat)."""
    seen = {True: 0, False: 0}
    for seed in range(300):
        p = pos(seed=seed)
        p.set_units("Causeway", "evil", "infantry", 6)
        p.set_units("Gate Field", "good", "infantry", 3)
        la, ld, a6, d6 = _predict(p, 1, 2, 0, 0)
        if la != 1:
            continue
        ev = p.assault("Causeway", "Gate Field", 1, side="evil")
        assert ev[0]["att_losses"] == 1 and p.units("Causeway", "evil") == 5
        assert not any(e["event"] == "retreat" for e in ev)  # nothing left to retreat
        assert p.st[L.S_TURNEND] == (1 if d6 > 0 else 0), seed
        seen[d6 > 0] += 1
        if min(seen.values()) >= 3:
            break
    assert min(seen.values()) >= 3


def test_mt_7_5_witch_king_six_ends_good_attack_turn_even_if_attackers_wiped_out(pos):
    """MT-7.5: with the Witch-king defending, an Evil natural 6 ends a Good attacker's turn -
    also when the single attacking unit died (no Good 6 in the roll)."""
    seen = {True: 0, False: 0}
    for seed in range(400):
        p = pos(seed=seed)
        p.set_units("Gate Field", "good", "infantry", 4)
        p.set_units("Causeway", "evil", "infantry", 4)
        p.put_leader("Witch-king", "Causeway")
        la, ld, a6, d6 = _predict(p, 1, 2, 0, 1)
        if la != 1 or a6 > 0:
            continue
        ev = p.assault("Gate Field", "Causeway", 1, side="good")
        assert ev[0]["att_losses"] == 1 and ev[0]["def_bonus"] == 1
        assert p.st[L.S_TURNEND] == (1 if d6 > 0 else 0), seed
        seen[d6 > 0] += 1
        if min(seen.values()) >= 3:
            break
    assert min(seen.values()) >= 3
    # without the Witch-king an Evil 6 never ends Good's turn
    for seed in range(40):
        p = pos(seed=seed)
        p.set_units("Gate Field", "good", "infantry", 4)
        p.set_units("Causeway", "evil", "infantry", 4)
        p.assault("Gate Field", "Causeway", 1, side="good")
        assert p.st[L.S_TURNEND] == 0


def _archer_budget_violations(comp, events):
    """Turns in which a side fired more shooters than it had archers (on the board at the turn's
    start or placed during the turn) plus catapults - i.e. an archer fired twice (MT-6.1)."""
    arch = {"good": ("archer", "mounted_archer"), "evil": ("crossbow",)}
    bad = []
    side = budget = fired = None
    for e in events:
        if e["event"] == "turn_start":
            if side is not None and fired > budget:
                bad.append((e["game"], e["turn"] - 1, side, fired, budget))
            side = e["side"]
            fired = 0
            budget = sum(n for terr in e["units"].values() for u, n in terr.get(side, {}).items()
                         if u in arch[side])
            budget += sum(1 for c in e["catapults"].values() if c["side"] == side)
        elif side is None:
            continue
        elif e["event"] == "place":
            budget += sum(n for u, n in e["units"].items() if u in arch[side])
        elif e["event"] == "card_played" and e["effect"] == "catapult":
            budget += 1
        elif e["event"] == "bombard" and e["side"] == side:
            fired += e["shooters"]
    if side is not None and fired > budget:
        bad.append((events[0]["game"], "last", side, fired, budget))
    return bad


def test_mt_6_1_whole_games_no_archer_fires_twice_in_a_turn(game, comp):
    """MT-6.1 / MT-7.2 on whole games (fixed seeds, greedy and random players): per turn, the
    shooters named never exceed the side's archers plus its catapults."""
    bad = []
    n_bomb = 0
    for g, e in (("greedy", "greedy"), ("random", "random"), ("aggressive", "greedy")):
        for i in range(8):
            _, events = game.play(comp, {"good": g, "evil": e}, 31, i)
            n_bomb += sum(1 for x in events if x["event"] == "bombard")
            bad += _archer_budget_violations(comp, events)
    assert n_bomb > 50
    assert not bad, bad[:5]


def test_mt_7_5_param_retreat_after_wipeout(pos, game):
    """MT-7.5 [R] ``retreat_after_wipeout``: Evil attacks with a leader (+2 here) and kills
    the last Good defender in a roll where Good rolled a natural 6 (6 loses to 5 + 2).
    Default (false): nothing retreats and Evil's turn goes on (it may move in). True (the
    literal reading): the Evil attackers still retreat and Evil's turn ends."""
    for flag in (False, True):
        sets = ["leader_bonus=2"] + (["retreat_after_wipeout=true"] if flag else [])
        cmp_ = game.compile(game.load(None, sets))
        hits = 0
        for seed in range(3000):
            p = pos(seed=seed, comp_=cmp_)
            p.set_units("Causeway", "evil", "infantry", 4)
            p.put_leader("Gothmog", "Causeway")
            p.set_units("Gate Field", "good", "infantry", 1)
            la, ld, a6, d6 = _predict(p, 2, 1, 2, 0)
            if not (ld == 1 and d6 > 0):
                continue
            ev = p.assault("Causeway", "Gate Field", 2, side="evil")
            assert ev[0]["def_losses"] == 1 and ev[0]["att_bonus"] == 2
            assert p.units("Gate Field", "good") == 0
            retreats = [e for e in ev if e["event"] == "retreat"]
            if flag:
                assert retreats and p.st[L.S_TURNEND] == 1, seed
                assert p.units("Causeway", "evil") == 2  # the 2 attackers stepped back (MT-7.5)
            else:
                assert not retreats and p.st[L.S_TURNEND] == 0, seed
                assert p.units("Causeway", "evil") == 4
            hits += 1
            if hits >= 3:
                break
        assert hits >= 3, flag
