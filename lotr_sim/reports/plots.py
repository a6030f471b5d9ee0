"""Plots of a sweep's results table, drawn on ``matplotlib.figure.Figure`` objects: no
pyplot state and no backend switch, so a notebook keeps its inline backend and can show the
returned figures (``figures(df, outcomes, reasons)``). One unit everywhere: percent of games,
changes in percentage points.

* win rate of the first outcome (Good) against each swept dimension with 95% Wilson
  intervals and the 50% line (``winrate_<dim>.png``): numeric dimensions as a line with a
  band (integer ticks for integer parameters), booleans and choices as categories (points
  with interval whiskers, no line); in a grid sweep one line (or series of points) per
  value of another swept dimension (the first other one; games pooled over any further
  ones), each named in the legend, the baseline's cell framed;
* a tornado chart: how far each dimension moves that win rate from the baseline (paired Δ,
  smallest to largest value of the dimension, with intervals) (``tornado.png``);
* a grid's two-lever picture: that win rate over its two levers (or the pair with the
  largest effect, the others held) as a heat map with the parity contour, the cells whose
  interval holds parity and the rulebook default's cell marked (``two_levers.png``,
  ``two_lever_plot``);
* the skill ladder: Good's win rate with the same player on every seat, weak to strong
  (``ladder.png``, when the verdict has one: a skill run);
* Good's win rate under every pairing of policies as a heat map with the rates written in
  the cells, players weak to strong down the rows and along the columns
  (``tables.pairing_order``: by measured strength) (``pairings.png``, when the sweep
  played them);
* game-length histograms per dimension (``lengths_<dim>.png``);
* end-reason shares per point (``reasons.png``).

Legends sit outside the axes, never over data.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np

from lotr_sim._figure import new_figure, save_figure
from lotr_sim.experiments.verdict import (dim_entries, grid_cells, is_integer, is_numeric, played_pairings,
                                          swept_dims)


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)


def _name(o: str) -> str:
    """A side's name as a name ("Good", "Frodo"); the draw outcome stays "draw"."""
    return o if o == "draw" else o.capitalize()


def _legend_outside(ax, fig=None) -> None:
    """The legend to the right of the axes (constrained layout makes room)."""
    h, labels = ax.get_legend_handles_labels()
    if h:
        ax.legend(h, labels, fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0)


def _fmt(v) -> str:
    if isinstance(v, (bool, np.bool_)):
        return "true" if v else "false"
    return str(v)


def dim_table(df) -> dict[str, list[tuple]]:
    """{dim: [(value, row), ...]} for one-at-a-time sweeps (baseline included, numbers sorted)."""
    if "dims" not in df:
        return {}
    return {d: dim_entries(df, d) for d in swept_dims(df)}


def plot_winrate(dim, items, o0, path=None):
    """Good's win rate against one dimension; returns the Figure (saved when ``path``)."""
    fig = new_figure((7, 4))
    ax = fig.subplots()
    xs_raw = [v for v, _ in items]
    numeric = is_numeric(xs_raw)
    rate = 100 * np.array([r[f"rate_{o0}"] for _, r in items], dtype=float)
    lo = 100 * np.array([r[f"lo_{o0}"] for _, r in items], dtype=float)
    hi = 100 * np.array([r[f"hi_{o0}"] for _, r in items], dtype=float)
    if numeric and len(set(map(float, xs_raw))) == len(xs_raw):
        pos = np.array([float(x) for x in xs_raw])
        ax.fill_between(pos, lo, hi, alpha=0.25, label="95% Wilson interval")
        ax.plot(pos, rate, "o-", label=f"{_name(o0)} win rate")
        if is_integer(xs_raw):
            ax.set_xticks(pos)
            ax.set_xticklabels([str(int(x)) for x in pos])
    else:
        # booleans and choices are categories: points with whiskers, no line between them
        pos = np.arange(len(xs_raw))
        ax.errorbar(pos, rate, yerr=[rate - lo, hi - rate], fmt="o", capsize=4,
                    label=f"{_name(o0)} win rate (95% interval)")
        ax.set_xticks(pos)
        ax.set_xticklabels([_fmt(x) for x in xs_raw])
        ax.set_xlim(-0.5, len(pos) - 0.5)
    for i, (_, r) in enumerate(items):
        if r["point"] == 0:
            ax.plot([pos[i]], [rate[i]], "s", color="black", ms=8, label="baseline")
    ax.axhline(50, color="red", lw=1, ls="--", label="50%")
    ax.set_xlabel(dim)
    ax.set_ylabel(f"{_name(o0)} win rate (% of games)")
    ax.set_title(f"{_name(o0)} win rate vs {dim}")
    ax.grid(alpha=0.3)
    _legend_outside(ax)
    if path is not None:
        save_figure(fig, path)
    return fig


