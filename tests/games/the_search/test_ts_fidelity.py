"""Rules fidelity, The Search: the Ent's compulsory turn (TS-7.2), capped games
decided on points (TS-5.4), fights that neither end the move nor keep the monster (TS-6.5,
TS-7.3), neutral sections that link (TS-3.4), the Shire as a region (TS-1.4, TS-6.3), set-up
warnings (TS-1.1), traces that log every decision and tile drawn, and the rule IDs no test
named before (TS-1.1, 1.4, 2.5, 3.6, 6.1, 7.5). Each test names the rule it checks and is
written so that the bug it guards against makes it fail."""
from __future__ import annotations

import numpy as np
import pytest

from lotr_sim.games.the_search import layout as L
from lotr_sim.games.the_search.movement import move_options_nb, score_nb
from lotr_sim.games.the_search.play import advance_nb
from lotr_sim.games.the_search.regions import SHIRE_CELL

G = {"frodo": "greedy", "sam": "greedy"}
R = {"frodo": "random", "sam": "random"}


def _root(st, v):
    while st[L.O_PAR + v] != v:
        v = st[L.O_PAR + v]
    return v


def _tok(comp, name):
    return comp.names["tokens"].index(name)


def _toks(comp, name):
    return [i for i, n in enumerate(comp.names["tokens"]) if n == name]


def _from_stack(comp, st, t):
    """Take token ``t`` out of its colour stack (swapped to the top and popped) or off the
    map, keeping the bookkeeping."""
    if st[L.O_TWHERE + t] == L.T_MAP:
        r = next(v for v in range(L.NSEC) if st[L.O_RTOK + v] == t)
        st[L.O_RTOK + r] = -1
        st[L.S_NTOKMAP] -= 1
        return
    assert st[L.O_TWHERE + t] == L.T_STACK
    col = int(comp.cf[L.O_TCOL + t])
    base = L.O_TSTK + col * L.MAXTOK
    lo, hi = int(st[L.S_TPOS + col]), int(st[L.S_TN + col])
    k = next(j for j in range(lo, hi) if st[base + j] == t)
    st[base + k], st[base + lo] = st[base + lo], st[base + k]
    st[L.S_TPOS + col] += 1


def _give(comp, st, t, seat):
    _from_stack(comp, st, t)
    st[L.O_TWHERE + t] = L.T_HELD
    st[L.O_TOWNER + t] = seat


def _put(comp, st, t, root):
    _from_stack(comp, st, t)
    st[L.O_TWHERE + t] = L.T_MAP
    st[L.O_RTOK + root] = t
    st[L.S_NTOKMAP] += 1


def _held(comp, st, seat, power):
    return [t for t in range(comp.cf[L.C_NTOK]) if st[L.O_TWHERE + t] == L.T_HELD
            and st[L.O_TOWNER + t] == seat and comp.cf[L.O_TPOW + t] == power]


def _phase2_step_state(game, comp, seed=2, index=0):
    """A phase-2 move decision (normal move unused, nobody holding a token, no fight going
    on) with a step into an empty land region: (state, row index of that step, its root)."""
    for idx in range(index, index + 40):
        st = game.bind(comp).new_state(G, seed, idx)
        while not st.is_terminal():
            s = st.st
            if (s[L.S_PHASE] == L.PH2 and s[L.S_DK] == L.DK_MOVE and s[L.S_NORMAL] == 0
                    and s[L.S_FLEFT] == 0 and s[L.S_FLEFT + 1] == 0
                    and not any(s[L.O_TWHERE + t] in (L.T_HELD, L.T_USED) for t in range(comp.cf[L.C_NTOK]))):
                acts = st.legal_actions()
                for i, a in enumerate(acts):
                    if a[0] == L.A_STEP and a[1] >= 0 and s[L.O_RTOK + a[1]] < 0 and a[2] == 0:
                        return st, i, int(a[1])
            st.apply(st.builtin_choice())
    raise AssertionError("no phase-2 step found")


