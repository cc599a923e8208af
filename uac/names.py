"""The one validator for names and ids that come from outside.

Project names, session ids, turn ids, domain, collection and record-type
names, ids in HTTP paths: each is a :class:`NameRule`, and every check in uac
goes through :meth:`NameRule.check` (raises) or :meth:`NameRule.ok` (a bool).  Matching is
always against the *whole* string (:func:`full_match`): ``re.match`` with a
trailing ``$`` accepts ``"trips\\n"``, because ``$`` also matches before a
final newline, and a name with a newline in it makes a directory no tool
expects.  The same helper checks the value patterns of CSV type guessing, so
a cell ``"5\\n"`` is text, not the integer 5.

This module sits at the bottom of the layers: it imports only the exception
tree.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass
from typing import Iterable

from .errors import InputError, InvalidName, UacError


def full_match(pattern: "re.Pattern[str] | str", value: object) -> bool:
    """True when ``value`` is a ``str`` and the *whole* of it matches ``pattern``."""
    if type(value) is not str:
        return False
    if isinstance(pattern, str):
        return re.fullmatch(pattern, value) is not None
    return pattern.fullmatch(value) is not None


@dataclass(frozen=True)
class NameRule:
    """What one kind of name may look like."""

    #: what the name names, for messages ("project name", "session id", ...)
    what: str
    #: the allowed shape; matched against the whole name
    pattern: "re.Pattern[str]"
    #: how to fix a rejected name
    hint: str
    #: Python keywords are refused (names that become identifiers)
    no_keywords: bool = False
    #: ``..`` anywhere is refused (names that become paths)
    no_dotdot: bool = False
    #: the exception raised by :meth:`check`
    error: type[UacError] = InvalidName

    def problem(self, value: object, reserved: Iterable[str] = ()) -> str | None:
        """Why ``value`` is not acceptable, or ``None``."""
        if type(value) is not str:
            return f"a {self.what} must be text"
        if not full_match(self.pattern, value):
            return "it has characters or a length this name cannot have"
        if self.no_dotdot and ".." in value:
            return "it contains '..'"
        if self.no_keywords and keyword.iskeyword(value):
            return "it is a Python keyword"
        if value in frozenset(reserved):
            return "it is a reserved name"
        return None

    def ok(self, value: object, reserved: Iterable[str] = ()) -> bool:
        return self.problem(value, reserved) is None

    def check(self, value: object, reserved: Iterable[str] = ()) -> str:
        """``value`` if acceptable, else the rule's error naming it and how to fix it."""
        if self.problem(value, reserved) is not None:
            raise self.error(f"invalid {self.what} {value!r}.", hint=self.hint)
        assert isinstance(value, str)
        return value


PROJECT_NAME = NameRule(
    "project name",
    re.compile(r"\A[A-Za-z0-9][A-Za-z0-9._-]{0,63}\Z"),
    "Use 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit.",
    no_dotdot=True,
)
SESSION_ID = NameRule(
    "session id",
    re.compile(r"\A[A-Za-z0-9][A-Za-z0-9._-]{0,127}\Z"),
    "A session id names an archive file: use letters, digits, '.', '_' and '-' only "
    "(at most 128 characters, starting with a letter or digit).",
    error=InputError,
)
DOMAIN_NAME = NameRule(
    "domain name",
    re.compile(r"\A[a-z][a-z0-9_]{0,39}\Z"),
    "Use a lowercase slug: a letter, then letters, digits or underscores (at most 40), e.g. 'travel'.",
    no_keywords=True,
)
COLLECTION_NAME = NameRule(
    "collection name",
    re.compile(r"\A[a-z][a-z0-9_]{0,59}\Z"),
    "Use a lowercase identifier such as 'trips' or 'medical_visits'.",
    no_keywords=True,
)
RECORD_TYPE = NameRule(
    "record type",
    re.compile(r"\A[A-Z][A-Za-z0-9]{0,59}\Z"),
    "Use a CamelCase class name such as 'Trip'.",
)
#: a turn id as ingest keeps it: "<session id>:<n>", or a LoCoMo turn's ``dia_id``
#: ("D1:3"), which may be any text; bounded so that a link to it stays short
TURN_ID = NameRule(
    "turn id",
    re.compile(r"\A.{1,200}\Z", re.DOTALL),
    "A turn id is 1-200 characters of text (LoCoMo's dia_ids look like 'D1:3').",
    error=InputError,
)
#: a fact or session id in a URL path
ITEM_ID = NameRule(
    "id",
    re.compile(r"\A[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}\Z"),
    "Ids are letters, digits and '.', '_', ':', '/', '-' (as 'uac search --json' prints them).",
    no_dotdot=True,
)

__all__ = [
    "COLLECTION_NAME",
    "DOMAIN_NAME",
    "ITEM_ID",
    "NameRule",
    "PROJECT_NAME",
    "RECORD_TYPE",
    "SESSION_ID",
    "TURN_ID",
    "full_match",
]
