"""Everything of lotr-sim that reaches into numba's internals, in one place.

* ``jit``: the ``njit`` every kernel of the package is defined with: numba's, with the
  kernel's on-disk cache in lotr-sim's own folder (``cache``) and guarded against torn or
  foreign entries. It changes only the dispatchers it makes.
* ``dispatch``: one compiled copy of a helper whatever constants its callers pass (again only
  on lotr-sim's dispatchers).
* ``warmup`` and ``compile_notice``: a first run's compile machinery (a helper process, lean
  callees, one line on stderr). It replaces methods of numba's code library, CPU context and
  dispatcher classes, so it is *off* in the library: only the ``lotr-sim`` program switches it
  on (``want``, then ``activate`` where a game is first loaded), and even then it acts only on
  kernels of the ``lotr_sim`` package; a user's own ``@njit`` functions compile as numba
  compiles them. It is applied only on the numba releases it is known to work on
  (``KNOWN_NUMBA``); on another, the program runs without it (the same results; a first run
  compiles more slowly) and says so in one line with ``lotr-sim -v``.

Importing this package imports neither numba nor any of those modules.
"""
from __future__ import annotations

import os
import sys

#: numba releases (major, minor) the first-run machinery (``warmup``) is tested on
KNOWN_NUMBA: tuple[tuple[int, int], ...] = ((0, 68),)

_state = {"wanted": False, "verbose": False, "active": None}


#: The contract's kernels whose compiles always get numba's full module passes: the ones Python
#: calls in the search player's loop or for whole games. ``lotr_sim._numba.warmup`` compiles any other
#: kernel met inside another compile lean (per-function passes only; the caller's module
#: passes optimise it where it is inlined). choose_nb, to_move_nb, record_nb and invariant_nb
#: may be lean: Python calls them once per step or per game. Measured: with
#: legal/apply/scores lean too, LOTR Risk's search as Good used ~13% more CPU per game.
FULLY_OPTIMISED = ("new_game_nb", "legal_nb", "apply_nb", "scores_nb", "run_until_nb", "simulate_nb",
                   "playouts_nb", "determinize_nb")
#: The contract's kernels Python calls once per step or game, which may run lean.
MAY_BE_LEAN = ("choose_nb", "to_move_nb", "record_nb", "invariant_nb")

def numba_release(version: str | None = None) -> tuple[int, int]:
    """The (major, minor) of ``version`` (default: the installed numba's)."""
    if version is None:
        import numba
        version = numba.__version__
    parts = version.split(".")
    try:
        return int(parts[0]), int("".join(ch for ch in parts[1] if ch.isdigit()) or 0)
    except (IndexError, ValueError):
        return (0, 0)


def machinery_known(version: str | None = None) -> bool:
    """Whether the first-run machinery is known to work on numba ``version`` (the installed one
    by default)."""
    return numba_release(version) in KNOWN_NUMBA


def want(verbose: bool = False) -> None:
    """Ask for the first-run machinery in this process (the ``lotr-sim`` program does at start-up;
    nothing is applied before a game is loaded, ``activate``). ``verbose``: ``activate`` says
    on stderr, in one line, what it applied or why it skipped it."""
    _state["wanted"] = True
    _state["verbose"] = _state["verbose"] or verbose


def set_verbose(on: bool) -> None:
    """``lotr-sim -v``: ``activate`` says on stderr, in one line, what it applied or skipped."""
    _state["verbose"] = bool(on)


def wanted() -> bool:
    """Whether this process asked for the first-run machinery (``want``)."""
    return bool(_state["wanted"])


def activate() -> bool:
    """Apply the first-run machinery if this process asked for it (``want``): the compile
    helper and lean callees (``warmup``, each with its own switch: ``LOTR_SIM_COMPILE_HELPER``,
    ``LOTR_SIM_LEAN_CALLEES``) and the compile notice. Idempotent; returns whether it is on.
    On a numba release it is not known to work on nothing is applied."""
    if not _state["wanted"]:
        return False
    if _state["active"] is not None:
        return bool(_state["active"])
    import numba

    from lotr_sim._numba import compile_notice, warmup

    compile_notice.want()
    compile_notice.install()
    if not machinery_known():
        _state["active"] = False
        if _state["verbose"]:
            print(f"lotr-sim: numba {numba.__version__}: first-run compile helper and lean callees skipped "
                  f"(known to work on numba {', '.join('%d.%d' % v for v in KNOWN_NUMBA)}; results are the "
                  f"same, a first run compiles more slowly)", file=sys.stderr, flush=True)
        return False
    warmup.install(keep=FULLY_OPTIMISED)
    _state["active"] = True
    if _state["verbose"]:
        helper = "on" if warmup.enabled() else f"off ({warmup.ENV_SWITCH}={os.environ.get(warmup.ENV_SWITCH)})"
        lean = "on" if warmup.lean_enabled() else f"off ({warmup.LEAN_SWITCH}={os.environ.get(warmup.LEAN_SWITCH)})"
        print(f"lotr-sim: numba {numba.__version__}: first-run compile helper {helper}, lean callees {lean}",
              file=sys.stderr, flush=True)
    return True


def enable() -> bool:
    """``want`` and ``activate`` at once: the first-run machinery in this process now, as the
    ``lotr-sim`` program has it (for tests and measurements of that path)."""
    want()
    return activate()
