"""LOTR Risk config: the parameter table, loading/validating ``configs/games/lotr-risk.toml``
and compiling it into the flat ``cf`` int64 array (layout ``CF`` below) and the ``wp``
float64 table of exact attack odds the numba engine reads.

Rule IDs refer to docs/rules/lotr-risk.md. Every **[R]** item of the rules is a parameter
here with the rules' default: the adventure deck's composition and points (LR-9.4), where a
mission's reward goes (LR-9.1); the rest are the levers a designer varies (region bonuses,
stronghold and leader bonuses, set values, the Fellowship threshold, players).
"""
from __future__ import annotations

import re
from typing import Any, Mapping, Sequence

import numpy as np

from lotr_sim.config import GameConfig, Param, load_game_config
from lotr_sim.config import checked as _checked
from lotr_sim.errors import ConfigError
from lotr_sim.kernels.layout import Layout

GAME = "lotr-risk"
TABLES = ("game", "regions", "territories", "board", "fellowship", "params")

MAXT = 48          # territories
MAXR = 8           # regions
MAXDEG = 12        # borders of one territory
MAXP = 4           # players
NEUTRAL = 4        # owner code of the neutral army (LR-2.2)
MAXPATH = 24       # Fellowship path
MAXADV = 64        # adventure cards
MAXBRG = 32        # bridges (You Shall Not Pass!, LR-9.3)
MAXW = 60          # exact odds table: battalions 0..MAXW

SIDES = ("good", "evil", "neutral")
SYMBOLS = ("infantry", "cavalry", "creature")
EDGE_KINDS = ("land", "bridge", "sea")

# adventure card kinds (LR-9): code, slug, name, kind, default count, implemented
K_MISSION = 0
CARD_KINDS = [
    # events (LR-9.2)
    (1, "second_leader", "Appoint a Second Leader", "event", 4),
    (2, "winter_storms", "Winter Storms", "event", 1),
    (3, "raiders", "Raiders", "event", 1),
    (4, "mustering", "Mustering of Middle-earth", "event", 1),
    (5, "local_uprising", "Local Uprising", "event", 1),
    (6, "cave_troll", "They've Brought a Cave Troll", "event", 1),
    (7, "entmoot", "The Entmoot", "event", 1),
    # powers (LR-9.3)
    (8, "grima", "Grima Wormtongue", "power", 2),
    (9, "courage", "Courage Alone Will Not Save You", "power", 1),
    (10, "ambush", "Ambush", "power", 1),
    (11, "enemy_at_hand", "The Enemy is at Hand", "power", 1),
    (12, "move_by_night", "Move by Night", "power", 1),
    (13, "way_under_mountains", "The Way is Under the Mountains", "power", 2),
    (14, "hunt_ringbearer", "Hunt for the Ringbearer", "power", 1),
    (15, "balrog", "A Balrog is Come", "power", 1),
    (16, "smeagol", "Smeagol", "power", 1),
    (17, "you_shall_not_pass", "You Shall Not Pass!", "power", 2),     # start of the holder's turn
    (18, "strategic_withdrawal", "Strategic Withdrawal", "power", 1),  # when attacked
]
(K_SECOND, K_WINTER, K_RAIDERS, K_MUSTER, K_UPRISING, K_TROLL, K_ENTMOOT, K_GRIMA, K_COURAGE,
 K_AMBUSH, K_ENEMY, K_NIGHT, K_WAY, K_HUNT, K_BALROG, K_SMEAGOL, K_YSNP, K_WITHDRAW) = range(1, 19)
KIND_NAMES = {0: "mission"} | {c: n for c, _, n, _, _ in CARD_KINDS}
EVENT_KINDS = tuple(c for c, _, _, k, _ in CARD_KINDS if k == "event")
EVENT_KINDS_ARR = np.array(EVENT_KINDS, dtype=np.int64)


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


# who starts (LR-2.2), code = index (cf[P_FIRSTP]): 0 the die, 1 the first Good seat, 2 the first Evil
FIRST_PLAYER = ("die", "good", "evil")
# menus of amounts, code = index (cf[P_RMENU] / P_MMENU / P_FMENU); the first is the default
REINFORCE_SIZES = ("1,half,all", "1,2,3,half,all", "any")
MOVEIN_SIZES = ("dice,half,all", "any")
FORTIFY_SIZES = ("all,half", "1,2,3,half,all")

REGION_DEFAULTS = {"eriador": 3, "arnor": 7, "mirkwood": 4, "rhun": 2, "rohan": 4, "rhovanion": 5}

