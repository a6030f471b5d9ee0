"""Skill figures: how much the search player gains against each player, kept beside the
rules they were measured for, so every verdict can say how exploitable its players are.

``lotr-sim skill`` writes ``skill.toml`` into its folder (``write``): the date, the rules hash
of the baseline, the games per pairing and, per player and side, the search player's gain
(percentage of the side's games) with its 95% interval (``verdict.exploitability``), and
the fingerprint of each engine-played player's weights (``PolicyTable.fingerprint``): figures
measured for other weights (say, before ``tuned`` was re-tuned) are not cited for these.
Likewise the fingerprint of the strong (search) player's settings for the game
(``strong_fingerprint``): a gain measured by a search player with another budget or horizon
is not the gain of today's, so it is not cited either.
With ``--best-response`` the file also holds, per player with weights and side, the paired
gain of a best response in the player's own weight family (``experiments.exploitability``).
``configs/skill/<game>.toml`` is the copy a release ships; ``lookup`` finds the figures of
some players for some rules there, or says they were not measured for these rules.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping

FILE = "skill.toml"


def shipped_path(game: str) -> Path:
    """``configs/skill/<game>.toml``: the skill figures shipped with the package."""
    from lotr_sim.config import configs_dir
    return configs_dir() / "skill" / f"{game}.toml"


def figures(verdict: Mapping[str, Any], manifest: Mapping[str, Any], rules_hash: str) -> dict[str, Any] | None:
    """The skill figures of a skill run's verdict (None when it measured no exploitability),
    with each player's weights fingerprint (``weights_of``)."""
    sk = verdict.get("skill") or {}
    expl = sk.get("exploitability") or []
    if not expl:
        return None
    from lotr_sim.experiments.store import now_iso
    games = min(x["games"] for e in expl for x in e["sides"])
    game = str(manifest.get("game"))
    return dict(game=manifest.get("game"), rules_hash=rules_hash, date=now_iso()[:10],
                strong=sk.get("player"), strong_settings=strong_fingerprint(game, str(sk.get("player"))),
                games_per_pairing=int(games), seed=manifest.get("seed"),
                half_width_goal=(manifest.get("spec") or {}).get("gain_precision"),
                players={e["player"]: {x["side"]: dict(gain=round(float(x["gain"]), 5), lo=round(float(x["lo"]), 5),
                                                       hi=round(float(x["hi"]), 5), games=int(x["games"]))
                                       for x in e["sides"]} for e in expl},
                weights={e["player"]: w for e in expl
                         if (w := weights_of(game, e["player"])) is not None})


def strong_fingerprint(game: str, player: str) -> str | None:
    """A short hash of the settings the registered player ``player`` (the search player whose
    gains the figures are) plays ``game`` with (``player_settings``); None for a player that is
    not registered (a game's own policy) or an unknown game."""
    from lotr_sim.config import config_hash
    from lotr_sim.errors import ConfigError
    from lotr_sim.games import get_game
    from lotr_sim.games.players import PLAYERS, player_settings
    if player not in PLAYERS:
        return None
    try:
        g = get_game(game)
    except ConfigError:
        return None
    return config_hash(player_settings(player, g))


def weights_of(game: str, player: str) -> str | None:
    """The fingerprint of ``player``'s weights in ``game`` (None for a player the game's
    engine does not play, or a game without a weight table)."""
    from lotr_sim.errors import ConfigError
    from lotr_sim.games import get_game
    try:
        table = get_game(game).policy_table
    except ConfigError:   # an unknown game: nothing to fingerprint
        return None
    if table is None or not table.knows(player):
        return None
    return table.fingerprint(player)


