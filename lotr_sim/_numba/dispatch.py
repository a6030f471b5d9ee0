"""Compile each jitted helper once, not once per constant it is called with.

Numba types a module constant or a literal passed to another ``@njit`` function as
``Literal[int](k)`` and compiles a separate copy of the callee for every distinct value
(shared/notes/numba-measurements.md: "literal arguments to large njit functions compile a
second copy"). The Minas Tirith engine passes side and event codes that way: 153 compiled
signatures for ~75 functions. ``no_literal_dispatch`` makes the dispatchers of a module
type such arguments by their plain type (int64, bool) instead, so each helper compiles
once; LLVM still folds the constants where it inlines. Nothing in these kernels needs a
literal argument (no ``numba.literally``, no constant tuple indexing).
"""
from __future__ import annotations

from numba.core import types
from numba.core.dispatcher import Dispatcher


def _unliteral_template(disp: Dispatcher) -> None:
    orig = disp.get_call_template

    def get_call_template(args, kws):
        return orig(tuple(types.unliteral(a) for a in args),
                    {k: types.unliteral(v) for k, v in kws.items()})

    disp.get_call_template = get_call_template


def no_literal_dispatch(namespace: dict) -> None:
    """Apply to every numba dispatcher defined in a module (pass ``globals()``). Only those
    dispatchers change; on a numba whose dispatchers have no ``get_call_template`` nothing is
    done (the same results, more compiled copies)."""
    for obj in list(namespace.values()):
        if (isinstance(obj, Dispatcher) and hasattr(obj, "get_call_template")
                and not getattr(obj, "_lotr_unliteral", False)):
            _unliteral_template(obj)
            obj._lotr_unliteral = True
