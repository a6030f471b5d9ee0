"""The verdict of a sweep: the answer to "does Good win too often, and which rule would fix it?"

Pure functions over a sweep's results frame (one row per point, ``results.parquet``) and its
manifest; no games are played here. ``verdict(df, manifest)`` returns a JSON-able dict:

* ``baseline``: the baseline's rate of every outcome with its 95% Wilson interval;
* ``sentence``: "Evil is favoured by 1.9 percentage points [0.9, 2.9] ..." or "fair within the
  interval", measured against *parity*, which with draws in play has two meanings:

  - ``good50`` (default): the first outcome's (Good's) win rate is 50%;
  - ``equal``: Good wins as often as Evil (the second outcome).

  "Favoured by N points" means one thing under either: N percent of all games would have
  to pass from the favoured side's wins to the other side's for parity (``GAP_TEXT``). That
  is ``gap = rate - 0.5`` for ``good50`` (the Wilson interval shifted by 0.5) and ``gap =
  d / 2`` for ``equal``, ``d = p_good - p_evil`` of one multinomial sample with the interval
  ``d -/+ z sqrt((p_g + p_e - d^2)/n)`` halved (``parity_gap``); with no draws the two agree.
  ``equal``'s sentences also give ``d`` itself (``diff`` in an entry);

* ``players``: the AI players (policies) of the baseline;
* ``levers``: every swept dimension ranked by its largest paired change of Good's win rate
  against the baseline (with its 95% interval); where the sweep adapted the players to a
  lever (``experiments.sweep_adapt``) its entry's ``adapted`` holds the change after
  adaptation, and ``adaptation`` the sentence saying how it was measured (or why not);
* ``parity``: for every swept dimension the value closest to parity; for numeric ones the
  crossing interpolated linearly between adjacent swept values, its interval by
  interpolating the interval ends the same way (as ``balance`` does). A dimension
  ``overshoots`` when the crossing lies between two swept values but no swept value's
  interval contains parity. A grid sweep answers in its cells, each a full rule set
  (``grid_parity``), never in averages over rows: ``cells`` lists every cell closest to
  parity first (the baseline's among them when it is one, ``grid_cells``), and ``parity``
  holds the lines through the cells (one dimension moving, the others held) that cross or
  touch parity;
* ``pairings``: Good's win rate under every pairing of policies, with its spread, when the
  sweep played them (``pairings = true``);
* ``precision``: the points that stopped at ``max_games`` before reaching ``--precision``;
  in the paired mode (``--paired-precision``, the default sweep's) always, with the
  half-width each kind of point reached (``paired_precision``).

The plain sentences are in the dict as ``lines``; ``lotr_sim.reports.verdict_text`` renders
it as Markdown, HTML and the reports' tables.
"""
from __future__ import annotations

import json
import math
from typing import Any, Mapping, Sequence

import numpy as np

from lotr_sim.errors import LotrSimError
from lotr_sim.stats import wilson, z_value, zero_crossing

TARGETS = ("good50", "equal")
DRAWS_NEGLIGIBLE = 0.005   # as reports.tables.NEGLIGIBLE: draws above this are shown
TARGET_TEXT = {
    "good50": "parity = {o0} wins 50% of games",
    "equal": "parity = {o0} wins as often as {o1}",
}


def check_target(target: str | None) -> str:
    """``None`` -> ``"good50"``; anything but ``good50``/``equal`` is one clear error."""
    if target is None:
        return "good50"
    t = str(target).strip().lower()
    if t not in TARGETS:
        raise LotrSimError(f"--target must be one of {', '.join(TARGETS)} (the first side's win rate = 50%, "
                           f"or the first side's = the second's), got {target!r}")
    return t


def _name(o: str, sides) -> str:
    return o.capitalize() if o in sides else o


def fmt_pct(x: float) -> str:
    """A proportion in percent, one decimal (the verdict's sentences and tables)."""
    return f"{100 * x:.1f}"


def fmt_pp(x: float) -> str:
    """A difference in percentage points, signed."""
    return f"{100 * x:+.1f}"


def _json_field(v) -> dict:
    if isinstance(v, dict):
        return v
    try:
        return json.loads(v) if isinstance(v, str) and v else {}
    except json.JSONDecodeError:
        return {}


def labels(df, manifest: Mapping) -> tuple[list[str], list[str]]:
    """(outcomes, sides): from the manifest, else from the frame's ``wins_*`` columns."""
    outcomes = list(manifest.get("outcomes") or [c[5:] for c in df.columns if c.startswith("wins_")])
    sides = list(manifest.get("sides") or outcomes[:2])
    return outcomes, sides


#: What "favoured by N percentage points" measures, whatever the target (module docstring).
GAP_TEXT = "the share of all games that would have to pass from {fav}'s wins to {other}'s for parity"


def win_difference(games: int, wins0: int, wins1: int, conf: float = 0.95) -> tuple[float, float, float]:
    """``(d, lo, hi)``: the first outcome's win rate minus the second's, ``d = p0 - p1`` of
    one multinomial sample, with the interval ``d -/+ z sqrt((p0 + p1 - d^2)/n)``."""
    n = int(games)
    if n <= 0:
        return float("nan"), float("nan"), float("nan")
    p0, p1 = wins0 / n, wins1 / n
    d = p0 - p1
    half = z_value(conf) * math.sqrt(max(p0 + p1 - d * d, 0.0) / n)
    return d, d - half, d + half


def parity_gap(games: int, wins0: int, wins1: int, target: str, conf: float = 0.95) -> tuple[float, float, float]:
    """``(gap, lo, hi)``: how far a configuration is from parity, as the share of all games
    that would have to pass from the favoured side's wins to the other's (module docstring,
    ``GAP_TEXT``): ``rate - 0.5`` for ``good50``, half the win difference for ``equal``;
    ``gap > 0`` favours the first outcome."""
    n = int(games)
    if n <= 0:
        return float("nan"), float("nan"), float("nan")
    if target == "good50":
        lo, hi = wilson(wins0, n, conf)
        return wins0 / n - 0.5, lo - 0.5, hi - 0.5
    d, lo, hi = win_difference(n, wins0, wins1, conf)
    return d / 2, lo / 2, hi / 2


def _entry(value, games, wins0, wins1, target) -> dict:
    g, lo, hi = parity_gap(games, wins0, wins1, target)
    rlo, rhi = wilson(wins0, games) if games > 0 else (float("nan"), float("nan"))
    d, dlo, dhi = win_difference(games, wins0, wins1)
    return dict(value=value, games=int(games), rate=wins0 / games if games else float("nan"),
                lo=float(rlo), hi=float(rhi), gap=g, gap_lo=lo, gap_hi=hi, diff=d, diff_lo=dlo, diff_hi=dhi)


def favoured_text(fav: str, other: str, gap: float, lo: float, hi: float, target: str,
                  rate0: float | None = None, rate1: float | None = None) -> str:
    """"<fav> is favoured by N percentage points [lo, hi] of games", N the share of all games
    that would have to pass from its wins to ``other``'s for parity (``GAP_TEXT``), whatever
    the target; ``gap``, ``lo``, ``hi`` as ``parity_gap`` gives them (signed for the first
    outcome). Under ``equal`` with both rates given it adds that N is half their difference."""
    a, b = sorted((abs(lo), abs(hi)))
    text = (f"{fav} is favoured by {100 * abs(gap):.1f} percentage points [{100 * a:.1f}, {100 * b:.1f}] "
            f"of games ({GAP_TEXT.format(fav=fav, other=other)}")
    if target == "equal" and rate0 is not None and rate1 is not None:
        text += f": half the difference between their win rates, {fmt_pct(rate0)}% and {fmt_pct(rate1)}%"
    return text + ")"


