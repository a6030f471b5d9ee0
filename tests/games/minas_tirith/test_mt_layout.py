"""The state layout in layout.py is counted by lotr_sim.kernels.layout.Layout: every slot, offset and code keeps the value it had in the
single-file engine (golden traces and saved states depend on them). The compiled config's
slots (config.py, ``cf``) are counted by a Layout too and keep their hand-numbered
values."""
from __future__ import annotations

from lotr_sim.games.minas_tirith import config as C
from lotr_sim.games.minas_tirith import layout as L

# Values of the single-file engine before the split (commit d94e831); S_TRPOS (10) and S_TROVF (11)
# are spare slots: the trace buffer keeps its own header (kernels.tracebuf).
OLD = {
    'A_PASS': 0, 'A_MOVE': 1, 'A_CAV2': 2, 'A_LMOVE': 3, 'A_ASSAULT': 4, 'A_BOMBARD': 5, 'A_HOLDER': 6,
    'A_LCARD': 7, 'A_CATAPULT': 8, 'A_EXCHANGE': 9, 'A_DIE': 10, 'EVIL': 1, 'EV_SETUP': 1, 'EV_TURN': 2,
    'EV_TRADE': 3, 'EV_PLAYED': 4, 'EV_LOAD': 5, 'EV_PLACE': 6, 'EV_EXCHANGE': 7, 'EV_MOVE': 8,
    'EV_ASSAULT': 9, 'EV_BOMBARD': 10, 'EV_CAPTURE': 11, 'EV_RETREAT': 12, 'EV_LREMOVED': 13,
    'EV_GATE': 14, 'EV_END': 15, 'EV_CATLOST': 16, 'EV_DISCARD': 17, 'GOOD': 0, 'HMAX': 48,
    'K_HOLDER': 0, 'K_LEADER': 1, 'K_MUSTER': 2, 'K_SIEGE': 3, 'K_GROND': 4, 'K_CATAPULT': 5,
    'MAX_TURNS': 600, 'MAXA': 3000, 'O_UNITS': 64, 'O_POOL': 640, 'O_CAPT': 652,
    'O_LLOC': 664, 'O_CST': 676, 'O_CLOC': 708, 'O_CFIRED': 740, 'O_HOLD': 772, 'O_MTORD': 1156,
    'O_DORD': 1188, 'O_HAND': 1388, 'O_FIRED': 1484, 'O_DMG': 1532, 'O_SCA': 1580, 'O_SCB': 1592,
    'O_PATH': 1604, 'O_DRAWN': 1620, 'O_TOT': 1636, 'O_THR': 1732, 'O_LAT': 1828, 'O_WKAT': 1924,
    'O_DEC': 1972, 'PH_ROUND': 0, 'PH_DIE': 1, 'PH_ACT': 2, 'PL_TYPE': 0, 'PL_THR': 1, 'PL_MW': 2,
    'PL_CW': 3, 'PL_DEF': 4, 'PL_ADV': 5, 'R_LEADERS': 0, 'R_CITY': 1, 'R_DECK': 2,
    'S_ROUND': 0, 'S_TURN': 1, 'S_SIDE': 2, 'S_GATE': 3, 'S_OVER': 4, 'S_WINNER': 5, 'S_REASON': 6,
    'S_MISS': 7, 'S_DTOP': 8, 'S_MTTOP': 9, 'S_DECKOUT': 12,
    'S_TURNEND': 13, 'S_HN': 14, 'S_LCAP': 16, 'S_BAD': 18, 'S_TIR': 19, 'S_PG': 20, 'S_PE': 21,
    'S_DEBUG': 22, 'S_DIE': 23, 'S_NDRAWN': 24, 'S_DICE': 25, 'S_BADTURN': 28, 'S_GAMEIDX': 29,
    'S_NCHECK': 30, 'S_PHASE': 31, 'S_USED': 32, 'W_GOOD': 0, 'W_EVIL': 1,
    'W_DRAW': 2,
}

