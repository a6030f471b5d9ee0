"""The learned player and ``lotr-sim learn``: the fit recovers a known choice model, the
features are what they say (checked against a plain-Python reference on real decisions), the
learned weights reach the engine and leave the presets' games alone, and the command is
reproducible, resumable and refuses bad input with one line."""
from __future__ import annotations

import json

import numpy as np
import pytest
from typer.testing import CliRunner

from lotr_sim import api
from lotr_sim.cli.main import app
from lotr_sim.experiments import learn as LN

runner = CliRunner()
MT = "minas-tirith"


def _cli(args):
    r = runner.invoke(app, args, catch_exceptions=False)
    return r.exit_code, r.stdout, r.stderr


def test_fit_logit_recovers_a_known_choice_model():
    """Decisions drawn from softmax(beta*h + w.f) with known beta, w: the fit finds w / beta
    within a few standard errors (3,000 decisions of 3-12 rows, seed fixed)."""
    rng = np.random.default_rng(7)
    beta, w = 0.8, np.array([1.5, -2.0, 0.0, 0.7])
    recs = []
    for _ in range(3000):
        n = int(rng.integers(3, 13))
        X = np.column_stack([rng.normal(0, 2, n), rng.normal(0, 1, (n, w.size))])
        u = beta * X[:, 0] + X[:, 1:] @ w
        p = np.exp(u - u.max())
        p /= p.sum()
        recs.append((X, int(rng.choice(n, p=p))))
    fit = LN.fit_logit(recs, l2=0.0, h_clip=(-1e9, 1e9))
    assert fit["converged"] and fit["decisions"] == 3000
    assert fit["beta"] == pytest.approx(beta, abs=0.1)
    np.testing.assert_allclose(fit["weights"], w / beta, atol=0.25)
    assert fit["loglik"] > fit["loglik_h_only"]


def _valued_decisions(rng, w, n_dec=2000, playouts=16):
    """Decisions whose rows' playout values follow ``f . w`` (noisy, ``playouts`` each) while
    the chosen row is drawn at random, unrelated to them: records as RecordingSearch keeps."""
    recs = []
    for _ in range(n_dec):
        n = int(rng.integers(3, 9))
        X = np.column_stack([rng.normal(0, 1, n), rng.normal(0, 1, (n, w.size))])
        q = 0.1 * np.tanh(X[:, 1:] @ w)
        own = int(np.argmax(X[:, 0]))                  # the heuristic's choice: the reference row
        cnt = np.full(n, float(playouts))
        d = q - q[own] + rng.normal(0, 0.5 / np.sqrt(playouts), n)
        d[own] = 0.0
        recs.append((X, int(rng.integers(n)), d * cnt, cnt))
    return recs


def test_value_target_follows_the_playouts_where_the_choices_say_nothing():
    """Chosen rows at random, playout values by a known direction: the choice fit finds no
    direction, the value fit finds the right one (correlation with the truth above 0.9)."""
    rng = np.random.default_rng(11)
    w = np.array([1.0, -1.0, 0.0, 0.5])
    recs = _valued_decisions(rng, w)
    by_choice = LN.fit_logit(recs, l2=0.0, h_clip=(-1e9, 1e9))
    by_value = LN.fit_logit(recs, l2=0.0, h_clip=(-1e9, 1e9), target="value")
    assert by_value["target"] == "value" and by_value["valued"] == len(recs)
    assert np.corrcoef(by_value["w"], w)[0, 1] > 0.9
    assert abs(np.corrcoef(by_choice["w"], w)[0, 1]) < 0.9
    assert np.linalg.norm(by_value["w"]) > 3 * np.linalg.norm(by_choice["w"])


def test_value_target_without_playout_values_fits_the_choices():
    """Decisions whose rows were never played out (counts 0) fall back to their chosen row:
    the same fit as the choice target; two-field records cannot be fitted by value."""
    rng = np.random.default_rng(5)
    recs = [(X, p, np.zeros(len(X)), np.zeros(len(X))) for X, p, _, _ in _valued_decisions(rng, np.ones(3), 300)]
    a = LN.fit_logit(recs, target="value")
    b = LN.fit_logit(recs)
    assert a["valued"] == 0
    np.testing.assert_allclose(a["w"], b["w"], rtol=1e-6, atol=1e-9)
    with pytest.raises(LN.LotrSimError, match="no playout values"):
        LN.fit_logit([(X, p) for X, p, _, _ in recs], target="value")
    with pytest.raises(LN.LotrSimError, match="'choice' or 'value'"):
        LN.fit_logit(recs, target="values")


@pytest.mark.parametrize("game", [pytest.param(MT, marks=pytest.mark.slow), "the-search"])
def test_recorded_values_are_paired_differences_against_the_heuristics_choice(game):
    """Every recorded decision: every row played out at least once, the heuristic's own row's
    difference 0, the chosen row among the most played, each difference within what its
    playouts allow (a playout's paired difference lies in [-1, 1])."""
    g = api.get_game(game)
    comp = g.compile(g.load())
    recs, _ = LN.play_recorded(g, comp, "tuned", g.sides[0], 1, 0, dict(LN.SEARCH, budget=64))
    assert recs
    for X, pick, dsum, dcnt in recs:
        assert dcnt.shape == dsum.shape == (X.shape[0],)
        assert (dcnt >= 1).all() and (np.abs(dsum) <= dcnt).all()
        zero = np.flatnonzero(dcnt == dcnt.max())
        assert dcnt[pick] == dcnt.max()
        assert any(dsum[i] == 0 for i in zero)