def _is_grid(df) -> bool:
    return bool((df["varied"] == "grid").any()) if "varied" in df else False


def swept_dims(df, manifest: Mapping | None = None) -> list[str]:
    """The swept dimensions in the order the sweep was given (``--param`` after ``--param``,
    or the sweep file's ``[params]``). The ``dims`` column cannot tell, being written with
    sorted keys; the manifest's ``spec.dims`` (a list of ``[name, values]``) can, and is
    used when ``manifest`` is given. Without it the order is read from the points, which
    ``build_points`` makes in sweep order (``_dims_of_points``)."""
    if "dims" not in df or not len(df):
        return []
    base = df[df["point"] == 0]
    if not len(base):
        return []
    keys = list(_json_field(base.iloc[0]["dims"]).keys())
    given = ((manifest or {}).get("spec") or {}).get("dims")
    if isinstance(given, list):
        names = [d[0] for d in given if isinstance(d, (list, tuple)) and d]
        if sorted(names) == sorted(keys):
            return names
    return _dims_of_points(df, keys)


def _dims_of_points(df, keys: list[str]) -> list[str]:
    """``keys`` in the order of the points: a grid point's label names every dimension in
    sweep order (``a=1,b=x``); one-at-a-time, each dimension's first point comes in sweep
    order, and a dimension with no point of its own (every value the baseline's) comes last."""
    found: list[str] = []
    for _, r in df.iterrows():
        varied = r.get("varied")
        if varied == "grid":
            label = "," + str(r["label"])
            at = {k: label.find(f",{k}=") for k in keys}
            if all(i >= 0 for i in at.values()):
                return sorted(keys, key=at.__getitem__)
        elif varied in keys and varied not in found:
            found.append(varied)
    return found + [k for k in keys if k not in found]


def grid_cells(df) -> list[tuple[dict, Any]]:
    """``[(values of the swept dimensions, row)]`` of every cell of a grid sweep: the grid
    points, then the baseline when its values are a cell of the grid. ``build_points`` does
    not play that cell twice (a point with the baseline's rules and players is skipped), so
    its games are the baseline's (point 0, varied "baseline"): anything that pools a value
    over the other dimensions' cells must count them, once."""
    cells = [(_json_field(r["dims"]), r) for _, r in df.iterrows() if r["varied"] == "grid"]
    base = df[df["point"] == 0]
    if len(base) and cells:
        bd = _json_field(base.iloc[0]["dims"])
        keys = {json.dumps(d, sort_keys=True, default=str) for d, _ in cells}
        values = {k: {json.dumps(d.get(k), default=str) for d, _ in cells} for k in bd}
        if json.dumps(bd, sort_keys=True, default=str) not in keys and \
                all(json.dumps(v, default=str) in values[k] for k, v in bd.items()):
            cells.append((bd, base.iloc[0]))
    return cells


def dim_entries(df, dim: str) -> list[tuple[Any, Any]]:
    """``[(value, row)]`` of a dimension, sorted by value when the values are numbers
    (booleans stay categories): one-at-a-time, its points plus the baseline (pairing points
    excluded); a grid, every cell (``grid_cells``: the baseline's among them when it is one),
    several rows per value."""
    if _is_grid(df):
        items = [(c.get(dim), r) for c, r in grid_cells(df)]
    else:
        sel = df[(df["varied"] == dim) | (df["point"] == 0)]
        items = [(_json_field(r["dims"]).get(dim), r) for _, r in sel.iterrows()]
    if is_numeric([v for v, _ in items]):
        items.sort(key=lambda t: float(t[0]))
    return items


def is_numeric(values) -> bool:
    """Numbers (not booleans, not text): plotted on a numeric axis, interpolated for parity."""
    return bool(values) and all(isinstance(v, (int, float, np.integer, np.floating))
                                and not isinstance(v, (bool, np.bool_)) for v in values)


def is_integer(values) -> bool:
    return is_numeric(values) and all(float(v) == int(float(v)) for v in values)


def _dim_parity_entries(df, dim, o0, o1, target) -> list[dict]:
    """A one-at-a-time sweep's entries of one dimension (its points and the baseline), for
    ``parity_of``. A grid has no such list: its answers are its cells (``grid_cell_entries``)."""
    return [_entry(v, int(r["games"]), int(r[f"wins_{o0}"]), int(r.get(f"wins_{o1}", 0)), target)
            for v, r in dim_entries(df, dim)]


def grid_cell_entries(df, dims: Sequence[str], o0: str, o1: str, target: str) -> list[dict]:
    """Every cell of a grid sweep (``grid_cells``: the baseline's once, when it is a cell) as
    the rule set it is: ``set`` (every swept dimension's value, in ``dims`` order), ``label``,
    ``point``, the first outcome's rate with its Wilson interval, the parity gap with its
    interval (``parity_gap``) and ``within`` (that interval contains parity); closest to
    parity first (ties in point order)."""
    out = []
    for c, r in grid_cells(df):
        e = _entry(None, int(r["games"]), int(r[f"wins_{o0}"]), int(r.get(f"wins_{o1}", 0)), target)
        e.pop("value")
        cell = {d: c.get(d) for d in dims}
        e.update(set=cell, label=", ".join(f"{d}={fmt_value(v)}" for d, v in cell.items()),
                 point=int(r["point"]), within=bool(e["gap_lo"] <= 0.0 <= e["gap_hi"]))
        out.append(e)
    out.sort(key=lambda e: (abs(e["gap"]) if e["gap"] == e["gap"] else math.inf, e["point"]))
    return out


def grid_lines(cells: list[dict], dims: Sequence[str]) -> list[tuple[str, dict, list[dict]]]:
    """``[(dim, the other dimensions' values, entries along dim)]``: every line of a grid
    through its cells, one dimension moving and the others held (each entry a cell, as
    ``_entry`` makes them with ``value`` the moving dimension's), numbers sorted; lines of
    fewer than two cells are left out."""
    groups: dict = {}
    for d in dims:
        others = [k for k in dims if k != d]
        for c in cells:
            at = {k: c["set"][k] for k in others}
            key = (d, json.dumps([at[k] for k in others], default=str))
            e = dict(c, value=c["set"][d])
            groups.setdefault(key, (d, at, []))[2].append(e)
    out = []
    for d, at, entries in groups.values():
        if len(entries) < 2:
            continue
        if is_numeric([e["value"] for e in entries]):
            entries.sort(key=lambda e: float(e["value"]))
        out.append((d, at, entries))
    return out


#: the cells the grid's verdict names one by one (closest first); more are counted
GRID_CELLS_NAMED = 5