# -- TS-7.2: the Ent's extra turn ------------------------------------------------------------
def test_ts_7_2_ent_extra_turn_move_is_compulsory(game, comp, steps):
    """TS-7.2 ("он должен выполнить, по возможности, все 3 действия"): in the extra turn an
    Ent gives, the move is compulsory where possible - while a normal step (or Gwaihir's
    flight) is open, the move decision offers no stop; the turn still places and draws."""
    seen = [0, 0]
    for i in range(12):
        mark = {"turn": -1, "seat": -1, "hand": -1}

        def check(state, acts, j, mark=mark):
            s = state.st
            seat = int(s[L.S_SEAT])
            if s[L.S_DK] == L.DK_ENT and acts[j][1] == 1:
                mark.update(turn=int(s[L.S_TURN]) + 1, seat=seat)
            if int(s[L.S_TURN]) == mark["turn"] and s[L.S_PHASE] == L.PH2:
                assert seat == mark["seat"]
                if s[L.S_DK] == L.DK_MOVE and s[L.S_NORMAL] == 0:
                    if any(a[0] in (L.A_STEP, L.A_GWAIHIR) for a in acts):
                        assert not any(a[0] == L.A_STOP for a in acts), acts
                        assert state.pass_action() == -1
                        seen[0] += 1
                if s[L.S_DK] in (L.DK_PLACE, L.DK_NEUTRAL):
                    seen[1] += 1
        steps(game, comp, G, 14, i, check, debug=False)
    assert seen[0] > 0 and seen[1] > 0, seen


# -- TS-5.4: the safety cap decides on points --------------------------------------------------
def test_ts_5_4_cap_is_a_reconstruction_citing_ts_5_4(game):
    """TS-5.4 [R]: the ``phase3_cap`` parameter cites TS-5.4 and is marked a reconstruction."""
    p = next(p for p in game.params() if p.name == "phase3_cap")
    assert "TS-5.4" in p.rule and "[R]" in p.rule and p.default == 200


def test_ts_5_4_capped_random_games_are_decided_on_points(game):
    """TS-5.4 / TS-8.3: there is no draw in the rules; a game the safety cap stops (reason
    ``cap``) goes to the player with more points, and only equal points draw. Random players
    with a low cap reach it often."""
    c = game.compile(game.load(overrides={"phase3_cap": 10}))
    r = game.simulate(c, R, 3, 0, 400, threads=1)
    cap = r["reason"] == game.reasons.index("cap")
    assert cap.sum() > 50
    pf, ps = r["points_frodo"][cap], r["points_sam"][cap]
    want = np.where(pf > ps, 0, np.where(ps > pf, 1, 2))
    assert np.array_equal(r["winner"][cap], want)
    assert (want != 2).sum() > 0


@pytest.mark.slow
def test_ts_5_4_greedy_does_not_shuttle_in_phase_3(game, comp):
    """TS-5.4: with nothing within reach, greedy's phase-3 hobbit does not walk back and forth
    between two regions (a pattern A B A B A of its positions); the games checked are the
    long ones (phase 3 over 60 turns) of 2000, where a stuck race shows."""
    r = game.simulate(comp, G, 31, 0, 2000, threads=1)
    long = np.flatnonzero(r["phase3_turns"] > 60)
    assert long.size > 0
    for idx in long[:8]:
        _, ev = game.play(comp, G, 31, int(idx))
        for side in ("frodo", "sam"):
            pos = [str(e["to"]) for e in ev if e["event"] == "move" and e["side"] == side
                   and e["turn"] > 0 and any(x["event"] == "phase" and x["phase"] == 3 and x["turn"] <= e["turn"]
                                              for x in ev)]
            shuttle = any(pos[k] == pos[k + 2] == pos[k + 4] and pos[k + 1] == pos[k + 3] != pos[k]
                          for k in range(len(pos) - 4))
            assert not shuttle, (idx, side, pos[-10:])


