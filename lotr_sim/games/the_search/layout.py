"""The Search: sizes, codes and the flat layouts of the compiled config ``cf`` and of the
game state ``st`` (``lotr_sim.kernels.layout.Layout``; every offset is a module-level int,
so numba folds it into the kernels).

The board is a fixed grid of ``GR x GC`` cells with the Shire at (``SR``, ``SC``): large
enough for any 6 x 8 map around it (TS-3.1). A cell holds a tile; a tile has four sections
N E S W (TS-1.2), section ``4 * cell + d``. Terrains and token colours share codes:
water/blue 0, mountain/brown 1, forest/green 2, desert/yellow 3; a neutral section that has
not yet taken a terrain (TS-3.4) is ``NEUTRAL``.
"""
from __future__ import annotations

from lotr_sim.kernels.layout import Layout

FRODO, SAM = 0, 1
WATER, MOUNTAIN, FOREST, DESERT, NEUTRAL = 0, 1, 2, 3, 4
TERRAIN_LETTERS = "WMFD"
COLOURS = ("blue", "brown", "green", "yellow")
GR, GC = 11, 15          # the grid (rows, columns); the map's bbox is at most MAP_R x MAP_C
SR, SC = 5, 7            # the Shire's cell
MAP_R, MAP_C = 6, 8      # TS-3.1
NCELL = GR * GC
NSEC = 4 * NCELL
NTILE = 47               # TS-1.1: the Shire and 47 others
SHIRE_TILE = NTILE       # tile id of the Shire in cf's pattern table
HAND = 3                 # TS-2.4
MAXTOK = 64
MAXA = 600               # actions of one decision (3 tiles x cells x 4 rotations at most)

# token powers (TS-7)
P_NONE, P_FIGHTER, P_MOVER, P_GWAIHIR, P_ENT, P_RING, P_GOLLUM, P_CAVE, P_MONSTER = range(9)
POWERS = ("none", "fighter", "mover", "gwaihir", "ent", "ring", "gollum", "cave", "monster")
# where a token is
T_STACK, T_MAP, T_HELD, T_USED, T_BOX = range(5)

# phases (TS-5) and stages of a turn
PH1, PH2, PH3, OVER = 1, 2, 3, 4
STG_PLACE, STG_MOVE, STG_DRAW, STG_ENT, STG_NEXT = range(5)
# decision kinds and action kinds (act rows: kind, a, b, c)
DK_PLACE, DK_NEUTRAL, DK_MOVE, DK_FIGHT, DK_ENT = range(5)
DECISIONS = ("place", "neutral", "move", "fight", "ent")
A_PLACE, A_NEUTRAL, A_STEP, A_GWAIHIR, A_BOAT, A_STOP, A_FIGHT, A_ENT = range(8)
# hobbit positions besides a section
AT_SHIRE, AT_DOOM = -1, -2
# outcomes
W_FRODO, W_SAM, W_DRAW = 0, 1, 2
R_DOOM, R_CAP = 0, 1

# policy vector
PL_TYPE, PL_SITE, PL_NEAR, PL_TOKEN, PL_STEPCOST, PL_RACE, PL_MOVER, PL_BOAT, PL_ENT, PL_FIGHT, PL_COUNT = range(11)
# The learned player's weights (policies.learned_bonus_nb): one per feature of an action row
# (LF_*), added to the heuristic's score; all zero for the presets, so they play as before.
PL_LF0 = 11
(LF_PL_OWN, LF_PL_RIV, LF_PL_EXPOSE, LF_PL_EXPOSE_NEAR, LF_NE_LATE, LF_PL_SITE_NOW, LF_NE_NEAR, LF_MV_STOP,
 LF_MV_STOP3, LF_MV_MOVER, LF_MV_BOAT, LF_MV_GWAIHIR, LF_MV_DOOM, LF_MV_BACK, LF_FI_K, LF_ENT,
 LF_PL_SITE_MINE, LF_PL_SITE_THEIRS, LF_MV_DOOM_LATE, LF_MV_RACE, LF_MV_TOK_LOST, LF_MV_TOK_NOW,
 LF_MV_TOK_SOON, LF_MV_TOK_FREE, LF_MV_BLOCK) = range(25)
