"""Fix figures: the smallest balancing changes a ``lotr-sim fix`` run found, kept beside the
rules and players they were searched for, so every sweep verdict can suggest them.

``lotr-sim fix`` writes ``fixes.json`` into its folder (``write``): the game, the rules hash
of the baseline rules the fix was searched from (the hash a sweep's manifest keeps for its
baseline, ``manifest["config"]["hashes"]``), the date and seed, the players (side -> player)
with the fingerprint of each engine-played player's weights (``skillfig.weights_of``), the
target and tolerance, the fixes found (each with Good's rate with the default players, after
adaptation and under the search player), the closest rule sets when none was found, the
baseline's rate and the cells of the best two-lever fix's picture (every rule set played
that changes only those two levers), so the picture can be redrawn without the run folder.

JSON rather than TOML: the figures are nested lists of tables holding ``null`` (a fix not
re-checked with adapted players) and lever values of every type (booleans, numbers, names);
TOML has no null, and the standard library reads TOML but does not write it.

``configs/fixes/<game>.json`` is the copy a release ships (copy a run's ``fixes.json``
there); ``lookup`` finds the figures for some rules and players there, or says why not.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Mapping

FILE = "fixes.json"
#: The layout ``write`` writes; ``read`` refuses a file of another one.
FORMAT = 1
_R = 6      # decimals kept of a rate


def shipped_path(game: str) -> Path:
    """``configs/fixes/<game>.json``: the fix figures shipped with the package."""
    from lotr_sim.config import configs_dir
    return configs_dir() / "fixes" / f"{game}.json"


def _rate(r: Mapping[str, Any], *extra: str) -> dict[str, Any]:
    out = {k: round(float(r[k]), _R) for k in ("rate", "lo", "hi")}
    out["games"] = int(r["games"])
    for k in extra:
        if k in r:
            out[k] = r[k] if isinstance(r[k], bool) else round(float(r[k]), _R)
    return out


def _search(se: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The search player's figures against the adapted players: per side whose seat it took
    (``<side>_search``), Good's rate with its interval, its gain and whether it is beyond chance."""
    if not se:
        return None
    out: dict[str, Any] = {"games_per_side": int(se.get("games_per_side", 0)), "flag": bool(se.get("flag", False))}
    for k, v in se.items():
        if k.endswith("_search") and isinstance(v, Mapping):
            out[k] = _rate(v, "gain", "significant")
    return out


def _adapted(ad: Mapping[str, Any]) -> dict[str, Any]:
    """Good's rate after adaptation, whether the fix holds, which sides kept their re-tuned
    weights (``kept``) and Good's rate when only Good adapts (``first_only``, or None)."""
    out = _rate(ad, "holds")
    if "kept" in ad:
        out["kept"] = {str(k): bool(v) for k, v in ad["kept"].items()}
        out["first_only"] = _rate(ad["first_only"]) if ad.get("first_only") else None
    return out


def best_pair(res: Any) -> dict[str, Any] | None:
    """The best two-lever fix's picture as data: its two levers, their defaults and values,
    the fix's values and one cell per rule set played that changes only those two levers
    (both levers' values given, a lever not changed at its default), with Good's wins, rate
    and interval; None when no fix changes two levers. ``res`` is a ``FixResult``."""
    from lotr_sim.experiments.fix import set_key
    pair = next((f for f in res.fixes if f["levers"] == 2), None)
    if pair is None:
        return None
    n1, n2 = list(pair["set"])
    lv = {d["name"]: d for d in res.levers}
    cells = []
    for r in res.played:
        s = r["set"]
        if set(s) - {n1, n2}:
            continue
        full = {n1: s.get(n1, lv[n1]["default"]), n2: s.get(n2, lv[n2]["default"])}
        cells.append(dict(set=full, wins=int(round(float(r["rate"]) * int(r["games"]))), **_rate(r)))
    cells.sort(key=lambda c: set_key(c["set"]))
    return dict(levers=[n1, n2], change=pair["change"], fix=dict(pair["set"]),
                defaults={n1: lv[n1]["default"], n2: lv[n2]["default"]},
                values={n1: list(lv[n1]["values"]), n2: list(lv[n2]["values"])}, cells=cells)


