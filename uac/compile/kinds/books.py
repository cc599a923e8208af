"""Books: what someone read, by whom, and when they finished it.

Seen in the speaker's own report: "finished Demon Copperhead on the train
yesterday", "I've read Lessons in Chemistry", "also read Convenience Store
Woman on the flight", "just finished Circe by Madeline Miller", "finished
Yellowface (the R.F. Kuang one)".  The title is the capitalised words after
the verb (small words inside it allowed: "Lessons in Chemistry"); the author
follows "by" or sits in "(the X one)"; ``finished`` is the fact's period when
the verb says so ("finished", "read" with a date).

Never a book: a plan or a wish ("want to read Circe", "should read"), a
question, someone else's reading, a title that is a place or a month ("read
Paris" is nothing), lower-case things ("finished the report", "read the news").
Two reports of one title by one person are one book (its sources both).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ...extract.dates import tense
from ...extract.places import is_place
from . import patterns as p
from .model import Assembled, Kind, Sighting

if TYPE_CHECKING:
    from ...facts.model import Fact

NAME = "book"

CUE = re.compile(r"\b(?:read|finished|reading|devoured|book|novel)\b", re.I)

_SMALL = r"(?:and|of|in|the|a|an|on|for|to|with|at|from|is|are|my)"
_TITLE_WORD = r"(?:[A-Z][\w'’.-]*|\d+)"
TITLE = rf"(?P<title>{_TITLE_WORD}(?:,?\s+(?:{_SMALL}\s+)*{_TITLE_WORD})*)"
_PERSON_NAME = r"(?:[A-Z][\w'’.-]*\.?)(?:\s+[A-Z][\w'’.-]*){0,3}"
_VERB = re.compile(
    rf"^(?i:just\s+|also\s+|finally\s+)?(?P<verb>(?i:finished|read|has\s+read|have\s+read|devoured|finished\s+reading|re-?read))\s+"
    rf"(?:the\s+(?:book|novel)\s+)?{TITLE}"
)
_BY = re.compile(rf"^\s*(?:,\s*)?(?:by\s+(?P<by>{_PERSON_NAME})|\(the\s+(?P<one>{_PERSON_NAME})\s+one\))")
_NOT = re.compile(r"\b(?:want\w*|should|would|could|might|going\s+to|plan\w*|will|next|recommend\w*)\b", re.I)


def _rest(fact: "Fact") -> str | None:
    said = p.speaker_words(fact)
    if said is None:
        return None
    text, rest = said
    person = fact.speaker
    if rest is not None:
        return rest
    if _VERB.match(text):
        return text
    match = re.search(rf"(?:^|[,;:]\s+|\b(?i:and|so|then|also)\s+){re.escape(person)}\s+(?=[a-z])", text)
    return text[match.end() :] if match else None


def _clean_title(title: str) -> str | None:
    title = re.sub(r"(?:,?\s+(?:{0}))+$".format(_SMALL), "", title.strip().rstrip(".,;!"))
    words = title.split()
    if len(words) > 1 and words[0] in ("The", "A", "An"):
        words = words[1:]  # "The Overstory", "A Gentleman in Moscow": the article is the title's
    if not words or words[0].lower() in p.NOT_NAMES or is_place(title):
        return None
    return title


def detect(fact: "Fact") -> list[Sighting]:
    if CUE.search(fact.text) is None:
        return []
    rest = _rest(fact)
    if rest is None:
        return []
    match = _VERB.match(rest)
    if match is None or _NOT.search(rest[: match.start("title")]) or tense(rest[: match.start("title")]) is True:
        return []
    title = _clean_title(match.group("title"))
    if title is None:
        return []
    by = _BY.match(rest[match.end() :])
    author = (by.group("by") or by.group("one")).rstrip(".,;!") if by else None
    finished = p.when(fact) if match.group("verb").lower() in ("finished", "finished reading", "read", "devoured") else None
    fields: dict[str, Any] = {"person": fact.speaker, "title": title, "author": author, "finished": finished}
    return [Sighting(NAME, fact.id, fields, f"{fact.speaker}|{title.lower()}")]


def assemble(kind: Kind, sightings: list[Sighting], facts: dict[str, "Fact"]) -> list[Assembled]:
    books: dict[str | None, dict[str, Any]] = {}
    for sighting in sorted(sightings, key=lambda s: p.order_key(facts[s.fact_id])):
        fact = facts[sighting.fact_id]
        record = books.get(sighting.key)
        if record is None:
            books[sighting.key] = {**sighting.fields, "said_on": fact.session_date, "sources": [fact.id]}
            continue
        for name in ("author", "finished"):
            if record.get(name) is None and sighting.fields.get(name) is not None:
                record[name] = sighting.fields[name]
        record["sources"].append(fact.id)
    return [Assembled(kind.name, record, list(record["sources"])) for record in books.values()]


CLASS = p.record_class(
    "Book",
    (
        p.optional("title"),
        p.optional("person"),
        p.optional("author"),
        p.optional("finished", p.OPT_PERIOD),
    ),
    "A book someone read (offline rules): title, author, when they finished it.",
)
DESCRIPTION = "Books and reading: titles someone read or finished, their authors and when."