# -- TS-6.5 / TS-7.3: fights ------------------------------------------------------------------
def test_ts_6_5_a_fight_neither_ends_the_move_nor_keeps_the_monster(game, comp):
    """TS-6.5: entering a monster's region does not end the move (a mover token may still be
    used this turn), the fight takes the player's next move(s), and the monster is taken
    right after the fight ("После этого игрок берет фишку"), not after the lost moves."""
    st, i, root = _phase2_step_state(game, comp)
    s = st.st
    seat = int(s[L.S_SEAT])
    orc = _toks(comp, "Orc")[0]
    _put(comp, s, orc, root)
    _give(comp, s, _tok(comp, "Lembas"), seat)            # a mover, no fighter
    st.apply(i)
    assert s[L.O_TWHERE + orc] == L.T_HELD and s[L.O_TOWNER + orc] == seat
    assert s[L.O_RTOK + root] < 0
    assert s[L.S_FLEFT + seat] == 1
    assert not st.is_terminal() and st.to_move == seat and s[L.S_DK] == L.DK_MOVE
    acts = st.legal_actions()
    assert any(a[0] == L.A_STEP and a[2] == 1 for a in acts)   # the mover's extra region


def test_ts_6_5_two_fights_in_one_turn_add_their_lost_moves(game, comp):
    """TS-6.5: a hobbit that goes on with a mover after a fight and meets a second monster in
    the same turn loses the moves of both fights (1 + 1 here), not only the last one's."""
    orcs = _toks(comp, "Orc")
    for idx in range(9, 60, 3):
        st, i, root = _phase2_step_state(game, comp, index=idx)
        s = st.st
        seat = int(s[L.S_SEAT])
        _put(comp, s, orcs[0], root)
        _give(comp, s, _tok(comp, "Lembas"), seat)
        st.apply(i)
        assert s[L.S_FLEFT + seat] == 1 and s[L.S_DK] == L.DK_MOVE
        acts = st.legal_actions()
        nxt = [(j, int(a[1])) for j, a in enumerate(acts) if a[0] == L.A_STEP and a[2] == 1 and a[1] >= 0
               and s[L.O_RTOK + a[1]] < 0]
        if nxt:
            break
    j, r2 = nxt[0]
    _put(comp, s, orcs[1], r2)
    st.apply(j)
    assert s[L.S_FLEFT + seat] == 2
    assert s[L.O_TWHERE + orcs[0]] == L.T_HELD and s[L.O_TWHERE + orcs[1]] == L.T_HELD


def test_ts_6_5_a_cancelled_fight_takes_nothing_away(game, comp):
    """TS-6.5 / TS-7.3: a fight cancelled by a fighter costs no move: no move is lost and the
    turn's move goes on (a mover may still be used); the monster is taken at once."""
    st, i, root = _phase2_step_state(game, comp, index=3)
    s = st.st
    seat = int(s[L.S_SEAT])
    troll = _toks(comp, "Troll")[0]
    _put(comp, s, troll, root)
    _give(comp, s, _tok(comp, "Pippin"), seat)
    _give(comp, s, _tok(comp, "Lembas"), seat)
    st.apply(i)
    assert s[L.S_DK] == L.DK_FIGHT and st.to_move == seat
    acts = st.legal_actions()
    k = next(j for j, a in enumerate(acts) if a[1] == 1)
    st.apply(k)
    assert s[L.S_FLEFT + seat] == 0
    assert s[L.O_TWHERE + troll] == L.T_HELD and s[L.O_TWHERE + _tok(comp, "Pippin")] == L.T_USED
    assert st.to_move == seat and s[L.S_DK] == L.DK_MOVE


@pytest.mark.parametrize("name", ["Balrog", "Shelob"])
def test_ts_7_3_one_fighter_cancels_one_of_two_lost_moves(game, comp, name):
    """TS-7.3 ("чтобы не потерять один ход"): against a Balrog or Shelob (2 dots, 2 fighters
    to cancel) one fighter may be used to lose one move instead of two."""
    st, i, root = _phase2_step_state(game, comp, index=6)
    s = st.st
    seat = int(s[L.S_SEAT])
    m = _tok(comp, name)
    _put(comp, s, m, root)
    _give(comp, s, _tok(comp, "Merry"), seat)
    st.apply(i)
    assert s[L.S_DK] == L.DK_FIGHT
    acts = st.legal_actions()
    assert sorted(int(a[1]) for a in acts) == [0, 1]
    st.apply(next(j for j, a in enumerate(acts) if a[1] == 1))
    assert s[L.S_FLEFT + seat] == 1
    assert s[L.O_TWHERE + _tok(comp, "Merry")] == L.T_USED and s[L.O_TWHERE + m] == L.T_HELD


