"""LOTR Risk state layout and codes: where everything lives in the flat ``st`` int64 array.

Scalars ``S_*`` (turn, seat to move, phase, the Ring's place ...), arrays ``O_*`` (owner and
battalions per territory, Leaders, hands, decks), the step machine's phases ``PH_*``, action
kinds ``A_*``, trace event codes ``EV_*``, policy vector slots ``PL_*``. The compiled config
``cf`` has its own layout in config.py.
"""
from __future__ import annotations

from lotr_sim.kernels.layout import Layout
from lotr_sim.games.lotr_risk.config import MAXADV, MAXP, MAXT

HMAX = 8          # territory cards in a hand (a trade is forced at 5, LR-4.3)
AHMAX = 8         # adventure cards in a hand (limit 3 by default, LR-8.2)
NSEAT = MAXP + 1  # players plus the neutral army (owner code 4)
MAXA = 4096       # legal actions of one decision
MAX_TURNS = 400   # safety cap: the Fellowship always ends a game well before
# policy vector: the heuristic's 22 slots (PL_* below), then the learned player's weights
# (policies.learned_bonus_nb), one per feature of an action row (LF_*), added to the
# heuristic's score at the turn's own decisions; all zero in the presets, so they play as before
PL_LF0 = 22
(LF_END_ATT, LF_END_ATT_CARD, LF_END_ATT_LEAD, LF_ATT, LF_ATT_P, LF_ATT_DICE, LF_ATT_OTHER, LF_ATT_LEFT,
 LF_ATT_LAST, LF_ATT_REGION, LF_ATT_BREAK, LF_PL_PRESS, LF_PL_STRONG, LF_PL_SHARE, LF_MI_SHARE, LF_FORT,
 LF_FORT_FRONT, LF_END_FORT, LF_LD_MISS, LF_POW, LF_PL_OFF, LF_PL_REGION) = range(22)
NLF = 22
NPOL = PL_LF0 + NLF

STATE = Layout("lotr-risk-state")
S_PHASE = STATE.scalar("phase")
S_CUR = STATE.scalar("cur")           # seat to move (or whose turn it is)
S_TURN = STATE.scalar("turn")         # player turns played (completed)
S_FIRST = STATE.scalar("first")       # starting seat (LR-2.2: a die decides)
S_RING = STATE.scalar("ring")         # index on the Fellowship path (LR-10)
S_RINGT = STATE.scalar("ringt")       # player turns when the Fellowship left (0 if never)
S_OVER = STATE.scalar("over")
S_WSEAT = STATE.scalar("wseat")
S_REASON = STATE.scalar("reason")     # 0 fellowship, 1 conquest, 2 turn cap
S_CONQ = STATE.scalar("conq")         # conquered a territory this turn (LR-8.1)
S_SITE = STATE.scalar("site")         # a Leader conquered / moved into a site this turn (LR-8.2)
S_ADVLOCK = STATE.scalar("advlock")   # an adventure card was drawn this turn (LR-8.2)
S_REINF = STATE.scalar("reinf")       # reinforcements left to place
S_STAGE = STATE.scalar("stage")       # end-of-turn stage
S_SRC = STATE.scalar("src")           # last attack: from
S_DST = STATE.scalar("dst")           # last attack: to
S_DICE = STATE.scalar("dice")         # last attack: dice rolled (LR-5.6)
S_FORT = STATE.scalar("fort")         # battalion moves left in the fortify step (LR-6.1)
S_NOSTR = STATE.scalar("nostr")       # territory whose stronghold counts for nothing this turn
S_WAYA = STATE.scalar("waya")         # a blocked contact open this turn (Way under the Mountains)
S_WAYB = STATE.scalar("wayb")
S_LCTX = STATE.scalar("lctx")         # why a Leader is placed: 0 set-up, 1 end of turn, 2 event
S_ADDED = STATE.scalar("added")       # battalions ever put on the board
S_REMOVED = STATE.scalar("removed")   # battalions ever taken off
S_TDN = STATE.scalar("tdn")           # territory cards in the deck
S_TDD = STATE.scalar("tdd")           # territory cards on the discard pile
S_ADN = STATE.scalar("adn")           # adventure cards in the deck
S_ADD = STATE.scalar("add")           # adventure cards discarded
S_DEBUG = STATE.scalar("debug")
S_BAD = STATE.scalar("bad")
S_SETUP = STATE.scalar("setup")       # set-up step: 0 claim, 1 place, 2 leaders, 3 done
S_TRADED = STATE.scalar("traded")     # the set traded this turn gave (for the trace)
S_CONQWIN = STATE.scalar("conqwin")
S_PICKS = STATE.scalar("picks")       # set-up leaders placed
S_ADRAWS = STATE.scalar("adraws")     # adventure cards drawn this turn (events draw again, LR-9.2)
S_TSEAT = STATE.scalar("tseat")       # whose turn it is while a defender decides (PH_WITHDRAW)
S_NBLOCK = STATE.scalar("nblock")     # bridges closed now (You Shall Not Pass!, LR-9.3)
S_WDONE = STATE.scalar("wdone")       # the defender withdrew against the attack being declared
S_NLEGAL = STATE.scalar("nlegal")     # rows legal_nb last listed (the decision trace's n_legal)
S_RSTEP = STATE.scalar("rstep")       # the declared roll (S_SRC, S_DST, S_DICE): 0 the defender's
                                      # Courage to ask, 1 its dice to ask, 2 rolling (play._roll_on_nb)
