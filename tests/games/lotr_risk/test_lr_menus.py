"""LOTR Risk: the engine's menus of amounts (reinforce_sizes LR-4.4, movein_sizes LR-5.6,
fortify_sizes LR-6.1). The default menus must give exactly the rows (and order) the engine
always gave; the wider ones every amount they name, once, within the rules' bounds."""
from __future__ import annotations

import numpy as np
import pytest

from lotr_sim.errors import ConfigError
from lotr_sim.games.lotr_risk import config as C
from lotr_sim.games.lotr_risk import layout as L
from lotr_sim.games.registry import get_game

G = get_game("lotr-risk")
RAND = {"good": "random", "evil": "random"}
WIDE = {"reinforce_sizes": "any", "movein_sizes": "any", "fortify_sizes": "1,2,3,half,all"}


def _old_rows(st, acts):
    """The rows the engine gave before the menus were parameters (the narrowed defaults)."""
    ph = int(st[L.S_PHASE])
    out = []
    if ph == L.PH_REINF:
        r = int(st[L.S_REINF])
        for row in acts:
            if row[2] == 1:            # one group per territory starts with amount 1
                t = int(row[1])
                out.append((L.A_PLACE, t, 1, 0))
                if r >= 4:
                    out.append((L.A_PLACE, t, r // 2, 0))
                if r >= 2:
                    out.append((L.A_PLACE, t, r, 0))
    elif ph == L.PH_MOVEIN:
        lo = int(st[L.S_DICE])
        troops = int(st[L.O_TROOPS + st[L.S_SRC]])
        hi = troops - 1
        half = min(max(troops // 2, lo), hi)
        out.append((L.A_MOVEIN, lo, 0, 0))
        if half != lo and half != hi:
            out.append((L.A_MOVEIN, half, 0, 0))
        if hi != lo:
            out.append((L.A_MOVEIN, hi, 0, 0))
    elif ph == L.PH_FORT:
        seen = []
        for row in acts:
            if row[0] == L.A_FORT and (int(row[1]), int(row[2])) not in seen:
                seen.append((int(row[1]), int(row[2])))
        for t, u in seen:
            full = int(st[L.O_TROOPS + t]) - 1
            half = int(st[L.O_TROOPS + t]) // 2
            out.append((L.A_FORT, t, u, full))
            if half >= 1 and half != full:
                out.append((L.A_FORT, t, u, half))
        return out, [tuple(int(x) for x in r) for r in acts if r[0] == L.A_FORT]
    return out, [tuple(int(x) for x in r) for r in acts]


def _walk(comp, games, check):
    """Random v random games step by step; ``check(state, rows)`` at every decision."""
    for i in range(games):
        s = G.bind(comp).new_state(RAND, 7, i, debug=True)
        while s.to_move >= 0:
            acts = s.legal_actions()
            check(s.st, acts)
            s.apply(s.builtin_choice())
        assert s.invariant_ok()


def test_default_menus_are_the_old_rows_LR_4_4_LR_5_6_LR_6_1():
    """Defaults "1,half,all" / "dice,half,all" / "all,half": the same rows in the same order
    as the hard-coded menus they replace (so default results are unchanged)."""
    comp = G.compile(G.load())
    seen = {L.PH_REINF: 0, L.PH_MOVEIN: 0, L.PH_FORT: 0}

    def check(st, acts):
        ph = int(st[L.S_PHASE])
        if ph in seen:
            want, got = _old_rows(st, acts)
            assert got == want, (ph, got, want)
            seen[ph] += 1
    _walk(comp, 4, check)
    assert min(seen.values()) > 20, seen


def test_wide_menus_offer_every_amount_once_LR_4_4_LR_5_6_LR_6_1():
    """reinforce_sizes = any: 1..left on every own territory (LR-4.4); movein_sizes = any:
    dice..all but one (LR-5.6); fortify_sizes = 1,2,3,half,all: those amounts that leave one
    behind (LR-6.1), each once."""
    comp = G.compile(G.load(None, WIDE))
    seen = {L.PH_REINF: 0, L.PH_MOVEIN: 0, L.PH_FORT: 0}

    def check(st, acts):
        ph = int(st[L.S_PHASE])
        if ph == L.PH_REINF:
            r = int(st[L.S_REINF])
            own = [t for t in range(int(comp.cf[C.C_NT])) if st[L.O_OWNER + t] == st[L.S_CUR]]
            want = [(L.A_PLACE, t, v, 0) for t in own for v in range(1, r + 1)]
            assert [tuple(int(x) for x in a) for a in acts] == want
        elif ph == L.PH_MOVEIN:
            troops = int(st[L.O_TROOPS + st[L.S_SRC]])
            assert [int(a[1]) for a in acts] == list(range(int(st[L.S_DICE]), troops))
        elif ph == L.PH_FORT:
            groups: dict = {}
            for a in acts:
                if a[0] == L.A_FORT:
                    groups.setdefault((int(a[1]), int(a[2])), []).append(int(a[3]))
            for (t, _u), vs in groups.items():
                full = int(st[L.O_TROOPS + t]) - 1
                half = int(st[L.O_TROOPS + t]) // 2
                want = sorted({v for v in (1, 2, 3, half, full) if 1 <= v <= full})
                assert sorted(vs) == want and len(vs) == len(set(vs))
        else:
            return
        seen[ph] += 1
    _walk(comp, 4, check)
    assert min(seen.values()) > 10, seen


def test_menu_parameters_reject_bad_values_LR_4_4_LR_6_1():
    """An unknown menu is one ConfigError; "any" is refused for fortify (it would overflow the
    legal-action table: every pair of connected territories times every amount)."""
    with pytest.raises(ConfigError, match="reinforce_sizes"):
        G.load(None, ["reinforce_sizes=2"])
    with pytest.raises(ConfigError, match="fortify_sizes"):
        G.load(None, ["fortify_sizes=any"])
    with pytest.raises(ConfigError, match="movein_sizes"):
        G.load(None, ["movein_sizes=half"])


def test_wide_menus_leave_greedy_unchanged_LR_4_4():
    """Greedy scores an amount by its size (all, or the nearest to half on a move in), so the
    wider menus never change its pick: greedy v greedy games come out identical; random v
    random ones differ (the menus are really wider)."""
    d = G.compile(G.load())
    w = G.compile(G.load(None, WIDE))
    a = G.simulate(d, {"good": "greedy", "evil": "greedy"}, 3, 0, 24, threads=1)
    b = G.simulate(w, {"good": "greedy", "evil": "greedy"}, 3, 0, 24, threads=1)
    for k in ("winner", "turns", "points_good", "points_evil"):
        assert np.array_equal(a[k], b[k]), k
    a = G.simulate(d, RAND, 3, 0, 24, threads=1)
    b = G.simulate(w, RAND, 3, 0, 24, threads=1)
    assert not np.array_equal(a["points_good"], b["points_good"])


@pytest.mark.slow
def test_side_mirror_the_deal_decides_LR_2_2(tmp_path):
    """LR-2.2 (two players: Good is dealt the 9 Good cards, Evil the 9 Evil ones): with the
    Good and Evil card sides exchanged, Good starts where Evil did. If the heuristic and the
    engine are side-blind (apart from the few side-specific cards), Good's win rate with the
    exchanged deal is one minus its rate with the rulebook's deal: p + p' = 1 within 4 SE."""
    from lotr_sim.config import game_config_path
    text = open(game_config_path("lotr-risk")).read()
    text = (text.replace('card_side = "good"', 'card_side = "X"').replace('card_side = "evil"', 'card_side = "good"')
            .replace('card_side = "X"', 'card_side = "evil"'))
    swapped = tmp_path / "swapped.toml"
    swapped.write_text(text)
    n = 1500
    greedy = {"good": "greedy", "evil": "greedy"}
    p = 1.0 - G.simulate(G.compile(G.load()), greedy, 11, 0, n)["winner"].mean()
    q = 1.0 - G.simulate(G.compile(G.load(str(swapped))), greedy, 11, 0, n)["winner"].mean()
    se = np.sqrt((p * (1 - p) + q * (1 - q)) / n)
    assert abs(p + q - 1.0) < 4 * se, (p, q)
    assert q - p > 4 * se        # and the deal is what favours Evil (p about 0.35)
