"""The Search placement kernels (placement.py): what laying a tile does to the regions and
their closure (TS-3.4, TS-4.2, TS-4.3), on boards built with ``place_nb`` and on games played
through the step machine, against an independent reading of which regions are closed."""
from __future__ import annotations

from lotr_sim.games.the_search import layout as L
from lotr_sim.games.the_search.placement import neutral_fits_nb, place_nb
from lotr_sim.games.the_search.play import advance_nb
from lotr_sim.games.the_search.regions import SHIRE_CELL
from lotr_sim.games.the_search.trace import decode

G = {"frodo": "greedy", "sam": "greedy"}



def _heuristic_of_tuned() -> str:
    """Tuned's weights with its learned term off: the player the traced games below were
    read from (the rules they check do not depend on it, the game's course does)."""
    from lotr_sim.games.registry import get_game
    t = get_game("the-search").policy_table
    rows = {s: r.copy() for s, r in t.rows("tuned").items()}
    for s in rows:
        for w in t.learned_weights(s):
            rows[s][w.index] = 0.0
    return t.inline_name(rows)


TH = _heuristic_of_tuned()
T = {"frodo": TH, "sam": TH}


def _root(st, v):
    while st[L.O_PAR + v] != v:
        v = st[L.O_PAR + v]
    return v


def _fillable(cf, st, cell, d):
    """The cell beyond side ``d`` of ``cell`` is empty and may still be filled (TS-3.1)."""
    nc = int(cf[L.O_NBR + 4 * cell + d])
    if nc < 0 or st[L.O_CTILE + nc] >= 0:
        return False
    r, q = divmod(nc, L.GC)
    return (max(st[L.S_RMAX], r) - min(st[L.S_RMIN], r) + 1 <= L.MAP_R
            and max(st[L.S_CMAX], q) - min(st[L.S_CMIN], q) + 1 <= L.MAP_C)


def unrecorded_closures(cf, st):
    """Roots of regions that TS-4.2 closes but the engine never closed (no closure, no site).

    Read independently of the engine's open-side counts: a region is open while one of its
    sections faces a fillable empty cell, or (TS-3.4) while a section of a neutral tile that
    took a non-mountain terrain shares a side on its tile with a still-neutral section that
    faces a fillable empty cell (that section may yet take the same terrain and link). A
    neutral section facing another neutral section never takes a terrain."""
    opn: dict[int, bool] = {}
    for c in range(L.NCELL):
        if st[L.O_CTILE + c] < 0:
            continue
        for d in range(4):
            t = st[L.O_STER + 4 * c + d]
            if t >= L.NEUTRAL:
                continue
            o = _fillable(cf, st, c, d)
            if st[L.O_CNEU + c] == 1 and t != L.MOUNTAIN:
                o = o or any(st[L.O_STER + 4 * c + (d + k) % 4] == L.NEUTRAL and _fillable(cf, st, c, (d + k) % 4)
                             for k in (1, 3))
            r = _root(st, 4 * c + d)
            opn[r] = opn.get(r, False) or o
    return sorted(r for r, o in opn.items() if not o and st[L.O_RSITE + r] == 0)


def test_ts_4_2_a_neutral_side_facing_a_neutral_tile_closes_the_region(game, comp):
    """TS-4.2 / TS-4.3 / TS-3.4: a desert section a neutral tile took beside the Shire keeps
    its region open while the neutral sections beside it face empty cells (they may yet take
    desert and link). Once neutral tiles fill those cells the sections can take nothing (a
    neutral section beside a neutral section stays neutral), so the 2-section region is
    closed: a token site, and the placer lays the top yellow token on it."""
    st = game.bind(comp).new_state(G, 1, 0, trace=True)
    s, cf = st.st, comp.cf
    east = SHIRE_CELL + 1
    tile = int(s[L.O_DECK + s[L.S_DECKPOS]])           # any tile: it goes face down
    assert "".join(L.TERRAIN_LETTERS[cf[L.O_PAT + 4 * L.SHIRE_TILE + d]] for d in range(4))[1] == "D"
    place_nb(cf, s, st.tr, 0, east, tile, 0, True)
    region = _root(s, 4 * east + 3)                    # its W section took the Shire's desert
    assert s[L.O_STER + 4 * east + 3] == L.DESERT and s[L.O_RSIZE + region] == 2
    assert s[L.O_ROPEN + region] == 2                   # N and S may still take desert
    place_nb(cf, s, st.tr, 1, east - L.GC, tile, 0, True)
    assert s[L.O_ROPEN + _root(s, region)] == 1, "the north side can take no terrain now"
    assert s[L.O_RSITE + _root(s, region)] == 0
    top = int(s[L.O_TSTK + L.DESERT * L.MAXTOK + s[L.S_TPOS + L.DESERT]])
    place_nb(cf, s, st.tr, 0, east + L.GC, tile, 0, True)
    region = _root(s, region)
    assert s[L.O_ROPEN + region] == 0
    assert s[L.O_RSITE + region] == 2, "a closed region of 2 sections is a token site"
    assert s[L.O_RTOK + region] == top
    ev = decode(comp, st.tr, 0)
    closed = [e for e in ev if e["event"] == "region_closed" and e["region"] == region]
    laid = [e for e in ev if e["event"] == "token_placed" and e["region"] == region]
    assert [(e["size"], e["terrain"]) for e in closed] == [(2, "D")]
    assert [(e["side"], e["token"]["id"], e["colour"]) for e in laid] == [("frodo", top, "yellow")]
    assert unrecorded_closures(cf, s) == []


