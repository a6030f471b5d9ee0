"""The state layout moved to layout.py (issue 8: the engine split by role) and is now counted
by lotr_sim.kernels.layout.Layout: every slot, offset and code keeps the value it had in the
single-file engine (golden traces and saved states depend on them)."""
from __future__ import annotations

from lotr_sim.games.minas_tirith import layout as L

# Values of the single-file engine before the split (commit d94e831).
OLD = {
    'A_PASS': 0, 'A_MOVE': 1, 'A_CAV2': 2, 'A_LMOVE': 3, 'A_ASSAULT': 4, 'A_BOMBARD': 5, 'A_HOLDER': 6,
    'A_LCARD': 7, 'A_CATAPULT': 8, 'A_EXCHANGE': 9, 'A_DIE': 10, 'EVIL': 1, 'EV_SETUP': 1, 'EV_TURN': 2,
    'EV_TRADE': 3, 'EV_PLAYED': 4, 'EV_LOAD': 5, 'EV_PLACE': 6, 'EV_EXCHANGE': 7, 'EV_MOVE': 8,
    'EV_ASSAULT': 9, 'EV_BOMBARD': 10, 'EV_CAPTURE': 11, 'EV_RETREAT': 12, 'EV_LREMOVED': 13,
    'EV_GATE': 14, 'EV_END': 15, 'EV_CATLOST': 16, 'EV_DISCARD': 17, 'GOOD': 0, 'HMAX': 48,
    'K_HOLDER': 0, 'K_LEADER': 1, 'K_MUSTER': 2, 'K_SIEGE': 3, 'K_GROND': 4, 'K_CATAPULT': 5,
    'MAX_TURNS': 600, 'MAXA': 3000, 'NPOL': 10, 'O_UNITS': 64, 'O_POOL': 640, 'O_CAPT': 652,
    'O_LLOC': 664, 'O_CST': 676, 'O_CLOC': 708, 'O_CFIRED': 740, 'O_HOLD': 772, 'O_MTORD': 1156,
    'O_DORD': 1188, 'O_HAND': 1388, 'O_FIRED': 1484, 'O_DMG': 1532, 'O_SCA': 1580, 'O_SCB': 1592,
    'O_PATH': 1604, 'O_DRAWN': 1620, 'O_TOT': 1636, 'O_THR': 1732, 'O_LAT': 1828, 'O_WKAT': 1924,
    'O_DEC': 1972, 'PH_ROUND': 0, 'PH_DIE': 1, 'PH_ACT': 2, 'PL_TYPE': 0, 'PL_THR': 1, 'PL_MW': 2,
    'PL_CW': 3, 'PL_DEF': 4, 'PL_ADV': 5, 'R_LEADERS': 0, 'R_CITY': 1, 'R_DECK': 2, 'ST_SIZE': 1980,
    'S_ROUND': 0, 'S_TURN': 1, 'S_SIDE': 2, 'S_GATE': 3, 'S_OVER': 4, 'S_WINNER': 5, 'S_REASON': 6,
    'S_MISS': 7, 'S_DTOP': 8, 'S_MTTOP': 9, 'S_TRPOS': 10, 'S_TROVF': 11, 'S_DECKOUT': 12,
    'S_TURNEND': 13, 'S_HN': 14, 'S_LCAP': 16, 'S_BAD': 18, 'S_TIR': 19, 'S_PG': 20, 'S_PE': 21,
    'S_DEBUG': 22, 'S_DIE': 23, 'S_NDRAWN': 24, 'S_DICE': 25, 'S_BADTURN': 28, 'S_GAMEIDX': 29,
    'S_NCHECK': 30, 'S_PHASE': 31, 'S_USED': 32, 'TR_MARGIN': 4096, 'W_GOOD': 0, 'W_EVIL': 1,
    'W_DRAW': 2,
}


def test_every_layout_value_is_unchanged():
    assert {k: getattr(L, k) for k in OLD} == OLD
    assert L.ST_SIZE == 1980 and L.O_UNITS == 64


def test_offsets_are_plain_ints():
    for k in OLD:
        assert type(getattr(L, k)) is int, k      # numba globals: compile-time constants


def test_layout_object_describes_the_state():
    assert L.STATE.frozen and L.STATE.size == L.ST_SIZE
    assert L.STATE["units"] == L.O_UNITS and L.STATE["dec"] == L.O_DEC
    assert L.STATE.length("dice") == 3 and L.STATE["dice"] == L.S_DICE
    ends = [off + n for _, off, n in L.STATE.describe()]
    assert max(ends) == L.ST_SIZE