def plot_winrate_lines(dim, by, lines, o0, path=None, pooled: tuple = ()):
    """Good's win rate against ``dim`` with one series per value of ``by`` (a grid sweep):
    ``lines`` is ``[(by value, [(dim value, row), ...]), ...]``. Numeric ``dim``: a line with
    its 95% Wilson band per series; booleans and choices: points with whiskers, each series
    shifted a little sideways so that the whiskers do not hide each other. The legend (titled
    ``by``) names each series ``by=value``; ``pooled`` names the dimensions whose games each
    point pools. Returns the Figure."""
    fig = new_figure((7, 4))
    ax = fig.subplots()
    xs_all = list(dict.fromkeys(v for _, items in lines for v, _ in items))
    numeric = is_numeric(xs_all)
    if numeric:
        xs_all.sort(key=float)
    else:
        where = {json.dumps(v, default=str): i for i, v in enumerate(xs_all)}
    width = 0.5 / max(len(lines), 1)
    handles, names, base = [], [], None
    for k, (bv, items) in enumerate(lines):
        rate = 100 * np.array([r[f"rate_{o0}"] for _, r in items], dtype=float)
        lo = 100 * np.array([r[f"lo_{o0}"] for _, r in items], dtype=float)
        hi = 100 * np.array([r[f"hi_{o0}"] for _, r in items], dtype=float)
        label = f"{by}={_fmt(bv)}"
        if numeric:
            pos = np.array([float(v) for v, _ in items])
            (h,) = ax.plot(pos, rate, "o-", color=f"C{k % 10}", label=label)
            ax.fill_between(pos, lo, hi, alpha=0.15, color=f"C{k % 10}")
        else:
            pos = np.array([where[json.dumps(v, default=str)] for v, _ in items], dtype=float)
            pos = pos + (k - (len(lines) - 1) / 2) * width
            h = ax.errorbar(pos, rate, yerr=[rate - lo, hi - rate], fmt="o", capsize=3, color=f"C{k % 10}",
                            label=label)
        handles.append(h)
        names.append(label)
        for i, (_, r) in enumerate(items):
            if r["point"] == 0:     # the baseline's cell: a black frame round its point
                (base,) = ax.plot([pos[i]], [rate[i]], "s", mfc="none", mec="black", mew=1.5, ms=11,
                                  zorder=3, label="baseline")
    if numeric and is_integer(xs_all):
        ax.set_xticks([float(x) for x in xs_all])
        ax.set_xticklabels([str(int(float(x))) for x in xs_all])
    elif not numeric:
        ax.set_xticks(range(len(xs_all)))
        ax.set_xticklabels([_fmt(x) for x in xs_all])
        ax.set_xlim(-0.5, len(xs_all) - 0.5)
    ref = ax.axhline(50, color="red", lw=1, ls="--", label="50%")
    ax.set_xlabel(dim)
    ax.set_ylabel(f"{_name(o0)} win rate (% of games)")
    # the title on two (or three) lines, so that long parameter names stay inside the figure
    ax.set_title(f"{_name(o0)} win rate vs {dim}\none {'line' if numeric else 'series'} per {by}"
                 + (f"\n(games pooled over {', '.join(pooled)})" if pooled else ""), fontsize=11)
    ax.grid(alpha=0.3)
    # the series in order, then the baseline's cell and the 50% line
    extra = ([base] if base is not None else []) + [ref]
    ax.legend(handles + extra, names + [x.get_label() for x in extra], fontsize=8, loc="upper left",
              bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0,
              title=f"{by}\n({'bands' if numeric else 'whiskers'}: 95% Wilson intervals)", title_fontsize=8)
    if path is not None:
        save_figure(fig, path)
    return fig