# The compiled config's slots as config.py numbered them by hand (25786ad).
OLD_CF = {
    'C_T': 0, 'C_NU': 1, 'C_NL': 2, 'C_NC': 3, 'C_ND': 4, 'C_CITY': 5, 'C_GROND': 6,
    'P_CREATURE_HITS': 10, 'P_MISSION_BASE': 11, 'P_GOOD_CRE_INF': 12, 'P_HOLDER_CAP': 13,
    'P_HAND_LIMIT': 14, 'P_HAND_DISCARD': 15, 'P_LEAVE_ONE': 16, 'P_BOMB_LOSS': 17, 'P_EVIL_DIV': 18,
    'P_RETREAT': 19, 'P_BLOCKED': 20, 'P_LEADER_BONUS': 21, 'P_BANNER_BONUS': 22, 'P_SIEGE_BONUS': 23,
    'P_LEADER_TO': 24, 'P_LEADER_LAST': 25, 'P_LEADERS_WIN': 26, 'P_PTS_LEADER': 27, 'P_PTS_WALL': 28,
    'P_PTS_GATE': 29, 'P_END_LAST': 30, 'P_PTS_INF': 31, 'P_PTS_CAV': 32, 'P_PTS_CRE': 33,
    'P_RETREAT_WIPED': 34, 'O_EK': 64, 'O_DIST': 2368, 'O_NB': 4672, 'O_NBN': 5248, 'O_TKIND': 5296,
    'O_BANNER': 5344, 'O_TEDGE': 5392, 'O_DGOOD': 5440, 'O_DEVIL': 5488, 'O_DCITY': 5536,
    'O_NEAR': 5584, 'O_NEARN': 7888, 'O_USIDE': 7936, 'O_UCLS': 7948, 'O_UARCH': 7960, 'O_UPTS': 7972,
    'O_UTOT': 7984, 'O_LORD': 7996, 'O_NTS': 8020, 'O_LSIDE': 8022, 'O_LCOL': 8034, 'O_LSTART': 8046,
    'O_LREV': 8058, 'O_SETUP': 8070, 'O_CKIND': 8646, 'O_CSIDES': 8678, 'O_CACC': 8710,
    'O_CLEAD': 8742, 'O_CENTRY': 8774, 'O_CTOWER': 10310, 'O_CRANGE': 10342, 'O_CMUSTER': 10374,
    'O_CNAME': 10758, 'O_DTYPE': 10790, 'O_DSHIELD': 10990, 'CF_SIZE': 11190,
}


def test_every_layout_value_is_unchanged():
    assert {k: getattr(L, k) for k in OLD} == OLD
    assert L.O_UNITS == 64


def test_the_learned_players_slots_come_after_the_old_ones():
    # the learned player's caches follow the old state, its weights the old policy row (18
    # entries), so every earlier slot and weight keeps its place
    assert (L.O_EXP, L.O_ADJ, L.ST_SIZE) == (1980, 1980 + 2 * C.MAXT, 1980 + 4 * C.MAXT)
    assert (L.PL_LF0, L.NPOL) == (18, 18 + L.NLF)


def test_offsets_are_plain_ints():
    for k in OLD:
        assert type(getattr(L, k)) is int, k      # numba globals: compile-time constants


def test_layout_object_describes_the_state():
    assert L.STATE.frozen and L.STATE.size == L.ST_SIZE
    assert L.STATE["units"] == L.O_UNITS and L.STATE["dec"] == L.O_DEC
    assert L.STATE.length("dice") == 3 and L.STATE["dice"] == L.S_DICE
    ends = [off + n for _, off, n in L.STATE.describe()]
    assert max(ends) == L.ST_SIZE


def test_every_config_slot_is_unchanged():
    assert {k: getattr(C, k) for k in OLD_CF} == OLD_CF
    for k in OLD_CF:
        assert type(getattr(C, k)) is int, k      # numba globals: compile-time constants


def test_config_layout_object_describes_the_config():
    assert C.CF.frozen and C.CF.size == C.CF_SIZE
    assert C.CF["ek"] == C.O_EK and C.CF["dshield"] == C.O_DSHIELD
    ends = [off + n for _, off, n in C.CF.describe()]
    assert max(ends) == C.CF_SIZE
    # every offset of config.py is a field of the layout, under its own name
    named = {k: v for k, v in vars(C).items() if k[:2] in ("C_", "P_", "O_") and k[2:].isupper()}
    assert sorted(named.values()) == sorted(C.CF.offsets().values())