PARAMS: list[Param] = [
    Param("players", 2, "int", "LR-2.1", "players: 2 (Good v Evil plus a neutral army), 3 or 4", lo=2, hi=4),
    Param("battalions_2p", 35, "int", "LR-2.1", "starting battalions per player, 2 players", lo=15, hi=60),
    Param("battalions_3p", 35, "int", "LR-2.1", "starting battalions per player, 3 players", lo=15, hi=60),
    Param("battalions_4p", 30, "int", "LR-2.1", "starting battalions per player, 4 players", lo=12, hi=60),
    Param("neutral_battalions", 2, "int", "LR-2.2", "neutral battalions on each neutral territory (2 players)",
          lo=1, hi=6),
    Param("territories_per_battalion", 3, "int", "LR-4.1", "one reinforcement per this many territories",
          lo=1, hi=6),
    Param("min_reinforcement", 3, "int", "LR-4.1", "least reinforcements a turn", lo=0, hi=10),
    *[Param(f"bonus_{r}", b, "int", "LR-1.1 / LR-4.2", f"region bonus of {r.title()} (reinforcements and points)",
            lo=0, hi=20) for r, b in REGION_DEFAULTS.items()],
    Param("set_infantry", 4, "int", "LR-4.3", "battalions for 3 infantry", lo=0, hi=30),
    Param("set_cavalry", 6, "int", "LR-4.3", "battalions for 3 cavalry", lo=0, hi=30),
    Param("set_creature", 8, "int", "LR-4.3", "battalions for 3 creatures", lo=0, hi=30),
    Param("set_mixed", 10, "int", "LR-4.3", "battalions for one of each", lo=0, hi=30),
    Param("card_territory_bonus", 2, "int", "LR-4.3", "extra battalions on a traded card's territory if held",
          lo=0, hi=10),
    Param("forced_trade_hand", 5, "int", "LR-4.3", "territory cards in hand that force a trade", lo=3, hi=7),
    Param("leader_bonus", 1, "int", "LR-5.4", "a Leader's +1 on its side's highest die", lo=0, hi=3),
    Param("stronghold_bonus", 1, "int", "LR-5.4", "a stronghold's +1 on the defender's highest die", lo=0, hi=3),
    Param("adventure_hand_limit", 3, "int", "LR-8.2", "adventure cards a player may hold", lo=1, hi=10),
    Param("mission_reward_to", "site", "choice", "LR-9.1",
          "[R] where a mission's battalions go: the site's territory, or the player's most exposed "
          "territory in the site's region", choices=("site", "region")),
    Param("mission_points", 1, "int", "LR-9.4", "[R] points of a completed mission card", lo=0, hi=10),
    Param("power_points", 1, "int", "LR-9.4", "[R] points of a played power card", lo=0, hi=10),
    Param("deck_missions", 16, "int", "LR-9.1 / LR-9.4",
          "[R] mission cards (one per site of power, in board order; 0..number of sites)", lo=0, hi=16),
    *[Param(f"deck_{slug}", cnt, "int", "LR-9.2 / LR-9.4" if kind == "event" else "LR-9.3 / LR-9.4",
            f"[R] copies of '{name}' in the adventure deck", lo=0, hi=8) for _, slug, name, kind, cnt in CARD_KINDS],
    Param("first_player", "die", "choice", "LR-2.2 / LR-2.3",
          "who claims and plays first: the rules (2 players a die roll, LR-2.2; 3-4 players seat p1, "
          "LR-2.3: the die only picks who sits there), or always the first Good / Evil seat (a "
          "designer's lever; the die is still rolled, so paired games keep their other draws)",
          choices=FIRST_PLAYER),
    Param("leader_extra_move", False, "bool", "LR-6.2",
          "[R] a Leader moves on its own besides the turn's one fortify move (default: it moves as "
          "part of that one move, with or without battalions)"),
    Param("balrog_roll_above", 3, "int", "LR-10.4",
          "[R] 'A Balrog is Come' holds the Ring in Moria when one die shows more than this", lo=0, hi=6),
    Param("fellowship_roll_above", 3, "int", "LR-10.2", "on a marked territory the die must show more than this",
          lo=0, hi=5),  # above 6 a d6 never succeeds: the Ring would never leave (one range for run and fellowship)
    Param("points_stronghold", 2, "int", "LR-11.2", "points per stronghold held", lo=0, hi=10),
    Param("points_territory", 1, "int", "LR-11.2", "points per territory held", lo=0, hi=10),
    # the engine's menus of amounts (narrowings of a free choice, see play.py's docstring)
    Param("reinforce_sizes", REINFORCE_SIZES[0], "choice", "LR-4.4",
          "battalions one reinforcement decision may place on a territory: 1, half or all of those "
          "left (default), also 2 and 3, or any number (the rules: any split)", choices=REINFORCE_SIZES),
    Param("movein_sizes", MOVEIN_SIZES[0], "choice", "LR-5.6",
          "battalions that may move into a conquered territory: the dice of the last roll, half or all "
          "but one (default), or any number in between (the rules)", choices=MOVEIN_SIZES),
    Param("fortify_sizes", FORTIFY_SIZES[0], "choice", "LR-6.1",
          "battalions one fortify move may take: all but one or half (default), or also 1, 2, 3 "
          "(the rules: any number; 'any' would overflow the legal-action table)", choices=FORTIFY_SIZES),
]