NLF = 25
# the token race classes of a move's targets (policies.token_race_nb): the rival reaches the
# token first, it reaches it as soon as the mover (no move to spare), one or two moves later, later
TR_LOST, TR_NOW, TR_SOON, TR_FREE = range(4)
NPOL = PL_LF0 + NLF

# trace events
(EV_SETUP, EV_TURN, EV_PLACE, EV_CLOSE, EV_TOKEN, EV_MOVE, EV_TAKE, EV_FIGHT, EV_LOST, EV_BOAT, EV_USE,
 EV_PHASE, EV_UNPLACEABLE, EV_END, EV_SNAP, EV_REDRAW, EV_DECISION, EV_DRAW) = range(18)

# ---- compiled config ---------------------------------------------------------------------
CF = Layout("the-search-cf")
C_NTOK = CF.scalar("ntok")
C_P1FULL = CF.scalar("p1full")          # TS-9.1
C_REDRAW = CF.scalar("redraw")          # TS-9.2
C_CAP = CF.scalar("cap")                # TS-5.4 safety cap on phase-3 turns
C_GWAIHIR = CF.scalar("gwaihir")        # TS-7.1 flight along a line (1) or off (0)
C_NEUTRAL_FIRST = CF.scalar("neutral_first")  # TS-3.4: 1 = the first hand tile goes neutral
C_NEUTRAL_JOIN = CF.scalar("neutral_join")    # TS-3.5 [R]: 1 = no_tile (0 = skip_link)
C_BROWNV = CF.scalar("brownv")          # mean brown token value x1000 (heuristics)
C_BROWND = CF.scalar("brownd")          # mean brown dots x1000 (heuristics)
O_PAT = CF.array("pat", (NTILE + 1) * 4)   # terrain of section d of tile t (t = 47: the Shire)
O_TCOL = CF.array("tcol", MAXTOK)
O_TVAL = CF.array("tval", MAXTOK)
O_TPOW = CF.array("tpow", MAXTOK)
O_TDOTS = CF.array("tdots", MAXTOK)
O_TFIGHT = CF.array("tfight", MAXTOK)    # fighters needed to cancel its fight (TS-7.3)
O_NBR = CF.array("nbr", NCELL * 4)       # neighbour cell in direction d, -1 off the grid
CF.freeze()
CF_SIZE = CF.size

