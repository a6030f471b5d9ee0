"""equivalence tests for the engine's duplicated twins, the places where a one-line
bug moves Good's win rate by points and nothing else notices.

* the engine's own roll for ``retreat_trigger = modified6`` (_modified_roll_nb) against the
  exact law of that roll (MT-7.4, MT-8.2: a modified 6 on the highest die also triggers);
* the engine's handling of Good's and the Witch-king's sixes in one roll (assault_nb) against
  the kernel's (lotr_sim.kernels.combat.battle_nb): same inputs, same stream, same retreat;
* the cached checks used to propose and score moves (cross_fast_nb, bonus_fast_nb, the
  per-decision caches, _leader_reach3_nb) against the full ones, on every position of many
  debug games (engine.check_caches_nb).
"""
import itertools

import numpy as np
import pytest

from lotr_sim.exact.battle import roll_law
from lotr_sim.games.minas_tirith import actions as AC
from lotr_sim.games.minas_tirith import board as B
from lotr_sim.games.minas_tirith import combat as CB
from lotr_sim.games.minas_tirith import config as C
from lotr_sim.games.minas_tirith import layout as L
from lotr_sim.games.minas_tirith import play as P
from lotr_sim.games.minas_tirith.position import Position
from lotr_sim.kernels.combat import ATTACKER_RETREATED, DEFENDER_RETREATED, battle_nb
from lotr_sim.kernels.rng import STATE_SIZE, stream_init_nb


# ---------------------------------------------------------------- modified6 roll
def modified6_law(ad, dd, ab, db):
    """Exact law of (att losses, def losses, att trigger sixes, def trigger sixes) for one roll
    under retreat_trigger = modified6, by enumerating every roll (MT-7.4, MT-7.5, MT-8.2)."""
    law = {}
    for roll in itertools.product(range(1, 7), repeat=ad + dd):
        a = sorted(roll[:ad], reverse=True)
        d = sorted(roll[ad:], reverse=True)
        la = ld = 0
        if a[0] + ab > d[0] + db:
            ld += 1
        else:
            la += 1
        if ad >= 2 and dd >= 2:
            if a[1] > d[1]:
                ld += 1
            else:
                la += 1
        a6 = a.count(6) + (1 if a[0] < 6 and a[0] + ab >= 6 else 0)
        d6 = d.count(6) + (1 if d[0] < 6 and d[0] + db >= 6 else 0)
        key = (la, ld, a6, d6)
        law[key] = law.get(key, 0) + 1
    n = 6 ** (ad + dd)
    return {k: v / n for k, v in law.items()}


def test_modified6_law_helper_matches_lotr_sim_exact():
    """The helper's losses are the project's exact roll law (lotr_sim.exact.battle.roll_law)."""
    for ad, dd, ab, db in [(3, 2, 0, 0), (2, 2, 1, 2), (1, 2, 2, 1), (3, 1, 0, 1)]:
        law = modified6_law(ad, dd, ab, db)
        ex = roll_law(ad, dd, ab, db).sum(axis=(2, 3))
        for la in range(3):
            for ld in range(3):
                got = sum(p for (x, y, _, _), p in law.items() if (x, y) == (la, ld))
                assert got == pytest.approx(ex[la, ld], abs=1e-12)


@pytest.mark.parametrize("ad, dd, ab, db", [(3, 2, 0, 0), (3, 2, 1, 2), (2, 2, 2, 1), (1, 2, 0, 1),
                                            (3, 1, 1, 0), (2, 1, 3, 0)])
def test_engine_modified6_roll_has_the_exact_law(ad, dd, ab, db):
    """_modified_roll_nb over 40,000 draws of one stream: every cell of the law within |z| < 4,
    and no outcome the law forbids."""
    law = modified6_law(ad, dd, ab, db)
    s = np.zeros(STATE_SIZE, dtype=np.uint64)
    stream_init_nb(np.int64(606), np.int64(ad * 100 + dd * 10 + ab + 7 * db), s)
    n = 40_000
    counts: dict = {}
    for _ in range(n):
        key = tuple(int(x) for x in CB._modified_roll_nb(s, ad, dd, ab, db))
        counts[key] = counts.get(key, 0) + 1
    assert set(counts) <= set(law), set(counts) - set(law)
    for key, p in law.items():
        k = counts.get(key, 0)
        z = (k - n * p) / np.sqrt(n * p * (1 - p))
        assert abs(z) < 4, (key, k, n * p, z)


def test_modified6_assault_in_the_engine_uses_that_roll(comp):
    """assault_nb under modified6 draws _modified_roll_nb: same stream, same result."""
    from lotr_sim.games.registry import get_game
    g = get_game("minas-tirith")
    c6 = g.compile(g.load(None, ["retreat_trigger=modified6"]))
    for i in range(200):
        p = Position(c6)
        p.set_units("Gate Field", "good", "infantry", 3)
        p.put_leader("Denethor", "Gate Field")
        p.set_units("Causeway", "evil", "infantry", 5)
        stream_init_nb(np.int64(9), np.int64(i), p.s)
        s = np.zeros(STATE_SIZE, dtype=np.uint64)
        stream_init_nb(np.int64(9), np.int64(i), s)
        la, ld, a6, d6 = (int(x) for x in CB._modified_roll_nb(s, 3, 2, 1, 0))
        ev = p.assault("Gate Field", "Causeway", 3, side="good")
        assert (ev[0]["att_losses"], ev[0]["def_losses"], ev[0]["att_sixes"], ev[0]["def_sixes"]) == \
            (la, ld, a6, d6)


