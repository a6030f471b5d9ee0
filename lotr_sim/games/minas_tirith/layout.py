"""Minas Tirith state layout and codes: where everything lives in the flat ``st`` array.

A game's whole state is one ``int64`` array of ``ST_SIZE`` slots (the compiled rule config
``cf`` has its own layout, in config.py). This module holds no code, only names:

* ``S_*``: scalar slots (round, turn, seat to move, gate, game over, winner, hands, the three
  mission dice of MT-4.2, the step machine's phase ...), the first 64 slots;
* ``O_*``: offsets of the per-territory, per-unit-type, per-card arrays (units on the board
  MT-1, pools and captured units MT-1.4, leaders MT-8, cards MT-5/MT-9, hands, decks, the
  per-decision caches);
* the codes read by several modules: trace events ``EV_*``, card kinds ``K_*`` (MT-9), action
  kinds ``A_*`` (MT-6/MT-7), the policy vector ``PL_*``, outcomes ``W_*``/``R_*`` (MT-10),
  step-machine phases ``PH_*`` (MT-4), sizes (``HMAX``, ``MAXA``, ``MAX_TURNS``).

The slots are counted by ``lotr_sim.kernels.layout.Layout`` (``STATE.describe()`` lists them);
every offset is a plain ``int`` bound to a module global, so numba folds it into the kernels.
tests/games/minas_tirith/test_mt_layout.py pins every value.
"""
from __future__ import annotations

from lotr_sim.kernels.layout import Layout
from lotr_sim.games.minas_tirith.config import MAXC, MAXD, MAXL, MAXT, MAXU

GOOD, EVIL = 0, 1
HMAX = 48
MAXA = 3000
MAX_TURNS = 600  # safety cap (a deck that never runs out); ends as a "deck" result

# ---- state layout --------------------------------------------------------------------
STATE = Layout("minas-tirith-state")
S_ROUND = STATE.scalar("round")
S_TURN = STATE.scalar("turn")
S_SIDE = STATE.scalar("side")
S_GATE = STATE.scalar("gate")
S_OVER = STATE.scalar("over")
S_WINNER = STATE.scalar("winner")
S_REASON = STATE.scalar("reason")
S_MISS = STATE.scalar("miss")
S_DTOP = STATE.scalar("dtop")
S_MTTOP = STATE.scalar("mttop")
STATE.pad_to(12)                      # spare slots, kept so that the later offsets stay put (the
                                      # trace's position and overflow live in kernels.tracebuf's header)
S_DECKOUT = STATE.scalar("deckout")
S_TURNEND = STATE.scalar("turnend")
S_HN = STATE.array("hn", 2)           # hand sizes
S_LCAP = STATE.array("lcap", 2)       # enemy leaders captured BY side
S_BAD = STATE.scalar("bad")
S_TIR = STATE.scalar("tir")
S_PG = STATE.scalar("pg")
S_PE = STATE.scalar("pe")
S_DEBUG = STATE.scalar("debug")
S_DIE = STATE.scalar("die")
S_NDRAWN = STATE.scalar("ndrawn")
S_DICE = STATE.array("dice", 3)
S_BADTURN = STATE.scalar("badturn")
S_GAMEIDX = STATE.scalar("gameidx")
S_NCHECK = STATE.scalar("ncheck")     # debug games: cache-v-full comparisons made (check_caches_nb)
S_PHASE = STATE.scalar("phase")       # step machine: PH_ROUND / PH_DIE / PH_ACT / ... (PH_*)
S_USED = STATE.scalar("used")         # mission dice of this round already taken (bit per slot)
S_LOSS_T = STATE.scalar("loss_t")     # PH_LOSS: the bombarded territory
S_LOSS_N = STATE.scalar("loss_n")     # PH_LOSS: hits still to take
S_LOSS_SIDE = STATE.scalar("loss_side")  # PH_LOSS: the side losing units
S_LOSS_SEAT = STATE.scalar("loss_seat")  # PH_LOSS: the seat choosing them (owner, or shooter)
# an assault waiting for its losses to be chosen (PH_ALOSS, PH_DLOSS): what the rest of it needs
S_AS_A = STATE.scalar("as_a")         # attacking territory
S_AS_B = STATE.scalar("as_b")         # attacked territory
S_AS_SIDE = STATE.scalar("as_side")   # attacker
S_AS_A6 = STATE.scalar("as_a6")       # attacker's natural sixes
S_AS_D6 = STATE.scalar("as_d6")       # defender's natural sixes
S_AS_WK = STATE.scalar("as_wk")       # the Witch-king present
S_AS_AB = STATE.scalar("as_ab")       # attacker's bonus
S_AS_LD = STATE.scalar("as_ld")       # defender's losses, taken after the attacker's
# a retreat under way (MT-7.5; PH_RETREAT: a step with several destinations is a decision)
S_RT_SIDE = STATE.scalar("rt_side")   # the retreating side (it chooses the destinations)
S_RT_A = STATE.scalar("rt_a")         # where the retreat started
S_RT_CUR = STATE.scalar("rt_cur")     # where the force stands now
S_RT_NP = STATE.scalar("rt_np")       # steps taken (their territories in O_PATH)
S_RT_STEPS = STATE.scalar("rt_steps")  # steps the retreat must take
S_RT_VEC = STATE.scalar("rt_vec")     # offset of the retreating force's unit counts (O_SCA / O_SCB)
S_RT_LMASK = STATE.scalar("rt_lmask")  # leaders going with the force (bit per leader)
S_RT_K = STATE.scalar("rt_k")         # which retreat of the assault (assault_resume_nb goes on from it)