def _value_key(v) -> str:
    """A lever value as a key: the same for a NumPy scalar (a data frame's row) and the
    Python value it holds (a column's values)."""
    return json.dumps(v.item() if isinstance(v, np.generic) else v, default=str)


def _axis_values(values) -> list:
    vals = list(dict.fromkeys(_value_key(v) for v in values))
    vals = [json.loads(v) for v in vals]
    if is_numeric(vals):
        vals.sort(key=float)
    return vals


def two_lever_plot(frame, x: str, y: str, target: str | float = "good50", default: dict | None = None,
                   outcomes: tuple[str, str] = ("good", "evil"), held: dict | None = None, path=None,
                   mark: dict | None = None, mark_label: str = "fix"):
    """The first side's (Good's) win rate over two levers: a heat map of the rule sets in
    ``frame`` (one row per rule set: columns ``x``, ``y``, ``games``, ``wins_<o0>`` and, for
    ``target="equal"``, ``wins_<o1>``; ``outcomes = (o0, o1)``), the rate written in each
    cell, the parity contour (``target``: ``good50``, the rate is 50%, or ``equal``, it equals
    the second side's; drawn through the cells' centres, interpolated linearly), the cells
    whose 95% interval contains parity outlined in green and the rulebook default's cell
    (``default``: its value of ``x`` and ``y``) framed in black. ``held`` names the values
    of any other lever the rule sets share (said under the title). Each lever's values are
    its axis's ticks (numbers sorted). A number as ``target`` is the first side's rate that
    is parity (``lotr-sim fix --target``); ``mark`` (a value of ``x`` and ``y``) puts a star
    on one cell, named ``mark_label`` in the legend. Returns the Figure (saved when ``path``);
    a sweep's grid (``figures``), ``lotr-sim fix`` and the sweep's suggested fixes
    (``best_pair_plot``) draw their pair with it."""
    from matplotlib.patches import Rectangle

    from lotr_sim.experiments.verdict import parity_gap
    from lotr_sim.stats import wilson
    o0, o1 = outcomes
    xs, ys = _axis_values(frame[x]), _axis_values(frame[y])
    key = _value_key
    xi, yi = {key(v): i for i, v in enumerate(xs)}, {key(v): i for i, v in enumerate(ys)}
    rate = np.full((len(ys), len(xs)), np.nan)
    gap = np.full_like(rate, np.nan)
    within = np.zeros_like(rate, dtype=bool)
    for _, r in frame.iterrows():
        i, j = yi[key(r[y])], xi[key(r[x])]
        n, w0 = int(r["games"]), int(r[f"wins_{o0}"])
        w1 = int(r[f"wins_{o1}"]) if f"wins_{o1}" in r else 0
        if isinstance(target, str):
            g, lo, hi = parity_gap(n, w0, w1, target)
        else:
            lo, hi = wilson(w0, n)
            g, lo, hi = w0 / n - target, lo - target, hi - target
        rate[i, j], gap[i, j], within[i, j] = 100 * w0 / n, g, lo <= 0.0 <= hi
    fig = new_figure((max(5.0, 1.1 * len(xs) + 3.2), max(3.6, 0.7 * len(ys) + 2.4)))
    ax = fig.subplots()
    im = ax.imshow(rate, cmap="RdBu", vmin=0, vmax=100, origin="lower", aspect="auto")
    for i in range(len(ys)):
        for j in range(len(xs)):
            if rate[i, j] == rate[i, j]:
                ax.text(j, i, f"{rate[i, j]:.1f}%", ha="center", va="center", fontsize=9,
                        color="white" if abs(rate[i, j] - 50) > 30 else "black")
            if within[i, j]:
                ax.add_patch(Rectangle((j - 0.45, i - 0.45), 0.9, 0.9, fill=False, ec="tab:green", lw=2,
                                       ls="--"))
    handles = []
    # through every cell only: a contour around unplayed (blank) cells would be drawn from guesses
    if len(xs) > 1 and len(ys) > 1 and np.isfinite(gap).all() and np.nanmin(gap) < 0 < np.nanmax(gap):
        cs = ax.contour(np.arange(len(xs)), np.arange(len(ys)), gap, levels=[0.0], colors="black",
                        linewidths=1.5)
        handles.append((cs.legend_elements()[0][0], "parity"))
    if default is not None and key(default.get(x)) in xi and key(default.get(y)) in yi:
        j, i = xi[key(default[x])], yi[key(default[y])]
        ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, ec="black", lw=2.5))
        handles.append((Rectangle((0, 0), 1, 1, fill=False, ec="black", lw=2.5), "rulebook default"))
    if mark is not None and key(mark.get(x)) in xi and key(mark.get(y)) in yi:
        (star,) = ax.plot([xi[key(mark[x])]], [yi[key(mark[y])] + 0.3], "k*", ms=11, linestyle="none")
        handles.append((star, mark_label))
    if within.any():
        handles.append((Rectangle((0, 0), 1, 1, fill=False, ec="tab:green", lw=2, ls="--"),
                        "95% interval holds parity"))
    ax.set_xticks(range(len(xs)))
    ax.set_xticklabels([_fmt(v) for v in xs])
    ax.set_yticks(range(len(ys)))
    ax.set_yticklabels([_fmt(v) for v in ys])
    ax.set_xlabel(x)
    ax.set_ylabel(y)
    parity = ("50%" if target == "good50" else f"as often as {_name(o1)}" if isinstance(target, str)
              else f"{100 * target:g}%")
    ax.set_title(f"{_name(o0)} win rate over two levers\nparity: {_name(o0)} wins {parity}"
                 + (f"; {', '.join(f'{k}={_fmt(v)}' for k, v in held.items())}" if held else ""), fontsize=11)
    fig.colorbar(im, ax=ax, label=f"{_name(o0)} win rate (% of games)")
    if handles:
        fig.legend([h for h, _ in handles], [t for _, t in handles], fontsize=8, loc="outside lower center",
                   ncol=min(len(handles), 3))
    if path is not None:
        save_figure(fig, path)
    return fig


