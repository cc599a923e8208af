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
same against the state the code runs on (:mod:`sandbox.refs`).
"""

from __future__ import annotations

import re
from typing import Any

#: ``<domain>/<record id>``: a domain slug and a uac record id (``person-2``)
REF_FORM = re.compile(r"\A(?P<domain>[a-z][a-z0-9_]{0,39})/(?P<id>[a-z][a-z0-9_]*-[0-9]{1,9})\Z")


def parse_ref(text: str) -> tuple[str, str]:
    """``"relationships/person-2"`` -> ``("relationships", "person-2")``, or ``ValueError``."""
    match = REF_FORM.match(text.strip()) if isinstance(text, str) else None
    if match is None:
        raise ValueError(f'{text!r} is not a reference; write "<domain>/<record id>", e.g. "relationships/person-2"')
    return match.group("domain"), match.group("id")


class Ref:
    """A reference to the record ``id`` of ``domain``; immutable, compared by its target."""

    __slots__ = ("domain", "id")
    domain: str
    id: str

    def __init__(self, target: str) -> None:
        domain, ident = parse_ref(target)
        object.__setattr__(self, "domain", domain)
        object.__setattr__(self, "id", ident)

    @property
    def code(self) -> str:
        """The stored form, ``relationships/person-2``."""
        return f"{self.domain}/{self.id}"

    def resolve(self, state: Any) -> Any:
        """The record this names in ``state`` (``memory.state``; the same as
        ``memory.state.resolve(ref)``)."""
        return state.resolve(self)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("a Ref is read-only")

    def __delattr__(self, name: str) -> None:
        raise AttributeError("a Ref is read-only")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Ref) and (self.domain, self.id) == (other.domain, other.id)

    def __lt__(self, other: "Ref") -> bool:
        if not isinstance(other, Ref):
            return NotImplemented
        return (self.domain, self.id) < (other.domain, other.id)

    def __hash__(self) -> int:
        return hash(("Ref", self.domain, self.id))

    def __repr__(self) -> str:
        return f"Ref({self.code!r})"

    def __str__(self) -> str:
        return self.code

    def __reduce__(self) -> tuple[Any, ...]:
        return (Ref, (self.code,))

    def __copy__(self) -> "Ref":
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> "Ref":
        return self


__all__ = ["REF_FORM", "Ref", "parse_ref"]
