"""Minas Tirith config: the parameter table, loading/validating a TOML config, and
compiling it into the flat int64/float64 arrays the numba engine reads.

Layout of the compiled ``cf`` int64 array: the ``Layout`` ``CF`` (lotr_sim.kernels.layout,
as LOTR Risk's config and every game's state) counts its slots - scalars ``C_*``, rule
parameters ``P_*``, tables ``O_*`` - and ``CF.describe()`` lists them. Fixed maxima (``MAXT``
territories, ``MAXU`` unit types, ``MAXL`` leaders, ``MAXC`` Minas Tirith card instances,
``MAXD`` reinforcement cards) make every offset a plain int, a compile-time constant in the
kernels.
"""
from __future__ import annotations

from collections import deque
from typing import Any, Mapping, Sequence

import numpy as np

from lotr_sim.config import GameConfig, Param, game_config_path, load_game_config
from lotr_sim.config import checked as _checked
from lotr_sim.errors import ConfigError
from lotr_sim.kernels.layout import Layout

GAME = "minas-tirith"

PARAMS: list[Param] = [
    Param("creature_hits", 1, "int", "MT-1.5", "losses a troll or mumak absorbs before it dies", lo=1, hi=3),
    Param("deck_infantry", 21, "int", "MT-3.1", "reinforcement cards showing infantry", lo=0, hi=60),
    Param("deck_cavalry", 21, "int", "MT-3.1", "reinforcement cards showing cavalry", lo=0, hi=60),
    Param("deck_creature", 22, "int", "MT-3.1", "reinforcement cards showing a creature", lo=0, hi=60),
    Param("deck_jokers", 2, "int", "MT-3.1", "jokers (all three types)", lo=0, hi=10),
    Param("deck_good_shields", 14, "int", "MT-3.1", "cards with Good's silver shield", lo=0, hi=60),
    Param("deck_evil_shields", 14, "int", "MT-3.1", "cards with Evil's black shield", lo=0, hi=60),
    Param("mission_card_base", 6, "int", "MT-4.5", "cards drawn = max(0, base - die)", lo=3, hi=9),
    Param("good_creature_as_infantry", True, "bool", "MT-5.4",
          "Good's creature card gives an infantry (bonus trade and holder loading)"),
    Param("holder_capacity", 6, "int", "MT-5.5 / MT-9.5", "units a holder card can carry", lo=1, hi=12),
    Param("hand_limit", 6, "int", "MT-5.6", "most reinforcement cards kept after trading", lo=3, hi=12),
    Param("hand_limit_discard", True, "bool", "MT-5.6", "discard down to the limit when no set exists"),
    Param("leave_one_behind", False, "bool", "MT-7.3", "an assault must leave one unit at home"),
    Param("bombard_loss_choice", "owner", "choice", "MT-7.2", "who picks the units a bombardment kills",
          choices=("owner", "shooter")),
    Param("evil_banner_divisor", 2, "int", "MT-7.2", "Evil shooters per die against a banner territory",
          lo=1, hi=3),
    Param("retreat_trigger", "natural6", "choice", "MT-7.5 / MT-8.2", "what triggers a retreat",
          choices=("natural6", "modified6", "off")),
    Param("blocked_retreat_loss", "per_step", "choice", "MT-7.5",
          "a blocked retreat loses 1 unit per step not taken, or per six rolled",
          choices=("per_step", "per_six")),
    Param("retreat_after_wipeout", False, "bool", "MT-7.5",
          "a six still makes the other side retreat when its own side was wiped out in the "
          "same roll (literal reading; false: a side facing no survivors stays)"),
    Param("leader_bonus", 1, "int", "MT-8.2", "leader bonus on the highest die (attack and defence)", lo=0, hi=3),
    Param("banner_defence_bonus", 1, "int", "MT-8.2", "Gondor banner defence bonus (Good)", lo=0, hi=3),
    Param("siege_tower_bonus", 1, "int", "MT-8.2 / MT-9.1", "Siege Tower attack bonus on a wall", lo=0, hi=3),
    Param("leader_removed_to", "pool", "choice", "MT-8.3", "where a leader removed at turn end goes",
          choices=("pool", "captured")),
    Param("leader_captured_with_last_unit", True, "bool", "MT-8.4",
          "a leader is captured when its territory loses its last unit in combat"),
    Param("leaders_to_win", 2, "int", "MT-10.1", "Evil leaders Good must capture to win", lo=1, hi=3),
    Param("points_infantry", 1, "int", "MT-10.3", "points per captured infantry/archer", lo=0, hi=10),
    Param("points_cavalry", 2, "int", "MT-10.3", "points per captured cavalry", lo=0, hi=10),
    Param("points_creature", 3, "int", "MT-10.3", "points per captured troll/mumak", lo=0, hi=10),
    Param("points_leader", 5, "int", "MT-10.3", "points per captured leader", lo=0, hi=20),
    Param("points_wall", 2, "int", "MT-10.3", "Evil points per wall section it occupies", lo=0, hi=10),
    Param("points_gate", 3, "int", "MT-10.3", "Evil points for breaking the gate", lo=0, hi=10),
    Param("end_on_last_card", "immediate", "choice", "MT-10.3",
          "end when the last reinforcement card is drawn, or at the end of that turn",
          choices=("immediate", "end_of_turn")),
]
PARAM_NAMES = [p.name for p in PARAMS]

