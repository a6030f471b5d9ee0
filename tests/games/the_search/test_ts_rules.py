"""The Search rules, one test per rule ID (TS-x.y in docs/rules/the-search.md), checked on
games played through the step machine, against independent Python readings of the state."""
from __future__ import annotations

import numpy as np

from lotr_sim.games.the_search import layout as L
from lotr_sim.games.the_search.play import invariant_nb
from lotr_sim.games.the_search.regions import SHIRE_CELL


R = {"frodo": "random", "sam": "random"}
G = {"frodo": "greedy", "sam": "greedy"}


def _placed(st):
    return {c for c in range(L.NCELL) if st[L.O_CTILE + c] >= 0}


def _root(st, v):
    while st[L.O_PAR + v] != v:
        v = st[L.O_PAR + v]
    return v


def _regions(st):
    """Independent regions: flood fill over sections by the TS-1.3/TS-4.1 links."""
    ster = st[L.O_STER: L.O_STER + L.NSEC]
    comp = -np.ones(L.NSEC, dtype=np.int64)
    k = 0
    for s0 in range(L.NSEC):
        if not 0 <= ster[s0] < L.NEUTRAL or comp[s0] >= 0:
            continue
        comp[s0] = k
        todo = [s0]
        while todo:
            s = todo.pop()
            c, d = divmod(s, 4)
            nbrs = []
            if ster[s] != L.MOUNTAIN:       # TS-1.3; TS-3.4: neutral sections link like any others
                nbrs += [4 * c + (d + 1) % 4, 4 * c + (d + 3) % 4]
            dr, dc = ((-1, 0), (0, 1), (1, 0), (0, -1))[d]
            r, q = divmod(c, L.GC)
            if 0 <= r + dr < L.GR and 0 <= q + dc < L.GC:
                nbrs.append(4 * ((r + dr) * L.GC + q + dc) + (d + 2) % 4)
            for t in nbrs:
                if comp[t] < 0 and ster[t] == ster[s]:
                    comp[t] = k
                    todo.append(t)
        k += 1
    return comp


def test_ts_1_3_and_4_1_regions_match_a_flood_fill(game, comp, steps):
    """TS-1.3 / TS-4.1: union-find regions are exactly the flood-fill regions, and a mountain
    region never has more than 2 sections (rivers cut mountain sections off on a tile)."""
    for i in range(3):
        st = steps(game, comp, R, 31, i).st
        ref = _regions(st)
        secs = [s for s in range(L.NSEC) if ref[s] >= 0]
        roots = {}
        for s in secs:
            roots.setdefault(ref[s], set()).add(_root(st, s))
        assert all(len(v) == 1 for v in roots.values())
        for k in set(ref[secs]):
            members = [s for s in secs if ref[s] == k]
            assert st[L.O_RSIZE + _root(st, members[0])] == len(members)
            if st[L.O_STER + members[0]] == L.MOUNTAIN:
                assert len(members) <= 2