def grid_parity(df, dims: Sequence[str], o0: str, o1: str, target: str, o0n: str, o1n: str) -> dict:
    """A grid sweep's answer to "which rule set reaches parity?", in cells (full rule sets),
    never in averages over rows: ``cells`` (``grid_cell_entries``), ``closest`` (the cell
    closest to parity), ``within`` (the cells whose interval contains parity), ``lines``
    (``parity_of`` along every line of the grid that crosses or touches parity, ``at``
    naming the values held) and the verdict's sentences ``texts``."""
    cells = grid_cell_entries(df, dims, o0, o1, target)
    if not cells:
        return dict(cells=[], closest=None, within=[], lines=[], texts=[])
    closest, within = cells[0], [c for c in cells if c["within"]]
    texts = [f"Closest cell (a full rule set): {closest['label']}: {_gap_text(closest, target, o0n, o1n)}"
             + ("; within the interval of parity." if closest["within"] else
                f"; no cell of the {len(cells)} is within the interval of parity ("
                + (f"{o0n} stays {'above' if closest['gap'] > 0 else 'below'} it in every cell)."
                   if all((c["gap"] > 0) == (closest["gap"] > 0) for c in cells) else "parity lies between cells)."))]
    if within:
        named = "; ".join(f"{c['label']}: {_gap_text(c, target, o0n, o1n)}" for c in within[:GRID_CELLS_NAMED])
        more = f"; and {len(within) - GRID_CELLS_NAMED} more" if len(within) > GRID_CELLS_NAMED else ""
        texts.append(f"Cells within the interval of parity ({len(within)} of {len(cells)}): {named}{more}.")
    lines = []
    for d, at, entries in grid_lines(cells, dims):
        p = parity_of(entries)
        if p["status"] == "never":
            continue
        integer = is_integer([e["value"] for e in entries])
        name = d + (" at " + ", ".join(f"{k}={fmt_value(v)}" for k, v in at.items()) if at else "")
        p.update(param=d, at=at, integer=integer, text=parity_text(d, p, target, o0n, o1n, integer, name=name))
        lines.append(p)
    return dict(cells=cells, closest=closest, within=within, lines=lines, texts=texts)


def parity_of(entries: list[dict]) -> dict:
    """The value closest to parity among ``entries`` (sorted; from ``_entry``), the
    interpolated crossing(s) for numeric values, and a status: ``within`` (some value's
    interval contains parity), ``overshoots`` (parity lies between swept values, none
    within its interval) or ``never`` (all values on one side of parity)."""
    gaps = np.array([e["gap"] for e in entries], dtype=float)
    i0 = int(np.nanargmin(np.abs(gaps)))
    within = [e["value"] for e in entries if e["gap_lo"] <= 0.0 <= e["gap_hi"]]
    numeric = is_numeric([e["value"] for e in entries])
    crossings = []
    signs = np.sign(gaps)
    if numeric:
        for i in range(len(entries) - 1):
            a, b = entries[i], entries[i + 1]
            if signs[i] == signs[i + 1] and signs[i] != 0:
                continue
            xa, xb = float(a["value"]), float(b["value"])
            est = zero_crossing(xa, xb, a["gap"], b["gap"])
            c1 = zero_crossing(xa, xb, a["gap_lo"], b["gap_lo"])
            c2 = zero_crossing(xa, xb, a["gap_hi"], b["gap_hi"])
            lo_x, hi_x = float(entries[0]["value"]), float(entries[-1]["value"])
            cands = [c for c in (c1, c2) if c is not None and math.isfinite(c)]
            iv = [max(lo_x, min(cands)), min(hi_x, max(cands))] if len(cands) == 2 else [lo_x, hi_x]
            crossings.append(dict(between=[a["value"], b["value"]], estimate=xa if est is None else est,
                                  interval=iv))
    elif (signs > 0).any() and (signs < 0).any():
        # categories have no order: parity lies between the closest value on each side
        below = min((e for e, g in zip(entries, gaps) if g < 0), key=lambda e: abs(e["gap"]))
        above = min((e for e, g in zip(entries, gaps) if g > 0), key=lambda e: abs(e["gap"]))
        crossings.append(dict(between=[below["value"], above["value"]]))
    if crossings:
        # the crossing next to the closest value, else the first
        near = [c for c in crossings if entries[i0]["value"] in c["between"]]
        crossing = (near or crossings)[0]
    else:
        crossing = None
    status = "within" if within else ("overshoots" if crossing is not None else "never")
    return dict(closest=entries[i0], within=within, crossing=crossing, crossings=crossings,
                status=status, numeric=numeric,
                side=None if crossing is not None or within else ("above" if gaps[i0] > 0 else "below"))


def fmt_value(v) -> str:
    """A swept value as the sweep file writes it (``true``, ``0.5``, ``chosen``)."""
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


def fmt_x(x: float, integer: bool) -> str:
    """An interpolated crossing: two decimals for an integer parameter, else three figures."""
    return f"{x:.2f}" if integer else f"{x:.3g}"


def _gap_text(e: dict, target: str, o0n: str, o1n: str) -> str:
    if target == "good50":
        return f"{o0n} {fmt_pct(e['rate'])}% [{fmt_pct(e['lo'])}, {fmt_pct(e['hi'])}]"
    return (f"{o0n} − {o1n} {fmt_pp(e['diff'])} percentage points [{fmt_pp(e['diff_lo'])}, {fmt_pp(e['diff_hi'])}]")


def parity_text(dim: str, p: dict, target: str, o0n: str, o1n: str, integer: bool,
                name: str | None = None) -> str:
    """The sentence of one dimension's ``parity_of``; ``name`` heads it instead of ``dim``
    (a grid's line: the dimension and the values held)."""
    c = p["closest"]
    closest = f"closest swept value {dim}={fmt_value(c['value'])}: {_gap_text(c, target, o0n, o1n)}"
    cr = p["crossing"]
    if cr is not None and "estimate" in cr:
        lead = (f"{name or dim}: parity at ≈ {fmt_x(cr['estimate'], integer)} "
                f"[{fmt_x(cr['interval'][0], integer)}, {fmt_x(cr['interval'][1], integer)}] "
                f"(interpolated between {fmt_value(cr['between'][0])} and {fmt_value(cr['between'][1])})")
    elif cr is not None:
        lead = (f"{name or dim}: parity lies between the values {fmt_value(cr['between'][0])} (below) and "
                f"{fmt_value(cr['between'][1])} (above)")
    elif p["status"] == "never":
        lead = f"{name or dim}: never reaches parity over the swept values ({o0n} stays {p['side']} it)"
    else:
        lead = f"{name or dim}: no crossing between swept values"
    tail = ""
    if p["status"] == "within":
        tail = "; within the interval of parity at " + ", ".join(fmt_value(v) for v in p["within"])
    elif p["status"] == "overshoots":
        tail = "; overshoots: no swept value is within the interval of parity"
    return f"{lead}; {closest}{tail}"


def _no_game_changed(r, o0: str) -> bool:
    """A point whose paired change is exactly zero with a zero-width interval: on the same
    games it changed no game's first outcome (won or not) against the baseline."""
    return float(r[f"delta_{o0}_lo"]) == 0.0 == float(r[f"delta_{o0}_hi"])


