"""Parsing the dates users type (``--as-of``, ``--date``)."""

from __future__ import annotations

import datetime as _dt

from .errors import InputError


def parse_day(value: "_dt.date | str | None", *, what: str = "date") -> _dt.date | None:
    """``None``, a :class:`date`, a :class:`datetime` or an ISO ``YYYY-MM-DD`` string.

    ``what`` names the input the value came from (``as_of``, ``date``); a bad
    value is an :class:`~uac.errors.InputError` whose hint names that input.
    """
    if value is None or value == "":
        return None
    if isinstance(value, _dt.datetime):
        return value.date()
    if isinstance(value, _dt.date):
        return value
    try:
        return _dt.date.fromisoformat(str(value).strip()[:10])
    except ValueError:
        raise InputError(
            f"{value!r} is not a date.", hint=f"Give {{opt:{what}}} in the ISO form YYYY-MM-DD, e.g. 2024-05-01."
        ) from None