def test_the_recording_search_looks_as_far_as_the_judge():
    """The data's search stops its playouts where the judge's do: after two rounds in LOTR Risk,
    which can score a position (LR-11.2); at the end elsewhere."""
    from lotr_sim.games.players import _SEARCH_WIDE
    for game, horizon in (("lotr-risk", _SEARCH_WIDE["horizon"]), (MT, 0), ("the-search", 0)):
        assert LN.RecordingSearch(api.get_game(game), 1, **LN.SEARCH).horizon == horizon


def test_fit_with_no_informative_decision_is_one_error():
    with pytest.raises(LN.LotrSimError, match="no decisions"):
        LN.fit_logit([(np.zeros((1, 3)), 0)])


def _reference_features(comp, st, side, row):
    """The move features (LF_MV_EXP, LF_MV_ADJ) recomputed in plain Python from the state."""
    from lotr_sim.games.minas_tirith import config as C
    from lotr_sim.games.minas_tirith import layout as L
    cf = comp.cf
    T = int(cf[C.C_T])
    units = st[L.O_UNITS:L.O_UNITS + C.MAXT * C.MAXU].reshape(C.MAXT, C.MAXU)
    dist = cf[C.O_DIST:C.O_DIST + C.MAXT * C.MAXT].reshape(C.MAXT, C.MAXT)
    uside = cf[C.O_USIDE:C.O_USIDE + C.MAXU]
    arch = cf[C.O_UARCH:C.O_UARCH + C.MAXU]
    nu = int(cf[C.C_NU])
    enemy = [u for u in range(nu) if uside[u] == 1 - side]
    e_arch = [units[a, [u for u in enemy if arch[u]]].sum() for a in range(T)]
    e_tot = [units[a, enemy].sum() for a in range(T)]
    exp = [sum(e_arch[a] for a in range(T) if dist[a, t] <= 2) for t in range(T)]
    nbn = cf[C.O_NBN:C.O_NBN + C.MAXT]
    nb = cf[C.O_NB:C.O_NB + C.MAXT * C.MAXDEG].reshape(C.MAXT, C.MAXDEG)
    adj = [sum(e_tot[nb[t, j]] for j in range(nbn[t])) for t in range(T)]
    kind, a, b, k = row[0], row[1], row[2], row[3]
    to = row[5] if kind == L.A_CAV2 else b
    return k * (exp[to] - exp[a]) / 6.0, k * (adj[to] - adj[a]) / 10.0


@pytest.mark.slow
def test_move_features_match_a_plain_python_reference():
    """On the action decisions of two tuned games, each move row's archer-exposure and
    adjacent-enemy features equal a reference computed from the raw state."""
    from lotr_sim.games.minas_tirith import layout as L
    g = api.get_game(MT)
    comp = g.compile(g.load())
    checked = 0
    for index in range(2):
        state = g.bind(comp).new_state({"good": "tuned", "evil": "tuned"}, 5, index)
        state.heur[:] = state.pol
        while not state.is_terminal():
            if state.decision_kind() == "action":
                F = state.action_features()
                act = state.legal_actions()
                side = int(state.st[L.S_SIDE])
                for i, row in enumerate(act):
                    if row[0] in (L.A_MOVE, L.A_CAV2):
                        exp, adj = _reference_features(comp, state.st, side, row)
                        assert F[i, 1 + L.LF_MV_EXP] == pytest.approx(exp)
                        assert F[i, 1 + L.LF_MV_ADJ] == pytest.approx(adj)
                        assert F[i, 1 + L.LF_MV] == 1.0
                        checked += 1
                    else:
                        assert F[i, 1 + L.LF_MV] == 0.0
                assert F[0, 1 + L.LF_PASS] == 1.0
            state.apply(state.builtin_choice())
    assert checked > 100


def test_minas_tirith_learned_term_is_its_features_weighted_in_order():
    """The learned term the engine adds to each row's score (policies.learned_bonus_nb, which
    computes only the row kind's own features) is exactly, to the last bit, the heuristic's
    score plus the row's features (row_features_nb) weighted in the LF_* order from 0.0."""
    from lotr_sim.games.minas_tirith import layout as L
    g = api.get_game(MT)
    comp = g.compile(g.load())
    kinds = set()
    for index in range(2):
        state = g.bind(comp).new_state({"good": "tuned", "evil": "tuned"}, 9, index)
        state.heur[:] = state.pol
        while not state.is_terminal():
            if state.decision_kind() == "action":
                F = state.action_features()
                side = int(state.st[L.S_SIDE])
                w = [float(x) for x in state.pol[side, L.PL_LF0:L.PL_LF0 + L.NLF]]
                assert any(w)
                got = state.action_scores()
                for i, row in enumerate(state.legal_actions()):
                    v = 0.0
                    for k in range(L.NLF):
                        v += w[k] * float(F[i, 1 + k])
                    assert got[i] == float(F[i, 0]) + v, (row, got[i], float(F[i, 0]) + v)
                    kinds.add(int(row[0]))
            state.apply(state.builtin_choice())
    assert {L.A_PASS, L.A_MOVE, L.A_ASSAULT, L.A_BOMBARD} <= kinds


