"""Books: what someone read, by whom, and when they finished it.

Seen in the speaker's own report: "finished Demon Copperhead on the train
yesterday", "I've read Lessons in Chemistry", "also read Convenience Store
Woman on the flight", "just finished Circe by Madeline Miller", "finished
Yellowface (the R.F. Kuang one)".  The title is the capitalised words after
the verb (small words inside it allowed: "Lessons in Chemistry"); the author
follows "by" or sits in "(the X one)"; ``finished`` is the fact's period when
the verb says so ("finished", "read" with a date).

In a chat the author is often told apart: after a comma ("read Piranesi on the
train, Susanna Clarke, so strange") or in the next sentence of the same session
("Susanna Clarke is a genius"), which gives the author to the book just told of
(a sentence that follows no book gives nothing).  "I'm still reading Piranesi --
finished it on the plane actually" is a book finished.

Never a book: a plan or a wish ("want to read Circe", "should read"), a
question, someone else's reading, a title that is a place or a month ("read
Paris" is nothing), lower-case things ("finished the report", "read the news").
Two reports of one title by one person are one book (its sources both).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ...dates import Period
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
    rf"^(?i:just\s+|also\s+|finally\s+)?(?P<verb>(?i:finished|read|has\s+read|have\s+read|devoured|finished\s+reading|re-?read|"
    rf"(?:is|am|are|was)\s+(?:still\s+)?reading))\s+(?:the\s+(?:book|novel)\s+)?{TITLE}"
)
#: "..., Andy Weir, that book is so fun": a writer's name of two or three words after a comma
_COMMA_AUTHOR = re.compile(
    r"^[^.;!?]*?,\s+(?P<author>" + p.CAPITALISED + r"(?:\s+[A-Z][\w'’.-]+){1,2})\s*(?=,|\s+[—–-]|[.!]|$)"
)
#: "Susanna Clarke is a genius": the author of the book just told of, in a sentence of its own
_AUTHOR_NEXT = re.compile(
    r"^(?P<author>"
    + p.CAPITALISED
    + r"(?:\s+[A-Z][\w'’.-]+){1,2})\s+(?:(?:is|was)\s+(?:(?:a|an|such\s+a|so|just|really|an\s+absolute)\s+)*"
    r"(?:genius|brilliant|amazing|incredible|wonderful|fantastic|master|legend|talented|gifted|unreal|the\s+best)\b|"
    r"(?:can|really\s+can)\s+(?:really\s+)?write\b|writes\s+(?:so|like|beautifully|brilliantly)\b)"
)
_BY = re.compile(rf"^\s*(?:,\s*)?(?:by\s+(?P<by>{_PERSON_NAME})|\(the\s+(?P<one>{_PERSON_NAME})\s+one\))")
_NOT = re.compile(r"\b(?:want\w*|should|would|could|might|going\s+to|plan\w*|will|next|recommend\w*)\b", re.I)


def _rest(said: p.Said) -> str | None:
    """The words of the speaker's own report: after the speaker as the subject, the whole
    sentence when it opens with a verb of reading, else after the speaker mid-sentence."""
    if said.rest is not None:
        return said.rest
    if _VERB.match(said.text):
        return said.text
    match = re.search(rf"(?:^|[,;:]\s+|\b(?i:and|so|then|also)\s+){re.escape(said.person)}\s+(?=[a-z])", said.text)
    return said.text[match.end() :] if match else None


def _clean_title(title: str) -> str | None:
    title = re.sub(r"(?:,?\s+(?:{0}))+$".format(_SMALL), "", title.strip().rstrip(".,;!"))
    words = title.split()
    if len(words) > 1 and words[0] in ("The", "A", "An"):
        words = words[1:]  # "The Overstory", "A Gentleman in Moscow": the article is the title's
    if not words or words[0].lower() in p.NOT_NAMES or is_place(title):
        return None
    if re.fullmatch(r"\d{1,3}", title) or (len(words) == 1 and re.search(r"['’]s$", title)):
        return None  # "read 12 books": a count; "read Joy's message": someone's, no title
    return title


def _author_next(fact: "Fact", said: p.Said) -> list[Sighting]:
    text = p.without_said(said.text, said.person)
    match = _AUTHOR_NEXT.match(text)
    if match is None or _writer(match.group("author"), fact.speaker) is None:
        return []
    return [Sighting(NAME, fact.id, {"person": fact.speaker, "_author": match.group("author")}, None)]


def _writer(name: str, person: str | None) -> str | None:
    """A writer's name, or None for a place, the speaker, or words that name no one."""
    name = name.rstrip(".,;!")
    if is_place(name) or (person and person in name.split()) or name.split()[0].lower() in p.NOT_NAMES:
        return None
    return name