STATE.pad_to(64)                      # spare scalar slots
O_UNITS = STATE.array("units", MAXT * MAXU)
O_POOL = STATE.array("pool", MAXU)
O_CAPT = STATE.array("capt", MAXU)    # units of type u captured by the opponent of u's side (MT-1.4)
O_LLOC = STATE.array("lloc", MAXL)    # >=0 territory, -1 pool, -2 captured, -3 on its card
O_CST = STATE.array("cst", MAXC)      # 0 deck, 1 held good, 2 held evil, 3 discarded, 4/5 on board good/evil
O_CLOC = STATE.array("cloc", MAXC)
O_CFIRED = STATE.array("cfired", MAXC)
O_HOLD = STATE.array("hold", MAXC * MAXU)
O_MTORD = STATE.array("mtord", MAXC)
O_DORD = STATE.array("dord", MAXD)
O_HAND = STATE.array("hand", 2 * HMAX)
O_FIRED = STATE.array("fired", MAXT)
O_DMG = STATE.array("dmg", MAXT)
O_SCA = STATE.array("sca", MAXU)
O_SCB = STATE.array("scb", MAXU)
O_PATH = STATE.array("path", 16)
O_DRAWN = STATE.array("drawn", 16)
O_TOT = STATE.array("tot", 2 * MAXT)  # per-decision cache of units per side and territory
O_THR = STATE.array("thr", 2 * MAXT)  # per-decision cache: enemy units next to t, per side
O_LAT = STATE.array("lat", 2 * MAXT)  # per-decision cache: leaders of a side at t
O_WKAT = STATE.array("wkat", MAXT)    # per-decision cache: 1 if a Witch-king (reversed leader) is at t
O_DEC = STATE.array("dec", 8)         # per-decision flags: [0] Evil siege holds_nb, [1] Evil Grond holds_nb,
                                      # [2 + side] catapults of side on the board
O_EXP = STATE.array("exp", 2 * MAXT)  # the learned player's cache: enemy archers within 2 of t, per side
O_ADJ = STATE.array("adj", 2 * MAXT)  # the learned player's cache: enemy units next to t, per side
STATE.freeze()
ST_SIZE = STATE.size

# ---- trace event codes ------------------------------------------------------------------
EV_SETUP, EV_TURN, EV_TRADE, EV_PLAYED, EV_LOAD, EV_PLACE, EV_EXCHANGE, EV_MOVE = 1, 2, 3, 4, 5, 6, 7, 8
EV_ASSAULT, EV_BOMBARD, EV_CAPTURE, EV_RETREAT, EV_LREMOVED, EV_GATE, EV_END = 9, 10, 11, 12, 13, 14, 15
EV_CATLOST, EV_DISCARD = 16, 17
EV_DECISION = 18   # one decision of the step machine: seat, phase, choice, n legal, row