def best_pair_plot(pair: dict, outcome: str = "good", target: float = 0.5, path=None):
    """The best two-lever fix's picture (``experiments.fixfig.best_pair``: its levers,
    defaults, the fix's values and the cells played) drawn by ``two_lever_plot``: Good's
    rate over the two levers with the other levers at their defaults, parity at
    ``target`` (Good's rate), the rulebook default framed and the fix starred. ``lotr-sim
    fix``'s report and a sweep's suggested fixes both draw it. Returns the Figure (saved
    when ``path``)."""
    import pandas as pd
    x, y = pair["levers"]
    o0 = outcome
    key = _value_key
    # a lever's values in its own order (a choice's as the rules list them), not as played
    order = {n: {key(v): i for i, v in enumerate((pair.get("values") or {}).get(n) or [])} for n in (x, y)}
    cells = sorted(pair["cells"], key=lambda c: (order[x].get(key(c["set"][x]), 0), order[y].get(key(c["set"][y]), 0)))
    frame = pd.DataFrame([{x: c["set"][x], y: c["set"][y], "games": int(c["games"]),
                           f"wins_{o0}": int(c["wins"])} for c in cells])
    fig = two_lever_plot(frame, x, y, target=0.5 if target is None else float(target), default=pair["defaults"],
                         outcomes=(o0, "other"), path=None, mark=pair["fix"], mark_label="the fix")
    if path is not None:
        save_figure(fig, path)
    return fig


