"""Bar chart of a battle's survivor distribution (``lotr-sim battle --plot``)."""
from __future__ import annotations

from pathlib import Path

from lotr_sim.reports.plots import new_figure, save_figure


def plot_survivors(rep: dict, path: Path | None = None):
    """Exact (and Monte Carlo) survivor distributions; returns the Figure (saved when ``path``)."""
    import numpy as np

    ex, mc, b = rep["exact"], rep.get("monte_carlo"), rep["battle"]
    fig = new_figure((10, 4))
    axes = fig.subplots(1, 2)
    for ax, side in zip(axes, ("attacker", "defender")):
        p = np.array(ex[f"{side}_survivors"])
        k = np.arange(len(p))
        w = 0.4 if mc else 0.8
        ax.bar(k - (w / 2 if mc else 0), p, width=w, label="exact")
        if mc:
            ax.bar(k + w / 2, mc[f"{side}_survivors"], width=w, label=f"Monte Carlo ({mc['games']:,})")
        ax.set_xlabel(f"{side} units left")
        ax.set_ylabel("probability")
        ax.set_xticks(k)
        ax.legend()
    fig.suptitle(f"{b['rules']}: {b['attackers']} v {b['defenders']} "
                 f"(+{b['attack_bonus']}/+{b['defence_bonus']}); P(attacker takes) = {ex['attacker_wins']:.3f}")
    if path is not None:
        save_figure(fig, path)
    return fig