def levers(df, o0: str) -> list[dict]:
    """Every swept dimension (or, for a grid, every grid point) ranked by its largest
    absolute paired change of the first outcome's win rate against the baseline.
    ``unchanged``: at none of its points did any game's first outcome change (under these
    players the rule never decided a game, so its zero says nothing about the rule)."""
    out = []
    if not len(df) or f"delta_{o0}" not in df:
        return out
    if _is_grid(df):
        for _, r in df[df["varied"] == "grid"].iterrows():
            out.append(dict(param=str(r["label"]), value=str(r["label"]), label=str(r["label"]),
                            delta=float(r[f"delta_{o0}"]), lo=float(r[f"delta_{o0}_lo"]),
                            hi=float(r[f"delta_{o0}_hi"]), unchanged=_no_game_changed(r, o0)))
    else:
        for d in swept_dims(df):
            rows = [(v, r) for v, r in dim_entries(df, d) if r["point"] != 0]
            if not rows:
                continue
            v, r = max(rows, key=lambda t: abs(float(t[1][f"delta_{o0}"])))
            out.append(dict(param=d, value=v, label=str(r["label"]), delta=float(r[f"delta_{o0}"]),
                            lo=float(r[f"delta_{o0}_lo"]), hi=float(r[f"delta_{o0}_hi"]),
                            unchanged=all(_no_game_changed(r2, o0) for _, r2 in rows)))
    out.sort(key=lambda x: -abs(x["delta"]))
    return out


UNCHANGED_NOTE = "no game changed at any swept value under these players"


def lever_text(x: Mapping, o0n: str, adapted: bool = True) -> str:
    """A lever's change as the verdict and the report print it: the paired change of the first
    outcome's (``o0n``'s) win rate with its interval, a note when it changed no game
    (``levers``' ``unchanged``) and, with ``adapted``, its change after the players adapted
    to it where the sweep measured one (``adapted_text``)."""
    text = f"{fmt_pp(x['delta'])} [{fmt_pp(x['lo'])}, {fmt_pp(x['hi'])}]"
    if x.get("unchanged"):
        text += f" ({UNCHANGED_NOTE}: whether {o0n} won never depended on it)"
    if adapted and x.get("adapted"):
        text += "; after adaptation: " + adapted_text(x["adapted"])
    return text


def adapted_text(a: Mapping) -> str:
    """A lever's "after adaptation" figure (``experiments.sweep_adapt``): the paired change
    of the first outcome's win rate with the adapted players under the lever against the
    default players under the default rules, with its 95% interval and the sides whose
    re-tuned weights were kept; the default players when neither side's were."""
    kept = [s for s, k in a["kept"].items() if k]
    f = a.get("figure")
    if not kept or not f:
        return "neither side's re-tuned weights did better (the default players)"
    text = f"{fmt_pp(f['delta'])} [{fmt_pp(f['lo'])}, {fmt_pp(f['hi'])}] ({' and '.join(kept)} adapted"
    if f.get("goal") is not None and not f.get("met"):
        text += f"; ±{100 * f['half_width']:.1f} at the cap of {int(f['games']):,} games"
    return text + ")"


def adaptation_text(ad: Mapping, o0n: str) -> str:
    """The sentence under the levers that says how the "after adaptation" figures were made
    (the budget) or why there are none (``ad["note"]``)."""
    if ad.get("note"):
        return str(ad["note"])
    st, rows = ad["settings"], ad.get("levers") or []
    n = len(rows)
    text = (f"After adaptation ({'the largest lever' if n == 1 else f'the {n} largest levers'}): both "
            f"sides' default weights re-tuned to the lever's rules, warm-started from them "
            f"({st['generations']} generations x {st['games']} games), each side's kept only where they "
            f"beat its default weights on {st['check_games']:,} paired games; then {o0n}'s win rate with "
            f"the adapted players under the lever minus with the default players under the default rules, "
            f"on the same fresh games")
    games = [int(r["figure"]["games"]) for r in rows if r.get("figure")]
    if not games:
        return text + f" (not played: neither side's re-tuned weights did better at {'it' if n == 1 else 'any'})."
    goal = st.get("goal")
    return text + (f" ({_range(games)}{' a lever' if len(games) > 1 else ''}, paired 95% interval"
                   + (f", played to ±{100 * goal:.3g} or {int(st['max_games']):,} games" if goal is not None else "")
                   + ").")


def on_baseline_rules(r) -> bool:
    """Is this point (a results row) played on the baseline's rules? Its ``baseline_rules``
    column says so (its configuration's hash is the baseline's: a grid cell whose rule
    dimensions sit at their baseline values, or whose only dimensions are players, is one);
    results written before that column: no rule override and not a grid point."""
    v = r.get("baseline_rules") if hasattr(r, "get") else None
    if v is not None and not (isinstance(v, float) and math.isnan(v)):
        return bool(v)
    return not _json_field(r["params"]) and r.get("varied") != "grid"


def played_pairings(df) -> bool:
    """Did the sweep play a pairings table (``--pairings``)? Some row is a pairing point, or
    (``pairing`` column) another point serves as one: with a grid over both sides' players
    every pairing may be a grid cell."""
    if "varied" in df and (df["varied"] == "pairings").any():
        return True
    return bool("pairing" in df and df["pairing"].fillna(False).astype(bool).any())


def _baseline_rule_rows(df):
    """(row, policies) of every point played on the baseline rules (``on_baseline_rules``):
    the points of a pairings table. A pairing equal to a grid cell is that grid cell's row
    (``spec.build_points`` plays it once)."""
    for _, r in df.iterrows():
        if not on_baseline_rules(r):
            continue
        yield r, _json_field(r["policies"])


def pairing_cells(df, sides) -> list[dict]:
    """Good's win rate at every pairing of policies played on the baseline rules
    (``on_baseline_rules``; the first such row of each pairing), ``[{policies, rate, lo, hi, games, label}]``, with ``draw``,
    ``draw_lo``, ``draw_hi`` when the game has a draw outcome."""
    if "params" not in df or "policies" not in df:
        return []
    cells, seen = [], set()
    o0 = [c for c in df.columns if c.startswith("wins_")][0][5:]
    for r, pol in _baseline_rule_rows(df):
        key = tuple(pol.get(s) for s in sides)
        if key in seen:
            continue
        seen.add(key)
        c = dict(policies={s: pol.get(s) for s in sides}, rate=float(r[f"rate_{o0}"]),
                 lo=float(r[f"lo_{o0}"]), hi=float(r[f"hi_{o0}"]), games=int(r["games"]),
                 label=str(r["label"]))
        if "rate_draw" in r:
            c.update(draw=float(r["rate_draw"]), draw_lo=float(r["lo_draw"]), draw_hi=float(r["hi_draw"]))
        cells.append(c)
    return cells


def _players(pol: Mapping, sides) -> str:
    return " v ".join(f"{_name(s, sides)} {pol.get(s, '?')}" for s in sides)


def _row_of(df, sides, pol: Mapping):
    """The first baseline-rules row played by the players ``pol``, or None."""
    for r, p in _baseline_rule_rows(df):
        if all(p.get(s) == pol.get(s) for s in sides):
            return r
    return None