# ---- fixed maxima and the cf layout ----------------------------------------------------
MAXT = 48
MAXU = 12
MAXL = 12
MAXC = 32
MAXD = 200
MAXDEG = 12

EDGE_KINDS = ("land", "wall", "climb", "gate")
TERR_KINDS = ("field", "rammas", "wall", "city")
CLASSES = ("infantry", "cavalry", "creature")
CARD_KINDS = ("holder", "leader", "muster", "siege", "grond", "catapult")
SIDES = ("good", "evil")

# The compiled config ``cf``: its slots are counted by a Layout (lotr_sim.kernels.layout), as
# the state's are (layout.py); the offsets keep the values they had when numbered by hand
# (tests/games/minas_tirith/test_mt_layout.py pins them).
CF = Layout("mt-config")
# scalar slots
C_T = CF.scalar("t")
C_NU = CF.scalar("nu")
C_NL = CF.scalar("nl")
C_NC = CF.scalar("nc")
C_ND = CF.scalar("nd")
C_CITY = CF.scalar("city")
C_GROND = CF.scalar("grond")
CF.pad_to(10)                           # spare scalar slots
# parameter slots
P_CREATURE_HITS = CF.scalar("creature_hits")
P_MISSION_BASE = CF.scalar("mission_base")
P_GOOD_CRE_INF = CF.scalar("good_cre_inf")
P_HOLDER_CAP = CF.scalar("holder_cap")
P_HAND_LIMIT = CF.scalar("hand_limit")
P_HAND_DISCARD = CF.scalar("hand_discard")
P_LEAVE_ONE = CF.scalar("leave_one")
P_BOMB_LOSS = CF.scalar("bomb_loss")
P_EVIL_DIV = CF.scalar("evil_div")
P_RETREAT = CF.scalar("retreat")
P_BLOCKED = CF.scalar("blocked")
P_LEADER_BONUS = CF.scalar("leader_bonus")
P_BANNER_BONUS = CF.scalar("banner_bonus")
P_SIEGE_BONUS = CF.scalar("siege_bonus")
P_LEADER_TO = CF.scalar("leader_to")
P_LEADER_LAST = CF.scalar("leader_last")
P_LEADERS_WIN = CF.scalar("leaders_win")
P_PTS_LEADER = CF.scalar("pts_leader")
P_PTS_WALL = CF.scalar("pts_wall")
P_PTS_GATE = CF.scalar("pts_gate")
P_END_LAST = CF.scalar("end_last")
P_PTS_INF = CF.scalar("pts_inf")
P_PTS_CAV = CF.scalar("pts_cav")
P_PTS_CRE = CF.scalar("pts_cre")
P_RETREAT_WIPED = CF.scalar("retreat_wiped")
CF.pad_to(64)                           # spare parameter slots
O_EK = CF.array("ek", MAXT * MAXT)      # edge kind, -1 none
O_DIST = CF.array("dist", MAXT * MAXT)  # graph distance (bombard range)
O_NB = CF.array("nb", MAXT * MAXDEG)    # neighbours
O_NBN = CF.array("nbn", MAXT)
O_TKIND = CF.array("tkind", MAXT)
O_BANNER = CF.array("banner", MAXT)
O_TEDGE = CF.array("tedge", MAXT)       # 0 none, 1 good, 2 evil
O_DGOOD = CF.array("dgood", MAXT)
O_DEVIL = CF.array("devil", MAXT)
O_DCITY = CF.array("dcity", MAXT)
O_NEAR = CF.array("near", MAXT * MAXT)  # territories at distance 1..3, nearest first
O_NEARN = CF.array("nearn", MAXT)
O_USIDE = CF.array("uside", MAXU)
O_UCLS = CF.array("ucls", MAXU)
O_UARCH = CF.array("uarch", MAXU)
O_UPTS = CF.array("upts", MAXU)
O_UTOT = CF.array("utot", MAXU)
O_LORD = CF.array("lord", 2 * MAXU)     # per side: its types, cheapest loss first
O_NTS = CF.array("nts", 2)
O_LSIDE = CF.array("lside", MAXL)
O_LCOL = CF.array("lcol", MAXL)
O_LSTART = CF.array("lstart", MAXL)     # territory, or -3 (arrives by card)
O_LREV = CF.array("lrev", MAXL)
O_SETUP = CF.array("setup", MAXT * MAXU)
O_CKIND = CF.array("ckind", MAXC)
O_CSIDES = CF.array("csides", MAXC)     # bit 1 good, bit 2 evil
O_CACC = CF.array("cacc", MAXC)         # bitmask of unit types a holder accepts
O_CLEAD = CF.array("clead", MAXC)
O_CENTRY = CF.array("centry", MAXC * MAXT)
O_CTOWER = CF.array("ctower", MAXC)
O_CRANGE = CF.array("crange", MAXC)
O_CMUSTER = CF.array("cmuster", MAXC * MAXU)
O_CNAME = CF.array("cname", MAXC)       # index of the card's name (config order)
O_DTYPE = CF.array("dtype", MAXD)       # 0 inf, 1 cav, 2 creature, 3 joker
O_DSHIELD = CF.array("dshield", MAXD)   # 0 none, 1 good, 2 evil
CF.freeze()
CF_SIZE = CF.size

