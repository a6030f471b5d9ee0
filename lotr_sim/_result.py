"""The common face of the public API's result objects (``lotr_sim.api``).

Every result is a frozen dataclass whose documented, typed fields are the API. ``Result``
adds ``to_dict()``, the JSON-able form the CLI's ``--json`` prints, and read-only
``res["field"]`` access: a field by its name, for code written when ``compare`` and
``balance`` returned plain dicts.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Iterator


class Result:
    """Mixin of the API's result dataclasses: ``to_dict()`` and ``res["field"]``."""

    def to_dict(self) -> dict[str, Any]:
        """The fields as a dict, in their declared order (values are JSON-able with
        ``lotr_sim._json.json_default``: NumPy scalars and arrays become numbers and lists)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def __getitem__(self, key: str) -> Any:
        if not isinstance(key, str) or key not in self._names():
            raise KeyError(key)
        return getattr(self, key)

    def __contains__(self, key: object) -> bool:
        return key in self._names()

    def keys(self) -> Iterator[str]:
        """The field names (what ``res["name"]`` accepts)."""
        return iter(self._names())

    def get(self, key: str, default: Any = None) -> Any:
        """``res[key]``, or ``default`` for a name that is not a field."""
        return getattr(self, key) if key in self._names() else default

    def _names(self) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(self))