def skill_check(df, sides, outcomes, target: str, base_pol: Mapping, fair: bool,
                favoured: str | None, order: Sequence[str] | None = None,
                judge: str | None = None) -> dict | None:
    """Does the verdict hold for stronger play? When the pairings include a player from
    ``lotr_sim.players`` (the search player; ``judge`` when it names one that was played),
    compare the baseline's verdict with the one under that player on every seat, and say how
    the player fares against the baseline's own players seat by seat. None when no such
    player was played."""
    from lotr_sim.games.players import PLAYERS
    if "policies" not in df or "params" not in df:
        return None
    played = {p for c in pairing_cells(df, sides) for p in c["policies"].values()}
    strong = ([judge] if judge in played else []) + [p for p in PLAYERS if p in played]
    if not strong:
        return None
    s = strong[0]
    o0, o1 = outcomes[0], outcomes[1]
    o0n, o1n = _name(o0, sides), _name(o1, sides)
    r = _row_of(df, sides, {side: s for side in sides})
    lines, out = [], dict(player=s, same=None)
    if r is not None:
        n = int(r["games"])
        gap, glo, ghi = parity_gap(n, int(r[f"wins_{o0}"]), int(r[f"wins_{o1}"]), target)
        if glo <= 0.0 <= ghi:
            fav, head = None, "fair within the interval"
        elif gap > 0:
            fav, head = o0, f"{o0n} is favoured by {100 * gap:.1f} percentage points [{100 * glo:.1f}, {100 * ghi:.1f}]"
        else:
            fav, head = o1, f"{o1n} is favoured by {100 * -gap:.1f} percentage points [{100 * -ghi:.1f}, {100 * -glo:.1f}]"
        if fav is None and fair:
            says = "as at the baseline"
        elif fav is None:
            says = "the baseline's verdict is not confirmed for stronger play (more games would tell)"
        elif fair:
            says = "the baseline was fair within its interval: stronger play tips it"
        elif fav == favoured:
            says = "the verdict holds for stronger play"
        else:
            says = "the verdict FLIPS under stronger play"
        lines.append(f"Stronger play ({s} on every seat, {n:,} games): {head}; {says}.")
        out.update(games=n, gap=gap, gap_ci95=[glo, ghi], favoured=fav,
                   same=(fav == favoured) if fav is not None and not fair else None)
    seats = []
    for side in sides:
        if base_pol.get(side) == s:
            continue
        pol = dict(base_pol)
        pol[side] = s
        a, b = _row_of(df, sides, pol), _row_of(df, sides, base_pol)
        if a is None or b is None:
            continue
        win = outcomes[sides.index(side)] if sides.index(side) < len(outcomes) else side
        ra, rb = float(a[f"rate_{win}"]), float(b[f"rate_{win}"])
        seats.append(dict(side=side, player=s, against=dict(base_pol), rate=ra,
                          lo=float(a[f"lo_{win}"]), hi=float(a[f"hi_{win}"]), baseline_rate=rb,
                          games=int(a["games"])))
    if seats:
        lines.append(f"{s} against the baseline's players: " + "; ".join(
            f"as {_name(x['side'], sides)} it wins {fmt_pct(x['rate'])}% [{fmt_pct(x['lo'])}, {fmt_pct(x['hi'])}] "
            f"({base_pol.get(x['side'])} there: {fmt_pct(x['baseline_rate'])}%)" for x in seats) + ".")
    expl = exploitability(df, sides, outcomes, s)
    ladder = skill_ladder(df, sides, outcomes, s, order)
    if expl:
        lines.append(f"How much {s} gains against each player (percentage points of the side's wins it "
                     f"takes that seat in, 95% interval): " + "; ".join(
                         f"{e['player']}: " + ", ".join(
                             f"as {_name(x['side'], sides)} {fmt_pp(x['gain'])} [{fmt_pp(x['lo'])}, {fmt_pp(x['hi'])}]"
                             for x in e["sides"]) for e in expl) + ".")
        least = expl[0]
        out["least_exploitable"] = least["player"]
        r0 = _row_of(df, sides, {side: least["player"] for side in sides})
        if r0 is not None:
            n0 = int(r0["games"])
            gap0, lo0, hi0 = parity_gap(n0, int(r0[f"wins_{o0}"]), int(r0[f"wins_{o1}"]), target)
            fav0 = None if lo0 <= 0.0 <= hi0 else (o0 if gap0 > 0 else o1)
            head0 = ("fair within the interval" if fav0 is None else
                     f"{_name(fav0, sides)} is favoured by {100 * abs(gap0):.1f} percentage points "
                     f"[{100 * min(abs(lo0), abs(hi0)):.1f}, {100 * max(abs(lo0), abs(hi0)):.1f}]")
            top = out.get("favoured", "unknown")
            if r is None:
                says = f"not checked with {s} on every seat"
            elif fav0 is None:
                says = "fair under it" + ("; still fair" if out.get("favoured") is None
                                          else f"; {_name(top, sides)} favoured with {s} on every seat")
            elif out.get("favoured") == fav0:
                says = f"it holds with {s} on every seat"
            elif out.get("favoured") is None:
                says = f"not confirmed with {s} on every seat (fair within its interval)"
            else:
                says = f"it FLIPS with {s} on every seat"
            worst = max(x["gain"] for x in least["sides"])
            lines.append(f"Least exploitable player: {least['player']} ({s} gains at most {fmt_pp(worst)} "
                         f"points against it): under {least['player']} on every seat ({n0:,} games) "
                         f"{head0}; {says}.")
            out.update(least_games=n0, least_gap=gap0, least_gap_ci95=[lo0, hi0], least_favoured=fav0)
    if ladder:
        lines.append(f"Skill ladder ({_name(o0, sides)}'s win rate, the same player on every seat): " + ", ".join(
            f"{x['player']} {fmt_pct(x['rate'])}% [{fmt_pct(x['lo'])}, {fmt_pct(x['hi'])}]" for x in ladder) + ".")
    out.update(seats=seats, exploitability=expl, ladder=ladder, lines=lines, text=" ".join(lines))
    return out if lines else None


def shipped_exploitability(manifest: Mapping, base_label: str, pol: Mapping, sides) -> dict | None:
    """How exploitable the baseline's players are, from the skill figures shipped for these
    rules (``experiments.skillfig``): a line for the verdict, or "not measured for these
    rules". None for a game with no rules hash in the manifest or players from
    ``lotr_sim.players`` (whose strength is the question itself)."""
    from lotr_sim.experiments import skillfig
    from lotr_sim.games.players import is_generic
    game = manifest.get("game")
    rules = ((manifest.get("config") or {}).get("hashes") or {}).get(base_label)
    if not game or not rules or any(is_generic(pol.get(s, "")) for s in sides):
        return None
    found = skillfig.lookup(game, rules, {s: pol.get(s) for s in sides})
    if found["status"] != "measured":
        found["text"] = (f"How exploitable these players are: {found['why']} "
                         f"(lotr-sim skill --game {game} measures it).")
        return found
    parts = [f"as {_name(s, sides)} {fmt_pp(x['gain'])} [{fmt_pp(x['lo'])}, {fmt_pp(x['hi'])}]"
             for s, x in found["sides"].items()]
    found["text"] = (f"How exploitable these players are: {found['strong']} gains " + ", ".join(parts)
                     + f" percentage points against them (skill run of {found['date']}, "
                       f"{found['games_per_pairing']:,} games per pairing")
    br = found.get("best_response")
    if br:
        found["text"] += ("; a best response in their own weight family gains " + ", ".join(
            f"as {_name(s, sides)} {fmt_pp(x['gain'])} [{fmt_pp(x['lo'])}, {fmt_pp(x['hi'])}] ({int(x['games']):,} games)"
            for s, x in br.items()) + ").")
    else:
        found["text"] += "; no best response in their weight family measured)."
    return found


def _ci_pct(r: Mapping) -> str:
    return f"{fmt_pct(r['rate'])}% [{fmt_pct(r['lo'])}, {fmt_pct(r['hi'])}]"