def test_ts_6_5_every_fought_monster_is_taken_at_the_fight(game, comp):
    """TS-6.5: in whole games, each fight is followed at once by its monster being taken by
    the fighter (so no game ends with a fought monster left untaken)."""
    fights = 0
    for i in range(6):
        _, ev = game.play(comp, {"frodo": "racer", "sam": "racer"}, 37, 78 + i)
        for k, e in enumerate(ev):
            if e["event"] == "fight":
                fights += 1
                nxt = [x for x in ev[k + 1:k + 5] if x["event"] == "token_taken"]
                assert nxt and nxt[0]["token"]["id"] == e["token"]["id"] and nxt[0]["side"] == e["side"]
    assert fights > 0


# -- TS-3.4: neutral sections link ---------------------------------------------------------------
def test_ts_3_4_neutral_sections_of_one_terrain_link(game, comp):
    """TS-3.4 ("Все соединяющиеся одинаковые типы местности составляют регион"): two
    side-sharing sections of a neutral tile that took the same terrain are one region, unless
    mountain (TS-1.3: a mountain region stays at exactly 2 sections)."""
    pairs = 0
    for i in range(30):
        r = game.simulate(comp, R, 41, i, 1, threads=1)
        if r["neutral_tiles"][0] == 0:
            continue
        st = game.bind(comp).new_state(R, 41, i)
        st.run_builtin([])
        s = st.st
        for c in range(L.NCELL):
            if s[L.O_CTILE + c] < 0 or s[L.O_CNEU + c] == 0:
                continue
            for d in range(4):
                a, b = 4 * c + d, 4 * c + (d + 1) % 4
                t = s[L.O_STER + a]
                if t == s[L.O_STER + b] and t < L.NEUTRAL:
                    if t == L.MOUNTAIN:
                        assert _root(s, a) != _root(s, b)
                    else:
                        pairs += 1
                        assert _root(s, a) == _root(s, b), (i, c, d)
        h0, h1 = s[L.S_HOB], s[L.S_HOB + 1]
        if h0 >= 0 and h1 >= 0:
            assert _root(s, h0) != _root(s, h1)          # TS-3.5 still holds
    assert pairs > 0


# -- TS-1.4 / TS-6.3: the Shire --------------------------------------------------------------------
def test_ts_6_3_hobbits_may_move_back_into_the_shire(game, comp, steps, rng):
    """TS-1.4 / TS-6.3: the Shire is a region adjacent to the regions of its tile's four
    sections, exempt from the one-hobbit rule: a hobbit in such a region is offered the step
    into the Shire, also while the other hobbit stands there."""
    offered = [0, 0]

    def check(state, acts, j):
        s = state.st
        if s[L.S_DK] != L.DK_MOVE:
            return
        seat = int(s[L.S_SEAT])
        h = s[L.S_HOB + seat]
        can_step = s[L.S_NORMAL] == 0 or _held(comp, s, seat, L.P_MOVER)
        if h >= 0 and can_step:
            touches = any(s[L.O_STER + 4 * SHIRE_CELL + d] < L.NEUTRAL and _root(s, 4 * SHIRE_CELL + d) == _root(s, h)
                          for d in range(4))
            has = any(a[0] == L.A_STEP and a[1] == L.AT_SHIRE for a in acts)
            assert has == bool(touches)
            if has:
                offered[0] += 1
                offered[1] += int(s[L.S_HOB + 1 - seat] == L.AT_SHIRE)
    for i in range(6):
        steps(game, comp, R, 43, i, check, rng=rng, debug=False)
    assert offered[0] > 0 and offered[1] > 0, offered