def grid_pair(df, dims: list[str]) -> tuple[str, str, dict, list]:
    """The two levers of a grid sweep its two-lever picture draws, ``(x, y, held, cells)``:
    with two swept dimensions those two (the first along x); with more, the pair whose
    values move the first outcome's win rate most (the largest spread of the rate along a
    line of the grid through its cells, one dimension moving, summed over the pair), the
    others ``held`` at the baseline's values when those are swept values (else at the
    values of the first cell); ``cells`` the ``(values, row)`` of the cells drawn."""
    cells = grid_cells(df)
    o0 = [c for c in df.columns if c.startswith("rate_")][0]
    if len(dims) == 2:
        return dims[0], dims[1], {}, cells
    spread = {}
    for d in dims:
        lines: dict = {}
        for c, r in cells:
            k = json.dumps([c.get(o) for o in dims if o != d], default=str)
            lines.setdefault(k, []).append(float(r[o0]))
        spread[d] = max((max(v) - min(v) for v in lines.values() if len(v) > 1), default=0.0)
    x, y = sorted(dims, key=lambda d: -spread[d])[:2]
    x, y = [d for d in dims if d in (x, y)]
    base = df[df["point"] == 0]
    bd = json.loads(base.iloc[0]["dims"]) if len(base) else {}
    ref = bd if all(any(c.get(d) == bd.get(d) for c, _ in cells) for d in dims if d not in (x, y)) else cells[0][0]
    held = {d: ref.get(d) for d in dims if d not in (x, y)}
    return x, y, held, [(c, r) for c, r in cells if all(c.get(d) == v for d, v in held.items())]


def plot_tornado(dt, o0, path=None):
    """Tornado chart of the paired changes (percentage points); returns the Figure."""
    spans = []
    for d, items in dt.items():
        others = [(v, r) for v, r in items if r["point"] != 0]
        if not others:
            continue
        deltas = [100 * r[f"delta_{o0}"] for _, r in others]
        los = [100 * r[f"delta_{o0}_lo"] for _, r in others]
        his = [100 * r[f"delta_{o0}_hi"] for _, r in others]
        lo_i, hi_i = int(np.argmin(deltas)), int(np.argmax(deltas))
        # each bar end carries the 95% interval of the point at that end
        ends = [(deltas[j], los[j], his[j]) for j in sorted({lo_i, hi_i})]
        spans.append((d, min(0.0, deltas[lo_i]), max(0.0, deltas[hi_i]), ends,
                      others[lo_i][0], others[hi_i][0]))
    spans.sort(key=lambda s: s[2] - s[1])
    # 6.5 inches wide: the report shows it beside the pairing heat map, about 540 pixels wide
    fig = new_figure((6.5, 0.5 * max(len(spans), 2) + 1.5))
    ax = fig.subplots()
    for i, (d, a, b, ends, va, vb) in enumerate(spans):
        ax.barh(i, b - a, left=a, color="tab:blue", alpha=0.7)
        for x, lo, hi in ends:
            ax.errorbar([x], [i], xerr=[[x - lo], [hi - x]], fmt="none", ecolor="black", capsize=3, lw=1)
        # each end's parameter value beside the bar, clear of its whisker
        if a < 0:
            left = min([a] + [lo for x, lo, _ in ends if x == a])
            ax.annotate(_fmt(va), (left, i), xytext=(-3, 0), textcoords="offset points", fontsize=9,
                        ha="right", va="center")
        if b > 0:
            right = max([b] + [hi for x, _, hi in ends if x == b])
            ax.annotate(_fmt(vb), (right, i), xytext=(3, 0), textcoords="offset points", fontsize=9,
                        ha="left", va="center")
    ax.set_yticks(range(len(spans)))
    ax.set_yticklabels([s[0] for s in spans])
    ax.axvline(0, color="black", lw=1)
    ax.set_xlabel(f"paired change of {_name(o0)}'s win rate vs baseline\n"
                  f"(percentage points; whiskers: 95% intervals)")
    ax.set_title("Which parameter moves the balance most")
    ax.grid(alpha=0.3, axis="x")
    ax.margins(x=0.12)
    if path is not None:
        save_figure(fig, path)
    return fig