# win-probability tables: [side_attacking(2), wk(2), att_bonus(0..4), def_bonus(0..3), a(0..WMAX), d(0..WMAX)]
WMAX = 30
N_AB = 5
N_DB = 4


def default_path():
    return game_config_path(GAME)


# the top-level tables a Minas Tirith config may hold (configs/games/minas-tirith.toml)
TABLES = ("game", "board", "territories", "unit_types", "pools", "leaders", "setup", "mt_cards", "params")


def load(config: str | None = None,
         overrides: Sequence[str] | Mapping[str, Any] | None = None) -> GameConfig:
    """Default TOML, merged with a user TOML (tables merge key by key; a user's ``[setup]``
    replaces the whole set-up), with overrides; validated (``validate``)."""
    return load_game_config(GAME, PARAMS, validate, TABLES, config, overrides, whole=("setup",))


def checked(fn, *args):
    """``fn(*args)`` under the config safety net (``lotr_sim.config.checked``)."""
    return _checked(GAME, fn, *args)


def _count(v, where: str, lo: int = 0) -> int:
    """A whole number >= lo (TOML booleans are not numbers)."""
    if isinstance(v, bool) or not isinstance(v, int) or v < lo:
        raise ConfigError(f"config: {where} = {v!r}: must be a whole number >= {lo}")
    return v


def _table(v, where: str) -> dict:
    if not isinstance(v, dict):
        raise ConfigError(f"config: {where} must be a table, got {type(v).__name__}")
    return v


def _sides_only(table: dict, where: str) -> None:
    for k in table:
        if k not in SIDES:
            raise ConfigError(f"config: [{where}.{k}]: unknown side '{k}' (sides: {', '.join(SIDES)})")


def _list(v, where: str) -> list:
    if not isinstance(v, list):
        raise ConfigError(f"config: {where} must be a list, got {type(v).__name__}")
    return v


def _req(d: dict, key: str, where: str):
    if key not in d:
        raise ConfigError(f"config: {where} is missing '{key}'")
    return d[key]