# -- TS-1.1 / TS-2.5: components and token values ------------------------------------------------
RULEBOOK_TOKENS = {   # TS-2.5: name -> (colour, value)
    "Gandalf": ("green", 5), "Aragorn": ("green", 4), "Galadriel": ("green", 4), "Legolas": ("green", 3),
    "Boromir": ("green", 3), "Gimli": ("green", 3), "Pippin": ("green", 2), "Merry": ("green", 2),
    "Sting": ("yellow", 5), "Anduril": ("yellow", 4), "Mithril": ("yellow", 4), "Elven cloak": ("yellow", 3),
    "Elven rope": ("yellow", 3), "Phial": ("yellow", 3), "Lembas": ("yellow", 2), "Athelas": ("yellow", 2),
    "The Ring": ("blue", 1), "Gollum": ("blue", 0), "Gwaihir": ("blue", 1), "Ent": ("blue", 1),
    "Balrog": ("brown", 5), "Shelob": ("brown", 4), "Troll": ("brown", 3), "Orc leader": ("brown", 3),
    "Orc": ("brown", 2), "Empty cave": ("brown", 0),
}


def test_ts_2_5_default_token_values_are_the_rulebooks(comp):
    """TS-2.5: every default token has the rulebook's colour and value (e.g. Gandalf 5), and
    the brown ones their dots (Balrog and Shelob 2, the others 1, caves 0)."""
    names = comp.names["tokens"]
    assert set(names) == set(RULEBOOK_TOKENS)
    for t, n in enumerate(names):
        col, val = RULEBOOK_TOKENS[n]
        assert L.COLOURS[int(comp.cf[L.O_TCOL + t])] == col, n
        assert int(comp.cf[L.O_TVAL + t]) == val, n
        if col == "brown":
            assert int(comp.cf[L.O_TDOTS + t]) == (2 if n in ("Balrog", "Shelob") else 0 if n == "Empty cave" else 1)


def test_ts_1_1_components(game, comp):
    """TS-1.1: 48 land tiles (the Shire and 47 others), 8 blue, 8 yellow, 8 green and 20
    brown tokens, 2 boats, two hobbits on the Shire."""
    assert len(comp.names["tiles"]) >= 47
    cols = [L.COLOURS[int(comp.cf[L.O_TCOL + t])] for t in range(comp.cf[L.C_NTOK])]
    assert {c: cols.count(c) for c in set(cols)} == {"blue": 8, "yellow": 8, "green": 8, "brown": 20}
    s = game.bind(comp).new_state(G, 1, 0).st
    assert s[L.S_BOATS] == 2 and s[L.S_HOB] == s[L.S_HOB + 1] == L.AT_SHIRE
    assert s[L.S_NPLACED] + s[L.S_HANDN] + s[L.S_HANDN + 1] + (47 - s[L.S_DECKPOS]) == 48
    assert game.setup_warnings(game.load()) == []


def test_ts_1_1_setup_warnings_name_each_departure(game):
    """TS-1.1: a set-up whose token totals depart from 8/8/8/20 says so, one line per
    colour, naming the parameters that moved it."""
    w = game.setup_warnings(game.load(overrides={"gwaihir_tokens": 2, "orc_tokens": 5, "empty_caves": 9}))
    assert len(w) == 1 and "7 blue" in w[0] and "gwaihir_tokens=2" in w[0]
    w = game.setup_warnings(game.load(overrides={"gwaihir_tokens": 2, "orc_tokens": 5}))
    assert len(w) == 2 and any("21 brown" in x and "orc_tokens=5" in x for x in w)


def test_ts_1_1_cli_prints_setup_warnings():
    """The CLI prints each set-up warning as one ``lotr-sim: warning:`` line on stderr."""
    from typer.testing import CliRunner
    from lotr_sim.cli.main import app
    r = CliRunner().invoke(app, ["run", "-g", "the-search", "-n", "3", "--set", "ent_tokens=1", "-q"])
    assert r.exit_code == 0, r.output
    lines = [ln for ln in r.stderr.splitlines() if ln.startswith("lotr-sim: warning: ")]
    assert len(lines) == 1 and "6 blue tokens instead of 8 (ent_tokens=1)" in lines[0]
    r = CliRunner().invoke(app, ["run", "-g", "the-search", "-n", "3", "-q"])
    assert "warning" not in r.stderr


