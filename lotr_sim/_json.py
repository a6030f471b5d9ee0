"""JSON encoding of NumPy scalars and arrays (shared by the CLI, run traces and the store)."""
from __future__ import annotations

from typing import Any


def json_default(o: Any) -> Any:
    """``json.dumps(..., default=json_default)``: NumPy integers, floats and arrays."""
    import numpy as np  # lazily: the CLI imports this module at start-up

    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")