def test_ts_3_1_bounding_box_and_full_map(game, comp, steps):
    """TS-3.1: the bounding box never exceeds 6 x 8; the finished map is 6 x 8 = 48 tiles."""
    def check(state, acts, i):
        st = state.st
        assert st[L.S_RMAX] - st[L.S_RMIN] + 1 <= 6 and st[L.S_CMAX] - st[L.S_CMIN] + 1 <= 8
    for i in range(3):
        st = steps(game, comp, R, 3, i, check).st
        cells = _placed(st)
        rows = {c // L.GC for c in cells}
        cols = {c % L.GC for c in cells}
        assert len(cells) == 48 and len(rows) == 6 and len(cols) == 8


def test_ts_3_2_every_placed_side_matches(game, comp, steps):
    """TS-3.2 / TS-3.4: every side shared by two placed tiles shows one terrain, or touches a
    neutral tile (whose section then took that terrain)."""
    for i in range(3):
        st = steps(game, comp, R, 4, i).st
        for c in _placed(st):
            for d in range(4):
                nc = comp.cf[L.O_NBR + 4 * c + d]
                if nc < 0 or st[L.O_CTILE + nc] < 0:
                    continue
                a, b = st[L.O_STER + 4 * c + d], st[L.O_STER + 4 * nc + (d + 2) % 4]
                if st[L.O_CNEU + c] and st[L.O_CNEU + nc]:
                    continue
                assert a == b


def _legal_cells_py(st, phase):
    placed = _placed(st)
    out = set()
    for d in range(4):
        c = SHIRE_CELL
        while c in placed:
            r, q = divmod(c, L.GC)
            dr, dc = ((-1, 0), (0, 1), (1, 0), (0, -1))[d]
            c = (r + dr) * L.GC + q + dc
            if phase == 1:
                break
        if c not in placed:
            out.add(c)
    if phase == 2:
        for c in range(L.NCELL):
            r, q = divmod(c, L.GC)
            if c in placed or not (1 <= r < L.GR - 1 and 1 <= q < L.GC - 1):
                continue
            if sum(n in placed for n in (c - L.GC, c + 1, c + L.GC, c - 1)) >= 2:
                out.add(c)
    rows = [c // L.GC for c in placed]
    cols = [c % L.GC for c in placed]
    return {c for c in out if max(rows + [c // L.GC]) - min(rows + [c // L.GC]) < 6
            and max(cols + [c % L.GC]) - min(cols + [c % L.GC]) < 8}


def test_ts_3_3_legal_cells(game, comp, rng, steps):
    """TS-3.3: the cells offered are exactly the legal ones (phase 1: the Shire's four
    neighbours; phase 2: an arm's extension or a cell touching two placed tiles)."""
    seen = [0]

    def check(state, acts, i):
        st = state.st
        if st[L.S_DK] not in (L.DK_PLACE, L.DK_NEUTRAL):
            return
        cells = {int(a[2]) for a in acts}
        legal = _legal_cells_py(st, int(st[L.S_PHASE]))
        if st[L.S_DK] == L.DK_NEUTRAL:
            assert cells == legal
        else:
            assert cells <= legal
        seen[0] += 1
    for i in range(3):
        steps(game, comp, R, 5, i, check, rng=rng)
    assert seen[0] >= 3 * 47


def test_ts_3_4_neutral_tiles_and_mount_doom(game, comp, steps):
    """TS-3.4 / TS-5.3: a neutral decision comes only when no tile of the hand fits; Mount Doom
    ends on the last neutral tile placed, or on the last tile placed when there is none."""
    saw_neutral = 0
    for i in range(6):
        last = {"neutral": -1, "any": -1}

        def check(state, acts, _i, last=last):
            if state.st[L.S_DK] == L.DK_NEUTRAL:
                assert all(a[0] == L.A_NEUTRAL for a in acts)
            if state.st[L.S_DK] in (L.DK_PLACE, L.DK_NEUTRAL):
                a = acts[_i]
                last["any"] = int(a[2])
                if a[0] == L.A_NEUTRAL:
                    last["neutral"] = int(a[2])
        st = steps(game, comp, R, 6, i, check).st
        want = last["neutral"] if last["neutral"] >= 0 else last["any"]
        assert st[L.S_DOOM] == want
        saw_neutral += int(st[L.S_NNEUTRAL])
    assert saw_neutral > 0


def test_ts_3_5_hobbit_regions_never_joined(game, comp, rng, steps):
    """TS-3.5 / TS-6.3: the two hobbits never share a region (no placement joins theirs)."""
    def check(state, acts, i):
        st = state.st
        h0, h1 = st[L.S_HOB], st[L.S_HOB + 1]
        if h0 >= 0 and h1 >= 0:
            assert _root(st, h0) != _root(st, h1)
    for i in range(4):
        steps(game, comp, G, 7, i, check)
        steps(game, comp, R, 7, i, check, rng=rng)


def test_ts_4_3_tokens_only_on_closed_two_section_regions(game, comp, steps):
    """TS-4.2 / TS-4.3: a token lies only on a closed region of exactly 2 sections whose
    colour is the region's terrain."""
    def check(state, acts, i):
        st = state.st
        for s in range(L.NSEC):
            t = st[L.O_RTOK + s]
            if t >= 0 and st[L.O_PAR + s] == s:
                assert st[L.O_RSIZE + s] == 2 and st[L.O_ROPEN + s] == 0
                assert comp.cf[L.O_TCOL + t] == st[L.O_STER + s]
    for i in range(2):
        steps(game, comp, G, 8, i, check)


def test_ts_5_1_phase_one_is_the_cross_of_five(game, comp, steps):
    """TS-5.1 / TS-5.2: phase 1 lays the four Shire neighbours, alternating from Frodo; phase 2
    starts with Frodo."""
    st = game.bind(comp).new_state(R, 9, 0)
    seats = []
    while st.st[L.S_PHASE] == L.PH1:
        seats.append(st.to_move)
        st.apply(st.builtin_choice())
    assert seats == [0, 1, 0, 1]
    assert _placed(st.st) == {SHIRE_CELL, SHIRE_CELL - 1, SHIRE_CELL + 1, SHIRE_CELL - L.GC, SHIRE_CELL + L.GC}
    assert st.to_move == 0


def test_ts_9_1_full_cross(game):
    """TS-9.1 ``full``: phase 1 lays the whole central cross: 6 + 8 - 1 = 13 tiles."""
    c = game.compile(game.load(overrides={"phase1_cross": "full"}))
    st = game.bind(c).new_state(R, 9, 1)
    while st.st[L.S_PHASE] == L.PH1:
        st.apply(st.builtin_choice())
    cells = _placed(st.st)
    assert len(cells) == 13
    assert all(x // L.GC == L.SR or x % L.GC == L.SC for x in cells)


def test_ts_5_4_game_ends_on_mount_doom(game, comp, steps):
    """TS-5.4 / TS-5.3: the game ends when a hobbit reaches Mount Doom, only in phase 3."""
    for i in range(4):
        st = steps(game, comp, G, 10, i).st
        if st[L.S_REASON] == L.R_DOOM:
            seat = st[L.S_REACHED]
            assert st[L.S_HOB + seat] == L.AT_DOOM and st[L.S_NPLACED] == 48
            assert st[L.S_HOB + 1 - seat] != L.AT_DOOM


def test_ts_6_2_water_only_with_a_boat(game, comp, rng, steps):
    """TS-6.2: a hobbit never stands in a water region without a boat."""
    def check(state, acts, i):
        st = state.st
        for seat in range(2):
            h = st[L.S_HOB + seat]
            if h >= 0 and st[L.O_STER + h] == L.WATER:
                assert st[L.S_BOAT + seat] == 1
        for a in acts:
            if a[0] == L.A_STEP and a[1] >= 0 and st[L.O_STER + a[1]] == L.WATER:
                assert st[L.S_BOAT + st[L.S_SEAT]] == 1
    for i in range(4):
        steps(game, comp, R, 11, i, check, rng=rng)


def test_ts_6_5_fights_lose_moves(game, comp, steps):
    """TS-6.5 / TS-7.3: a fight costs its dots in lost moves less one per fighter used (a
    Balrog or Shelob needs two to cancel); the fighters used are turned up; the monster is
    taken at the fight."""
    fights = 0
    for i in range(8):
        _, ev = game.play(comp, G, 12, i)
        names = comp.names["tokens"]
        for k, e in enumerate(ev):
            if e["event"] != "fight":
                continue
            fights += 1
            side = e["side"]
            need = 2 if names[e["token"]["id"]] in ("Balrog", "Shelob") else 1
            f = e["fighters"]
            assert 0 <= f <= need
            assert e["moves_lost"] == (0 if f >= need else e["dots"] - f)
            assert e["cancelled"] == (e["moves_lost"] == 0)
            upto = next(j for j in range(k + 1, len(ev)) if ev[j]["event"] == "token_taken")
            assert ev[upto]["token"]["id"] == e["token"]["id"]      # taken at the fight
            used = [x for x in ev[k + 1:upto] if x["event"] == "token_used" and x["side"] == side]
            assert len(used) == f
            rest = ev[k + 1:]
            lost = [x for x in rest if x["event"] == "move_lost" and x["side"] == side][: e["moves_lost"]]
            assert len(lost) == e["moves_lost"] or ev[-1]["event"] == "game_end"
    assert fights > 0


def test_ts_6_6_boat_costs_two_brown_tokens(game, comp, rng, steps):
    """TS-6.6: a boat costs two brown tokens, returned to the box; one boat per player."""
    boats = 0
    for i in range(12):
        def check(state, acts, j):
            if acts[j][0] == L.A_BOAT:
                st = state.st
                seat = st[L.S_SEAT]
                assert st[L.S_BOAT + seat] == 0
                before = [t for t in range(comp.cf[L.C_NTOK]) if st[L.O_TWHERE + t] == L.T_BOX]
                assert len(before) == 2 * (2 - st[L.S_BOATS])
        st = steps(game, comp, R, 13, i, check, rng=rng).st
        box = [t for t in range(comp.cf[L.C_NTOK]) if st[L.O_TWHERE + t] == L.T_BOX]
        nb = int(st[L.S_BOAT] + st[L.S_BOAT + 1])
        assert len(box) == 2 * nb and all(comp.cf[L.O_TCOL + t] == L.MOUNTAIN for t in box)
        assert st[L.S_BOATS] == 2 - nb
        boats += nb
    assert boats > 0


def test_ts_7_2_ent_gives_another_turn(game, comp, steps):
    """TS-7.2: after an Ent is used the same player takes the next turn (phase 2 only)."""
    seen = 0
    for i in range(10):
        _, ev = game.play(comp, G, 14, i)
        for k, e in enumerate(ev):
            if e["event"] == "token_used" and comp.names["tokens"][e["token"]["id"]] == "Ent":
                nxt = next(x for x in ev[k + 1:] if x["event"] in ("turn_start", "phase", "game_end"))
                if nxt["event"] == "turn_start":
                    assert nxt["side"] == e["side"]
                    seen += 1
    assert seen > 0


def _score_py(comp, st, seat):
    pts = 0
    ring = gollum = False
    for t in range(comp.cf[L.C_NTOK]):
        w = st[L.O_TWHERE + t]
        if w in (L.T_HELD, L.T_USED) and st[L.O_TOWNER + t] == seat:
            pts += comp.cf[L.O_TVAL + t] - (1 if w == L.T_USED and comp.cf[L.O_TCOL + t] != L.MOUNTAIN else 0)
            ring |= comp.names["tokens"][t] == "The Ring"
            gollum |= comp.names["tokens"][t] == "Gollum"
    reached = st[L.S_REACHED] == seat
    if reached:
        pts += 5 if ring and gollum else 4 if ring else 3
    if gollum and not (reached and ring):
        pts -= 1
    return pts


def test_ts_8_scoring_and_tie_break(game, comp, steps):
    """TS-8.1 - TS-8.3: points recomputed from the tokens match; the winner has more points,
    a tie going to the hobbit on Mount Doom."""
    for i in range(10):
        st = steps(game, comp, G, 15, i, debug=False)
        s = st.st
        p = [_score_py(comp, s, k) for k in range(2)]
        row = st.result()
        assert [int(row["points_frodo"][0]), int(row["points_sam"][0])] == p
        w = int(row["winner"][0])
        if s[L.S_REASON] == L.R_DOOM:
            assert w == (0 if p[0] > p[1] else 1 if p[1] > p[0] else s[L.S_REACHED])


def test_invariants_after_every_step(game, comp, rng, steps):
    """Invariants after every step (tokens conserved, 48 tiles accounted for, bounds, sides),
    under every variant."""
    for over in ({}, {"unplaceable_hand": "redraw"}, {"phase1_cross": "full"}, {"neutral_tile": "first",
                                                                                 "gwaihir_flight": "off"}):
        c = game.compile(game.load(overrides=over))

        def check(state, acts, i, c=c):
            assert invariant_nb(c.cf, state.st) == 1
        for i in range(2):
            st = steps(game, c, R, 16, i, check, rng=rng)
            assert invariant_nb(c.cf, st.st) == 1 and st.st[L.S_NPLACED] == 48


def test_ts_2_setup(game, comp):
    """TS-2.1 - TS-2.4: the Shire in the middle, 47 tiles in one shuffled stack, each token
    colour its own shuffled stack, three tiles each, both hobbits on the Shire, Frodo first."""
    orders = set()
    for i in range(4):
        s = game.bind(comp).new_state(R, 20, i).st
        assert s[L.O_CTILE + SHIRE_CELL] == L.SHIRE_TILE and s[L.S_NPLACED] == 1
        assert s[L.S_HANDN] == 3 and s[L.S_HANDN + 1] == 3 and s[L.S_DECKPOS] == 6
        assert s[L.S_HOB] == L.AT_SHIRE == s[L.S_HOB + 1] and s[L.S_SEAT] == 0
        deck = [int(x) for x in s[L.O_DECK: L.O_DECK + 47]]
        assert sorted(deck) == list(range(47))
        orders.add(tuple(deck))
        for col in range(4):
            stack = s[L.O_TSTK + col * L.MAXTOK: L.O_TSTK + col * L.MAXTOK + s[L.S_TN + col]]
            assert all(comp.cf[L.O_TCOL + t] == col for t in stack)
        assert sum(s[L.S_TN + c] for c in range(4)) == comp.cf[L.C_NTOK] == 44
    assert len(orders) == 4


def test_ts_6_4_entering_a_token_region_takes_it(game, comp):
    """TS-6.4 / TS-6.5: entering a region with a blue, green or yellow token (or an empty
    cave) takes it at once; a monster starts a fight."""
    takes = 0
    for i in range(6):
        _, ev = game.play(comp, G, 21, i)
        onmap = {}
        for k, e in enumerate(ev):
            if e["event"] == "token_placed":
                onmap[e["region"]] = e["token"]
            elif e["event"] == "move" and e["how"] != "gwaihir" and isinstance(e["to"], list):
                pass
            if e["event"] == "token_taken" and ev[k - 1]["event"] == "move":
                takes += 1
                assert ev[k - 1]["side"] == e["side"]
        for k, e in enumerate(ev[:-1]):
            if e["event"] == "move" and e["to_section"] in onmap:
                t = onmap.pop(e["to_section"])
                nxt = next(x for x in ev[k + 1:] if x["event"] != "decision")
                monster = comp.cf[L.O_TPOW + t["id"]] == L.P_MONSTER
                assert nxt["event"] == ("fight" if monster else "token_taken")
    assert takes > 0


def test_ts_7_1_gwaihir_flies_to_the_same_terrain(game, comp, steps, rng):
    """TS-7.1 [R]: Gwaihir's flight (instead of the normal move) ends in another region of the
    hobbit's terrain, in a straight line of cells."""
    flights = [0]

    def check(state, acts, i):
        st = state.st
        for a in acts:
            if a[0] == L.A_GWAIHIR:
                seat = st[L.S_SEAT]
                h = _root(st, st[L.S_HOB + seat])
                assert st[L.S_NORMAL] == 0
                assert st[L.O_STER + a[2]] == st[L.O_STER + h] and _root(st, a[2]) != h
                d = int(a[1])
                cells = set()
                s = h
                while True:
                    cells.add(s // 4)
                    s = st[L.O_NXT + s]
                    if s == h:
                        break
                dr, dc = ((-1, 0), (0, 1), (1, 0), (0, -1))[d]
                tcells = set()
                s = a[2]
                while True:
                    tcells.add(s // 4)
                    s = st[L.O_NXT + s]
                    if s == a[2]:
                        break

                def ahead(c, tc, dr=dr, dc=dc):
                    y, x = tc // L.GC - c // L.GC, tc % L.GC - c % L.GC
                    return y * dc == x * dr and y * dr + x * dc > 0
                assert any(ahead(c, tc) for c in cells for tc in tcells)
                flights[0] += 1
    for i in range(12):
        steps(game, comp, R, 22, i, check, rng=rng, debug=False)
    assert flights[0] > 0


def test_ts_7_4_movers_add_a_region(game, comp, steps, rng):
    """TS-7.4: a step beyond the normal move needs an unused mover token, which it uses."""
    extra = [0]

    def check(state, acts, i):
        st = state.st
        seat = st[L.S_SEAT]
        movers = [t for t in range(comp.cf[L.C_NTOK]) if st[L.O_TWHERE + t] == L.T_HELD
                  and st[L.O_TOWNER + t] == seat and comp.cf[L.O_TPOW + t] == L.P_MOVER]
        for a in acts:
            if a[0] == L.A_STEP:
                assert a[2] == (1 if st[L.S_NORMAL] else 0)
                if a[2] == 1:
                    assert movers
        a = acts[i]
        if a[0] == L.A_STEP and a[2] == 1:
            extra[0] += 1
            state.meta["movers"] = len(movers)
    for i in range(8):
        steps(game, comp, R, 23, i, check, rng=rng, debug=False)
    assert extra[0] > 0


def test_ts_2_3_hobbits_start_on_the_shire_and_frodo_moves_first(game, comp):
    """TS-2.3 (with TS-5.1/5.2): both hobbits start on the Shire and Frodo moves first, in
    phase 1 and again in phase 2, whatever the seed."""
    for i in range(4):
        st = game.bind(comp).new_state(G, 23, i)
        assert st.st[L.S_HOB] == L.AT_SHIRE and st.st[L.S_HOB + 1] == L.AT_SHIRE
        assert st.to_move == 0
        _, events = game.play(comp, G, 23, i)
        starts = [e for e in events if e["event"] == "turn_start"]
        assert starts[0]["side"] == "frodo" and starts[0]["phase"] == 1
        first2 = next(e for e in starts if e["phase"] == 2)
        assert first2["side"] == "frodo"