# ---- compiled config layout -------------------------------------------------------------
CF = Layout("lotr-risk-config")
C_NT = CF.scalar("nt")
C_NR = CF.scalar("nr")
C_NP = CF.scalar("np")
C_NTC = CF.scalar("ntc")             # territory cards incl. the 2 jokers (LR-1.2)
C_NADV = CF.scalar("nadv")
C_NPATH = CF.scalar("npath")
C_NSITES = CF.scalar("nsites")
C_MORIA = CF.scalar("moria")         # Cave Troll, A Balrog is Come (LR-9)
C_FANGORN = CF.scalar("fangorn")     # The Entmoot (LR-9)
P_START = CF.scalar("start")         # starting battalions for this player count
P_NEUTRAL = CF.scalar("neutral")
P_TPB = CF.scalar("tpb")
P_MINR = CF.scalar("minr")
P_SET = CF.array("set", 4)           # infantry, cavalry, creature, mixed
P_CARDB = CF.scalar("cardb")
P_FORCED = CF.scalar("forced")
P_LEADB = CF.scalar("leadb")
P_STRB = CF.scalar("strb")
P_AHAND = CF.scalar("ahand")
P_REWREG = CF.scalar("rewreg")
P_MPTS = CF.scalar("mpts")
P_PPTS = CF.scalar("ppts")
P_ROLL = CF.scalar("roll")
P_PSTR = CF.scalar("pstr")
P_PTER = CF.scalar("pter")
P_RMENU = CF.scalar("rmenu")         # reinforce_sizes code (REINFORCE_SIZES index)
P_MMENU = CF.scalar("mmenu")         # movein_sizes code
P_FMENU = CF.scalar("fmenu")         # fortify_sizes code
P_FIRSTP = CF.scalar("firstp")       # first_player code (FIRST_PLAYER index)
P_LXMOVE = CF.scalar("lxmove")       # leader_extra_move (LR-6.2)
P_BALROG = CF.scalar("balrog")       # balrog_roll_above (LR-10.4)
O_REG = CF.array("reg", MAXT)            # region of a territory
O_RBONUS = CF.array("rbonus", MAXR)
O_RSIZE = CF.array("rsize", MAXR)
O_STRONG = CF.array("strong", MAXT)      # 1 stronghold
O_SITE = CF.array("site", MAXT)          # 1 site of power
O_REWG = CF.array("rewg", MAXT)
O_REWE = CF.array("rewe", MAXT)
O_CSIDE = CF.array("cside", MAXT)        # card side of a territory: 0 good 1 evil 2 neutral
O_CSYM = CF.array("csym", MAXT + 2)      # card symbol 0..2, 3 joker; cards 0..nt-1 = territories
O_ADJN = CF.array("adjn", MAXT)          # borders (land, bridge, sea)
O_ADJ = CF.array("adj", MAXT * MAXDEG)
O_BLKN = CF.array("blkn", MAXT)          # blocked contacts across mountains (The Way ..., LR-9.3)
O_BLK = CF.array("blk", MAXT * MAXDEG)
O_PATH = CF.array("path", MAXPATH)
O_MARK = CF.array("mark", MAXPATH)
O_AKIND = CF.array("akind", MAXADV)      # adventure card kind (K_*)
O_AARG = CF.array("aarg", MAXADV)        # mission: the site's territory
O_SSIDE = CF.array("sside", MAXP)        # side of each seat: 0 good, 1 evil (LR-2.1/2.3)
O_DEALG = CF.array("dealg", MAXP)        # Good cards dealt to each seat (LR-2.2/2.3)
O_DEALE = CF.array("deale", MAXP)
O_DEALN = CF.array("dealn", MAXP)
O_CSR_P = CF.array("csrp", MAXT + 1)     # CSR of the borders (kernels.graph.reachable_nb)
O_CSR_I = CF.array("csri", MAXT * MAXDEG)
C_NBRG = CF.scalar("nbrg")               # bridges: borders of kind "bridge" (LR-5.1, LR-9.3)
O_BRG = CF.array("brg", 2 * MAXBRG)      # bridge k joins O_BRG[2k] and O_BRG[2k+1]
CF.freeze()
CF_SIZE = CF.size