# -- TS-8.2: Gollum ------------------------------------------------------------------------------
@pytest.mark.parametrize("ring,reached,want", [
    (False, False, -1), (False, True, 3 - 1), (True, True, 5), (True, False, -1)])
def test_ts_8_2_gollum(game, comp, ring, reached, want):
    """TS-8.2: Mount Doom +3, with the Ring +4, with the Ring and Gollum +5; Gollum held
    without reaching Mount Doom with the Ring: -1 (also when Mount Doom is reached without
    the Ring)."""
    st = game.bind(comp).new_state(G, 1, 0)
    s = st.st
    _give(comp, s, _tok(comp, "Gollum"), 0)
    if ring:
        _give(comp, s, _tok(comp, "The Ring"), 0)
    s[L.S_REACHED] = 0 if reached else -1
    score_nb(comp.cf, s)
    assert int(s[L.S_DOOMPTS]) == want
    assert int(s[L.S_POINTS]) == want + (1 if ring else 0)


# -- TS-5.4: who starts phase 3 -------------------------------------------------------------------
def test_ts_5_4_phase_3_starts_with_the_last_placer(game, comp, steps):
    """TS-5.4 ("Начиная с игрока, который выложил последнюю плитку"): phase 3 starts with the
    player who placed the last tile, in that same turn (TS-5.3: phase 2 ends at once, so the
    placer's move of that turn is its first phase-3 move), then the players alternate: on
    phase-3 turn k the placer moves when k is odd. The placer is skipped only when it has no
    move at all (a fight takes it, or no region to step to)."""
    checked = [0]
    first = [0]
    for i in range(4):
        last = {"seat": -1, "turn": -1, "fight": 0, "first": True}

        def check(state, acts, j, last=last):
            s = state.st
            if s[L.S_PHASE] == L.PH2 and s[L.S_DK] in (L.DK_PLACE, L.DK_NEUTRAL):
                last["seat"] = int(s[L.S_SEAT])
                last["turn"] = int(s[L.S_TURN])
                last["fight"] = int(s[L.S_FLEFT + s[L.S_SEAT]])
            if s[L.S_PHASE] == L.PH3:
                k = int(s[L.S_P3TURNS])
                assert int(s[L.S_SEAT]) == (last["seat"] if k % 2 == 1 else 1 - last["seat"])
                checked[0] += 1
                if last["first"]:                  # the first phase-3 decision
                    last["first"] = False
                    if int(s[L.S_SEAT]) == last["seat"]:
                        assert (int(s[L.S_TURN]), k) == (last["turn"], 1)
                        first[0] += 1
                    else:                          # only if the placer had no move
                        c = s.copy()
                        c[L.S_SEAT] = last["seat"]
                        c[L.S_NORMAL] = 0
                        act = np.zeros((L.MAXA, 4), dtype=np.int64)
                        n = move_options_nb(comp.cf, c, last["seat"], act)
                        assert last["fight"] > 0 or all(act[:n, 0] == L.A_STOP), "the placer lost its move"
        steps(game, comp, G, 17, i, check, debug=False)
    assert checked[0] > 10 and first[0] >= 2, (checked, first)