def _die_reference(comp, st, side, used, slot):
    """The mission-die features (LF_DIE..LF_DIE_FRONT) recomputed in plain Python: MT-4.2/4.3
    (who takes the dice left), MT-4.5, MT-5.6, MT-7.2 (archers' range 2), MT-10.3 (points)."""
    from lotr_sim.games.minas_tirith import config as C
    from lotr_sim.games.minas_tirith import layout as L
    cf = comp.cf
    T, nu = int(cf[C.C_T]), int(cf[C.C_NU])
    units = st[L.O_UNITS:L.O_UNITS + C.MAXT * C.MAXU].reshape(C.MAXT, C.MAXU)
    dist = cf[C.O_DIST:C.O_DIST + C.MAXT * C.MAXT].reshape(C.MAXT, C.MAXT)
    uside = cf[C.O_USIDE:C.O_USIDE + C.MAXU]
    arch = cf[C.O_UARCH:C.O_UARCH + C.MAXU]
    nb = cf[C.O_NB:C.O_NB + C.MAXT * C.MAXDEG].reshape(C.MAXT, C.MAXDEG)
    nbn = cf[C.O_NBN:C.O_NBN + C.MAXT]
    own = [units[t, [u for u in range(nu) if uside[u] == side]].sum() for t in range(T)]
    foe = [units[t, [u for u in range(nu) if uside[u] == 1 - side]].sum() for t in range(T)]
    own_arch = [units[t, [u for u in range(nu) if uside[u] == side and arch[u]]].sum() for t in range(T)]
    x = st[L.S_DICE + slot] / 6.0
    rest = [int(st[L.S_DICE + j]) for j in range(3) if j != slot and not (used >> j) & 1]
    opp = max(rest) / 6.0 if rest else 0.0
    later = min(rest) / 6.0 if len(rest) == 2 else 0.0
    nd = int(cf[C.C_ND])
    pts = {0: 0, 1: 0}
    for u in range(nu):       # a captured unit scores for the other side (MT-1.4, MT-10.3)
        pts[1 - int(uside[u])] += int(st[L.O_CAPT + u]) * int(cf[C.O_UPTS + u])
    for s_ in (0, 1):
        pts[s_] += int(st[L.S_LCAP + s_]) * int(cf[C.P_PTS_LEADER])
    pts[1] += sum(int(cf[C.P_PTS_WALL]) for t in range(T) if cf[C.O_TKIND + t] == 2
                  and units[t, [u for u in range(nu) if uside[u] == 1]].sum() > 0)
    pts[1] += int(cf[C.P_PTS_GATE]) if st[L.S_GATE] == 1 else 0
    shoot = sum(own_arch[a] for a in range(T) if own[a] > 0 and own_arch[a] > 0
                and any(foe[t] > 0 and dist[a, t] <= 2 for t in range(T)))
    front = sum(own[a] for a in range(T) if own[a] > 0 and any(foe[nb[a, j]] > 0 for j in range(nbn[a])))
    return [x, x * x, opp, later, x * (nd - st[L.S_DTOP]) / nd, x * st[L.S_HN + side] / 6.0,
            x * (pts[side] - pts[1 - side]) / 10.0, x * shoot / 10.0, x * front / 20.0]


@pytest.mark.slow
def test_minas_tirith_die_features_match_a_reference_and_steer_the_die():
    """At every mission-die decision of three games (both sides, every pick order): the die
    features equal a plain-Python reference, column 0 is the heuristic's worth of the die (its
    choice the first highest), and with die weights set the built-in pick is the first highest
    worth plus the weighted features (policies.choose_die_nb)."""
    from lotr_sim.games.minas_tirith import layout as L
    g = api.get_game(MT)
    comp = g.compile(g.load())
    rng = np.random.default_rng(0)
    seen = set()
    moved = 0
    for index in range(3):
        state = g.bind(comp).new_state({"good": "tuned", "evil": "tuned"}, 7, index)
        w = rng.normal(0.0, 2.0, size=(2, L.NLF_DIE))
        state.pol[:, L.PL_LF0 + L.LF_DIE:L.PL_LF0 + L.LF_DIE + L.NLF_DIE] = w
        while not state.is_terminal():
            if state.decision_kind() == "die":
                side, used = int(state.st[L.S_SIDE]), int(state.st[L.S_USED])
                act = state.legal_actions()
                state.heur[:] = state.pol
                F = state.action_features()
                assert F is not None and F.shape[0] == act.shape[0]
                for i, row in enumerate(act):
                    ref = _die_reference(comp, state.st, side, used, int(row[1]))
                    got = F[i, 1 + L.LF_DIE:1 + L.LF_DIE + L.NLF_DIE]
                    assert got == pytest.approx(ref, abs=1e-12), (index, row, got, ref)
                    assert not F[i, 1:1 + L.LF_DIE].any()
                total = F[:, 0] + F[:, 1 + L.LF_DIE:1 + L.LF_DIE + L.NLF_DIE] @ w[side]
                pick = state.builtin_choice()
                if act.shape[0] > 1:     # the first highest (equal dice tie to the last bit or so)
                    first = int(np.flatnonzero(total >= total.max() - 1e-9)[0])
                    assert pick == first, (total, pick)
                    moved += int(first != int(np.argmax(F[:, 0])))
                seen.add((side, bin(used).count("1")))
            state.apply(state.builtin_choice())
    assert seen == {(s, k) for s in (0, 1) for k in (0, 1, 2)}
    assert moved > 5