def fix_cells(f: Mapping, sides) -> list[str]:
    """One suggested fix (``experiments.fixfig``) as the cells of the verdict's table: the
    change, the first side's rate with the default players, after adaptation (and whether the
    fix holds) and under the search player (taking each of the first two sides in turn)."""
    good = f.get("good")
    gtext = "—" if not good else _ci_pct(good) + ("" if good.get("confirmed", True) else " (not confirmed)")
    ad = f.get("adapted")
    atext = "not checked" if not ad else _ci_pct(ad) + (", holds" if ad.get("holds") else ", does not hold")
    if ad and ad.get("kept") is not None:
        kept = [_name(s, sides) for s in sides if ad["kept"].get(s)]
        atext += f" ({' and '.join(kept)} adapted)" if kept else " (no side's re-tuned weights did better)"
    se = f.get("search")
    stext = "—"
    if se:
        parts = [f"{_ci_pct(se[f'{s}_search'])} as {_name(s, sides)}" for s in list(sides)[:2] if f"{s}_search" in se]
        stext = " / ".join(parts) + (" (search gains > 5 points)" if se.get("flag") else "")
    return [str(f["change"]), gtext, atext, stext]


def fmt_points(x: float) -> str:
    """A share as "N points" (0.01 -> "1 point", 0.015 -> "1.5 points")."""
    v = round(100 * float(x), 6)
    return f"{v:g} point" + ("" if v == 1 else "s")


def fix_command(manifest: Mapping, pol: Mapping | None = None) -> str:
    """The ``lotr-sim fix`` command that searches fixes for a sweep's baseline: its game, and
    its configuration file, ``--set`` values and (when given) players."""
    c = manifest.get("config") if isinstance(manifest.get("config"), dict) else {}
    parts = ["lotr-sim fix", f"--game {manifest.get('game', '<game>')}"]
    if c.get("file"):
        parts.append(f"--config {c['file']}")
    for k, v in (c.get("base_sets") or {}).items():
        parts.append(f"--set {k}={fmt_value(v)}")
    for s, p in (pol or {}).items():
        parts.append(f"--policy {s}={p}")
    return " ".join(parts)


def shipped_fixes(manifest: Mapping, base_label: str, pol: Mapping, sides) -> dict | None:
    """The smallest balancing changes shipped for the baseline's rules and players
    (``experiments.fixfig``): ``lookup``'s answer with the verdict's ``lines`` (a heading
    line and one line per fix, or the closest rule sets when the run found none), or, when
    none are shipped for them, one line saying why with the ``lotr-sim fix`` command that
    finds them. None for a manifest without a game or a rules hash."""
    from lotr_sim.experiments import fixfig
    game = manifest.get("game")
    rules = ((manifest.get("config") or {}).get("hashes") or {}).get(base_label)
    if not game or not rules:
        return None
    found = fixfig.lookup(str(game), str(rules), {s: str(pol.get(s)) for s in sides})
    if found["status"] != "measured":
        players = "players" in found["why"] or "weights" in found["why"]
        found["command"] = fix_command(manifest, {s: pol.get(s) for s in sides} if players else None)
        found["lines"] = [f"Suggested fixes: {found['why']} ({found['command']} finds them"
                          + (" for these)." if found["why"].startswith("the shipped") else ").")]
        return found
    o0n = _name(str(found.get("outcome", "")), sides)
    games = found.get("games") or {}
    found["provenance"] = (f"lotr-sim fix run of {found.get('date', '?')}, seed {found.get('seed', '?')}, "
                           f"{int(games.get('played', 0)):,} games")
    band = f"{o0n} within ±{fmt_points(found['tol'])} of {100 * found['target']:g}%"
    if found["fixes"]:
        lines = [f"Suggested fixes for these rules and players ({band}; {found['provenance']}):"]
        for f in found["fixes"]:
            change, g, a, s = fix_cells(f, sides)
            lines.append(f"- {change}: {o0n} {g} with the default players; "
                         + (f"after adaptation {a}" if f.get("adapted") else "adaptation not checked")
                         + (f"; under search {s}" if f.get("search") else "") + ".")
    else:
        closest = "; ".join(f"{c['change']} ({c['levers']} lever{'s' if c['levers'] > 1 else ''}) {_ci_pct(c)}"
                            for c in found.get("closest") or [])
        lines = [f"Suggested fixes: none found ({band}; {found['provenance']})"
                 + (f"; the closest played: {closest}." if closest else ".")]
    if found.get("search_note"):
        lines.append(f"Suggested fixes: {found['search_note']}.")
    found["lines"] = lines
    return found


#: A skill run's exploitability is an answer once every side's gain has this many games ...
SKILL_MIN_GAMES = 100
#: ... and a 95% half-width of at most this (``lotr-sim skill --half-width``, in points / 100)
SKILL_HALF_WIDTH = 0.03


def _is_skill_run(manifest: Mapping) -> bool:
    from lotr_sim.experiments.store import run_kind
    return bool(manifest) and run_kind(dict(manifest)) == "skill"


def games_needed(var: float, goal: float) -> int:
    """The games a paired gain with per-game variance ``var`` needs for a 95% half-width of
    ``goal`` (in hundreds, at least ``SKILL_MIN_GAMES``)."""
    from lotr_sim.stats import z_value
    need = z_value() ** 2 * max(var, 1e-4) / goal ** 2
    return max(SKILL_MIN_GAMES, int(math.ceil(need / 100.0)) * 100)


def not_yet_an_answer(expl: list[dict], strong: str, goal: float = SKILL_HALF_WIDTH) -> dict | None:
    """None when every side's gain in ``expl`` (``exploitability``) rests on at least
    ``SKILL_MIN_GAMES`` games and has a 95% half-width within ``goal``; else the one sentence
    a skill run's headline says instead of a verdict: not yet an answer, and about how many
    games a pairing would make it one."""
    xs = [x for e in expl for x in e["sides"]]
    if not xs:
        return None
    widest = max((x["hi"] - x["lo"]) / 2 for x in xs)
    fewest = min(x["games"] for x in xs)
    if fewest >= SKILL_MIN_GAMES and widest <= goal + 1e-12:
        return None
    need = max(games_needed(x["var"], goal) for x in xs)
    text = (f"Not yet an answer: {strong}'s gains rest on {fewest:,} games a pairing, its widest 95% interval "
            f"±{100 * widest:.1f} points against a goal of ±{100 * goal:.3g}; about {need:,} games a pairing "
            f"would pin every side's gain to ±{100 * goal:.3g}.")
    return dict(games=fewest, widest=widest, goal=goal, games_needed=need, text=text)