def plot_pairings(df, o0, sides, path=None):
    """Heat map of Good's win rate under every pairing of policies, rates in the cells (and
    the draw rate with its 95% interval under it when draws are not negligible,
    ``tables.draws_shown``), players weak to strong from the top row and the left column
    (``tables.pairing_order``); returns the Figure, or None when the sweep played no
    pairings."""
    import pandas as pd

    from lotr_sim.reports.tables import DRAW, draws_shown, pairing_matrix
    rows, cols, cells = pairing_matrix(df, sides)
    if len(cells) < 2:
        return None
    m = np.full((len(rows), len(cols)), np.nan)
    draw = {}
    for (rp, cp), r in cells.items():
        m[rows.index(rp), cols.index(cp)] = 100 * r[f"rate_{o0}"]
        if f"rate_{DRAW}" in r:
            draw[rows.index(rp), cols.index(cp)] = (100 * r[f"rate_{DRAW}"], 100 * r[f"lo_{DRAW}"],
                                                    100 * r[f"hi_{DRAW}"])
    show_draws = draws_shown(pd.DataFrame(list(cells.values())), [o0, DRAW])
    # about 6.5 inches wide for 4 x 4 pairings: the report shows it beside the tornado chart
    fig = new_figure((len(cols) + 2.5, (1.4 if show_draws else 0.9) * len(rows) + 1.8))
    ax = fig.subplots()
    im = ax.imshow(m, cmap="RdBu", vmin=0, vmax=100, aspect="auto")
    for i in range(len(rows)):
        for j in range(len(cols)):
            if m[i, j] == m[i, j]:
                text = f"{m[i, j]:.1f}%"
                if show_draws and (i, j) in draw:
                    d, lo, hi = draw[i, j]
                    text += f"\ndraw {d:.1f}%\n[{lo:.1f}, {hi:.1f}]"
                ax.text(j, i, text, ha="center", va="center", fontsize=9 if show_draws else 10,
                        color="white" if abs(m[i, j] - 50) > 30 else "black")
    ax.set_xticks(range(len(cols)))
    ax.set_xticklabels([str(c) for c in cols])
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([str(r) for r in rows])
    ax.set_xlabel(f"{_name(sides[1])}'s AI (weak to strong)")
    ax.set_ylabel(f"{_name(sides[0])}'s AI (weak to strong)")
    ax.set_title(f"{_name(o0)} win rate (% of games) by AI pairing"
                 + ("\nunder it: draws (% of games, 95% interval)" if show_draws else ""))
    fig.colorbar(im, ax=ax, label=f"{_name(o0)} win rate (% of games)")
    if path is not None:
        save_figure(fig, path)
    return fig


def plot_ladder(ladder: list[dict], o0: str, path=None):
    """The skill ladder (``verdict.skill_ladder``): the first outcome's win rate with the same
    player on every seat, players weak to strong left to right, each with its 95% Wilson
    interval and the rate written beside it; returns the Figure."""
    fig = new_figure((6.5, 4))
    ax = fig.subplots()
    pos = np.arange(len(ladder))
    rate = np.array([100 * x["rate"] for x in ladder], dtype=float)
    lo = np.array([100 * x["lo"] for x in ladder], dtype=float)
    hi = np.array([100 * x["hi"] for x in ladder], dtype=float)
    # players are categories: points with whiskers, no line between them
    ax.errorbar(pos, rate, yerr=[rate - lo, hi - rate], fmt="o", capsize=4,
                label=f"{_name(o0)} win rate (95% interval)")
    for x, y in zip(pos, rate):
        ax.annotate(f"{y:.1f}%", (x, y), xytext=(6, 0), textcoords="offset points", fontsize=9, va="center")
    ax.axhline(50, color="red", lw=1, ls="--", label="50%")
    ax.set_xticks(pos)
    ax.set_xticklabels([str(x["player"]) for x in ladder])
    ax.set_xlim(-0.5, len(pos) - 0.5)
    ax.set_xlabel("the same player on every seat (weak to strong)")
    ax.set_ylabel(f"{_name(o0)} win rate (% of games)")
    ax.set_title(f"{_name(o0)} win rate up the skill ladder")
    ax.grid(alpha=0.3)
    _legend_outside(ax)
    if path is not None:
        save_figure(fig, path)
    return fig


MAX_SERIES = 12        # game-length lines named one by one in the legend; more: the baseline and a grey bundle
MAX_HEIGHT_IN = 38     # the tallest figure (inches; 3,800 pixels at 100 dpi)