def test_ts_4_2_seed_3_turn_46_neutral_tile_closes_the_desert_region(game, comp):
    """TS-4.2 / TS-4.3 (tuned v tuned, seed 3, game 0): on turn 46 Sam lays a neutral tile at
    row 0 col 1; it closes the desert region of row 1 col 0 (E) and row 1 col 1 (W), so a
    yellow token goes on it (the yellow stack is not empty). At no step of the game is a
    closed region left unclosed."""
    _, events = game.play(comp, T, 3, 0)
    turn = [e for e in events if e.get("turn") == 46]
    place = [e for e in turn if e["event"] == "place"]
    assert [(e["side"], e["neutral"], e["row"], e["col"]) for e in place] == [("sam", True, 0, 1)]
    closed = [(e["size"], e["terrain"]) for e in turn if e["event"] == "region_closed"]
    assert (2, "D") in closed
    assert "yellow" in [e["colour"] for e in turn if e["event"] == "token_placed"]
    st = game.bind(comp).new_state(T, 3, 0)
    while not st.is_terminal():
        st.apply(st.builtin_choice())
        assert unrecorded_closures(comp.cf, st.st) == [], int(st.st[L.S_TURN])


def test_ts_4_2_every_closed_region_is_closed_by_the_engine(game, comp):
    """TS-4.2 / TS-4.3: in tuned and greedy games (which lay neutral tiles), after every step
    each region the independent reading finds closed has been closed by the engine (a region
    of 2 sections made a token site)."""
    steps = 0
    for pol in (T, G):
        for i in range(6):
            st = game.bind(comp).new_state(pol, 7, i)
            while not st.is_terminal():
                st.apply(st.builtin_choice())
                assert unrecorded_closures(comp.cf, st.st) == [], (i, int(st.st[L.S_TURN]))
                steps += 1
    assert steps > 500


def test_ts_3_5_neutral_tile_linking_the_hobbits_through_a_chain_does_not_fit(game, comp):
    """TS-3.5 / TS-3.4: a neutral tile whose N, E and S sections would take forest from three
    forest regions links them in a chain (N-E, E-S) - the first holds Frodo, the last Sam - so
    it would join the hobbits' regions through its middle section: that cell does not fit,
    although no two of its side-sharing sections join the two regions directly."""
    st = game.bind(comp).new_state(G, 1, 0)
    s, cf = st.st, comp.cf
    forest = comp.names["tiles"].index("FFFF")
    cell = SHIRE_CELL + 3
    north, east, south = cell - L.GC, cell + 1, cell + L.GC
    for c in (north, east, south):
        place_nb(cf, s, st.tr, 0, c, forest, 0, False)
    r0, x, r1 = (_root(s, 4 * c) for c in (north, east, south))
    assert len({r0, x, r1}) == 3
    s[L.S_HOB], s[L.S_HOB + 1] = 4 * north + 2, 4 * south
    assert not neutral_fits_nb(cf, s, cell)
    assert neutral_fits_nb(cf, s, cell - 1)          # west of it: only the Shire row's tiles
    s[L.S_HOB + 1] = 4 * east + 3                     # Sam beside Frodo's link: still joined
    assert not neutral_fits_nb(cf, s, cell)
    s[L.S_HOB + 1] = L.AT_SHIRE
    assert neutral_fits_nb(cf, s, cell)


