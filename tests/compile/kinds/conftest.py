"""Facts as the rule extractor writes them, for the kinds' unit tests."""

from __future__ import annotations

import datetime as dt

import pytest

from uac.extract.rules import RuleExtractor
from uac.facts.model import Fact
from uac.sessions.model import Session, Turn

#: a Friday; "next month" is July 2023
SAID_ON = dt.date(2023, 6, 9)


def facts_of(*lines: str, speaker: str = "Sam", listener: str = "Ana", said_on: dt.date = SAID_ON) -> list[Fact]:
    """The facts the rules extract from ``lines`` said by ``speaker`` (one turn each)."""
    turns = [Turn(f"D1:{2 * i + 1}", speaker, line) for i, line in enumerate(lines)]
    turns.insert(0, Turn("D1:0", listener, "Hi."))
    session = Session("s1", said_on, said_on.isoformat(), tuple(turns))
    out = []
    for number, item in enumerate(RuleExtractor().extract(session), 1):
        out.append(
            Fact(
                f"s1-f{number}",
                item.text,
                "s1",
                said_on,
                item.evidence,
                item.speaker,
                item.event_date,
                valid_from=said_on,
                meta=item.meta,
            )
        )
    return out


def records_of(kind: str, *lines: str, **kwargs) -> list[dict]:
    """The fields of the records of ``kind`` the rules assemble from ``lines`` (as :func:`facts_of`)."""
    from uac.compile.kinds import assemble, detect, registry

    spec = next(k for k in registry() if k.name == kind)
    facts = facts_of(*lines, **kwargs)
    return [a.fields for a in assemble(spec, [s for f in facts for s in detect(f)], {f.id: f for f in facts})]


def fact_of(line: str, **kwargs) -> Fact:
    [fact] = facts_of(line, **kwargs)
    return fact


@pytest.fixture
def say():
    return fact_of
