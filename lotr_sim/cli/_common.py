"""Helpers shared by the command modules: one-line errors, JSON output, common options."""
from __future__ import annotations

import functools
import json
import sys
from typing import Any, Callable

import typer

from lotr_sim._json import json_default
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
    sys.stdout.write(json.dumps(obj, indent=2, default=json_default) + "\n")