#: "finished", the speaker's (the extractor wrote "I" as the name, or left the subject out)
_FINISHED = re.compile(r"\b(?:finished|finishing)\s+(?:reading\s+)?", re.I)
#: "finished "Der Trafikant" from Robert Seethaler", "finished “Die Wand”": a title in quotes
_QUOTED = re.compile(r"^(?:[^\"“”.;!?]{0,20}?)[\"“](?P<title>[^\"“”]{2,60})[\"”]")
#: "finished atomic habits by james clear": a title in lower case and its author
_LOWER_BY = re.compile(
    r"^(?:that\s+|the\s+book\s+)?(?P<title>[a-z][\w'’,-]*(?:\s+[\w'’,-]+){0,7}?)(?:\s+book)?\s+by\s+"
    r"(?P<author>[a-zA-Z][\w'’.-]+(?:\s+[a-zA-Z][\w'’.-]+){1,2}?)"
    r"(?=\s*(?:[,.;!?(]|$|\s+(?:on|and|bc|because|while|in|at|so|it|took|now|which|over|during|this|last|the|again)\b))"
)
#: ... or alone, up to where its sentence goes on ("finished convenience store woman on the flight home")
_LOWER_ALONE = re.compile(
    r"^(?P<title>[a-z][\w'’-]*(?:\s+[\w'’-]+){0,6}?)(?=\s*(?:[,.;!?(]|$)|\s+(?:on|in|over|during|while|at|bc|because|and\s+(?:it|i|now)|"
    r"like|such|so|you|u|it|which|just|finally|last|again)\b)"
)
#: a sentence about reading, where a title in lower case may stand alone
_READING = re.compile(
    r"\b(?:book|novel|read|reading|kindle|audiobook|chapter|last\s+page|author|plane|flight|beach|hammock)\b", re.I
)
_OPENERS = frozenset("also and so finally just then oh ok okay btw random anyway but well yes yeah".split())
#: the words of reading itself, beside the places people read in
_READ_WORDS = re.compile(r"\b(?:book|novel|read|reading|kindle|audiobook|chapter|last\s+page|author)\b", re.I)
_SMALL_WORDS = frozenset("a an and as at by for from in of on or the to with".split())
#: words a thing finished opens with that is no book: work, a course, a race, someone's
_NOT_A_BOOK = frozenset(
    """my our his her their your work shift uni school it them that this everything dinner lunch breakfast packing
    the_report the_course the_race the_marathon the_season the_series the_show painting cleaning""".split()
)


def _lower_or_quoted(fact: "Fact", said: p.Said) -> list[Sighting]:
    """A book told in a chat's own way: its title in quotes, or in lower case with its author
    ("finished the women by kristin hannah"), or in lower case alone where the sentence is about
    reading ("finished convenience store woman on the flight home")."""
    text = p.without_said(said.text, said.person)
    found = _FINISHED.search(text)
    if found is None or p.HEDGES.search(text) or _NOT.search(text[: found.start()]):
        return []
    before = text[max(0, found.start() - 30) : found.start()]
    other = re.search(
        r"\b(?:he|she|they|his|her|their)\b|(?:\b\w+['’]s\s+\w+|" + p.CAPITALISED + r")\s+(?:has\s+|just\s+|also\s+)?$",
        before,
    )
    if other is not None and other.group(0).split()[0].lower() in _OPENERS:
        other = None  # "Also finished ...": a word opening the sentence, not a person
    if other is not None and (
        said.person not in before or re.search(r"['’]s\s+\w+\s+(?:has\s+|just\s+|also\s+)?$", before)
    ):
        return []  # "Tom finished Piranesi", "my sister finished ...", "she just finished it": someone else's reading
    after = text[found.end() :]
    author = None
    written = p.without_said(p.without_dates_written(fact.text), said.person)  # "Tomorrow" is a title in quotes
    told = _FINISHED.search(written)
    quoted = _QUOTED.match(written[told.end() :]) if told is not None else None
    if quoted is not None and told is not None:
        after = written[told.end() :]
    if quoted is not None:
        title = quoted.group("title").strip(" ,.")
        by = re.match(rf"\s*(?:,\s*)?(?:by|from|of)\s+(?P<by>{_PERSON_NAME})", after[quoted.end() :])
        author = by.group("by").rstrip(".,;!") if by else None
    elif (lower := _LOWER_BY.match(after)) is not None:
        title, author = lower.group("title"), _writer(_titled(lower.group("author").rstrip(".,;!")), fact.speaker)
        if author is None:
            return []  # "by the lake": no writer, so no title either
    elif _READING.search(text) and (alone := _LOWER_ALONE.match(after)) is not None:
        title = alone.group("title")
        if re.search(r"\b(?:my|our|his|her|their|your)\b", title) or (
            title.split()[0] in ("the", "a", "an") and not _READ_WORDS.search(text)
        ):
            return []  # "finished the first draft of my thesis on the plane": a thing of one's own, no book
    else:
        return []
    words = title.lower().split()
    if not words or words[0] in _NOT_A_BOOK or "_".join(words[:2]) in _NOT_A_BOOK:
        return []
    if (
        all(w.strip(",") in _SMALL_WORDS for w in words)
        or re.search(r"\b(?:book|novel|one)\b", title.lower())
        or said.person in title
    ):
        return []  # "the book for once", "the Pallasmaa book": no title; "and, and": a title the dates took
    if author is None and " by " in f" {title.lower()} ":
        return []  # "james by percival everett over the break": its author not read, its title unsure
    if author is None and is_place(title.title()):
        return []  # "finished lisbon on the plane" names no book; "legacy by james kerr" does
    if author is not None and _writer(author, fact.speaker) is None:
        author = None
    title = _titled(title) if title.islower() else title
    fields: dict[str, Any] = {"person": fact.speaker, "title": title, "author": author, "finished": p.when(fact)}
    return [Sighting(NAME, fact.id, fields, f"{fact.speaker}|{title.lower()}")]