# LR-2.1 / LR-2.3: seat sides and the deal (good, evil, neutral cards) per player count
SEATS = {
    2: (("good", 9, 0, 0), ("evil", 0, 9, 0)),
    3: (("evil", 0, 5, 4), ("good", 9, 0, 0), ("evil", 0, 4, 5)),
    4: (("good", 5, 0, 0), ("evil", 0, 5, 0), ("good", 4, 0, 0), ("evil", 0, 4, 0)),
}


def load(config: str | None = None,
         overrides: Sequence[str] | Mapping[str, Any] | None = None) -> GameConfig:
    """Default TOML merged with a user TOML, with overrides; validated."""
    return load_game_config(GAME, PARAMS, validate, TABLES, config, overrides,
                            whole=("regions", "territories", "board", "fellowship"))


def _err(msg: str) -> None:
    raise ConfigError(f"config: {msg}")


def validate(data: dict, params: dict) -> None:
    """Check the board and the parameters; one ConfigError line on the first problem."""
    regions = data.get("regions")
    terrs = data.get("territories")
    if not isinstance(regions, dict) or not regions:
        _err("[regions] must be a table of regions")
    if not isinstance(terrs, dict) or not terrs:
        _err("[territories] must be a table of territories")
    if len(terrs) > MAXT:
        _err(f"at most {MAXT} territories, got {len(terrs)}")
    if len(regions) > MAXR:
        _err(f"at most {MAXR} regions, got {len(regions)}")
    for r in regions:
        if _slug(r) not in REGION_DEFAULTS:
            _err(f"unknown region '{r}' (its bonus parameter bonus_{_slug(r)} does not exist)")
    seen = set()
    for r, v in regions.items():
        for t in v["territories"]:
            if t not in terrs:
                _err(f"region {r}: unknown territory '{t}'")
            if t in seen:
                _err(f"territory '{t}' is in two regions")
            seen.add(t)
    for name, t in terrs.items():
        if t["region"] not in regions or name not in regions[t["region"]]["territories"]:
            _err(f"territory '{name}': region '{t['region']}' does not list it")
        if t["card_side"] not in SIDES:
            _err(f"territory '{name}': card_side must be one of {', '.join(SIDES)}")
        if t["card_symbol"] not in SYMBOLS:
            _err(f"territory '{name}': card_symbol must be one of {', '.join(SYMBOLS)}")
        if t.get("site") and len(t.get("mission_reward", [])) != 2:
            _err(f"territory '{name}': a site of power needs mission_reward = [good, evil]")
    board = data.get("board", {})
    deg = {n: 0 for n in terrs}
    for e in board.get("edges", []):
        a, b, k = e
        if a not in terrs or b not in terrs:
            _err(f"edge {a} - {b}: unknown territory")
        if k not in EDGE_KINDS:
            _err(f"edge {a} - {b}: kind must be one of {', '.join(EDGE_KINDS)}")
        deg[a] += 1
        deg[b] += 1
    if max(deg.values()) > MAXDEG:
        _err(f"a territory has more than {MAXDEG} borders")
    for e in board.get("blocked", []):
        if e[0] not in terrs or e[1] not in terrs:
            _err(f"blocked contact {e[0]} - {e[1]}: unknown territory")
        if len(e) > 2 and e[2] not in ("mountain", "river"):
            _err(f"blocked contact {e[0]} - {e[1]}: kind must be mountain or river")
    path = data.get("fellowship", {}).get("path", [])
    if not path or len(path) > MAXPATH:
        _err(f"[fellowship] path needs 1..{MAXPATH} territories")
    for t in path + list(data["fellowship"].get("marked", [])):
        if t not in terrs:
            _err(f"[fellowship]: unknown territory '{t}'")
    sites = [n for n, t in terrs.items() if t.get("site")]
    if params["deck_missions"] > len(sites):
        _err(f"deck_missions = {params['deck_missions']} but the board has {len(sites)} sites of power")
    seats = SEATS[params["players"]]
    cs = [t["card_side"] for t in terrs.values()]
    for side, need in (("good", sum(s[1] for s in seats)), ("evil", sum(s[2] for s in seats)),
                       ("neutral", sum(s[3] for s in seats))):
        if cs.count(side) < need:
            _err(f"{params['players']} players deal {need} {side} territory cards; the board has {cs.count(side)}")
    n_adv = params["deck_missions"] + sum(params[f"deck_{s}"] for _, s, _, _, _ in CARD_KINDS)
    if n_adv > MAXADV:
        _err(f"at most {MAXADV} adventure cards, got {n_adv}")
    n_nonevent = params["deck_missions"] + sum(params[f"deck_{s}"] for _, s, _, k, _ in CARD_KINDS if k == "power")
    if n_nonevent < 3 * params["players"] and n_adv > 0:
        pass   # LR-2.6 deals what there is


