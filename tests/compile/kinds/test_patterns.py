"""What the kinds share (:mod:`uac.compile.kinds.patterns`): a record class from its field
types, the sentence without "said:", a place in lower case."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from uac.compile.kinds import patterns as p
from uac.dates import Period
from uac.dialect.spec import FieldSpec
from uac.dialect.types import TypeSpec

NONE = TypeSpec("none")


def _optional(kind: str) -> TypeSpec:
    return TypeSpec("union", (TypeSpec(kind), NONE))


def test_a_record_class_takes_each_default_from_the_field_type():
    status = p.enum_class("VisitStatus", ("done", "planned"), "Whether a visit happened.")
    cls = p.record_class(
        "Visit",
        {
            "status": status,
            "place": str,
            "nights": int,
            "cost": float,
            "booked_on": dt.date,
            "when": Period,
            "companions": list[str],
            "current": bool,
        },
        "A visit.",
    )
    assert cls.name == "Visit" and cls.kind == "dataclass" and cls.doc == "A visit."
    assert cls.fields == (
        FieldSpec("status", TypeSpec("class", name="VisitStatus")),
        FieldSpec("place", _optional("str"), "value", None),
        FieldSpec("nights", _optional("int"), "value", None),
        FieldSpec("cost", _optional("float"), "value", None),
        FieldSpec("booked_on", _optional("date"), "value", None),
        FieldSpec("when", _optional("period"), "value", None),
        FieldSpec("companions", TypeSpec("list", (TypeSpec("str"),)), "list"),
        FieldSpec("current", TypeSpec("bool"), "value", False),
        # every record ends with when it was said and its sources
        FieldSpec("said_on", _optional("date"), "value", None),
        FieldSpec("sources", TypeSpec("list", (TypeSpec("str"),)), "list"),
    )


def test_a_record_field_of_another_type_is_refused_by_name():
    with pytest.raises(TypeError, match=r"'tags' is typed dict\[str, str\]: type it str, int"):
        p.record_class("Visit", {"place": str, "tags": dict[str, str]}, "A visit.")


@pytest.mark.parametrize(
    "text, speaker, expected",
    [
        ("Sam said: got back from Rome.", "Sam", "got back from Rome."),
        ("Sam got back from Rome.", "Sam", "Sam got back from Rome."),
        ("Ana said: got back from Rome.", "Sam", "Ana said: got back from Rome."),
        ("None said: got back from Rome.", None, "None said: got back from Rome."),
    ],
)
def test_a_sentence_without_said(text, speaker, expected):
    assert p.without_said(text, speaker) == expected


@pytest.mark.parametrize(
    "text, found",
    [("back from japan", "japan"), ("back from Japan", None), ("back from leipzig's", None), ("back from oz", None)],
)
def test_a_place_in_lower_case(text, found):
    match = re.search(rf"\bfrom\s+(?P<place>{p.LOWER_NAME})", text)
    assert (match.group("place") if match else None) == found