def _titled(words: str) -> str:
    """ "sea of poppies" -> "Sea of Poppies": a title or a name in lower case as it is printed."""
    out = [w if i and w in _SMALL_WORDS else w[:1].upper() + w[1:] for i, w in enumerate(words.split())]
    return " ".join(out)


def detect(fact: "Fact") -> list[Sighting]:
    said = p.speaker_words(fact)
    if said is None:
        return []
    rest = _rest(said) if CUE.search(fact.text) is not None else None
    if rest is None or (match := _VERB.match(rest)) is None:
        return _author_next(fact, said) or (_lower_or_quoted(fact, said) if CUE.search(fact.text) else [])
    if _NOT.search(rest[: match.start("title")]) or tense(rest[: match.start("title")]) is True:
        return []
    verb = " ".join(match.group("verb").lower().split())
    after = rest[match.end() :]
    if verb.endswith("reading") and not verb.startswith("finished") and re.search(r"\bfinished\s+it\b", after) is None:
        return []  # still reading: not read yet
    raw = match.group("title")
    by = _BY.match(after)
    author = (by.group("by") or by.group("one")).rstrip(".,;!") if by else None
    if author is None:
        # "Station Eleven, Emily Mandel —": the title ran on into its author's name
        head, _, tail = raw.rpartition(", ")
        named = _COMMA_AUTHOR.match(f", {tail}") if head else None
        if named is not None and named.group("author") == tail and _writer(tail, fact.speaker):
            raw, author = head, tail
    if author is None:
        comma = _COMMA_AUTHOR.match(after)
        author = _writer(comma.group("author"), fact.speaker) if comma else None
    title = _clean_title(raw)
    if title is None:
        return []
    finished = (
        p.when(fact)
        if verb in ("finished", "finished reading", "read", "devoured") or verb.endswith("reading")
        else None
    )
    fields: dict[str, Any] = {"person": fact.speaker, "title": title, "author": author, "finished": finished}
    return [Sighting(NAME, fact.id, fields, f"{fact.speaker}|{title.lower()}")]


def assemble(kind: Kind, sightings: list[Sighting], facts: dict[str, "Fact"]) -> list[Assembled]:
    books: dict[str | None, dict[str, Any]] = {}
    #: person -> (the book they told of last, its session)
    latest: dict[str, tuple[str | None, str]] = {}
    for sighting, fact in p.in_order(sightings, facts):
        if "_author" in sighting.fields:
            # the author of the book the person told of last, in this session, if it has none yet
            last, session = latest.get(sighting.fields["person"], (None, None))
            if last in books and session == fact.session_id and books[last].get("author") is None:
                books[last]["author"] = sighting.fields["_author"]
                books[last]["sources"].append(fact.id)
            continue
        latest[sighting.fields["person"]] = (sighting.key, fact.session_id)
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
    {"title": str, "person": str, "author": str, "finished": Period},
    "A book someone read (offline rules): title, author, when they finished it.",
)
DESCRIPTION = "Books and reading: titles someone read or finished, their authors and when."