def figures(res: Any, rules_hash: str) -> dict[str, Any]:
    """The fix figures of a fix run's ``FixResult`` searched from the rules ``rules_hash``
    (the module docstring's layout), with each player's weights fingerprint."""
    from lotr_sim.experiments.skillfig import strong_fingerprint, weights_of
    from lotr_sim.experiments.store import now_iso
    s = res.settings
    players = {str(k): str(v) for k, v in s["policies"].items()}
    fixes = []
    for f in res.fixes:
        good = f.get("good")
        ad = f.get("adapted")
        fixes.append(dict(change=f["change"], set=dict(f["set"]), levers=int(f["levers"]),
                          cost=round(float(f["cost"]), _R),
                          good=_rate(good, "confirmed") if good else None,
                          adapted=_adapted(ad) if ad else None,
                          search=_search(f.get("search"))))
    searched = any(f["search"] for f in fixes)
    return dict(format=FORMAT, game=res.game, rules_hash=rules_hash, date=now_iso()[:10], seed=int(s["seed"]),
                outcome=res.outcome, target=float(res.target), tol=float(res.tol), players=players,
                weights={p: w for p in dict.fromkeys(players.values()) if (w := weights_of(res.game, p)) is not None},
                search_settings=strong_fingerprint(res.game, "search") if searched else None,
                base_sets=dict(s.get("base_sets") or {}),
                games=dict(screen=int(s["games"]), confirm=int(s["confirm_games"]), final=int(s["final_games"]),
                           adapt=int(s["adapt_games"]) if s.get("adapt") else None,
                           tune_generations=int(s["tune_generations"]) if s.get("adapt") else None,
                           tune_games=int(s["tune_games"]) if s.get("adapt") else None,
                           search=int(s["search_games"]) if s.get("adapt") else None,
                           played=int(res.games_played)),
                baseline=_rate(res.baseline), fixes=fixes,
                closest=[dict(change=c["change"], set=dict(c["set"]), levers=int(c["levers"]),
                              cost=round(float(c["cost"]), _R), **_rate(c)) for c in res.closest],
                best_pair=best_pair(res), message=res.message)


def write(path: str | Path, fig: Mapping[str, Any]) -> Path:
    """Write fix figures (``figures``' layout) as JSON."""
    from lotr_sim.experiments.store import atomic_write_json
    p = Path(path)
    atomic_write_json(p, dict(fig))
    return p


def read(path: str | Path) -> dict[str, Any] | None:
    """Fix figures from a file, or None when there is none. A file that is not fix figures
    of this layout is a ``LotrSimError`` naming it."""
    from lotr_sim.errors import LotrSimError
    p = Path(path)
    if not p.is_file():
        return None
    try:
        d = json.loads(p.read_text())
    except (OSError, ValueError) as e:
        raise LotrSimError(f"cannot read {p}: {e}") from None
    if not isinstance(d, dict) or d.get("format") != FORMAT or not isinstance(d.get("fixes"), list):
        raise LotrSimError(f"cannot read {p}: not fix figures of format {FORMAT} (a fixes.json of lotr-sim fix)")
    return d


def lookup(game: str, rules_hash: str, policies: Mapping[str, str]) -> dict[str, Any]:
    """What the shipped fix figures say for the rules ``rules_hash`` and the players
    ``policies`` (side -> player): ``{"status": "measured", **figures}`` (the search
    player's figures dropped, with a ``search_note``, when they were measured with other
    settings of it), or ``{"status": "not measured", "why": ...}``."""
    from lotr_sim.errors import LotrSimError
    from lotr_sim.experiments.skillfig import strong_fingerprint, weights_of
    try:
        fig = read(shipped_path(game))
    except LotrSimError as e:
        return dict(status="not measured", why=str(e))
    if fig is None:
        return dict(status="not measured", why=f"no fixes shipped for {game}")
    date = fig.get("date", "?")
    if fig.get("game") != game or fig.get("rules_hash") != rules_hash:
        return dict(status="not measured", why=f"the shipped fixes (fix run of {date}) were searched from other rules")
    theirs = dict(fig.get("players") or {})
    ours = {str(k): str(v) for k, v in policies.items()}
    if theirs != ours:
        return dict(status="not measured", why=f"the shipped fixes (fix run of {date}) were searched with other "
                                               f"players ({', '.join(f'{k}={v}' for k, v in theirs.items())})")
    for player in dict.fromkeys(ours.values()):
        now = weights_of(game, player)
        if now is not None and (fig.get("weights") or {}).get(player) != now:
            return dict(status="not measured", why=f"the shipped fixes (fix run of {date}) were searched with "
                                                   f"other {player} weights")
    out = dict(status="measured", **fig)
    if fig.get("search_settings") and fig["search_settings"] != strong_fingerprint(game, "search"):
        out["fixes"] = [dict(f, search=None) for f in fig["fixes"]]
        out["search_note"] = "the search player's figures were measured with other settings of it: not shown"
    return out