# ---- state ---------------------------------------------------------------------------------
STATE = Layout("the-search-state")
S_PHASE = STATE.scalar("phase")
S_STAGE = STATE.scalar("stage")
S_SEAT = STATE.scalar("seat")
S_DK = STATE.scalar("dk")
S_TURN = STATE.scalar("turn")
S_ROUND = STATE.scalar("round")
S_WINNER = STATE.scalar("winner")
S_REASON = STATE.scalar("reason")
S_DECKPOS = STATE.scalar("deckpos")
S_NPLACED = STATE.scalar("nplaced")
S_RMIN = STATE.scalar("rmin")
S_RMAX = STATE.scalar("rmax")
S_CMIN = STATE.scalar("cmin")
S_CMAX = STATE.scalar("cmax")
S_DOOM = STATE.scalar("doom")            # Mount Doom's cell (-1 none yet)
S_LAST = STATE.scalar("last")            # last placed cell
S_NNEUTRAL = STATE.scalar("nneutral")
S_STOCKN = STATE.scalar("stockn")
S_REACHED = STATE.scalar("reached")      # seat that reached Mount Doom, -1
S_BOATS = STATE.scalar("boats")          # boats left in the box (TS-1.1: 2)
S_NORMAL = STATE.scalar("normal")        # this turn's normal move is used (TS-6.1)
S_EXTRA = STATE.scalar("extra")          # an Ent's extra turn follows (TS-7.2)
S_FTOK = STATE.scalar("ftok")            # the token of a pending fight decision
S_GAMEIDX = STATE.scalar("gameidx")
S_DEBUG = STATE.scalar("debug")
S_P1TURNS = STATE.scalar("p1turns")
S_P2TURNS = STATE.scalar("p2turns")
S_P3TURNS = STATE.scalar("p3turns")
S_BAD = STATE.scalar("bad")              # an invariant broke (debug games)
S_STAMP = STATE.scalar("stamp")          # BFS visit stamp
S_PLACER = STATE.scalar("placer")
S_STEPS = STATE.scalar("steps")          # decisions taken (a guard against endless games)
S_NTOKMAP = STATE.scalar("ntokmap")
S_TPOS = STATE.array("tpos", 4)          # next token of each colour stack
S_TN = STATE.array("tn", 4)              # tokens of each colour
S_UNPL = STATE.array("unpl", 2)          # turns with an unplaceable hand, per seat
S_SITES = STATE.array("sites", 4)        # token sites made, per colour
S_HANDN = STATE.array("handn", 2)
S_HOB = STATE.array("hob", 2)            # a section of the hobbit's region, AT_SHIRE, AT_DOOM
S_HCELL = STATE.array("hcell", 2)        # the cell it last entered (distance heuristics)
S_BOAT = STATE.array("boat", 2)
S_FLEFT = STATE.array("fleft", 2)        # moves still lost to a fight (TS-6.5)
S_FTOKS = STATE.array("ftoks", 2)        # the token fought
S_POINTS = STATE.array("points", 2)
S_TOKPTS = STATE.array("tokpts", 2)
S_USEDN = STATE.array("usedn", 2)
S_DOOMPTS = STATE.array("doompts", 2)
S_NTAKEN = STATE.array("ntaken", 2)
S_ENTTURN = STATE.scalar("entturn")      # 1: this turn is an Ent's extra turn (TS-7.2)
S_PREV = STATE.array("prev", 2)          # where the hobbit was before its last step (heuristics)
STATE.pad_to(80)
O_CTILE = STATE.array("ctile", NCELL)    # tile id, -1 empty
O_CROT = STATE.array("crot", NCELL)
O_CNEU = STATE.array("cneu", NCELL)      # 1: a neutral tile (TS-3.4)
O_STER = STATE.array("ster", NSEC)       # terrain of a section, -1 empty cell
O_PAR = STATE.array("par", NSEC)         # union-find parent (TS-4.1)
O_NXT = STATE.array("nxt", NSEC)         # circular member list of a region
O_RSIZE = STATE.array("rsize", NSEC)     # sections of the region (at its root)
O_ROPEN = STATE.array("ropen", NSEC)     # sides facing a fillable empty cell (TS-4.2)
O_RTOK = STATE.array("rtok", NSEC)       # token on the region (TS-4.3), -1
O_RSITE = STATE.array("rsite", NSEC)     # 1: became a token site
O_DECK = STATE.array("deck", NTILE)
O_HAND = STATE.array("hand", 2 * HAND)
O_STOCK = STATE.array("stock", NTILE)    # TS-9.2 open stock
O_TSTK = STATE.array("tstk", 4 * MAXTOK)  # token stacks, colour c at c * MAXTOK
O_TWHERE = STATE.array("twhere", MAXTOK)
O_TOWNER = STATE.array("towner", MAXTOK)
O_DIST = STATE.array("dist", NSEC)       # BFS scratch (by root)
O_FIRST = STATE.array("first", NSEC)
O_SEEN = STATE.array("seen", NSEC)
O_QUEUE = STATE.array("queue", NSEC)
O_BEST = STATE.array("best", NSEC)     # greedy scratch: best value through a first step (x1000)
O_TMP = STATE.array("tmp", 256)
O_LDIST = STATE.array("ldist", 2 * NSEC)  # the learned player's cache per seat: moves from the hobbit (placements) or to Mount Doom (moves), by region root
O_LRIV = STATE.array("lriv", NSEC)       # the learned player's cache at a move: the rival's search's stamp where it reached a region root
O_LTOK = STATE.array("ltok", 4 * NSEC)   # ... and per first step's root, by race class TR_*: the best token worth / moves (x1000)
# ... its slots LR_*: the rival's best token worth / moves and a face-down brown token's worth (x1000),
# the count of the move's own breadth-first search (base_scores_nb), the rival's search's stamp,
# whether the hobbit's region borders what the rival reaches; and the tokens the own hobbit
# reaches (region, moves, first step)
LR_BEST, LR_BROWN, LR_OWNQ, LR_STAMP, LR_BORDERS = range(5)
O_LRIVB = STATE.array("lrivb", 5)
O_LLIST = STATE.array("llist", 3 * MAXTOK)
STATE.freeze()
ST_SIZE = STATE.size
