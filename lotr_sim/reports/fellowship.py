"""The Fellowship's journey (LR-10) drawn and tabled: the turns worth a row of their own and a
bar chart of the exact law beside the Monte Carlo one, from ``FellowshipResult.as_dict()``
(what ``lotr-sim fellowship --json`` prints). Used by the CLI and by notebooks."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from lotr_sim.reports.plots import new_figure, save_figure

#: Table rows: every number of turns until the exact upper tail is below this; the rest pooled.
SHOW_TAIL = 1e-4


def shown_turns(ex: dict) -> tuple[list[int], int | None]:
    """The turns given a row of their own, and the first turn of the pooled last row."""
    dist = {int(t): p for t, p in ex["distribution"].items()}
    ts = sorted(dist)
    left = 1.0
    rows = []
    for t in ts:
        rows.append(t)
        left -= dist[t]
        if left < SHOW_TAIL:
            break
    nxt = rows[-1] + 1
    return rows, (nxt if nxt <= ts[-1] else None)


def plot_fellowship(rep: dict, path: Path | None = None):
    """Bar chart of the exact (and Monte Carlo) law of the number of turns; returns the Figure
    (saved, headless, when ``path`` is given)."""
    ex, mc = rep["exact"], rep.get("monte_carlo")
    rows, _ = shown_turns(ex)
    t = np.array(rows)
    pe = np.array([ex["distribution"][str(k)] for k in rows])
    fig = new_figure((9, 4))
    ax = fig.subplots()
    w = 0.4 if mc else 0.8
    ax.bar(t - (w / 2 if mc else 0), pe, width=w, label="exact")
    if mc:
        pm = np.array([mc["distribution"].get(str(k), {"p": 0.0})["p"] for k in rows])
        lo = np.array([mc["distribution"].get(str(k), {"ci95": [0, 0]})["ci95"][0] for k in rows])
        hi = np.array([mc["distribution"].get(str(k), {"ci95": [0, 0]})["ci95"][1] for k in rows])
        ax.bar(t + w / 2, pm, width=w, label=f"Monte Carlo ({mc['games']:,})",
               yerr=np.vstack([np.clip(pm - lo, 0, None), np.clip(hi - pm, 0, None)]), capsize=2)
    ax.set_xlabel("player turns until the Ring leaves the path")
    ax.set_ylabel("probability")
    ax.set_xticks(t)
    ax.legend()
    tr = rep["track"]
    fig.suptitle(f"Fellowship (LR-10): {len(tr['names'])} territories, {sum(tr['marked'])} die territories, "
                 f"roll above {tr['roll_above']}; mean {ex['mean']:.3f} turns")
    if path is not None:
        save_figure(fig, path)
    return fig