def validate(data: dict, params: dict) -> None:
    """Raise ConfigError (one line) on anything inconsistent."""
    terrs = _req(data, "territories", "the config")
    if not isinstance(terrs, list) or not terrs:
        raise ConfigError("config: 'territories' must be a non-empty list")
    if len(terrs) > MAXT:
        raise ConfigError(f"config: at most {MAXT} territories, got {len(terrs)}")
    names = []
    for i, t in enumerate(terrs):
        _table(t, f"territory #{i + 1}")
        n = _req(t, "name", f"territory #{i + 1}")
        if not isinstance(n, str) or not n:
            raise ConfigError(f"config: territory #{i + 1} has a bad name {n!r}")
        if n in names:
            raise ConfigError(f"config: territory '{n}' is listed twice")
        names.append(n)
        if t.get("kind", "field") not in TERR_KINDS:
            raise ConfigError(f"config: territory '{n}' has unknown kind '{t.get('kind')}' "
                              f"(kinds: {', '.join(TERR_KINDS)})")
        if t.get("edge", "none") not in ("good", "evil", "none"):
            raise ConfigError(f"config: territory '{n}' has edge '{t.get('edge')}' (good|evil|none)")
    tset = set(names)

    def terr(name, where):
        if not isinstance(name, str) or name not in tset:
            from lotr_sim.config import closest
            raise ConfigError(f"config: {where}: unknown territory '{name}'{closest(str(name), names)}")
        return names.index(name)

    cities = [t["name"] for t in terrs if t.get("kind") == "city"]
    if len(cities) != 1:
        raise ConfigError(f"config: exactly one territory of kind 'city' is needed, found {len(cities)}")
    if not any(t.get("edge") == "evil" for t in terrs):
        raise ConfigError("config: no territory is on Evil's edge (edge = \"evil\")")
    if not any(t.get("edge") == "good" for t in terrs):
        raise ConfigError("config: no territory is on Good's edge (edge = \"good\")")
    board = _table(data.get("board", {}), "[board]")
    terr(_req(board, "grond_territory", "[board]"), "[board] grond_territory")
    edges = _list(_req(board, "edges", "[board]"), "[board] edges")
    seen = {}
    for e in edges:
        if not (isinstance(e, list) and len(e) == 3):
            raise ConfigError(f"config: an edge must be [a, b, kind], got {e!r}")
        a, b, k = e
        ia, ib = terr(a, "edge"), terr(b, "edge")
        if ia == ib:
            raise ConfigError(f"config: edge from '{a}' to itself")
        if k not in EDGE_KINDS:
            raise ConfigError(f"config: edge {a} - {b} has unknown kind '{k}' (kinds: {', '.join(EDGE_KINDS)})")
        key = (min(ia, ib), max(ia, ib))
        if key in seen and seen[key] != k:
            raise ConfigError(f"config: edge {a} - {b} is listed with two kinds ('{seen[key]}' and '{k}'); "
                              "adjacency must be symmetric")
        seen[key] = k
    deg = [0] * len(names)
    adj: list[list[int]] = [[] for _ in names]
    for (a, b) in seen:
        deg[a] += 1
        deg[b] += 1
        adj[a].append(b)
        adj[b].append(a)
    for i, dgi in enumerate(deg):
        if dgi > MAXDEG:
            raise ConfigError(f"config: territory '{names[i]}' has {dgi} neighbours (at most {MAXDEG})")
    # unit types
    uts = _list(_req(data, "unit_types", "the config"), "unit_types")
    unames = {"good": [], "evil": []}
    uclass = {}
    for u in uts:
        _table(u, "a unit type")
        s = _req(u, "side", "a unit type")
        if s not in SIDES:
            raise ConfigError(f"config: unit type '{u.get('name')}' has unknown side '{s}'")
        if u.get("class") not in CLASSES:
            raise ConfigError(f"config: unit type '{u.get('name')}' has unknown class '{u.get('class')}'")
        un = _req(u, "name", "a unit type")
        if un in unames[s]:
            raise ConfigError(f"config: unit type '{un}' of {s} is listed twice")
        unames[s].append(un)
        uclass[(s, un)] = u["class"]
    for s in SIDES:
        if not unames[s]:
            raise ConfigError(f"config: {s} has no unit type")
    if len(uts) > MAXU:
        raise ConfigError(f"config: at most {MAXU} unit types")
    pools = _table(_req(data, "pools", "the config"), "[pools]")
    _sides_only(pools, "pools")
    for s in SIDES:
        for k, v in _table(pools.get(s, {}), f"[pools.{s}]").items():
            if k not in unames[s]:
                from lotr_sim.config import closest
                raise ConfigError(f"config: pools.{s}: unknown unit type '{k}'{closest(str(k), unames[s])}")
            _count(v, f"pools.{s}.{k}")
    # leaders
    lnames = []
    for l in _list(_req(data, "leaders", "the config"), "leaders"):
        _table(l, "a leader")
        n = _req(l, "name", "a leader")
        if l.get("side") not in SIDES:
            raise ConfigError(f"config: leader '{n}' has unknown side '{l.get('side')}'")
        if l.get("starts", "board") not in ("board", "card"):
            raise ConfigError(f"config: leader '{n}': starts must be board or card")
        if n in lnames:
            raise ConfigError(f"config: leader '{n}' is listed twice")
        lnames.append(n)
    if len(lnames) > MAXL:
        raise ConfigError(f"config: at most {MAXL} leaders")
    nevil = sum(1 for l in data["leaders"] if l["side"] == "evil")
    if params["leaders_to_win"] > nevil:
        raise ConfigError(f"parameter 'leaders_to_win' = {params['leaders_to_win']} exceeds Evil's {nevil} leaders")
    # set-up within pools
    setup = _table(data.get("setup", {}), "[setup]")
    _sides_only(setup, "setup")
    placed_leaders = []
    held: dict[str, str] = {}
    for s in SIDES:
        tot = {k: 0 for k in unames[s]}
        for tname, units in _table(setup.get(s, {}), f"[setup.{s}]").items():
            ti = terr(tname, f"setup.{s}")
            _table(units, f"setup.{s}.'{tname}'")
            for k, v in units.items():
                if k == "leaders":
                    for ln in _list(v, f"setup.{s}.'{tname}'.leaders"):
                        if ln not in lnames:
                            raise ConfigError(f"config: setup.{s}.'{tname}': unknown leader '{ln}'")
                        placed_leaders.append(ln)
                    continue
                if k not in unames[s]:
                    raise ConfigError(f"config: setup.{s}.'{tname}': unknown unit type '{k}' for {s}")
                _count(v, f"setup.{s}.'{tname}'.{k}")
                if v and terrs[ti].get("kind") == "wall" and uclass[(s, k)] != "infantry":
                    raise ConfigError(f"config: setup.{s}.'{tname}' places {k} on a wall "
                                      "(MT-6.4 / MT-6.6: only infantry and archers stand on walls)")
                if v:
                    if held.get(tname, s) != s:
                        raise ConfigError(f"config: the set-up places both sides in '{tname}' (MT-6.3)")
                    held[tname] = s
                tot[k] += v
        for k, v in tot.items():
            if v > pools.get(s, {}).get(k, 0):
                raise ConfigError(f"config: set-up of {s} places {v} {k} but the pool holds "
                                  f"{pools.get(s, {}).get(k, 0)} (MT-1.3)")
        if sum(tot.values()) == 0:
            raise ConfigError(f"config: the set-up places no {s} unit on the board")
    if held.get(cities[0]) == "evil":
        raise ConfigError(f"config: the set-up places Evil in '{cities[0]}': Evil would win before the "
                          "first turn (MT-10.2)")
    check_connected(names, adj, names.index(cities[0]),
                    {s: [t for t in _table(setup.get(s, {}), "[setup]") if t in tset] for s in SIDES})
    for l in data["leaders"]:
        on = l["name"] in placed_leaders
        if l.get("starts", "board") == "board" and not on:
            raise ConfigError(f"config: leader '{l['name']}' starts on the board but no set-up territory names it")
        if l.get("starts", "board") == "card" and on:
            raise ConfigError(f"config: leader '{l['name']}' starts on a card but the set-up places it")
    # MT deck
    ncard = 0
    for c in _list(_req(data, "mt_cards", "the config"), "mt_cards"):
        _table(c, "a Minas Tirith card")
        n = _req(c, "name", "a Minas Tirith card")
        if c.get("kind") not in CARD_KINDS:
            raise ConfigError(f"config: card '{n}' has unknown kind '{c.get('kind')}' (kinds: {', '.join(CARD_KINDS)})")
        for s in c.get("sides", []):
            if s not in SIDES:
                raise ConfigError(f"config: card '{n}' has unknown side '{s}'")
        if not c.get("sides"):
            raise ConfigError(f"config: card '{n}' names no side")
        cnt = c.get("count", 1)
        if isinstance(cnt, bool) or not isinstance(cnt, int) or cnt < 0:
            raise ConfigError(f"config: card '{n}' has a bad count {cnt!r}")
        if c["kind"] == "catapult":
            _count(c.get("range", 3), f"card '{n}' range", lo=1)
        ncard += cnt
        if c.get("leader") is not None and c["leader"] not in lnames:
            raise ConfigError(f"config: card '{n}' names unknown leader '{c['leader']}'")
        if c["kind"] == "holder":
            if not c.get("accepts"):
                raise ConfigError(f"config: holder card '{n}' accepts no unit type")
            sides = c["sides"]
            for a in c["accepts"]:
                if not any(a in unames[s] for s in sides):
                    raise ConfigError(f"config: card '{n}' accepts unknown unit type '{a}'")
            ent = c.get("enter")
            if ent is None:
                raise ConfigError(f"config: holder card '{n}' has no 'enter'")
            mounted = [a for a in c["accepts"]
                       if any(uclass.get((s, a), "infantry") != "infantry" for s in sides)]
            if ent != "evil_edge" and ent != "good_edge":
                for t in _list(ent, f"card '{n}' enter"):
                    ti = terr(t, f"card '{n}' enter")
                    if terrs[ti].get("kind") == "wall" and mounted:
                        raise ConfigError(f"config: card '{n}' enters at wall '{t}' but carries {mounted[0]} "
                                          "(MT-6.4 / MT-6.6: only infantry stand on walls)")
        if c["kind"] == "leader" and c.get("leader") is None:
            raise ConfigError(f"config: leader card '{n}' names no leader")
        if c["kind"] == "muster":
            for k, v in _table(c.get("units", {}), f"card '{n}' units").items():
                if not any(k in unames[s] for s in c["sides"]):
                    raise ConfigError(f"config: card '{n}' musters unknown unit type '{k}'")
                _count(v, f"card '{n}' units.{k}")
    if ncard > MAXC:
        raise ConfigError(f"config: at most {MAXC} Minas Tirith cards, got {ncard}")
    # reinforcement deck (MT-3.1)
    units = params["deck_infantry"] + params["deck_cavalry"] + params["deck_creature"]
    if params["deck_good_shields"] + params["deck_evil_shields"] > units:
        raise ConfigError(f"deck: {params['deck_good_shields']} Good + {params['deck_evil_shields']} Evil "
                          f"shields exceed the {units} unit cards (MT-3.1)")
    if units + params["deck_jokers"] == 0:
        raise ConfigError("deck: the reinforcement deck is empty (MT-3.1)")
    if units + params["deck_jokers"] > MAXD:
        raise ConfigError(f"deck: at most {MAXD} reinforcement cards")