# -- rule IDs named by no test before --------------------------------------------------------------
def test_ts_1_4_shire_and_mount_doom_touch_their_tiles_regions(game, comp, steps, rng):
    """TS-1.4: from the Shire a hobbit steps into exactly the (enterable) regions of the Shire
    tile's four sections; the step onto Mount Doom is offered exactly from a region with a
    section on Mount Doom's tile (phase 3)."""
    seen = [0, 0]

    def check(state, acts, j):
        s = state.st
        if s[L.S_DK] != L.DK_MOVE:
            return
        seat = int(s[L.S_SEAT])
        h = s[L.S_HOB + seat]
        steps_to = {int(a[1]) for a in acts if a[0] == L.A_STEP}
        if h == L.AT_SHIRE and (s[L.S_NORMAL] == 0 or _held(comp, s, seat, L.P_MOVER)):
            want = set()
            for d in range(4):
                r = _root(s, 4 * SHIRE_CELL + d)
                other = s[L.S_HOB + 1 - seat]
                if s[L.O_STER + r] == L.WATER and s[L.S_BOAT + seat] == 0:
                    continue
                if other >= 0 and _root(s, other) == r:
                    continue
                want.add(r)
            assert steps_to == want
            seen[0] += 1
        if h >= 0 and s[L.S_PHASE] == L.PH3 and (s[L.S_NORMAL] == 0 or _held(comp, s, seat, L.P_MOVER)):
            doom = int(s[L.S_DOOM])
            touch = any(s[L.O_STER + 4 * doom + d] < L.NEUTRAL and _root(s, 4 * doom + d) == _root(s, h)
                        for d in range(4))
            assert (L.AT_DOOM in steps_to) == touch
            seen[1] += int(touch)
    for i in range(4):
        steps(game, comp, R, 44, i, check, rng=rng, debug=False)
    assert seen[0] > 0 and seen[1] > 0, seen


def test_ts_3_6_no_tiles_in_hand_places_none(game, comp):
    """TS-3.6: a player with no tiles in hand places none - its turn goes on to the move."""
    st = game.bind(comp).new_state(G, 5, 0)
    while not (st.st[L.S_PHASE] == L.PH2 and st.st[L.S_DK] == L.DK_PLACE):
        st.apply(st.builtin_choice())
    s = st.st
    seat = int(s[L.S_SEAT])
    placed = int(s[L.S_NPLACED])
    s[L.S_HANDN + seat] = 0
    s[L.S_STAGE] = 0                                    # back to the start of the turn (place)
    advance_nb(comp.cf, s, st.tr, st.act)
    st.n_legal = -1
    assert int(s[L.S_NPLACED]) == placed
    assert not (int(s[L.S_SEAT]) == seat and s[L.S_DK] in (L.DK_PLACE, L.DK_NEUTRAL))


def _nbr_roots(s, root):
    """Independent TS-6.1 reading: roots of the regions sharing a side with region ``root``
    (across tiles, or on a tile across a diagonal)."""
    out = set()
    for v in range(L.NSEC):
        if s[L.O_STER + v] >= L.NEUTRAL or s[L.O_STER + v] < 0 or _root(s, v) != root:
            continue
        c, d = divmod(v, 4)
        cand = [4 * c + (d + 1) % 4, 4 * c + (d + 3) % 4]
        r, q = divmod(c, L.GC)
        dr, dc = ((-1, 0), (0, 1), (1, 0), (0, -1))[d]
        if 0 <= r + dr < L.GR and 0 <= q + dc < L.GC:
            cand.append(4 * ((r + dr) * L.GC + q + dc) + (d + 2) % 4)
        for u in cand:
            if 0 <= s[L.O_STER + u] < L.NEUTRAL and _root(s, u) != root:
                out.add(_root(s, u))
    return out


def test_ts_6_1_steps_go_to_adjacent_regions(game, comp, steps, rng):
    """TS-6.1: every step offered goes to a region sharing a side with the hobbit's region
    (from any of its sections), and every such region the hobbit may enter is offered."""
    seen = [0]

    def check(state, acts, j):
        s = state.st
        if s[L.S_DK] != L.DK_MOVE:
            return
        seat = int(s[L.S_SEAT])
        h = s[L.S_HOB + seat]
        if h < 0 or not (s[L.S_NORMAL] == 0 or _held(comp, s, seat, L.P_MOVER)):
            return
        nb = _nbr_roots(s, _root(s, h))
        offered = {int(a[1]) for a in acts if a[0] == L.A_STEP and a[1] >= 0}
        other = s[L.S_HOB + 1 - seat]
        may = {r for r in nb if not (s[L.O_STER + r] == L.WATER and s[L.S_BOAT + seat] == 0)
               and not (other >= 0 and _root(s, other) == r)}
        assert offered == may
        seen[0] += 1
    for i in range(3):
        steps(game, comp, R, 45, i, check, rng=rng, debug=False)
    assert seen[0] > 20