def _every_cell_joins_the_hobbits(game, comp, seed=9):
    """A greedy game at its last placement, the one empty cell facing on two side-sharing
    sides the same non-mountain terrain of two regions; the hobbits are put into those two
    regions. Any tile that fits there links those two sides (TS-1.3), so none may be laid
    (TS-3.5) and a neutral tile there joins them too. Returns (state, cell, sides, sections)."""
    cf = comp.cf
    for idx in range(80):
        st = game.bind(comp).new_state(G, seed, idx)
        while not (st.st[L.S_NPLACED] == L.NTILE and st.st[L.S_DK] in (L.DK_PLACE, L.DK_NEUTRAL)):
            st.apply(st.builtin_choice())
        s = st.st
        cell = next(c for c in range(L.NCELL) if s[L.O_CTILE + c] < 0
                    and s[L.S_RMIN] <= c // L.GC <= s[L.S_RMAX] and s[L.S_CMIN] <= c % L.GC <= s[L.S_CMAX])
        for d in range(4):
            e = (d + 1) % 4
            na, nb = int(cf[L.O_NBR + 4 * cell + d]), int(cf[L.O_NBR + 4 * cell + e])
            if (min(na, nb) < 0 or min(s[L.O_CTILE + na], s[L.O_CTILE + nb]) < 0
                    or s[L.O_CNEU + na] == 1 or s[L.O_CNEU + nb] == 1):
                continue
            a, b = 4 * na + (d + 2) % 4, 4 * nb + (e + 2) % 4
            t = s[L.O_STER + a]
            if t == s[L.O_STER + b] and 0 <= t != L.MOUNTAIN and _root(s, a) != _root(s, b):
                s[L.S_HOB], s[L.S_HOB + 1] = a, b
                s[L.S_HCELL], s[L.S_HCELL + 1] = na, nb
                s[L.S_STAGE] = 0                      # back to the start of the turn (place)
                return st, cell, (d, e), (a, b)
    raise AssertionError("no game ends with such a last cell")


def test_ts_3_5_neutral_join_skip_link_lays_the_tile_without_the_link(game, comp):
    """TS-3.5 / TS-3.4 [R] ``neutral_join = skip_link`` (default): when every legal cell would
    join the hobbits' regions the neutral tile still goes on one, and the link that would join
    them is not made - both sections take the terrain, the hobbits stay in two regions."""
    st, cell, (d, e), (a, b) = _every_cell_joins_the_hobbits(game, comp)
    s = st.st
    seat = int(s[L.S_SEAT])
    advance_nb(comp.cf, s, st.tr, st.act)
    st.n_legal = -1
    acts = st.legal_actions()
    assert s[L.S_DK] == L.DK_NEUTRAL and int(s[L.S_SEAT]) == seat
    assert len(acts) > 0 and {int(x[2]) for x in acts} == {cell}
    st.apply(0)
    assert s[L.O_CNEU + cell] == 1 and s[L.S_NPLACED] == L.NTILE + 1
    assert s[L.O_STER + 4 * cell + d] == s[L.O_STER + 4 * cell + e] == s[L.O_STER + a]
    assert _root(s, 4 * cell + d) != _root(s, 4 * cell + e)
    assert _root(s, a) != _root(s, b)


def test_ts_3_5_neutral_join_no_tile_lays_nothing(game):
    """TS-3.5 / TS-3.4 [R] ``neutral_join = no_tile``: TS-3.5 bars the neutral tile too, so
    where every legal cell would join the hobbits' regions the player lays no tile this turn
    (as TS-3.6) and goes on to its move; hand and map stay as they were."""
    comp = game.compile(game.load(overrides={"neutral_join": "no_tile"}))
    assert comp.cf[L.C_NEUTRAL_JOIN] == 1
    st, cell, _, (a, b) = _every_cell_joins_the_hobbits(game, comp)
    s = st.st
    seat = int(s[L.S_SEAT])
    hand = int(s[L.S_HANDN + seat])
    advance_nb(comp.cf, s, st.tr, st.act)
    st.n_legal = -1
    assert not (int(s[L.S_SEAT]) == seat and s[L.S_DK] in (L.DK_PLACE, L.DK_NEUTRAL))
    assert s[L.O_CTILE + cell] < 0 and s[L.S_NPLACED] == L.NTILE
    assert int(s[L.S_HANDN + seat]) == hand and s[L.S_UNPL + seat] > 0
    assert _root(s, a) != _root(s, b)