def exploitability(df, sides, outcomes, strong: str) -> list[dict]:
    """For every player P of the pairings besides ``strong`` (the search player): on each
    side, how much more of that side's games ``strong`` wins when it takes that side against
    P than P wins there against itself, ``rate(strong v P) - rate(P v P)``. The two cells play
    the same games, so the interval is the paired one (Bonett-Price, ``sequential.paired_interval``)
    from the row's paired counts (``gain_n``, ``gain_n10``, ``gain_n01``, written by the sweep);
    results written without them get Newcombe's unpaired interval (conservative). Each side
    also gives ``var``, the variance of one game's paired difference (what the games needed
    for a given half-width follow from). Sorted least exploitable first (by the larger of the
    sides' gains)."""
    from lotr_sim.experiments.sequential import paired_interval
    from lotr_sim.stats import newcombe_diff
    cells = pairing_cells(df, sides)
    players = list(dict.fromkeys(p for c in cells for p in c["policies"].values()))
    out = []
    for P in players:
        if P == strong:
            continue
        b = _row_of(df, sides, {x: P for x in sides})
        if b is None:
            continue
        per = []
        for side in sides:
            pol = {x: P for x in sides}
            pol[side] = strong
            a = _row_of(df, sides, pol)
            if a is None:
                break
            win = outcomes[sides.index(side)]
            gn = a.get("gain_n") if hasattr(a, "get") else None
            if gn is not None and not (isinstance(gn, float) and math.isnan(gn)) and int(gn) > 0:
                n, n10, n01 = int(gn), int(a["gain_n10"]), int(a["gain_n01"])
                d = (n10 - n01) / n
                lo, hi = paired_interval(n, n10, n01)
                qp, qm = (n10 + 1) / (n + 2), (n01 + 1) / (n + 2)
                var, paired = qp + qm - (qp - qm) ** 2, True
            else:
                pa, pb = float(a[f"rate_{win}"]), float(b[f"rate_{win}"])
                d, lo, hi = newcombe_diff(int(a[f"wins_{win}"]), int(a["games"]), int(b[f"wins_{win}"]), int(b["games"]))
                var, paired = pa * (1 - pa) + pb * (1 - pb), False
            per.append(dict(side=side, gain=d, lo=lo, hi=hi, rate=float(a[f"rate_{win}"]),
                            base_rate=float(b[f"rate_{win}"]), games=int(a["games"]),
                            var=float(var), paired=paired))
        if len(per) == len(sides):
            out.append(dict(player=P, sides=per, worst=max(x["gain"] for x in per)))
    out.sort(key=lambda e: (e["worst"], sum(x["gain"] for x in e["sides"])))
    return out


def skill_ladder(df, sides, outcomes, strong: str | None = None, order: Sequence[str] | None = None) -> list[dict]:
    """The first outcome's win rate with every seat held by the same player, for each
    player of the pairings in ``order`` (the pairings' players as given, weak to strong;
    else as played) with ``strong`` last: how the answer moves as play gets stronger."""
    cells = pairing_cells(df, sides)
    players = list(dict.fromkeys(list(order or []) + [p for c in cells for p in c["policies"].values()]))
    if strong in players:
        players = [p for p in players if p != strong] + [strong]
    out = []
    for P in players:
        for c in cells:
            if all(c["policies"].get(x) == P for x in sides):
                out.append(dict(player=P, rate=c["rate"], lo=c["lo"], hi=c["hi"], games=c["games"]))
                break
    return out


def _range(games) -> str:
    lo, hi = int(min(games)), int(max(games))
    return f"{lo:,} games" if lo == hi else f"{lo:,}–{hi:,} games"


def paired_precision(df, spec: Mapping, o0n: str = "Good") -> dict:
    """The paired mode's precision (``experiments.sweep``): the 95% half-width the baseline
    reached on its own rate, the largest the levers reached on their paired change against
    the baseline and the pairings on their own rate, each beside its goal and the games it
    took; and the points stopped at ``max_games`` short of their goal (``missed``)."""
    o0 = df["half_width"].astype(float)
    parts, out = [], {}
    for key, mask, what in (
            ("baseline", df["point"] == 0, f"baseline {o0n}'s win rate"),
            ("levers", (df["precision_on"] == "paired") & (df["point"] != 0),
             "every lever's paired change against the baseline"),
            ("pairings", (df["varied"] == "pairings") & (df["precision_on"] == "rate"),
             "every AI pairing's win rate"),
            ("gains", df["precision_on"] == "gain",
             "every side's paired gain of the judge over the player against itself")):
        if not mask.any():
            continue
        hw, goal = float(o0[mask].max()), float(df.loc[mask, "target_half_width"].max())
        out[key] = dict(half_width=hw, target=goal, games=[int(df.loc[mask, "games"].min()),
                                                           int(df.loc[mask, "games"].max())])
        within = "" if key == "baseline" else "within "
        # rounded down, so that a half-width within its goal never prints above it (2.00 for 1.9996)
        parts.append(f"{what} {within}±{math.floor(10000 * hw) / 100:.2f} (goal ±{100 * goal:.3g}; "
                     f"{_range(df.loc[mask, 'games'])})")
    text = ("Precision (95% half-widths, percentage points; each point played until it met its goal): "
            + "; ".join(parts) + f"; {int(df['games'].sum()):,} games in all.")
    missed = df[~df["precision_met"].astype(bool)]
    if len(missed):
        text += (f" Goal missed at {len(missed)} of {len(df)} points (stopped at --max-games "
                 f"{spec.get('max_games', '?')}): " + ", ".join(str(x) for x in missed["label"]) + ".")
    return dict(mode="paired", missed=[str(x) for x in missed["label"]], max_games=spec.get("max_games"),
                games=int(df["games"].sum()), text=text, **out)