class Compiled:
    """Arrays for the kernels plus the names the trace decoder needs (picklable)."""

    def __init__(self, cf: np.ndarray, wp: np.ndarray, names: dict, meta: dict | None = None):
        self.cf = cf
        self.wp = wp
        self.names = names
        self.meta = meta or {}


_WT_CACHE: dict = {}


def win_tables(maxw: int = MAXW) -> np.ndarray:
    """``wp[ab, db, a, d]``: exact P(an attack of ``a`` battalions in the territory (one stays,
    LR-5.1) against ``d`` takes it), attacker bonus ab in 0..1, defender bonus db in 0..2
    (LR-5.4), fought to the end with most dice (lotr_sim.exact.battle, rule set lotr-risk).
    Computed in Python once per process; the greedy policy reads it."""
    if maxw in _WT_CACHE:
        return _WT_CACHE[maxw]
    from lotr_sim.exact.battle import win_table
    wt = np.zeros((4, 4, maxw + 1, maxw + 1))
    for ab in range(4):
        for db in range(4):
            wt[ab, db] = win_table("lotr-risk", maxw, maxw, ab, db)
    _WT_CACHE[maxw] = wt
    return wt


def compile_config(cfg: GameConfig) -> Compiled:
    """The flat arrays of a loaded config."""
    data, p = cfg.data, cfg.params
    regions = list(data["regions"])
    terrs = list(data["territories"])
    ix = {n: i for i, n in enumerate(terrs)}
    nt = len(terrs)
    cf = np.zeros(CF_SIZE, dtype=np.int64)
    cf[C_NT] = nt
    cf[C_NR] = len(regions)
    cf[C_NP] = p["players"]
    cf[C_NTC] = nt + 2
    cf[P_START] = p[f"battalions_{p['players']}p"]
    cf[P_NEUTRAL] = p["neutral_battalions"]
    cf[P_TPB] = p["territories_per_battalion"]
    cf[P_MINR] = p["min_reinforcement"]
    cf[P_SET:P_SET + 4] = [p["set_infantry"], p["set_cavalry"], p["set_creature"], p["set_mixed"]]
    cf[P_CARDB] = p["card_territory_bonus"]
    cf[P_FORCED] = p["forced_trade_hand"]
    cf[P_LEADB] = p["leader_bonus"]
    cf[P_STRB] = p["stronghold_bonus"]
    cf[P_AHAND] = p["adventure_hand_limit"]
    cf[P_REWREG] = 1 if p["mission_reward_to"] == "region" else 0
    cf[P_MPTS] = p["mission_points"]
    cf[P_PPTS] = p["power_points"]
    cf[P_ROLL] = p["fellowship_roll_above"]
    cf[P_PSTR] = p["points_stronghold"]
    cf[P_PTER] = p["points_territory"]
    cf[P_RMENU] = REINFORCE_SIZES.index(p["reinforce_sizes"])
    cf[P_MMENU] = MOVEIN_SIZES.index(p["movein_sizes"])
    cf[P_FMENU] = FORTIFY_SIZES.index(p["fortify_sizes"])
    cf[P_FIRSTP] = FIRST_PLAYER.index(p["first_player"])
    cf[P_LXMOVE] = 1 if p["leader_extra_move"] else 0
    cf[P_BALROG] = p["balrog_roll_above"]
    for r, name in enumerate(regions):
        cf[O_RBONUS + r] = p[f"bonus_{_slug(name)}"]
        for t in data["regions"][name]["territories"]:
            cf[O_REG + ix[t]] = r
            cf[O_RSIZE + r] += 1
    sites = []
    for i, name in enumerate(terrs):
        t = data["territories"][name]
        cf[O_STRONG + i] = 1 if t.get("stronghold") else 0
        cf[O_SITE + i] = 1 if t.get("site") else 0
        if t.get("site"):
            sites.append(i)
            cf[O_REWG + i], cf[O_REWE + i] = t["mission_reward"]
        cf[O_CSIDE + i] = SIDES.index(t["card_side"])
        cf[O_CSYM + i] = SYMBOLS.index(t["card_symbol"])
    cf[O_CSYM + nt] = 3
    cf[O_CSYM + nt + 1] = 3
    cf[C_NSITES] = len(sites)
    cf[C_MORIA] = ix.get("Moria", -1)
    cf[C_FANGORN] = ix.get("Fangorn", -1)
    adj: list[list[int]] = [[] for _ in range(nt)]
    bridges: list[tuple[int, int]] = []
    for a, b, k in data["board"]["edges"]:
        if ix[b] not in adj[ix[a]]:
            adj[ix[a]].append(ix[b])
            adj[ix[b]].append(ix[a])
            if k == "bridge":
                bridges.append((ix[a], ix[b]))
    if len(bridges) > MAXBRG:
        _err(f"at most {MAXBRG} bridges, got {len(bridges)}")
    cf[C_NBRG] = len(bridges)
    for k, (a, b) in enumerate(bridges):
        cf[O_BRG + 2 * k], cf[O_BRG + 2 * k + 1] = a, b
    blk: list[list[int]] = [[] for _ in range(nt)]
    for e in data["board"].get("blocked", []):
        a, b = ix[e[0]], ix[e[1]]
        # The Way is Under the Mountains crosses mountains only, never a river (card data)
        if (len(e) > 2 and e[2] != "mountain") or b in blk[a] or b in adj[a]:
            continue
        blk[a].append(b)
        blk[b].append(a)
    if max(len(x) for x in blk) > MAXDEG:
        _err(f"a territory has more than {MAXDEG} blocked contacts")
    pos = 0
    for i in range(nt):
        cf[O_ADJN + i] = len(adj[i])
        cf[O_BLKN + i] = len(blk[i])
        for k, j in enumerate(sorted(adj[i])):
            cf[O_ADJ + i * MAXDEG + k] = j
        for k, j in enumerate(sorted(blk[i])):
            cf[O_BLK + i * MAXDEG + k] = j
        cf[O_CSR_P + i] = pos
        for j in sorted(adj[i]):
            cf[O_CSR_I + pos] = j
            pos += 1
    cf[O_CSR_P + nt] = pos
    path = data["fellowship"]["path"]
    marked = set(data["fellowship"].get("marked", []))
    cf[C_NPATH] = len(path)
    for k, t in enumerate(path):
        cf[O_PATH + k] = ix[t]
        cf[O_MARK + k] = 1 if t in marked else 0
    # the adventure deck (LR-9): missions for the first deck_missions sites, then the kinds
    deck = [(K_MISSION, s) for s in sites[: p["deck_missions"]]]
    for code, slug, _n, _k, _c in CARD_KINDS:
        deck += [(code, -1)] * p[f"deck_{slug}"]
    cf[C_NADV] = len(deck)
    for k, (code, arg) in enumerate(deck):
        cf[O_AKIND + k] = code
        cf[O_AARG + k] = arg
    seats = SEATS[p["players"]]
    for s, (side, g, e, n) in enumerate(seats):
        cf[O_SSIDE + s] = 0 if side == "good" else 1
        cf[O_DEALG + s], cf[O_DEALE + s], cf[O_DEALN + s] = g, e, n
    names = dict(territories=terrs, regions=regions, path=[terrs[cf[O_PATH + k]] for k in range(len(path))],
                 seat_sides=[s[0] for s in seats], bridges=[f"{terrs[a]} - {terrs[b]}" for a, b in bridges],
                 adventure=[KIND_NAMES[c] + (f" ({terrs[a]})" if c == K_MISSION else "") for c, a in deck])
    defaults = {q.name: q.default for q in PARAMS}
    meta = {"config_hash": cfg.hash, "config": cfg.source,
            "params": {k: v for k, v in p.items() if defaults.get(k) != v}}
    return Compiled(cf, win_tables(), names, meta)


def compile_checked(cfg: GameConfig) -> Compiled:
    """``compile_config`` with malformed data turned into one ConfigError line."""
    return _checked(GAME, compile_config, cfg)