def write(path: str | Path, fig: Mapping[str, Any]) -> Path:
    """Write skill figures as TOML (``figures``' layout)."""
    from lotr_sim.experiments.store import atomic_write_bytes
    lines = ["# How much the search player gains against each player (lotr-sim skill), per side:",
             "# share of that side's games, 95% interval (paired over the player against itself on the",
             "# same games; Newcombe's unpaired one in files written before). Measured for these rules.",
             f'game = "{fig["game"]}"', f'rules_hash = "{fig["rules_hash"]}"', f'date = "{fig["date"]}"',
             f'strong = "{fig["strong"]}"', f'games_per_pairing = {int(fig["games_per_pairing"])}']
    if fig.get("strong_settings"):
        lines.append(f'strong_settings = "{fig["strong_settings"]}"   # fingerprint of its settings for this game')
    if fig.get("seed") is not None:
        lines.append(f"seed = {int(fig['seed'])}")
    if fig.get("half_width_goal") is not None:
        lines.append(f"half_width_goal = {float(fig['half_width_goal'])!r}   # each gain played until its 95% "
                     "half-width was within this, or the cap")
    for player, sides in fig["players"].items():
        lines += ["", f'[players."{player}"]']
        for side, x in sides.items():
            lines.append(f"{side} = {{ gain = {x['gain']!r}, lo = {x['lo']!r}, hi = {x['hi']!r}, "
                         f"games = {int(x['games'])} }}")
        if (fig.get("weights") or {}).get(player):
            lines.append(f'weights = "{fig["weights"][player]}"   # fingerprint of its weights')
    for player, sides in (fig.get("best_response") or {}).items():
        lines += ["", "# a best response in the player's own weight family: each side's weights tuned against it,",
                  "# paired gain on fresh games (experiments.exploitability)", f'[best_response."{player}"]']
        for side, x in sides.items():
            lines.append(f"{side} = {{ gain = {round(float(x['gain']), 5)!r}, lo = {round(float(x['lo']), 5)!r}, "
                         f"hi = {round(float(x['hi']), 5)!r}, games = {int(x['games'])} }}")
    p = Path(path)
    atomic_write_bytes(p, ("\n".join(lines) + "\n").encode())
    return p


def read(path: str | Path) -> dict[str, Any] | None:
    """Skill figures from a file, or None when there is none (or it is unreadable)."""
    from lotr_sim.config import load_toml
    from lotr_sim.errors import ConfigError
    p = Path(path)
    if not p.is_file():
        return None
    try:
        return load_toml(p)
    except ConfigError:
        return None


def lookup(game: str, rules_hash: str, policies: Mapping[str, str]) -> dict[str, Any]:
    """What the shipped figures say about ``policies`` (side -> player) under the rules
    ``rules_hash``: ``{"status": "measured", "sides": {side: {gain, lo, hi, games}}, "date",
    "games_per_pairing", "strong"}``, or ``{"status": "not measured", "why": ...}``."""
    fig = read(shipped_path(game))
    if fig is None:
        return dict(status="not measured", why=f"no skill figures shipped for {game}")
    if fig.get("rules_hash") != rules_hash:
        return dict(status="not measured", why="not measured for these rules")
    strong = str(fig.get("strong", "search"))
    now_strong = strong_fingerprint(game, strong)
    if now_strong is not None and fig.get("strong_settings") != now_strong:
        return dict(status="not measured", why=f"not measured for this {strong} player "
                                               "(the shipped figures were measured with other settings)")
    sides = {}
    for side, player in policies.items():
        entry = fig.get("players", {}).get(player) or {}
        x = entry.get(side)
        if x is None:
            return dict(status="not measured", why=f"not measured for {player} as {side}")
        now = weights_of(game, player)
        if now is not None and entry.get("weights") != now:
            return dict(status="not measured", why=f"not measured for these {player} weights "
                                                   "(the shipped figures were measured for other ones)")
        sides[side] = dict(player=player, **x)
    br = {}
    for side, player in policies.items():
        x = ((fig.get("best_response") or {}).get(player) or {}).get(side)
        if x is not None:
            br[side] = dict(player=player, **x)
    return dict(status="measured", sides=sides, date=fig.get("date"), strong=strong,
                games_per_pairing=fig.get("games_per_pairing"), best_response=br or None)