def check_connected(names: list[str], adj: list[list[int]], city: int, setups: dict) -> None:
    """Every territory must be reachable from the city over the board's edges: a territory
    cut off (or a set-up that cannot reach the city) makes a game that is not the one meant."""
    seen = {city}
    todo = [city]
    while todo:
        x = todo.pop()
        for y in adj[x]:
            if y not in seen:
                seen.add(y)
                todo.append(y)
    if len(seen) == len(names):
        return
    for s in SIDES:
        for t in setups.get(s, []):
            if names.index(t) not in seen:
                raise ConfigError(f"config: the board is cut: {s}'s set-up territory '{t}' has no path to "
                                  f"'{names[city]}' over the board's edges")
    lost = [n for i, n in enumerate(names) if i not in seen]
    raise ConfigError(f"config: territory '{lost[0]}' is not connected to '{names[city]}' (no path over the "
                      f"board's edges){f'; {len(lost) - 1} more cut off' if len(lost) > 1 else ''}")


# --------------------------------------------------------------------------------------
class Compiled:
    """Arrays for the kernels plus the names the trace decoder needs (picklable)."""

    def __init__(self, cf, wp, names, meta=None):
        self.cf = cf
        self.wp = wp
        self.names = names
        # what a trace header names: config hash and source, parameters that differ
        # from the defaults
        self.meta = meta or {}

    def __getstate__(self):
        return self.__dict__

    def __setstate__(self, d):
        self.__dict__.update(d)