def test_ts_7_5_ring_and_gollum_have_no_power(game, comp):
    """TS-7.5: the Ring and Gollum are never used (no power, they only score): they are
    taken in some games but never turned up as used."""
    taken = 0
    ring_gollum = {_tok(comp, "The Ring"), _tok(comp, "Gollum")}
    for i in range(8):
        _, ev = game.play(comp, R, 46, i)
        for e in ev:
            if e["event"] == "token_taken" and e["token"]["id"] in ring_gollum:
                taken += 1
            if e["event"] == "token_used":
                assert e["token"]["id"] not in ring_gollum
    assert taken > 0


# -- traces -----------------------------------------------------------------------------------------
def test_trace_logs_every_decision_with_its_seat(game, comp):
    """Traces: each decision of the step machine is an event ``decision`` with exactly seat,
    kind, choice, n_legal and row; replaying the logged choices through the step machine
    gives the same legal lists, the same rows and the same game."""
    for pols, idx in ((G, 3), (R, 4)):
        row, ev = game.play(comp, pols, 47, idx)
        dec = [e for e in ev if e["event"] == "decision"]
        assert dec
        assert all({"seat", "kind", "choice", "n_legal", "row"} <= set(e) for e in dec)
        st = game.bind(comp).new_state(pols, 47, idx)
        for e in dec:
            assert st.to_move == e["seat"] and e["side"] == game.sides[e["seat"]]
            assert st.decision_kind() == e["kind"]
            acts = st.legal_actions()
            assert len(acts) == e["n_legal"] and list(acts[e["choice"]]) == e["row"]
            st.apply(e["choice"])
        assert st.is_terminal()
        res = st.result()
        assert all(np.array_equal(res[k], row[k]) for k in row)


def test_trace_hands_and_tiles_drawn(game, comp):
    """Traces: every tile drawn is logged (who, which tile) and the hands in each snapshot
    are what the draws and placements leave."""
    _, ev = game.play(comp, G, 48, 0)
    hands = {"frodo": [], "sam": []}
    draws = 0
    for e in ev:
        if e["event"] == "draw":
            hands[e["side"]].append(e["tile"])
            draws += 1
        elif e["event"] == "place" and e["side"]:
            hands[e["side"]].remove(e["tile"])
        elif e["event"] == "snapshot":
            pats = comp.names["tiles"]
            assert {k: sorted(pats[t] for t in v) for k, v in hands.items()} == \
                {k: sorted(v) for k, v in e["hands"].items()}
    assert draws == 47


def test_outcomes_identical_with_trace_on_and_off(game, comp):
    """A traced game (``play``) has the same outcome row as the untraced batch run of that
    game index, for heuristic and random players."""
    for pols in (G, R, {"frodo": "racer", "sam": "greedy"}):
        for idx in (0, 7, 124):
            row, _ = game.play(comp, pols, 31, idx)
            batch = game.simulate(comp, pols, 31, idx, 1, threads=1)
            assert all(np.array_equal(row[k], batch[k]) for k in row), (pols, idx)


def test_doom_cell_means_the_same_in_trace_and_outcomes(game, comp):
    """``doom_cell`` is ``row * 8 + column`` of the drawn 6 x 8 map both in games.parquet and
    in the trace, and the account names Mount Doom's row and column in that map."""
    for idx in range(3):
        row, ev = game.play(comp, G, 49, idx)
        end = ev[-1]
        assert end["event"] == "game_end" and end["doom_cell"] == int(row["doom_cell"][0])
        ph = next(e for e in ev if e["event"] == "phase" and e["phase"] == 3)
        assert ph["doom_cell"] == end["doom_cell"]
        places = [e for e in ev if e["event"] == "place"]
        assert {(e["row"], e["col"]) for e in places} == {(r, c) for r in range(6) for c in range(8)}
        text = game.account(ev)
        d = end["doom_cell"]
        assert f"Mount Doom at row {d // 8} col {d % 8}" in text
        assert "hands:" in text and "tokens" in text.split("reached Mount Doom:")[1].split("Game over")[0]