# card kinds
K_HOLDER, K_LEADER, K_MUSTER, K_SIEGE, K_GROND, K_CATAPULT = 0, 1, 2, 3, 4, 5
# action kinds
A_PASS, A_MOVE, A_CAV2, A_LMOVE, A_ASSAULT, A_BOMBARD, A_HOLDER, A_LCARD, A_CATAPULT, A_EXCHANGE, A_DIE, A_LOSE = range(12)
A_RETREAT = 12
A_CARD = 13       # a card-step row (MT-5, PH_CARD): (A_CARD, CD_*, ...), see cards.card_options_nb
CD_TRADE, CD_MUSTER, CD_LOAD, CD_STOP = 0, 1, 2, 3
# policy vector; PL_CARDS = 1: the card step is the seat's decision (PH_CARD; a seat held by a
# player from lotr_sim.players), 0: the seat's built-in policy makes it inside the engine.
# PL_GMIN: the least gain of a Good move worth making; PL_TW: the weight of the enemy next to
# a territory in Good's want of it; PL_PASS: the value of ending the turn's actions.
# Where a card's piece goes (MT-9.4 catapult, MT-9.6 leader card): PL_CATN the worth of a
# catapult's place per enemy unit within its range, PL_CATF its bonus on a fort (a Rammas or
# Causeway fort); PL_LCN the worth of a leader card's place per own unit there, PL_LCW its
# bonus on a wall or the city.
# A Good leader's flight (MT-6.2 d): PL_FLEE the value of moving a leader alone out of a
# territory whose adjacent enemy units outnumber PL_FLEER x its own units, to one where they do
# not outnumber its own.
# PL_GUARD: added to a territory's importance in Good's want of units (good_want_nb) while one
# of its own leaders stands there (more of its units then fight with the leader's +1, MT-8.2).
# PL_CAV2: added to the worth of a Good move of cavalry two territories (MT-6.2 c) that passes
# PL_GMIN, over a plain move's PL_DEF x gain.
PL_TYPE, PL_THR, PL_MW, PL_CW, PL_DEF, PL_ADV, PL_CARDS, PL_GMIN, PL_TW, PL_PASS = range(10)
PL_CATN, PL_CATF, PL_LCN, PL_LCW = range(10, 14)
PL_FLEE, PL_FLEER = 14, 15
PL_GUARD = 16
PL_CAV2 = 17
# The learned player's weights (policies.learned_bonus_nb): one per feature of an action row
# (LF_*), added to the heuristic's score; all zero for the presets, so they play as before.
PL_LF0 = 18
(LF_PASS, LF_PASS_MISS, LF_MV, LF_MV_EXP, LF_MV_RISK, LF_MV_ADJ, LF_MV_IMP, LF_MV_CITY, LF_MV_FRAC,
 LF_MV_EARLY, LF_LM, LF_LM_RISK, LF_AS, LF_AS_P, LF_AS_K, LF_AS_LDR, LF_BB, LF_BB_DICE, LF_BB_KILL,
 LF_CARD) = range(20)
# ... and one per feature of a mission die (MT-4.2/4.5; policies.die_features_nb), added to the
# heuristic's worth of the die
(LF_DIE, LF_DIE_SQ, LF_DIE_OPP, LF_DIE_LATER, LF_DIE_DECK, LF_DIE_HAND, LF_DIE_LEAD, LF_DIE_SHOOT,
 LF_DIE_FRONT) = range(20, 29)
NLF_DIE = 9
NLF = 29
NPOL = PL_LF0 + NLF
# outcome codes
W_GOOD, W_EVIL, W_DRAW = 0, 1, 2
R_LEADERS, R_CITY, R_DECK = 0, 1, 2
# step-machine phases (play.py): the next round's dice / a mission die to pick / an action to pick /
# a loss to take (bombardment, assault attacker, assault defender) / a retreat step's destination /
# a card play of the card step (MT-5; only for a seat with PL_CARDS)
PH_ROUND, PH_DIE, PH_ACT, PH_LOSS, PH_ALOSS, PH_DLOSS, PH_RETREAT, PH_CARD = 0, 1, 2, 3, 4, 5, 6, 7