def plot_lengths(dim, items, path=None):
    """Game-length distributions per value of a dimension; returns the Figure. Up to
    ``MAX_SERIES`` values each get a line named in the legend; with more (a large grid) the
    baseline is drawn in colour and every other point as a thin grey line under one legend
    entry, so the legend never outgrows the figure."""
    fig = new_figure((7, 4))
    ax = fig.subplots()
    series = [(v, r, np.asarray(r["rounds_hist"], dtype=float)) for v, r in items]
    series = [(v, r, h) for v, r, h in series if h.sum() > 0]
    bundle = len(series) > MAX_SERIES
    others = 0
    for v, r, h in series:
        x = np.arange(h.size)
        base = r["point"] == 0
        if bundle and not base:
            ax.step(x, 100 * h / h.sum(), where="mid", color="0.6", lw=0.5, alpha=0.5,
                    label=None if others else f"{len(series) - 1} other points")
            others += 1
            continue
        lbl = f"{dim}={_fmt(v)}" + (" (baseline)" if base else "")
        ax.step(x, 100 * h / h.sum(), where="mid", label=lbl, lw=2 if base else 1,
                zorder=3 if bundle else None)
    ax.set_xlabel("rounds")
    ax.set_ylabel("% of games")
    ax.set_title(f"Game length by {dim}")
    from matplotlib.ticker import MaxNLocator
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.grid(alpha=0.3)
    _legend_outside(ax)
    if path is not None:
        save_figure(fig, path)
    return fig


def plot_reasons(df, reasons, path=None):
    """End-reason shares per point (percent of games); legend beside the bars. The figure
    grows with the points up to ``MAX_HEIGHT_IN``; beyond that every k-th point is named."""
    n = len(df)
    height = min(0.3 * n + 2.2, MAX_HEIGHT_IN)
    fig = new_figure((8, height))
    ax = fig.subplots()
    left = np.zeros(n)
    y = np.arange(n)
    for r in reasons:
        v = 100 * df[f"reason_{r}"].to_numpy(dtype=float)
        ax.barh(y, v, left=left, label=r)
        left += v
    step = max(1, int(np.ceil(n / ((height - 2.2) / 0.14))))   # ~0.14 inch a name at 7 points
    ax.set_yticks(y[::step])
    ax.set_yticklabels(df["label"].tolist()[::step], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("% of games" + (f" (one point in {step} named)" if step > 1 else ""))
    ax.set_title("End reasons")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, title="reason")
    if path is not None:
        save_figure(fig, path)
    return fig


ANSWERS = ("tornado", "two_levers", "ladder", "pairings")   # the pictures that answer the report's question come first


def report_sections(figs: list[tuple]) -> tuple[list[tuple], list[tuple], list[tuple]]:
    """``figures()``/``all_plots()`` entries split into the report's sections, each in order:
    the answering pictures (``ANSWERS``: tornado chart, skill ladder, AI-pairing heat map), the
    win rate against each parameter, and the rest (game lengths, end reasons)."""
    answers = [f for f in figs if f[0] in ANSWERS]
    per_param = [f for f in figs if f[0].startswith("winrate_")]
    rest = [f for f in figs if f not in answers and f not in per_param]
    return answers, per_param, rest


def figures(df, outcomes, reasons, sides=None, ladder: list[dict] | None = None,
            target: str = "good50") -> list[tuple[str, object, str]]:
    """Every plot of a sweep as ``(name, Figure, caption)``, in report order (nothing saved):
    the answering pictures first (tornado chart; for a grid of two levers or more the
    two-lever picture of its pair with the largest effect (``two_lever_plot``, parity by
    ``target``); the skill ladder when ``ladder`` has two rungs or more (the verdict's
    ``skill["ladder"]``), AI-pairing heat map), then the win rate against each parameter,
    game lengths and end reasons."""
    o0 = outcomes[0]
    sides = list(sides or outcomes[:2])
    out = []
    dt = dim_table(df)
    grid = bool((df["varied"] == "grid").any()) if "varied" in df else False
    if not grid and dt:
        out.append(("tornado", plot_tornado(dt, o0),
                    f"Tornado chart: the levers ranked by their paired change of {_name(o0)}'s win rate"))
    if grid and len(dt) >= 2:
        import pandas as pd
        x, y, held, cells = grid_pair(df, list(dt))
        frame = pd.DataFrame([{**{d: c.get(d) for d in (x, y)}, **r.drop(labels=[x, y], errors="ignore")}
                              for c, r in cells])
        base = df[df["point"] == 0]
        default = json.loads(base.iloc[0]["dims"]) if len(base) else None
        o1 = outcomes[1] if len(outcomes) > 1 else outcomes[0]
        out.append(("two_levers", two_lever_plot(frame, x, y, target, default, (o0, o1), held),
                    f"{_name(o0)} win rate over {x} and {y}, with the parity contour and the rulebook default"))
    if ladder and len(ladder) > 1:
        out.append(("ladder", plot_ladder(ladder, o0), f"Skill ladder: {_name(o0)}'s win rate as play gets stronger"))
    if played_pairings(df):
        f = plot_pairings(df, o0, sides)
        if f is not None:
            out.append(("pairings", f, f"{_name(o0)} win rate by AI pairing"))
    for d, items in dt.items():
        others = [x for x in dt if x != d]
        if grid and others:
            by, rest = others[0], tuple(others[1:])
            out.append((f"winrate_{_safe(d)}", plot_winrate_lines(d, by, _grid_lines(df, d, by), o0, pooled=rest),
                        f"{_name(o0)} win rate vs {d}, one line per {by}"))
        else:
            out.append((f"winrate_{_safe(d)}", plot_winrate(d, items if not grid else _marginal(df, d), o0),
                        f"{_name(o0)} win rate vs {d}"))
    if not grid:
        for d, items in dt.items():
            out.append((f"lengths_{_safe(d)}", plot_lengths(d, items), f"Game length by {d}"))
    if len(dt) == 0 or grid:
        out.append(("lengths", plot_lengths("point", [(r["label"], r) for _, r in df.iterrows()]), "Game length"))
    out.append(("reasons", plot_reasons(df, reasons), "End reasons"))
    return out


