"""Matplotlib plots (Agg backend) of a sweep's results table:

* win rate of the first outcome (Good) against each swept dimension, with the 95% Wilson
  band and the 50% line (``winrate_<dim>.png``);
* a tornado chart: how far each dimension moves that win rate from the baseline (paired Δ,
  smallest to largest value of the dimension, with intervals) (``tornado.png``);
* game-length histograms per dimension (``lengths_<dim>.png``);
* end-reason shares per point (``reasons.png``).
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np


def _plt():
    import matplotlib
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt
    return plt


def save_figure(fig, path, tight: bool = True) -> None:
    """Lay out, write (PNG, 100 dpi) and close a figure; a write failure is one clear error."""
    from lotr_sim.errors import LotrSimError

    plt = _plt()
    try:
        if tight:
            fig.tight_layout()
        fig.savefig(path, dpi=100)
    except OSError as e:
        raise LotrSimError(f"cannot write plot {path}: {e.strerror or e}") from None
    finally:
        plt.close(fig)


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)


def _as_number(vals):
    try:
        return [float(v) for v in vals], True
    except (TypeError, ValueError):
        return list(vals), False


def dim_table(df) -> dict[str, list[tuple]]:
    """{dim: [(value, row), ...]} for one-at-a-time sweeps (baseline included, sorted)."""
    out: dict[str, list] = {}
    if "dims" not in df:
        return out
    base = df[df["point"] == 0]
    dims = list(json.loads(base.iloc[0]["dims"]).keys()) if len(base) else []
    grid = (df["varied"] == "grid").any()
    for d in dims:
        sel = df if grid else df[(df["varied"] == d) | (df["point"] == 0)]
        items = []
        for _, r in sel.iterrows():
            items.append((json.loads(r["dims"])[d], r))
        vals, numeric = _as_number([v for v, _ in items])
        order = np.argsort(vals, kind="stable") if numeric else range(len(items))
        out[d] = [items[i] for i in order]
    return out


def plot_winrate(dim, items, o0, path):
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6, 4))
    xs_raw = [v for v, _ in items]
    xs, numeric = _as_number(xs_raw)
    rate = np.array([r[f"rate_{o0}"] for _, r in items])
    lo = np.array([r[f"lo_{o0}"] for _, r in items])
    hi = np.array([r[f"hi_{o0}"] for _, r in items])
    pos = np.array(xs) if numeric else np.arange(len(xs))
    if numeric and len(set(xs)) == len(xs):
        ax.fill_between(pos, lo, hi, alpha=0.25, label="95% Wilson band")
        ax.plot(pos, rate, "o-", label=f"{o0} win rate")
    else:
        ax.errorbar(pos, rate, yerr=[rate - lo, hi - rate], fmt="o", capsize=4, label=f"{o0} win rate (95%)")
        ax.set_xticks(pos)
        ax.set_xticklabels([str(x) for x in xs_raw])
    base = [i for i, (_, r) in enumerate(items) if r["point"] == 0]
    for i in base:
        ax.plot([pos[i]], [rate[i]], "s", color="black", ms=8, label="baseline")
    ax.axhline(0.5, color="red", lw=1, ls="--", label="50%")
    ax.set_xlabel(dim)
    ax.set_ylabel(f"{o0} win rate")
    ax.set_title(f"{o0} win rate vs {dim}")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    save_figure(fig, path)


def plot_tornado(dt, o0, path):
    plt = _plt()
    spans = []
    for d, items in dt.items():
        others = [(v, r) for v, r in items if r["point"] != 0]
        if not others:
            continue
        deltas = [r[f"delta_{o0}"] for _, r in others]
        los = [r[f"delta_{o0}_lo"] for _, r in others]
        his = [r[f"delta_{o0}_hi"] for _, r in others]
        lo_i, hi_i = int(np.argmin(deltas)), int(np.argmax(deltas))
        # each bar end carries the 95% interval of the point at that end
        ends = [(deltas[j], los[j], his[j]) for j in sorted({lo_i, hi_i})]
        spans.append((d, min(0.0, deltas[lo_i]), max(0.0, deltas[hi_i]), ends,
                      others[lo_i][0], others[hi_i][0]))
    spans.sort(key=lambda s: s[2] - s[1])
    fig, ax = plt.subplots(figsize=(7, 0.5 * max(len(spans), 2) + 1.5))
    for i, (d, a, b, ends, va, vb) in enumerate(spans):
        ax.barh(i, b - a, left=a, color="tab:blue", alpha=0.7)
        for x, l, h in ends:
            ax.errorbar([x], [i], xerr=[[x - l], [h - x]], fmt="none", ecolor="black", capsize=3, lw=1)
        if a < 0:
            ax.text(a, i + 0.3, f"{va}", fontsize=7, ha="right")
        if b > 0:
            ax.text(b, i + 0.3, f"{vb}", fontsize=7, ha="left")
    ax.set_yticks(range(len(spans)))
    ax.set_yticklabels([s[0] for s in spans])
    ax.axvline(0, color="black", lw=1)
    ax.set_xlabel(f"paired change of {o0} win rate vs baseline (whiskers: 95% intervals)")
    ax.set_title("Which parameter moves the balance most")
    ax.grid(alpha=0.3, axis="x")
    save_figure(fig, path)


def plot_lengths(dim, items, path):
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6, 4))
    for v, r in items:
        h = np.asarray(r["rounds_hist"], dtype=float)
        if h.sum() == 0:
            continue
        x = np.arange(h.size)
        lbl = f"{dim}={v}" + (" (baseline)" if r["point"] == 0 else "")
        ax.step(x, h / h.sum(), where="mid", label=lbl, lw=2 if r["point"] == 0 else 1)
    ax.set_xlabel("rounds")
    ax.set_ylabel("share of games")
    ax.set_title(f"Game length by {dim}")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    save_figure(fig, path)


def plot_reasons(df, reasons, path):
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 0.3 * len(df) + 1.5))
    left = np.zeros(len(df))
    y = np.arange(len(df))
    for r in reasons:
        v = df[f"reason_{r}"].to_numpy(dtype=float)
        ax.barh(y, v, left=left, label=r)
        left += v
    ax.set_yticks(y)
    ax.set_yticklabels(df["label"].tolist(), fontsize=7)
    ax.invert_yaxis()
    ax.set_xlabel("share of games")
    ax.set_title("End reasons")
    ax.legend(fontsize=8, loc="lower right")
    save_figure(fig, path)


def all_plots(df, outcomes, reasons, pdir: Path) -> list[tuple[str, Path, str]]:
    o0 = outcomes[0]
    out = []
    dt = dim_table(df)
    grid = (df["varied"] == "grid").any()
    for d, items in dt.items():
        p = pdir / f"winrate_{_safe(d)}.png"
        plot_winrate(d, items if not grid else _marginal(items, d), o0, p)
        out.append((d, p, f"{o0} win rate vs {d}"))
    if not grid and dt:
        p = pdir / "tornado.png"
        plot_tornado(dt, o0, p)
        out.append(("tornado", p, "Tornado chart"))
    for d, items in dt.items():
        if grid:
            break
        p = pdir / f"lengths_{_safe(d)}.png"
        plot_lengths(d, items, p)
        out.append((f"lengths_{d}", p, f"Game length by {d}"))
    if len(dt) == 0 or grid:
        p = pdir / "lengths.png"
        plot_lengths("point", [(r["label"], r) for _, r in df.iterrows()], p)
        out.append(("lengths", p, "Game length"))
    p = pdir / "reasons.png"
    plot_reasons(df, reasons, p)
    out.append(("reasons", p, "End reasons"))
    return out


def _marginal(items, d):
    """Grid sweeps: pool the games of every point with the same value of ``d``."""
    import pandas as pd
    from lotr_sim.experiments.stats import wilson
    groups: dict = {}
    for v, r in items:
        if r["point"] == 0 and r["varied"] != "grid":
            continue
        groups.setdefault(str(v), (v, []))[1].append(r)
    out = []
    for key, (v, rs) in groups.items():
        row = dict(rs[0])
        n = sum(int(r["games"]) for r in rs)
        for c in [c for c in rs[0].index if c.startswith("wins_")]:
            o = c[5:]
            k = sum(int(r[c]) for r in rs)
            lo, hi = wilson(k, n)
            row[f"rate_{o}"], row[f"lo_{o}"], row[f"hi_{o}"] = k / n, lo, hi
        row["point"] = -1
        out.append((v, pd.Series(row)))
    vals, numeric = _as_number([v for v, _ in out])
    order = np.argsort(vals, kind="stable") if numeric else range(len(out))
    return [out[i] for i in order]