S_FDIE = STATE.scalar("fdie")         # the Fellowship's die at the end of this turn (0: none, LR-10.2)
S_FMOD = STATE.scalar("fmod")         # ... its modifier (Smeagol's +2)
S_FSTEP = STATE.scalar("fstep")       # the Fellowship's move: 0 Smeagol to ask, 1 A Balrog is Come
                                      # to ask, 2 moving, 3 held in Moria by a Balrog
S_FASK = STATE.scalar("fask")         # the next seat asked for the card of S_FSTEP
STATE.pad_to(48)
O_OWNER = STATE.array("owner", MAXT)
O_TROOPS = STATE.array("troops", MAXT)
O_STORM = STATE.array("storm", MAXT)      # seat+1 whose next turn lifts Winter Storms there
O_LEAD = STATE.array("lead", MAXP * 2)    # Leader territories (-1 off the board), 2 per player
O_LDONE = STATE.array("ldone", MAXP * 2)  # Leader moved / completed a mission this turn (LR-6.2)
O_HN = STATE.array("hn", MAXP)
O_HAND = STATE.array("hand", MAXP * HMAX)
O_AHN = STATE.array("ahn", MAXP)
O_AHAND = STATE.array("ahand", MAXP * AHMAX)
O_ASCORE = STATE.array("ascore", MAXP)    # adventure points (missions, played powers)
O_ACOUNT = STATE.array("acount", MAXP)    # adventure cards kept for points
O_LEFT = STATE.array("left", MAXP)        # set-up battalions still to place
O_ALIVE = STATE.array("alive", MAXP)
O_UPR = STATE.array("upr", MAXP)          # Local Uprising territory card held aside (-1)
O_PTS = STATE.array("pts", MAXP * 5)      # final points: territories, regions, strongholds, adventure, total
O_TDECK = STATE.array("tdeck", MAXT + 2)
O_TDISC = STATE.array("tdisc", MAXT + 2)
O_ADECK = STATE.array("adeck", MAXADV)
O_ADISC = STATE.array("adisc", MAXADV)
O_MASK = STATE.array("mask", MAXT)        # scratch: reachable territories
O_COMP = STATE.array("comp", MAXT)        # scratch: fortify components with a bridge closed
O_BLOCK = STATE.array("block", MAXP)      # bridge a player closed until its next turn (-1), LR-9.3
STATE.freeze()
ST_SIZE = STATE.size

# phases (decisions) of the step machine
PH_CLAIM, PH_SPLACE, PH_LEADER, PH_TRADE, PH_REINF, PH_ATTACK, PH_MOVEIN, PH_FORT, PH_OVER = range(9)
PH_BLOCK = 9       # start of a turn: play You Shall Not Pass! on a bridge, or not (LR-9.3)
PH_WITHDRAW = 10   # an attack declared: the defender plays Strategic Withdrawal, or not (LR-9.3)
PH_ADISC = 11      # a fourth adventure card: the player discards one of its hand (LR-8.2)
PH_COURAGE = 12   # a roll against a holder of Courage Alone Will Not Save You: play it or keep it (LR-9.3)
PH_DDICE = 13     # a roll against 2+ battalions with 2+ red dice: the defender rolls 1 or 2 dice (LR-5.2)
PH_SMEAGOL = 14   # the Fellowship's die fails and +2 would move it: a holder plays Smeagol or keeps it
PH_BALROG = 15    # the Ring would leave Moria: a holder plays A Balrog is Come or keeps it (LR-10.4)
PHASE_KIND = ("setup", "setup", "leader", "trade", "reinforce", "attack", "move", "fortify", "over",
              "power", "defend", "discard", "courage", "dice", "smeagol", "balrog")