def _ts_reference(cf, st, seat, row):
    """The Search's placement features LF_PL_OWN, LF_PL_RIV and LF_PL_EXPOSE, and the move
    flags, recomputed in plain Python from the state (TS-1.3 groups: equal non-mountain
    terrains of neighbouring sections link)."""
    from lotr_sim.games.the_search import layout as L
    def apart(a, b):
        return abs(a // L.GC - b // L.GC) + abs(a % L.GC - b % L.GC)
    own, riv = int(st[L.S_HCELL + seat]), int(st[L.S_HCELL + 1 - seat])
    kind = int(row[0])
    if kind != L.A_PLACE:
        return {L.LF_MV_STOP: float(kind == L.A_STOP and st[L.S_PHASE] != L.PH3),
                L.LF_MV_STOP3: float(kind == L.A_STOP and st[L.S_PHASE] == L.PH3),
                L.LF_MV_BOAT: float(kind == L.A_BOAT),
                L.LF_MV_MOVER: float(kind == L.A_STEP and row[2] == 1)}
    cell, tile, rot = int(row[2]), int(row[3]) >> 8, int(row[3]) & 255
    ter = [int(cf[L.O_PAT + 4 * tile + (d - rot + 4) % 4]) for d in range(4)]
    linked = [ter[d] != L.MOUNTAIN and ter[d] == ter[(d + 1) % 4] for d in range(4)]
    lone = 0
    for d in range(4):
        if linked[d] or linked[(d + 3) % 4]:
            continue
        nc = int(cf[L.O_NBR + 4 * cell + d])
        if nc < 0 or st[L.O_CTILE + nc] >= 0:
            continue
        rows = [cell // L.GC, nc // L.GC, int(st[L.S_RMIN]), int(st[L.S_RMAX])]
        cols = [cell % L.GC, nc % L.GC, int(st[L.S_CMIN]), int(st[L.S_CMAX])]
        if max(rows) - min(rows) + 1 <= L.MAP_R and max(cols) - min(cols) + 1 <= L.MAP_C:
            lone += 1
    return {L.LF_PL_OWN: min(2.0, apart(cell, own) / 6.0), L.LF_PL_RIV: min(2.0, apart(cell, riv) / 6.0),
            L.LF_PL_EXPOSE: float(lone)}


def _ts_sites(comp, st, row):
    """The token sites a placement closes, by the engine's own count (placement.site_gain_nb)."""
    from lotr_sim.games.the_search.placement import site_gain_nb
    g = site_gain_nb(comp.cf, st.copy(), int(row[2]), int(row[3]) >> 8, int(row[3]) & 255)
    return sum((g >> (8 * c)) & 255 for c in range(4))


@pytest.mark.slow
def test_the_search_features_match_a_plain_python_reference():
    """On every decision of two games of The Search (tuned's heuristic, its learned term off), each placement row's distance and
    lone-section features and each move row's flags equal a reference from the raw state, the
    sites a placement closes are split by who reaches them first without losing any (the
    engine's count); column 0 is the heuristic's own score."""
    from lotr_sim.games.the_search import layout as L
    g = api.get_game("the-search")
    comp = g.compile(g.load())
    checked = {L.A_PLACE: 0, L.A_STEP: 0, L.A_STOP: 0}
    lone_seen = sites_seen = site_miss = 0
    for index in range(2):
        state = g.bind(comp).new_state({"frodo": "tuned", "sam": "tuned"}, 5, index)
        for seat, side in enumerate(("frodo", "sam")):    # the heuristic alone: no learned term
            for w in g.policy_table.learned_weights(side):
                state.pol[seat, w.index] = 0.0
        state.heur[:] = state.pol
        while not state.is_terminal():
            act = state.legal_actions()
            F = state.action_features()
            if act.shape[0] > 1:
                np.testing.assert_allclose(F[:, 0], state.action_scores())
                seat = int(state.st[L.S_SEAT])
                for i, row in enumerate(act):
                    for k, v in _ts_reference(comp.cf, state.st, seat, row).items():
                        assert F[i, 1 + k] == pytest.approx(v), (row.tolist(), k)
                    if row[0] in checked:
                        checked[int(row[0])] += 1
                    if row[0] == L.A_PLACE:
                        lone_seen += F[i, 1 + L.LF_PL_EXPOSE] > 0
                        # each site it closes is counted once, by who reaches it first (TS-4.3)
                        split = F[i, 1 + np.array([L.LF_PL_SITE_NOW, L.LF_PL_SITE_MINE, L.LF_PL_SITE_THEIRS])]
                        sites_seen += split.sum() > 0
                        if split.sum() != _ts_sites(comp, state.st, row):
                            site_miss += 1
            state.apply(state.builtin_choice())
    assert min(checked.values()) > 20 and lone_seen > 20 and sites_seen > 5, (checked, lone_seen, sites_seen)
    assert site_miss == 0, (site_miss, checked)


def _ts_moves(st, seat):
    """A plain-Python breadth-first search of ``seat``'s hobbit over the regions it may enter
    (TS-6.1 - TS-6.3): {region root: (moves, root of the first step)}."""
    from collections import deque

    from lotr_sim.games.the_search import layout as L
    from lotr_sim.games.the_search.regions import (
        SHIRE_CELL, centre_regions_nb, find_nb, may_enter_nb, region_neighbours_nb)
    scratch = st.copy()
    def around(x):
        n = region_neighbours_nb(scratch, x, L.O_TMP, 0, 128)
        return [int(scratch[L.O_TMP + j]) for j in range(n)]
    seen, todo = {}, deque()
    h = int(st[L.S_HOB + seat])
    if h == L.AT_SHIRE:
        n = centre_regions_nb(scratch, SHIRE_CELL, L.O_TMP, 0)
        for r in {int(scratch[L.O_TMP + j]) for j in range(n)}:
            if may_enter_nb(st, seat, r):
                seen[r] = (1, r)
                todo.append(r)
    elif h >= 0:
        r = int(find_nb(scratch, h))
        seen[r] = (0, -1)
        todo.append(r)
    while todo:
        r = todo.popleft()
        k, first = seen[r]
        for x in around(r):
            if x not in seen and may_enter_nb(st, seat, x):
                seen[x] = (k + 1, x if first < 0 else first)
                todo.append(x)
    return seen


@pytest.mark.slow
def test_the_search_token_race_features_match_a_plain_python_search():
    """At every move of two games of The Search, each step's four token-race features
    (LF_MV_TOK_*, policies.token_race_nb) equal a reference: a plain breadth-first search of
    both hobbits, each token on the map put in the class of who reaches it first (the rival
    strictly nearer: lost; as near: now; one or two moves farther: soon; else free) and the
    best worth / moves kept per class and first step. Every class occurs. LF_MV_BLOCK is the
    rival's best worth / moves now less with the hobbit on the step's region (TS-6.3), and it
    is not always 0."""
    from lotr_sim.games.the_search import layout as L
    from lotr_sim.games.the_search.movement import token_worth_nb, unseen_brown_nb
    g = api.get_game("the-search")
    comp = g.compile(g.load())
    cols = 1 + np.array([L.LF_MV_TOK_LOST, L.LF_MV_TOK_NOW, L.LF_MV_TOK_SOON, L.LF_MV_TOK_FREE])
    seen = np.zeros(4, dtype=int)
    steps = blocked = 0
    for index in range(2):
        state = g.bind(comp).new_state({"frodo": "tuned", "sam": "tuned"}, 5, index)
        while not state.is_terminal():
            act = state.legal_actions()
            if act.shape[0] > 1 and int(state.st[L.S_DK]) == L.DK_MOVE:
                st = state.st
                seat = int(st[L.S_SEAT])
                F = state.action_features()
                mine, theirs = _ts_moves(st, seat), _ts_moves(st, 1 - seat)
                brown = unseen_brown_nb(comp.cf, st, state.heur[seat, L.PL_FIGHT])
                want = {}
                for r, (k, first) in mine.items():
                    tok = int(st[L.O_RTOK + r])
                    if tok < 0 or k <= 0:
                        continue
                    kr = theirs.get(r, (99, 0))[0]
                    c = 0 if kr < k else 1 if kr == k else 2 if kr <= k + 2 else 3
                    v = int(1000.0 * token_worth_nb(comp.cf, tok, brown) / k) / 1000.0
                    best = want.setdefault(first, np.zeros(4))
                    best[c] = max(best[c], v)
                def rival_best(where, st=st, seat=seat, brown=brown):
                    moved = st.copy()
                    moved[L.S_HOB + seat] = where
                    best = 0
                    for r, (k, _) in _ts_moves(moved, 1 - seat).items():
                        tok = int(st[L.O_RTOK + r])
                        if tok >= 0 and k > 0:
                            best = max(best, int(1000.0 * token_worth_nb(comp.cf, tok, brown) / k))
                    return best
                now = rival_best(int(st[L.S_HOB + seat]))
                for i, row in enumerate(act):
                    if row[0] == L.A_STEP and row[1] >= 0:
                        np.testing.assert_allclose(F[i, cols], want.get(int(row[1]), np.zeros(4)),
                                                   err_msg=str(row.tolist()))
                        block = (now - rival_best(int(row[1]))) / 1000.0
                        assert F[i, 1 + L.LF_MV_BLOCK] == pytest.approx(block), row.tolist()
                        seen += F[i, cols] > 0
                        blocked += block != 0
                        steps += 1
                    else:
                        assert not F[i, cols].any() and F[i, 1 + L.LF_MV_BLOCK] == 0, row.tolist()
            state.apply(state.builtin_choice())
    assert steps > 100 and seen.min() > 3 and blocked > 3, (steps, seen, blocked)


def _lr_reference(comp, st, seat, row, ctx):
    """LOTR Risk's row features (policies.row_features_nb) recomputed in plain Python from the
    raw state; the exact odds, the pressure and P(last turn) are the heuristic's own (``ctx``
    and ``comp.wp``, tested with it), the points lead is read from the state's points."""
    from lotr_sim.games.lotr_risk import config as C
    from lotr_sim.games.lotr_risk import layout as L
    cf = comp.cf
    nt = int(cf[C.C_NT])
    owner = st[L.O_OWNER:L.O_OWNER + nt]
    troops = st[L.O_TROOPS:L.O_TROOPS + nt]
    reg = cf[C.O_REG:C.O_REG + nt]
    adj = [[int(cf[C.O_ADJ + t * C.MAXDEG + k]) for k in range(int(cf[C.O_ADJN + t]))] for t in range(nt)]
    kind, a, b, c = (int(x) for x in row)
    ph = int(st[L.S_PHASE])
    f = np.zeros(L.NLF)

    def mission(t):
        hand = st[L.O_AHAND + seat * L.AHMAX:L.O_AHAND + seat * L.AHMAX + st[L.O_AHN + seat]]
        return any(cf[C.O_AKIND + h] == C.K_MISSION and cf[C.O_AARG + h] == t for h in hand)

    if kind == L.A_PASS and ph == L.PH_ATTACK:
        pts = [int(st[L.O_PTS + 5 * p + 4]) for p in range(int(cf[C.C_NP]))]
        lead = pts[seat] - max(v for p, v in enumerate(pts) if p != seat)
        f[[L.LF_END_ATT, L.LF_END_ATT_CARD, L.LF_END_ATT_LEAD]] = 1, st[L.S_CONQ] == 0, np.clip(lead / 10, -2, 2)
    elif kind == L.A_PASS and ph == L.PH_FORT:
        f[L.LF_END_FORT] = 1
    elif kind == L.A_ATTACK:
        o = int(owner[b])
        other = o < C.NEUTRAL and cf[C.O_SSIDE + o] != cf[C.O_SSIDE + seat]
        around = sum(int(troops[u]) for u in adj[a] if owner[u] != seat and u != b)
        f[L.LF_ATT] = 1
        f[L.LF_ATT_DICE] = min(3, troops[a] - 1) - c
        f[L.LF_ATT_OTHER] = other
        f[L.LF_ATT_LEFT] = min(3.0, around / max(1, troops[a]))
        f[L.LF_ATT_REGION] = sum(owner[t] != seat for t in range(nt) if reg[t] == reg[b]) == 1
        f[L.LF_ATT_BREAK] = other and all(owner[t] == o for t in range(nt) if reg[t] == reg[b])
        f[L.LF_ATT_P] = np.nan        # the heuristic's exact odds: checked apart
        f[L.LF_ATT_LAST] = ctx[C.MAXT + C.MAXR]
    elif kind == L.A_PLACE:
        f[L.LF_PL_PRESS] = min(5.0, max(0.0, ctx[a]))
        f[L.LF_PL_STRONG] = ctx[a] >= 0 and cf[C.O_STRONG + a] != 0
        f[L.LF_PL_SHARE] = b / st[L.S_REINF]
        if ctx[a] >= 0:
            weak = [int(troops[u]) for u in adj[a] if owner[u] != seat and owner[u] >= 0]
            f[L.LF_PL_OFF] = min(3.0, (troops[a] + b - 1) / (min(weak) + 1)) if weak else 0.0
            lack = [sum(owner[t] != seat for t in range(nt) if reg[t] == reg[u]) for u in adj[a] if owner[u] != seat]
            f[L.LF_PL_REGION] = max([1 / m for m in lack if 0 < m <= 2], default=0.0)
    elif kind == L.A_MOVEIN:
        f[L.LF_MI_SHARE] = a / troops[st[L.S_SRC]]
    elif kind in (L.A_FORT, L.A_FORTL):
        f[L.LF_FORT] = 1
        f[L.LF_FORT_FRONT] = np.clip(ctx[b] - ctx[a], -5, 5)
        f[L.LF_LD_MISS] = kind == L.A_FORTL and mission(b)
    elif kind == L.A_LMOVE:
        f[L.LF_LD_MISS] = mission(b)
    elif kind == L.A_POWER:
        f[L.LF_POW] = 1
    return f


@pytest.mark.slow
def test_lotr_risk_features_match_a_plain_python_reference():
    """On every reinforce, attack, move-in and fortify decision of three 2-player games of
    LOTR Risk (tuned's heuristic), each row's features equal a plain-Python reference from the
    raw state (LR-4.2, LR-5, LR-6, LR-8.1, LR-9.1), column 0 is the heuristic's own score,
    and the other decisions record nothing."""
    from lotr_sim.games.lotr_risk import layout as L
    from lotr_sim.games.lotr_risk.policies import NCTX, odds_nb, prep_nb
    g = api.get_game("lotr-risk")
    comp = g.compile(g.load())
    kinds = {k: 0 for k in (L.A_PASS, L.A_ATTACK, L.A_PLACE, L.A_MOVEIN, L.A_FORT)}
    other = 0
    nonzero = np.zeros(L.NLF, dtype=int)
    for index in range(3):
        state = g.bind(comp).new_state({"good": "tuned", "evil": "tuned"}, 5, index)
        while not state.is_terminal():
            act = state.legal_actions()
            F = state.action_features()
            ph = int(state.st[L.S_PHASE])
            if act.shape[0] < 2 or not L.PH_REINF <= ph <= L.PH_FORT:
                assert F is None
                other += act.shape[0] > 1
            else:
                np.testing.assert_allclose(F[:, 0], state.action_scores())
                seat = int(state.st[L.S_CUR])
                ctx = np.zeros(NCTX)
                prep_nb(comp.cf, state.st, state.heur, ctx)
                for i, row in enumerate(act):
                    ref = _lr_reference(comp, state.st, seat, row, ctx)
                    if row[0] == L.A_ATTACK:
                        ref[L.LF_ATT_P] = odds_nb(comp.cf, state.st, comp.wp, row[1], row[2], 0, 0, False)
                    np.testing.assert_allclose(F[i, 1:], ref, err_msg=str(row.tolist()))
                    nonzero += ref != 0
                    if int(row[0]) in kinds:
                        kinds[int(row[0])] += 1
            state.apply(state.builtin_choice())
    assert min(kinds.values()) > 20 and other > 5, (kinds, other)
    from lotr_sim.games.lotr_risk.game import _LEARNED
    assert nonzero.min() > 0, [name for (name, _), k in zip(_LEARNED, nonzero) if k == 0]


@pytest.mark.slow
@pytest.mark.parametrize("game", [MT, "the-search", "lotr-risk"])
def test_every_learned_weight_reaches_the_engine_and_zero_weights_change_nothing(game):
    """Moving any one learned weight of either side to an end of its range changes some of
    300 games; the rows with every learned weight 0 (the presets, tuned) play as before."""
    g = api.get_game(game)
    t = g.policy_table
    comp = g.compile(g.load())
    rows = t.rows("tuned")
    base = {s: "tuned" for s in g.sides}
    a = g.simulate(comp, base, 3, 0, 300, threads=1)
    same = g.simulate(comp, {s: t.inline_name(rows) for s in g.sides}, 3, 0, 300, threads=1)
    assert all(np.array_equal(a[k], same[k]) for k in a)
    dead = []
    for side in g.sides:
        for w in t.learned_weights(side):
            changed = False
            for end in (w.lo, w.hi):
                moved = {s: r.copy() for s, r in rows.items()}
                moved[side][w.index] = end
                c = g.simulate(comp, dict(base, **{side: t.inline_name(moved)}), 3, 0, 300, threads=1)
                changed = changed or not all(np.array_equal(a[k], c[k]) for k in a if k != "game")
                if changed:
                    break
            if not changed:
                dead.append(f"{side}.{w.name}")
    assert not dead, f"these learned weights change none of 300 games: {dead}"


@pytest.mark.slow
def test_learn_is_reproducible_resumable_and_writes_a_playable_file(tmp_path, monkeypatch):
    args = ["learn", "-g", MT, "-I", "2", "-n", "4", "--budget", "32", "--check-games", "400", "--chunk", "2",
            "-q", "--threads", "2"]
    code, out, err = _cli(args + ["-o", str(tmp_path / "a")])
    assert code == 0, err
    st = json.loads((tmp_path / "a" / "learn.json").read_text())
    assert st["iterations"] and all(set(it["check"]) == {"good", "evil"} for it in st["iterations"])
    # interrupted after its first chunk of search games, then resumed: the same run
    calls = {"n": 0}
    real = LN._record_chunk

    def stop_after_one(*a, **k):
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt
        return real(*a, **k)
    monkeypatch.setattr(LN, "_record_chunk", stop_after_one)
    code, out, err = _cli(args + ["-o", str(tmp_path / "b")])
    assert code != 0 and "--resume" in err and len(err.strip().splitlines()) == 1
    monkeypatch.setattr(LN, "_record_chunk", real)
    code, out, err = _cli(["learn", "-g", MT, "--resume", str(tmp_path / "b"), "-q"])
    assert code == 0, err
    a = json.loads((tmp_path / "a" / "learn.json").read_text())["iterations"]
    b = json.loads((tmp_path / "b" / "learn.json").read_text())["iterations"]
    assert [x["check"] for x in a] == [x["check"] for x in b]
    assert [x["player"] for x in a] == [x["player"] for x in b]
    if (tmp_path / "a" / "learned.toml").is_file():
        g = api.get_game(MT)
        name = f"tuned:{tmp_path / 'a' / 'learned.toml'}"
        assert g.policy_table.rows(name)["good"].tolist() == g.policy_table.rows(a[-1]["player"])["good"].tolist() \
            or any(it["kept"] for it in a)
        api.run_games(MT, games=20, policies={"good": name, "evil": name}, progress=False)


@pytest.mark.slow
def test_learn_of_one_side_searches_fits_and_changes_only_that_side(tmp_path):
    args = ["learn", "-g", MT, "-I", "1", "-n", "4", "--budget", "32", "--check-games", "400", "--chunk", "2",
            "-q", "--threads", "2", "--sides", "evil", "-o", str(tmp_path / "a")]
    code, out, err = _cli(args)
    assert code == 0, err
    st = json.loads((tmp_path / "a" / "learn.json").read_text())
    it = st["iterations"][0]
    assert st["args"]["sides"] == ["evil"] and "pair" not in st
    assert set(it["search_gain"]) == set(it["check"]) == set(it["fit"]) == {"evil"}
    assert set(it["kept"]) <= {"evil"}
    assert sorted(p.name.split("-")[1] for p in (tmp_path / "a" / "data").glob("k0-*.npz")) == ["evil", "evil"]
    g = api.get_game(MT)
    rows = g.policy_table.rows(it["player"])
    assert np.array_equal(rows["good"], g.policy_table.rows("tuned")["good"])
    code, _, err = _cli(["learn", "-g", "the-search", "--sides", "sam", "-o", str(tmp_path / "b"), "-q"])
    assert code != 0 and "--sides" in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("game", ["the-search", pytest.param(MT, marks=pytest.mark.slow)])
def test_recorded_games_on_the_players_states_are_the_players_own_games(game):
    """``states="player"``: the search labels the decisions (records as ever) but the game goes
    on with the player's own choice, so each data game is the player's self-play game of that
    index, result for result."""
    g = api.get_game(game)
    comp = g.compile(g.load())
    side = g.sides[-1]
    settings = dict(LN.SEARCH, budget=32)
    own = g.simulate(comp, {s: "tuned" for s in g.sides}, 4, 0, 3, threads=1)
    for i in range(3):
        recs, res = LN.play_recorded(g, comp, "tuned", side, 4, i, settings, states="player")
        assert recs
        assert all(np.array_equal(np.asarray(res[k]), np.asarray(own[k][i:i + 1])) for k in res if k != "game")


@pytest.mark.parametrize("args, words", [
    (["-n", "0"], "--games"),
    (["--budget", "2"], "--budget"),
    (["--check-games", "10"], "--check-games"),
    (["--l2", "-1"], "--l2"),
    (["--states", "both"], "--states"),
    (["--start", "nobody"], "nobody"),
    (["--target", "best"], "--target"),
    (["--sides", "orcs"], "--sides: no side 'orcs'"),
])
def test_learn_bad_input_is_one_line(tmp_path, args, words):
    code, out, err = _cli(["learn", "-g", MT, "-o", str(tmp_path / "x"), "-q"] + args)
    assert code != 0 and words in err and len(err.strip().splitlines()) == 1, err


def test_learn_refuses_a_game_without_a_learned_player_and_a_folder_without_a_run(tmp_path, monkeypatch):
    from lotr_sim.games.lotr_risk.game import TABLE
    monkeypatch.setattr(TABLE, "learned_weights", lambda side: ())   # a game without the term
    code, out, err = _cli(["learn", "-g", "lotr-risk", "-o", str(tmp_path / "x"), "-q"])
    assert code != 0 and "no learned player" in err and len(err.strip().splitlines()) == 1
    (tmp_path / "empty").mkdir()
    code, out, err = _cli(["learn", "-g", MT, "--resume", str(tmp_path / "empty"), "-q"])
    assert code != 0 and "no learn run" in err and len(err.strip().splitlines()) == 1
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "learn.json").write_text("{oops")
    code, out, err = _cli(["learn", "-g", MT, "--resume", str(tmp_path / "broken"), "-q"])
    assert code == 2 and "corrupt JSON" in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.slow
def test_a_resumed_learn_run_takes_more_rounds_and_equals_one_run_that_long(tmp_path):
    """``learn --resume DIR -I K`` raises a finished run's rounds: the rounds it adds are the
    rounds a run started with ``-I K`` plays (The Search, seed 5: round 1 keeps both hobbits).
    A run whose last round kept nothing (seed 1) is refused with one line."""
    args = ["learn", "-g", "the-search", "-n", "2", "--budget", "32", "--check-games", "400", "-q",
            "--threads", "1", "--target", "value"]
    assert _cli(args + ["-s", "5", "-I", "2", "-o", str(tmp_path / "long")])[0] == 0
    assert _cli(args + ["-s", "5", "-I", "1", "-o", str(tmp_path / "short")])[0] == 0
    code, out, err = _cli(["learn", "-g", "the-search", "--resume", str(tmp_path / "short"), "-I", "2", "-q"])
    assert code == 0, err
    long = json.loads((tmp_path / "long" / "learn.json").read_text())
    short = json.loads((tmp_path / "short" / "learn.json").read_text())
    assert long["iterations"][0]["kept"] and len(short["iterations"]) == 2 == short["args"]["iterations"]
    for key in ("search_gain", "check", "kept", "player"):
        assert [it[key] for it in short["iterations"]] == [it[key] for it in long["iterations"]]
    g = api.get_game("the-search")
    rows = [g.policy_table.rows(f"tuned:{tmp_path / x / 'learned.toml'}") for x in ("short", "long")]
    assert all(np.array_equal(rows[0][s], rows[1][s]) for s in g.sides)
    assert _cli(args + ["-s", "1", "-I", "1", "-o", str(tmp_path / "none")])[0] == 0
    code, out, err = _cli(["learn", "-g", "the-search", "--resume", str(tmp_path / "none"), "-I", "3", "-q"])
    assert code != 0 and "kept nothing" in err and len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize("good_rates, choice, stable", [
    # Good's win rate by (Good's row, Evil's row), like Minas Tirith's measured table: learned
    # Good is better against either Evil; against it, the start Evil is the better Evil
    ({("start", "start"): 0.29, ("learned", "start"): 0.43, ("learned", "learned"): 0.48,
      ("start", "learned"): 0.28}, {"good": "learned", "evil": "start"}, True),
    # the learned rows are each side's better answer to the other's
    ({("start", "start"): 0.40, ("learned", "start"): 0.45, ("learned", "learned"): 0.42,
      ("start", "learned"): 0.35}, {"good": "learned", "evil": "learned"}, True),
    # matching pennies: no pair is stable; each side takes its better answer to the other's learned row
    ({("start", "start"): 0.6, ("learned", "start"): 0.4, ("learned", "learned"): 0.6,
      ("start", "learned"): 0.4}, {"good": "learned", "evil": "start"}, False),
])
def test_the_learned_pair_is_each_sides_better_answer_to_the_other(monkeypatch, good_rates, choice, stable):
    """learn's last step plays every combination of the start and learned rows on the same
    games and keeps, per side, the row that answers the other side's choice best."""
    g = api.get_game(MT)
    table = g.policy_table
    rows = table.rows("tuned")
    learned_rows = {s: r.copy() for s, r in rows.items()}
    for s in learned_rows:
        learned_rows[s][table.learned_weights(s)[0].index] = 1.0
    learned = table.inline_name(learned_rows)
    which = {}

    def fake_simulate(compiled, pol, seed, first, n, threads=None):
        got = table.rows(pol["good"])
        key = tuple("learned" if np.array_equal(got[s], learned_rows[s]) else "start" for s in ("good", "evil"))
        which[key] = which.get(key, 0) + 1
        w = np.ones(n, dtype=np.int64)
        w[: int(round(good_rates[key] * n))] = 0
        return {"winner": w}
    monkeypatch.setattr(g, "simulate", fake_simulate)
    res = LN.select_pair(g, None, table, "tuned", learned, 1, 1000, 1)
    assert which == {k: 1 for k in good_rates}
    assert res["choice"] == choice and res["stable"] == stable
    got = table.rows(res["player"])
    for s in ("good", "evil"):
        want = learned_rows[s] if choice[s] == "learned" else rows[s]
        assert np.array_equal(got[s], want)
    assert res["scores"]["learned/start"][0] == pytest.approx(good_rates["learned", "start"])
