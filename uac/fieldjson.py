"""The JSON form of a dataclass whose form is its fields.

Many reports print exactly what they hold: each field under its own name, in the
order the class declares them.  :func:`fields_json` writes that form once, so a class
whose JSON is its fields says so in one line, and one whose JSON differs (a value
worked out, a field left out, a key renamed) keeps its own ``to_json``.
"""

from __future__ import annotations

import dataclasses
from typing import Any


def _plain(value: Any) -> Any:
    """A list or tuple as a new list, a dict as a new dict; anything else as it is."""
    if isinstance(value, (list, tuple)):
        return list(value)
    if isinstance(value, dict):
        return dict(value)
    return value


def fields_json(obj: Any, **changed: Any) -> dict[str, Any]:
    """Each field of the dataclass ``obj`` under its name, in declared order (sequences as
    new lists, dicts as new dicts); ``changed`` gives other values to some of them (a
    duration rounded for printing)."""
    fields = dataclasses.fields(obj)
    if changed:
        unknown = set(changed) - {f.name for f in fields}
        if unknown:
            raise TypeError(f"{type(obj).__name__} has no field {', '.join(sorted(unknown))}")
    return {f.name: changed[f.name] if f.name in changed else _plain(getattr(obj, f.name)) for f in fields}


__all__ = ["fields_json"]
