"""Named offsets into a flat array: the layout of an engine's state or compiled config.

Every engine keeps its game state (and its compiled rule config) in one flat ``int64``
array, so that kernels take a handful of arrays instead of dozens. The slots used to be
counted by hand (``_o = 64; O_UNITS = _o; _o += MAXT * MAXU; ...``); ``Layout`` does the
counting, refuses a name used twice and can describe itself (for debugging and trace
headers)::

    L = Layout("mt-state")
    S_TURN = L.scalar("turn")
    O_UNITS = L.array("units", MAXT * MAXU)
    L.freeze()
    ST_SIZE = L.size

Offsets are plain Python ``int``s (also ``L.units`` and ``L["units"]``), so a module-level
name bound to one is a compile-time constant inside ``@njit`` code. Numba cannot read the
``Layout`` object itself: bind the offsets to module globals as above.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np


class Field(NamedTuple):
    """One named region of a layout: ``arr[offset : offset + length]``."""
    name: str
    offset: int
    length: int
    scalar: bool


class Layout:
    """Builder of a flat array layout: add scalars and arrays in order, then ``freeze()``."""

    _RESERVED = frozenset({"name", "size", "frozen", "scalar", "array", "freeze", "describe",
                           "view", "fields", "offsets", "length", "field", "pad_to"})

    def __init__(self, name: str, start: int = 0) -> None:
        if int(start) < 0:
            raise ValueError(f"layout {name!r}: start must be >= 0, got {start}")
        self.name = name
        self._next = int(start)
        self._fields: dict[str, Field] = {}
        self._frozen = False

    # -- building ---------------------------------------------------------------------
    def _add(self, name: str, length: int, scalar: bool) -> int:
        if self._frozen:
            raise ValueError(f"layout {self.name!r} is frozen; cannot add {name!r}")
        if not isinstance(name, str) or not name.isidentifier() or name.startswith("_"):
            raise ValueError(f"layout {self.name!r}: field name must be an identifier not starting "
                             f"with '_', got {name!r}")
        if name in self._RESERVED:
            raise ValueError(f"layout {self.name!r}: {name!r} is a reserved name")
        if name in self._fields:
            raise ValueError(f"layout {self.name!r}: duplicate field {name!r}")
        if isinstance(length, bool) or not isinstance(length, (int, np.integer)) or int(length) < 0:
            raise ValueError(f"layout {self.name!r}: length of {name!r} must be an int >= 0, got {length!r}")
        off = self._next
        self._fields[name] = Field(name, off, int(length), scalar)
        self._next = off + int(length)
        return off

    def scalar(self, name: str) -> int:
        """One slot; returns its offset."""
        return self._add(name, 1, True)

    def array(self, name: str, length: int) -> int:
        """``length`` consecutive slots; returns the offset of the first."""
        return self._add(name, length, False)

    def pad_to(self, offset: int) -> int:
        """Leave the slots up to ``offset`` unused (e.g. spare scalar slots); returns it."""
        if self._frozen:
            raise ValueError(f"layout {self.name!r} is frozen")
        if int(offset) < self._next:
            raise ValueError(f"layout {self.name!r}: pad_to({offset}) is below the next free slot {self._next}")
        self._next = int(offset)
        return self._next

    def freeze(self) -> Layout:
        """No more fields; ``size`` becomes available. Returns the layout."""
        self._frozen = True
        return self

    # -- reading ----------------------------------------------------------------------
    @property
    def frozen(self) -> bool:
        return self._frozen

    @property
    def size(self) -> int:
        """Slots needed (one past the last field). Only after ``freeze()``."""
        if not self._frozen:
            raise ValueError(f"layout {self.name!r}: freeze() it before reading its size")
        return self._next

    def field(self, name: str) -> Field:
        try:
            return self._fields[name]
        except KeyError:
            raise KeyError(f"layout {self.name!r} has no field {name!r}") from None

    def __getitem__(self, name: str) -> int:
        return self.field(name).offset

    def __getattr__(self, name: str) -> int:
        fields = self.__dict__.get("_fields")
        if fields is not None and name in fields:
            return fields[name].offset
        raise AttributeError(f"layout {self.__dict__.get('name')!r} has no field {name!r}")

    def __contains__(self, name: object) -> bool:
        return name in self._fields

    def __len__(self) -> int:
        return len(self._fields)

    def length(self, name: str) -> int:
        return self.field(name).length

    def fields(self) -> list[Field]:
        return list(self._fields.values())

    def offsets(self) -> dict[str, int]:
        return {f.name: f.offset for f in self._fields.values()}

    def describe(self) -> list[tuple[str, int, int]]:
        """``(name, offset, length)`` of every field, in layout order."""
        return [(f.name, f.offset, f.length) for f in self._fields.values()]

    def view(self, arr: np.ndarray, name: str) -> np.ndarray:
        """The slice of ``arr`` holding field ``name`` (a NumPy view; length 1 for a scalar)."""
        f = self.field(name)
        if arr.shape[0] < f.offset + f.length:
            raise ValueError(f"layout {self.name!r}: array of length {arr.shape[0]} is too short "
                             f"for {name!r} (needs {f.offset + f.length})")
        return arr[f.offset: f.offset + f.length]

    def __repr__(self) -> str:
        state = f"size={self._next}" if self._frozen else f"next={self._next}, not frozen"
        return f"Layout({self.name!r}, {len(self._fields)} fields, {state})"