# ---------------------------------------------------------------- Good's 6 v the Witch-king's 6
def _retreats(events):
    return [e["retreating"] for e in events if e["event"] == "retreat"]


@pytest.mark.slow
@pytest.mark.parametrize("good_attacks", [True, False])
@pytest.mark.parametrize("att, dfn", [(3, 5), (3, 2), (2, 3), (1, 2)])
def test_engine_and_kernel_agree_on_who_retreats(comp, good_attacks, att, dfn):
    """Witch-king in the battle: one roll on stream (seed, i) in the engine (assault_nb) and in
    the kernel (battle_nb, whose first roll is the same draw) must send back the same side -
    including the rolls where Good and Evil both roll a natural 6 (Good's 6 wins, MT-7.5 [R])."""
    both = agree = 0
    for i in range(1500):
        p = Position(comp)
        if good_attacks:
            p.set_units("Gate Field", "good", "infantry", att)
            p.set_units("Causeway", "evil", "infantry", dfn)
            p.put_leader("Witch-king", "Causeway")
            a, b, side = "Gate Field", "Causeway", 0
        else:
            p.set_units("Causeway", "evil", "infantry", att)
            p.put_leader("Witch-king", "Causeway")
            p.set_units("Gate Field", "good", "infantry", dfn)
            a, b, side = "Causeway", "Gate Field", 1
        ab, db, wk = CB.assault_bonus_nb(p.cf, p.st, side, p.t(a), p.t(b))
        assert wk == 1
        stream_init_nb(np.int64(31), np.int64(i), p.s)
        ev = p.assault(a, b, att, side=("good", "evil")[side])
        s = np.zeros(STATE_SIZE, dtype=np.uint64)
        stream_init_nb(np.int64(31), np.int64(i), s)
        out, _, _, rolls, _ = battle_nb(s, att, dfn, 2, 0, ab, db, good_attacks, True)
        kernel = []
        if rolls == 1 and out in (ATTACKER_RETREATED, DEFENDER_RETREATED):
            att_side, def_side = ("good", "evil") if good_attacks else ("evil", "good")
            kernel = [att_side if out == ATTACKER_RETREATED else def_side]
        assert _retreats(ev) == kernel, (i, ev[0], kernel)
        agree += 1
        r = ev[0]
        both += 6 in r["att_faces"] and 6 in r["def_faces"]
    assert agree == 1500 and both > 50  # not vacuous: many rolls where both sides rolled a 6


# ---------------------------------------------------------------- cached v full checks
@pytest.mark.parametrize("sets, pols", [
    ([], ("random", "random")),
    ([], ("greedy", "greedy")),
    ([], ("aggressive", "cautious")),
    (["mission_card_base=9", "siege_tower_bonus=2"], ("random", "aggressive")),
    (["leader_bonus=2", "deck_jokers=10"], ("cautious", "random")),
])
@pytest.mark.slow
def test_cached_checks_agree_with_full_ones_in_many_games(game, sets, pols):
    """On every position where moves are proposed (each call of enum_actions_nb) in 400 debug
    games, the cached checks equal the full ones (a disagreement flags the game)."""
    c = game.compile(game.load(None, sets))
    r = game.simulate(c, {"good": pols[0], "evil": pols[1]}, seed=44, first=0, n=400, threads=2, debug=True)
    assert r["invariant_broken"].sum() == 0, np.unique(r["invariant_broken"], return_counts=True)


def test_cache_check_is_not_vacuous(game, comp):
    """A debug game makes many comparisons, and the checker catches a drifted cache."""
    from lotr_sim.games.minas_tirith.game import policy_array
    pol = policy_array({"good": "random", "evil": "random"})
    tr = np.zeros(0, dtype=np.int64)
    st, _ = P.play_one_nb(comp.cf, comp.wp, pol, np.int64(3), np.int64(0), tr, np.int64(1))
    assert st[L.S_NCHECK] > 10_000 and st[L.S_BAD] == 0
    p = Position(comp)
    p.set_units("Pelennor North", "evil", "infantry", 3)
    p.set_units("East Wall", "good", "archer", 1)
    p.give_card("evil", "Siege Tower")
    B.refresh_tot_nb(p.cf, p.st)
    assert AC.check_caches_nb(p.cf, p.st) == 0
    p.st[L.O_DEC] = 0  # the cache forgets the tower: climbing and the tower bonus disagree
    assert AC.check_caches_nb(p.cf, p.st) > 0
    B.refresh_tot_nb(p.cf, p.st)
    p.st[L.O_TOT + 1 * C.MAXT + p.t("Pelennor North")] += 1
    assert AC.check_caches_nb(p.cf, p.st) > 0


def test_bombard_proposals_match_shooters_nb(comp):
    """The enumerator's own archer count (no catapult on the board) and shooters_nb agree on a
    hand-made position, and the checker notices a proposal with the wrong dice."""
    p = Position(comp)
    p.set_units("Gate Field", "good", "archer", 4)
    p.set_units("Causeway", "evil", "infantry", 2)
    p.set_units("West Osgiliath", "evil", "infantry", 1)
    acts = p.actions("good")
    n = len(acts)
    assert AC.check_bombards_nb(p.cf, p.st, 0, p.act, n) == 0
    i = [k for k in range(n) if acts[k, 0] == L.A_BOMBARD][0]
    p.act[i, 4] += 1
    assert AC.check_bombards_nb(p.cf, p.st, 0, p.act, n) > 0