def verdict(df, manifest: Mapping | None = None, target: str | None = None) -> dict:
    """The verdict of a sweep (module docstring) as a JSON-able dict with ``lines``."""
    manifest = dict(manifest or {})
    target = check_target(target or manifest.get("target"))
    if not len(df) or not (df["point"] == 0).any():
        raise LotrSimError("the results have no baseline point (point 0)")
    outcomes, sides = labels(df, manifest)
    o0, o1 = outcomes[0], outcomes[1] if len(outcomes) > 1 else outcomes[0]
    o0n, o1n = _name(o0, sides), _name(o1, sides)
    base = df[df["point"] == 0].iloc[0]
    n = int(base["games"])
    rates = {o: dict(wins=int(base[f"wins_{o}"]), rate=float(base[f"rate_{o}"]),
                     lo=float(base[f"lo_{o}"]), hi=float(base[f"hi_{o}"])) for o in outcomes}
    gap, glo, ghi = parity_gap(n, rates[o0]["wins"], rates[o1]["wins"], target)
    ttext = TARGET_TEXT[target].format(o0=o0n, o1=o1n)
    fair = bool(glo <= 0.0 <= ghi)
    if fair:
        favoured = None
        e = _entry(None, n, rates[o0]["wins"], rates[o1]["wins"], target)
        sentence = f"Fair within the interval: {_gap_text(e, target, o0n, o1n)} ({ttext})."
    else:
        favoured = o0 if gap > 0 else o1
        fav, other = (o0n, o1n) if gap > 0 else (o1n, o0n)
        r0, r1 = (rates[o0]["rate"], rates[o1]["rate"]) if gap > 0 else (rates[o1]["rate"], rates[o0]["rate"])
        sentence = favoured_text(fav, other, gap, glo, ghi, target, r0, r1)[:-1] + f"; {ttext})."
    pol = manifest.get("policies", {}).get("baseline") or _json_field(base.get("policies", "{}"))
    lines = [sentence,
             f"Baseline ({n:,} games): "
             + ", ".join(f"{_name(o, sides)} {fmt_pct(v['rate'])}% [{fmt_pct(v['lo'])}, {fmt_pct(v['hi'])}]"
                         for o, v in rates.items()) + " (95% Wilson intervals).",
             f"AI players: {_players(pol, sides)}."]
    # the smallest balancing changes shipped for these rules and players, right under the headline
    fixes = None if _is_skill_run(manifest) else shipped_fixes(manifest, str(base.get("label", "baseline")), pol, sides)
    if fixes is not None:
        lines += fixes["lines"]

    pairings = None
    if played_pairings(df):
        cells = pairing_cells(df, sides)
        if len(cells) > 1:
            lo_c = min(cells, key=lambda c: c["rate"])
            hi_c = max(cells, key=lambda c: c["rate"])
            text = (f"Depends on the AI: {o0n} wins {100 * lo_c['rate']:.0f}%–{100 * hi_c['rate']:.0f}% "
                    f"across {len(cells)} pairings (lowest {_players(lo_c['policies'], sides)}: "
                    f"{fmt_pct(lo_c['rate'])}% [{fmt_pct(lo_c['lo'])}, {fmt_pct(lo_c['hi'])}]; highest "
                    f"{_players(hi_c['policies'], sides)}: {fmt_pct(hi_c['rate'])}% "
                    f"[{fmt_pct(hi_c['lo'])}, {fmt_pct(hi_c['hi'])}]).")
            serious = [c for c in cells if "random" not in c["policies"].values()]
            if 1 < len(serious) < len(cells):
                # a random player is a floor, not a designer's opponent: give the spread without it too
                text = text[:-1] + (f"; without the random player {100 * min(c['rate'] for c in serious):.0f}%–"
                                    f"{100 * max(c['rate'] for c in serious):.0f}% across {len(serious)}).")
            if any(c.get("draw", 0.0) > DRAWS_NEGLIGIBLE for c in cells):
                # draws are not negligible: the first side's rate alone hides them
                dmax = max(cells, key=lambda c: c["draw"])
                dmin = min(cells, key=lambda c: c["draw"])
                text += (f" Draws: {fmt_pct(dmin['draw'])}%–{fmt_pct(dmax['draw'])}% across the pairings (most with "
                         f"{_players(dmax['policies'], sides)}: {fmt_pct(dmax['draw'])}% "
                         f"[{fmt_pct(dmax['draw_lo'])}, {fmt_pct(dmax['draw_hi'])}]).")
            pairings = dict(cells=cells, min=lo_c["rate"], max=hi_c["rate"], spread=hi_c["rate"] - lo_c["rate"],
                            lowest=lo_c["policies"], highest=hi_c["policies"], text=text,
                            without_random=[min(c["rate"] for c in serious), max(c["rate"] for c in serious)]
                            if 1 < len(serious) < len(cells) else None)
            lines.append(text)

    order = (manifest.get("spec") or {}).get("pairings")
    order = order if isinstance(order, list) else None
    skill = skill_check(df, sides, outcomes, target, pol, fair, favoured, order,
                        (manifest.get("spec") or {}).get("judge")) if pairings else None
    if skill and skill.get("exploitability") and _is_skill_run(manifest):
        goal = float((manifest.get("spec") or {}).get("gain_precision") or SKILL_HALF_WIDTH)
        short = not_yet_an_answer(skill["exploitability"], skill["player"], goal)
        if short is not None:        # a skill run's headline is its exploitability, once it is one
            sentence = short["text"]
            lines[0] = sentence
            skill["answer"] = short
        else:
            skill["answer"] = None
    exploit = None
    if not skill:
        exploit = shipped_exploitability(manifest, str(base.get("label", "baseline")), pol, sides)
        if exploit is not None:
            lines.append(exploit["text"])
        gg = _row_of(df, sides, {s: "greedy" for s in sides}) if pairings else None
        if gg is not None and any(pol.get(s) != "greedy" for s in sides):
            lines.append(f"Under greedy v greedy ({int(gg['games']):,} games): {o0n} {fmt_pct(float(gg[f'rate_{o0}']))}% "
                         f"[{fmt_pct(float(gg[f'lo_{o0}']))}, {fmt_pct(float(gg[f'hi_{o0}']))}].")
    if skill:
        lines += skill["lines"]
    elif pairings and (exploit is None or exploit.get("status") != "measured"):
        lines.append("Stronger play not checked: no search player among these pairings "
                     f"(run lotr-sim skill --game {manifest.get('game', '<game>')}).")

    precision = None
    spec = manifest.get("spec") or {}
    if "precision_on" in df and "half_width" in df:
        precision = paired_precision(df, spec, o0n)
        lines.append(precision["text"])
    elif "precision_met" in df:
        missed = df[~df["precision_met"].astype(bool)]
        if len(missed):
            text = (f"Precision target ±{100 * spec.get('precision', float('nan')):.2g} percentage points "
                    f"missed at {len(missed)} of {len(df)} points (stopped at --max-games "
                    f"{spec.get('max_games', '?')}): " + ", ".join(str(x) for x in missed["label"]) + ".")
            precision = dict(missed=[str(x) for x in missed["label"]], precision=spec.get("precision"),
                             max_games=spec.get("max_games"), text=text)
            lines.append(text)

    summary = list(lines)   # the report gives the levers and the parities as tables after the pictures
    lv = levers(df, o0)
    adaptation = None
    if manifest.get("adaptation"):      # the players adapted to the largest levers (sweep_adapt)
        ad = manifest["adaptation"]
        by_label = {a["label"]: a for a in ad.get("levers") or []}
        for x in lv:
            if x["label"] in by_label:
                x["adapted"] = by_label[x["label"]]
        adaptation = {**ad, "text": adaptation_text(ad, o0n)}
    levers_title = (f"Levers, ranked by their largest paired change of {o0n}'s win rate against the "
                    f"baseline (percentage points, 95% interval):")
    if lv:
        lines.append(levers_title)
        lines += [f"- {x['label']}: {lever_text(x, o0n)}" for x in lv]
    if adaptation is not None:
        lines.append(adaptation["text"])

    parity, cells = [], None
    if _is_grid(df):
        gp = grid_parity(df, swept_dims(df, manifest), o0, o1, target, o0n, o1n)
        parity, cells = gp["lines"], gp["cells"]
    for d in ([] if cells is not None else swept_dims(df, manifest)):
        entries = _dim_parity_entries(df, d, o0, o1, target)
        if not entries:
            continue
        p = parity_of(entries)
        integer = is_integer([e["value"] for e in entries])
        p.update(param=d, integer=integer, text=parity_text(d, p, target, o0n, o1n, integer))
        parity.append(p)
    parity_title = f"Closest to parity ({ttext}):"
    if cells:
        lines.append(parity_title)
        lines += [f"- {t}" for t in gp["texts"]] + [f"- {p['text']}" for p in parity]
    elif parity:
        lines.append(parity_title)
        lines += [f"- {p['text']}" for p in parity]

    return dict(target=target, target_text=ttext, outcome=o0, games=n, baseline=rates,
                gap=gap, gap_ci95=[glo, ghi], fair=fair, favoured=favoured, sentence=sentence,
                players=dict(pol), levers=lv, adaptation=adaptation, parity=[_jsonable(p) for p in parity],
                cells=_jsonable(cells), pairings=pairings,
                skill=_jsonable(skill) if skill else None, exploitability=exploit, suggested_fixes=fixes,
                precision=precision, lines=lines, summary=summary, levers_title=levers_title,
                parity_title=parity_title, names=[o0n, o1n])


def _jsonable(o):
    if isinstance(o, dict):
        return {k: _jsonable(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_jsonable(v) for v in o]
    if isinstance(o, (np.bool_,)):
        return bool(o)
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    return o
