"""``Ref``: a typed reference, by stable id, to a record of (usually) another domain.

One real thing is one record: the partner who is a person in ``relationships``
is not copied into ``running``; the running record holds
``partner: Ref | None = Ref("relationships/person-2")``.  A reference is a
value like ``Period``: ``state.py`` writes it as ``Ref("<domain>/<id>")``
(``from uac.refs import Ref``), the loader reads it back as a :class:`Ref`
with ``.domain`` and ``.id``, and nothing about it runs code.

Resolving: ``memory.state.resolve(ref)`` (or ``ref.resolve(memory.state)``)
returns the record it names, or raises :class:`~uac.errors.InputError`
saying which record is missing.  In the sandbox, ``ref.resolve()`` does the
same against the state the code runs on (:mod:`sandbox.refs`, whose
:class:`~sandbox.refs.RefValue` both are built on: the target, read-only, and
how references compare).
"""

from __future__ import annotations

import re
from typing import Any

from sandbox.refs import RefValue

#: ``<domain>/<record id>``: a domain slug and a uac record id (``person-2``)
REF_FORM = re.compile(r"\A(?P<domain>[a-z][a-z0-9_]{0,39})/(?P<id>[a-z][a-z0-9_]*-[0-9]{1,9})\Z")


def parse_ref(text: str) -> tuple[str, str]:
    """``"relationships/person-2"`` -> ``("relationships", "person-2")``, or ``ValueError``."""
    match = REF_FORM.match(text.strip()) if isinstance(text, str) else None
    if match is None:
        raise ValueError(f'{text!r} is not a reference; write "<domain>/<record id>", e.g. "relationships/person-2"')
    return match.group("domain"), match.group("id")


class Ref(RefValue):
    """A reference to the record ``id`` of ``domain``; immutable, compared by its target."""

    __slots__ = ()

    def __init__(self, target: str) -> None:
        super().__init__(*parse_ref(target))

    def resolve(self, state: Any) -> Any:
        """The record this names in ``state`` (``memory.state``; the same as
        ``memory.state.resolve(ref)``)."""
        return state.resolve(self)

    def __reduce__(self) -> tuple[Any, ...]:
        return (Ref, (self.code,))

    def __copy__(self) -> "Ref":
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> "Ref":
        return self


__all__ = ["REF_FORM", "Ref", "parse_ref"]