def all_plots(df, outcomes, reasons, pdir: Path, sides=None, ladder=None,
              on_saved=None, target: str = "good50") -> list[tuple[str, Path, str]]:
    """Draw and save every plot into ``pdir``; ``[(name, path, caption)]``. ``on_saved(i, n)``,
    when given, is called after the i-th of n plots is written (progress)."""
    out = []
    figs = figures(df, outcomes, reasons, sides, ladder, target)
    for i, (name, fig, caption) in enumerate(figs, start=1):
        p = Path(pdir) / f"{name}.png"
        save_figure(fig, p)
        out.append((name, p, caption))
        if on_saved is not None:
            on_saved(i, len(figs))
    return out


def _pool(rs: list, point: int):
    """One row for the games of the rows ``rs`` (a grid cell alone keeps its own row, so the
    baseline's cell stays marked): every outcome's wins summed and its Wilson interval
    recomputed; ``point`` set to ``point``."""
    import pandas as pd
    from lotr_sim.stats import wilson
    if len(rs) == 1:
        return rs[0]
    row = dict(rs[0])
    n = sum(int(r["games"]) for r in rs)
    for c in [c for c in rs[0].index if c.startswith("wins_")]:
        o = c[5:]
        k = sum(int(r[c]) for r in rs)
        lo, hi = wilson(k, n)
        row[c], row[f"rate_{o}"], row[f"lo_{o}"], row[f"hi_{o}"] = k, k / n, lo, hi
    row["games"], row["point"] = n, point
    return pd.Series(row)


def _by_value(pairs: list) -> list:
    """``[(value, [rows])]`` grouped by value in first-seen order, numbers sorted."""
    groups: dict = {}
    for v, r in pairs:
        groups.setdefault(json.dumps(v, default=str), (v, []))[1].append(r)
    out = list(groups.values())
    if is_numeric([v for v, _ in out]):
        out.sort(key=lambda t: float(t[0]))
    return out


def _marginal(df, d):
    """Grid sweeps: pool the games of every cell with the same value of ``d``."""
    return [(v, _pool(rs, -1)) for v, rs in _by_value([(c[d], r) for c, r in grid_cells(df)])]


def _grid_lines(df, d, by):
    """Grid sweeps: ``[(value of by, [(value of d, row)])]``, one series per value of ``by``,
    each point pooling the games of the cells with those two values (one cell in a grid of
    two dimensions: its own row, the baseline's when it is that cell)."""
    out = []
    for bv, rows_ in _by_value([(c[by], (c, r)) for c, r in grid_cells(df)]):
        items = _by_value([(c[d], r) for c, r in rows_])
        out.append((bv, [(v, _pool(rs, -1)) for v, rs in items]))
    return out