def _bfs(n, adj, sources):
    dist = [10**6] * n
    q = deque()
    for s in sources:
        dist[s] = 0
        q.append(s)
    while q:
        x = q.popleft()
        for y in adj[x]:
            if dist[y] > dist[x] + 1:
                dist[y] = dist[x] + 1
                q.append(y)
    return dist


_WP_CACHE: dict = {}


def win_tables() -> np.ndarray:
    """P(attacker takes the territory), from the exact battle law (lotr_sim.exact.battle)."""
    if "wp" in _WP_CACHE:
        return _WP_CACHE["wp"]
    from lotr_sim.exact.battle import win_table
    wp = np.zeros((2, 2, N_AB, N_DB, WMAX + 1, WMAX + 1))
    for ga in range(2):
        for wk in range(2):
            for ab in range(N_AB):
                for db in range(N_DB):
                    wp[ga, wk, ab, db] = win_table("minas-tirith", WMAX, WMAX, ab, db,
                                                   good_attacks=(ga == 0), witch_king=bool(wk))
    _WP_CACHE["wp"] = wp
    return wp


def compile_config(cfg: GameConfig) -> Compiled:
    d, p = cfg.data, cfg.params
    cf = np.zeros(CF_SIZE, dtype=np.int64)
    terrs = d["territories"]
    tn = [t["name"] for t in terrs]
    T = len(tn)
    ti = {n: i for i, n in enumerate(tn)}
    uts = d["unit_types"]
    un = [u["name"] for u in uts]
    NU = len(un)
    uside = [SIDES.index(u["side"]) for u in uts]
    uidx = {(u["side"], u["name"]): i for i, u in enumerate(uts)}
    leaders = d["leaders"]
    ln = [l["name"] for l in leaders]
    NL = len(ln)
    cf[C_T], cf[C_NU], cf[C_NL] = T, NU, NL
    city = next(i for i, t in enumerate(terrs) if t.get("kind") == "city")
    cf[C_CITY] = city
    cf[C_GROND] = ti[d["board"]["grond_territory"]]
    cf[P_CREATURE_HITS] = p["creature_hits"]
    cf[P_MISSION_BASE] = p["mission_card_base"]
    cf[P_GOOD_CRE_INF] = int(p["good_creature_as_infantry"])
    cf[P_HOLDER_CAP] = p["holder_capacity"]
    cf[P_HAND_LIMIT] = p["hand_limit"]
    cf[P_HAND_DISCARD] = int(p["hand_limit_discard"])
    cf[P_LEAVE_ONE] = int(p["leave_one_behind"])
    cf[P_BOMB_LOSS] = ("owner", "shooter").index(p["bombard_loss_choice"])
    cf[P_EVIL_DIV] = p["evil_banner_divisor"]
    cf[P_RETREAT] = ("natural6", "modified6", "off").index(p["retreat_trigger"])
    cf[P_BLOCKED] = ("per_step", "per_six").index(p["blocked_retreat_loss"])
    cf[P_RETREAT_WIPED] = 1 if p["retreat_after_wipeout"] else 0
    cf[P_LEADER_BONUS] = p["leader_bonus"]
    cf[P_BANNER_BONUS] = p["banner_defence_bonus"]
    cf[P_SIEGE_BONUS] = p["siege_tower_bonus"]
    cf[P_LEADER_TO] = ("pool", "captured").index(p["leader_removed_to"])
    cf[P_LEADER_LAST] = int(p["leader_captured_with_last_unit"])
    cf[P_LEADERS_WIN] = p["leaders_to_win"]
    cf[P_PTS_LEADER] = p["points_leader"]
    cf[P_PTS_WALL] = p["points_wall"]
    cf[P_PTS_GATE] = p["points_gate"]
    cf[P_END_LAST] = ("immediate", "end_of_turn").index(p["end_on_last_card"])
    cf[P_PTS_INF] = p["points_infantry"]
    cf[P_PTS_CAV] = p["points_cavalry"]
    cf[P_PTS_CRE] = p["points_creature"]
    # board
    cf[O_EK:O_EK + MAXT * MAXT] = -1
    adj = [[] for _ in range(T)]
    for a, b, k in d["board"]["edges"]:
        ia, ib = ti[a], ti[b]
        ek = EDGE_KINDS.index(k)
        if ib not in adj[ia]:
            adj[ia].append(ib)
            adj[ib].append(ia)
        cf[O_EK + ia * MAXT + ib] = ek
        cf[O_EK + ib * MAXT + ia] = ek
    for i in range(T):
        adj[i].sort()
        cf[O_NBN + i] = len(adj[i])
        for j, x in enumerate(adj[i]):
            cf[O_NB + i * MAXDEG + j] = x
        dist = _bfs(T, adj, [i])
        for j in range(T):
            cf[O_DIST + i * MAXT + j] = min(dist[j], 999)
        cf[O_TKIND + i] = TERR_KINDS.index(terrs[i].get("kind", "field"))
        cf[O_BANNER + i] = int(bool(terrs[i].get("banner", False)))
        cf[O_TEDGE + i] = ("none", "good", "evil").index(terrs[i].get("edge", "none"))
    for i in range(T):
        near = sorted((cf[O_DIST + i * MAXT + j], j) for j in range(T) if 1 <= cf[O_DIST + i * MAXT + j] <= 3)
        cf[O_NEARN + i] = len(near)
        for k, (_, j) in enumerate(near):
            cf[O_NEAR + i * MAXT + k] = j
    dg = _bfs(T, adj, [i for i in range(T) if terrs[i].get("edge") == "good"])
    de = _bfs(T, adj, [i for i in range(T) if terrs[i].get("edge") == "evil"])
    dc = _bfs(T, adj, [city])
    for i in range(T):
        cf[O_DGOOD + i] = min(dg[i], 999)
        cf[O_DEVIL + i] = min(de[i], 999)
        cf[O_DCITY + i] = min(dc[i], 999)
    pts = {"infantry": p["points_infantry"], "cavalry": p["points_cavalry"], "creature": p["points_creature"]}
    for i, u in enumerate(uts):
        cf[O_USIDE + i] = uside[i]
        cf[O_UCLS + i] = CLASSES.index(u["class"])
        cf[O_UARCH + i] = int(bool(u.get("archer", False)))
        cf[O_UPTS + i] = pts[u["class"]]
        cf[O_UTOT + i] = d["pools"].get(u["side"], {}).get(u["name"], 0)
    for s in range(2):
        ts = [i for i in range(NU) if uside[i] == s]
        # owner's loss order: cheapest first, archers after plain units of a class (MT-7.2 [R])
        ts.sort(key=lambda i: (cf[O_UCLS + i] == 2, cf[O_UPTS + i], cf[O_UARCH + i], i))
        cf[O_NTS + s] = len(ts)
        for j, x in enumerate(ts):
            cf[O_LORD + s * MAXU + j] = x
    for i, l in enumerate(leaders):
        cf[O_LSIDE + i] = SIDES.index(l["side"])
        cf[O_LCOL + i] = hash_colour(l.get("colour", ""))
        cf[O_LREV + i] = int(bool(l.get("reversal", False)))
        cf[O_LSTART + i] = -3
    for s in SIDES:
        for tname, units in d.get("setup", {}).get(s, {}).items():
            t = ti[tname]
            for k, v in units.items():
                if k == "leaders":
                    for x in v:
                        cf[O_LSTART + ln.index(x)] = t
                else:
                    cf[O_SETUP + t * MAXU + uidx[(s, k)]] += v
    # Minas Tirith deck: one instance per copy
    cnames = []
    c = 0
    for ci, card in enumerate(d["mt_cards"]):
        cnames.append(card["name"])
        for _ in range(card.get("count", 1)):
            cf[O_CKIND + c] = CARD_KINDS.index(card["kind"])
            cf[O_CNAME + c] = ci
            m = 0
            for s in card["sides"]:
                m |= 1 << SIDES.index(s)
            cf[O_CSIDES + c] = m
            acc = 0
            for a in card.get("accepts", []):
                for s in card["sides"]:
                    if (s, a) in uidx:
                        acc |= 1 << uidx[(s, a)]
            cf[O_CACC + c] = acc
            cf[O_CLEAD + c] = ln.index(card["leader"]) if card.get("leader") else -1
            ent = card.get("enter")
            if ent == "evil_edge" or ent == "good_edge":
                want = ent.split("_")[0]
                for i in range(T):
                    if terrs[i].get("edge") == want:
                        cf[O_CENTRY + c * MAXT + i] = 1
            elif ent:
                for tname in ent:
                    cf[O_CENTRY + c * MAXT + ti[tname]] = 1
            cf[O_CTOWER + c] = int(bool(card.get("tower", False)))
            cf[O_CRANGE + c] = int(card.get("range", 3))
            for k, v in card.get("units", {}).items():
                for s in card["sides"]:
                    if (s, k) in uidx:
                        cf[O_CMUSTER + c * MAXU + uidx[(s, k)]] = v
                        break
            c += 1
    cf[C_NC] = c
    # reinforcement deck (MT-3.1): interleave the types so shields spread evenly over them
    counts = [p["deck_infantry"], p["deck_cavalry"], p["deck_creature"]]
    order = []
    left = list(counts)
    while any(left):
        for k in range(3):
            if left[k]:
                order.append(k)
                left[k] -= 1
    nd = 0
    for j, k in enumerate(order):
        cf[O_DTYPE + nd] = k
        if j < p["deck_good_shields"]:
            cf[O_DSHIELD + nd] = 1
        elif j < p["deck_good_shields"] + p["deck_evil_shields"]:
            cf[O_DSHIELD + nd] = 2
        nd += 1
    for _ in range(p["deck_jokers"]):
        cf[O_DTYPE + nd] = 3
        nd += 1
    cf[C_ND] = nd
    names = dict(territories=tn, unit_types=un, unit_sides=[SIDES[s] for s in uside],
                 leaders=ln, leader_sides=[l["side"] for l in leaders], cards=cnames,
                 card_instance_name=[cnames[cf[O_CNAME + i]] for i in range(c)],
                 deck_types=[("infantry", "cavalry", "creature", "joker")[cf[O_DTYPE + i]] for i in range(nd)],
                 deck_shields=[("none", "good", "evil")[cf[O_DSHIELD + i]] for i in range(nd)])
    defaults = {q.name: q.default for q in PARAMS}
    meta = {"config_hash": cfg.hash, "config": cfg.source,
            "params": {k: v for k, v in p.items() if defaults.get(k) != v}}
    return Compiled(cf, win_tables(), names, meta)


def hash_colour(c: str) -> int:
    return sum((i + 1) * ord(ch) for i, ch in enumerate(c))