# action kinds (rows of 4 ints: kind, a, b, c)
A_PASS, A_CLAIM, A_PLACE, A_LEADER, A_TRADE, A_ATTACK, A_MOVEIN, A_FORT, A_LMOVE, A_POWER = range(10)
A_ADISC = 10   # (A_ADISC, hand index, card, 0): discard that adventure card (LR-8.2)
A_FORTL = 11   # (A_FORTL, from, to, battalions): the fortify move with the Leader of ``from`` (LR-6.2)
A_DDICE = 12   # (A_DDICE, dice, 0, 0): the defender rolls this many black dice (LR-5.2)

# trace events
(EV_SNAP, EV_PLACE, EV_LEADER, EV_TRADE, EV_ROLL, EV_CONQ, EV_FORT, EV_TDRAW, EV_ADV,
 EV_RING, EV_END, EV_TURN, EV_ELIM, EV_BLOCK, EV_WITHDRAW, EV_DECISION, EV_SETUP, EV_BALROG,
 EV_TDECK, EV_TURNUP, EV_ASIDE) = range(21)
# EV_DECISION (seat, phase, choice, n_legal, kind, a, b, c): a decision of the step machine
# EV_SETUP (die, first seat): the set-up die (LR-2.2/2.3); EV_BALROG (player, die, held) LR-10.4
# EV_BLOCK (player, bridge, closed 1 / reopened 0); EV_WITHDRAW (player, from, to, battalions)
# EV_TDECK (why, n, the n territory cards of the deck, top first): the deck's order after the set-up's
#   shuffle (why 0, LR-2.5) or a reshuffle of the discards (why 1, LR-4.3)
# EV_TURNUP (player, adventure card, territory card, to): a territory card an event turns up or draws
#   (Winter Storms, Raiders, Mustering of Middle-earth, Local Uprising; LR-9.2); to 0 the discard pile,
#   1 set aside (Local Uprising)
# EV_ASIDE (player, territory card, used): the card Local Uprising set aside goes to the discard pile,
#   used (1: its holder holds the territory at a turn's start, +4) or not (0: the holder is out)
# EV_ADV "what": 0 drawn, 1 discarded (hand full), 2 event resolved, 3 power played, 4 mission completed,
#               5 dealt at the set-up (LR-2.6)
# EV_PLACE "why": 0 claim, 1 set-up, 2 reinforcement, 3 card territory, 4 mission, 5 event, 6 power,
#                 7 neutral set-up, 8 dealt
WHY = ("claim", "setup", "reinforce", "card_territory", "mission", "event", "power", "neutral", "dealt")

# policy vector: type, attack threshold, concentrate, mission, fortify, power weights; then
# the claim's weights (LR-2.2/2.3: region share, own and enemy neighbours, site), the
# pressure's (a front next to a nearly-held region, a stronghold front) and the attack's gain
# for completing a region (policies.py; defaults are the constants they replaced); then
# (0 in the presets) the attack's gain for breaking a region the other side holds
# whole, the reinforcement's pull to the front it attacks from best, the attack's gain for a
# territory of the other side, for one with its Leader, while the turn has no conquest, and
# times P(this is the seat's last turn) (policies.py's docstring says which rule each reads); then
# the lines of the cards played outside the holder's combat step: Courage when the attack takes
# the territory with at least this P, Smeagol when the points lead is at least this, A Balrog is
# Come when the lead is below this
(PL_TYPE, PL_THR, PL_CONC, PL_MISS, PL_FORT, PL_POW, PL_CREG, PL_CADJ, PL_CENE, PL_CSITE,
 PL_PREG, PL_PSTR, PL_RGAIN, PL_RBRK, PL_POFF, PL_GENE, PL_GLEAD, PL_CARD, PL_END,
 PL_COUR, PL_SMEA, PL_BALR) = range(PL_LF0)

R_FELLOWSHIP, R_CONQUEST, R_CAP = 0, 1, 2
