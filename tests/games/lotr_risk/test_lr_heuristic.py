"""The LOTR Risk heuristic reads its newer weights as its docstring says:
``rbrk`` is an attack's gain when the target's owner (of the other side) holds the target's whole region (its
bonus, LR-4.2, and its points, LR-11.2), ``gene`` an attack's gain when the target belongs to
a player of the other side rather than the neutral army or a player of its own side (a swing
of points, LR-11.2), ``glead`` when that player's Leader stands there (LR-5.7), ``card`` while the turn has no conquest yet (its
territory card, LR-8.1), ``end`` times the chance that the seat does not play again (the
Ring's path, LR-10); ``poff`` pulls a reinforcement towards the front whose weakest enemy
neighbour it outnumbers most.

Checked against an independent reading of the board in Python: on positions of greedy games,
every legal attack's and placement's score moves by exactly what the rule says when the
weights are switched on, and by nothing otherwise."""
from __future__ import annotations

import pytest

from lotr_sim.games.lotr_risk import config as C
from lotr_sim.games.lotr_risk import layout as L
from lotr_sim.games.registry import get_game

G = get_game("lotr-risk")
RBRK, GENE, POFF, GLEAD, CARD, END = 0.4, 0.2, 0.7, 0.3, 0.15, 0.5


def _adj(cf, t):
    return [int(cf[C.O_ADJ + t * C.MAXDEG + k]) for k in range(int(cf[C.O_ADJN + t]))]


def _holds_region(cf, st, o, r):
    if o < 0 or o >= C.NEUTRAL:
        return False
    return all(int(st[L.O_OWNER + t]) == o for t in range(int(cf[C.C_NT])) if int(cf[C.O_REG + t]) == r)


def _p_last(cf, st):
    """P(the Ring leaves the path within k moves, k the players alive), by enumeration."""
    k = sum(int(st[L.O_ALIVE + p]) != 0 for p in range(int(cf[C.C_NP])))
    n = int(cf[C.C_NPATH])
    q = min(max((6 - int(cf[C.P_ROLL])) / 6.0, 0.0), 1.0)

    def leave(r, moves):
        if moves == 0:
            return 0.0
        g = q if int(cf[C.O_MARK + r]) else 1.0
        on = g if r + 1 >= n else g * leave(r + 1, moves - 1)
        return on + (1.0 - g) * leave(r, moves - 1) if g < 1.0 else on
    return leave(int(st[L.S_RING]), k)


def _expected_attack(cf, st, row):
    a, b, c = (int(x) for x in row[1:4])
    if c < 3 and c < int(st[L.O_TROOPS + a]) - 1:
        return 0.0                       # the heuristic rolls the most dice it may
    o = int(st[L.O_OWNER + b])
    foe = _foe(cf, st, o)
    led = foe and any(int(st[L.O_LEAD + 2 * o + j]) == b for j in range(2))
    return (GENE * foe + RBRK * (foe and _holds_region(cf, st, o, int(cf[C.O_REG + b]))) + GLEAD * led
            + CARD * (int(st[L.S_CONQ]) == 0) + END * _p_last(cf, st))


def _foe(cf, st, o):
    """Territory owner ``o`` is a player of the other side than the seat to move's (LR-2.1)."""
    me = int(st[L.S_CUR])
    return o < C.NEUTRAL and int(cf[C.O_SSIDE + o]) != int(cf[C.O_SSIDE + me])


def _expected_place(cf, st, row):
    a = int(row[1])
    me = int(st[L.O_OWNER + a])
    foes = [u for u in _adj(cf, a) if int(st[L.O_OWNER + u]) != me]
    if not foes:
        return 0.0                       # an interior territory: no pull
    weak = min(int(st[L.O_TROOPS + u]) for u in foes if int(st[L.O_OWNER + u]) >= 0)
    r = (int(st[L.O_TROOPS + a]) + int(st[L.S_REINF]) - 1.0) / (weak + 1.0)
    return POFF * min(r, 3.0)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_attack_and_placement_scores_move_by_the_new_weights_exactly(players):
    comp = G.compile(G.load(None, {"players": players}))
    cf = comp.cf
    seen = {"rbrk": 0, "gene": 0, "poff": 0, "glead": 0, "last": 0, "ally": 0, "attack": 0, "place": 0}
    for idx in range(6):
        state = G.bind(comp).new_state(None, 5, idx)
        steps = 0
        while not state.is_terminal() and steps < 3000:
            kind = state.decision_kind()
            if kind in ("attack", "reinforce"):
                act = state.legal_actions().copy()
                heur0 = state.heur.copy()
                s0 = state.action_scores()
                state.heur = heur0.copy()
                state.heur[:, L.PL_RBRK] = RBRK
                state.heur[:, L.PL_GENE] = GENE
                state.heur[:, L.PL_POFF] = POFF
                state.heur[:, L.PL_GLEAD] = GLEAD
                state.heur[:, L.PL_CARD] = CARD
                state.heur[:, L.PL_END] = END
                s1 = state.action_scores()
                state.heur = heur0
                for i, row in enumerate(act):
                    if row[0] == L.A_ATTACK:
                        want = _expected_attack(cf, state.st, row)
                        seen["attack"] += 1
                        b = int(row[2])
                        o = int(state.st[L.O_OWNER + b])
                        foe = _foe(cf, state.st, o)
                        seen["gene"] += want != 0 and foe
                        seen["ally"] += o < C.NEUTRAL and not foe
                        seen["rbrk"] += want != 0 and foe and _holds_region(cf, state.st, o, int(cf[C.O_REG + b]))
                        seen["glead"] += want != 0 and foe and any(
                            int(state.st[L.O_LEAD + 2 * o + j]) == b for j in range(2))
                        seen["last"] += want != 0 and 0.0 < _p_last(cf, state.st) < 1.0
                    elif row[0] == L.A_PLACE:
                        want = _expected_place(cf, state.st, row)
                        seen["place"] += 1
                        seen["poff"] += want != 0
                    else:
                        want = 0.0
                    assert s1[i] - s0[i] == pytest.approx(want, abs=1e-9), (kind, row.tolist())
            state.apply(state.builtin_choice())
            steps += 1
    # the check was exercised on every rule, not vacuously
    assert seen["rbrk"] >= 5 and seen["gene"] >= 50 and seen["poff"] >= 50, seen
    assert seen["glead"] >= 1 and seen["last"] >= 5, seen
    if players > 2:      # attacks on a player of one's own side were seen, and gained nothing
        assert seen["ally"] >= 5, seen
