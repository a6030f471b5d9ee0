"""Helpers shared by the command modules: one-line errors, JSON output, common options."""
from __future__ import annotations

import functools
import json
import sys
from typing import Any, Callable

import typer

from lotr_sim.errors import LotrSimError


def fail(message: str, code: int = 2) -> "typer.Exit":
    typer.echo(f"lotr-sim: error: {message}", err=True)
    return typer.Exit(code)


def cli_errors(func: Callable) -> Callable:
    """Turn a LotrSimError (or an interrupted run) into one line on stderr and exit != 0."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except LotrSimError as e:
            raise fail(str(e), code=getattr(e, "exit_code", 2)) from None
        except KeyboardInterrupt:
            raise fail("interrupted", code=130) from None

    return wrapper


def print_json(obj: Any) -> None:
    sys.stdout.write(json.dumps(obj, indent=2, default=_json_default) + "\n")


def _json_default(o: Any) -> Any:
    try:
        import numpy as np
        if isinstance(o, np.integer):
            return int(o)
        if isinstance(o, np.floating):
            return float(o)
        if isinstance(o, np.ndarray):
            return o.tolist()
    except ImportError:  # pragma: no cover
        pass
    raise TypeError(f"not JSON serialisable: {type(o).__name__}")
