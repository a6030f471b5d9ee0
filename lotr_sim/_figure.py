"""Figures without pyplot state, for every module that draws one (reports, a game's own
analyses): made with constrained layout, written as PNG with a write failure as one error."""
from __future__ import annotations

from pathlib import Path
from typing import Any


def new_figure(figsize: tuple[float, float] = (6, 4)) -> Any:
    """A ``Figure`` with constrained layout (room for outside legends), not tied to pyplot."""
    from matplotlib.figure import Figure
    return Figure(figsize=figsize, layout="constrained")


def save_figure(fig: Any, path: str | Path, tight: bool = False) -> None:
    """Write a figure (PNG, 100 dpi); a write failure is one clear error. The figure stays
    usable (a notebook may still show it); it holds no pyplot state to close."""
    from lotr_sim.errors import LotrSimError

    try:
        if tight:
            fig.tight_layout()
        fig.savefig(path, dpi=100)
    except OSError as e:
        raise LotrSimError(f"cannot write plot {path}: {e.strerror or e}") from None
