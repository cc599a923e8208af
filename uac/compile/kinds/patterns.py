"""What every kind's rules share: the clause a person is the subject of, names
of places and organisations, the people someone was with, and field specs.

The rules read facts as the rule extractor writes them: third person, the
speaker's name for "I" ("Sam flew to Porto"), "Sam and others" for "we", and
each relative date followed by its resolution in parentheses ("next month (in
July 2023)").  :func:`clauses` finds where a person is the subject of what
follows; the date phrases are cut out of that text (the fact's ``event_date``
already holds the period), so "camping in June" never reads "June" as a place.
Names are recognised by their capital letters after a preposition or verb that
expects one -- no gazetteer -- and never when they are a month, a weekday, a
holiday or the person themselves.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Iterator, NamedTuple

from ...dates import Period
from ...dialect.spec import ClassSpec, FieldSpec
from ...dialect.types import TypeSpec
from ...extract import states
from ...extract.dates import find_relative_dates
from ...extract.numbers import CARDINALS
from ...extract.words import is_common_word

#: the letters of a name in any Latin script, capital and lower case: "Lucía", "Hương", "Łukasz",
#: "Đức" (ASCII alone reads them as no name, and their trips as the speaker's)
UPPER_LETTERS = "A-ZÀ-ÖØ-ÞĀ-ɏḀ-ỿ"
LOWER_LETTERS = "a-zß-öø-ÿĀ-ɏḀ-ỿ"
#: one capitalised word of a person's name
CAPITALISED = f"[{UPPER_LETTERS}][{LOWER_LETTERS}]+"
#: a named owner, of one to four capitalised words: "Ana's", "Fiona MacLeod's" (the extractor writes
#: the speaker's whole name for "my": "driving up to Fiona MacLeod's dad's in Inverness")
OWNER = rf"(?:[{UPPER_LETTERS}][\w’'-]*\s+){{0,3}}[{UPPER_LETTERS}][\w’'-]*['’]s"

if TYPE_CHECKING:
    from ...facts.model import Fact
    from .model import Assembled, Kind, Sighting

# -- field specs ----------------------------------------------------------------------

STR = TypeSpec("str")
NONE = TypeSpec("none")
OPT_STR = TypeSpec("union", (STR, NONE))
OPT_INT = TypeSpec("union", (TypeSpec("int"), NONE))
OPT_FLOAT = TypeSpec("union", (TypeSpec("float"), NONE))
OPT_DATE = TypeSpec("union", (TypeSpec("date"), NONE))
OPT_PERIOD = TypeSpec("union", (TypeSpec("period"), NONE))
LIST_STR = TypeSpec("list", (STR,))
BOOL = TypeSpec("bool")


#: a record field's type, as :func:`record_class` takes it -> its spec and default: a value the
#: facts do not tell is None, a list is empty, a flag is False
_FIELD_TYPES: dict[Any, tuple[TypeSpec, str, Any]] = {
    str: (OPT_STR, "value", None),
    int: (OPT_INT, "value", None),
    float: (OPT_FLOAT, "value", None),
    _dt.date: (OPT_DATE, "value", None),
    Period: (OPT_PERIOD, "value", None),
    list[str]: (LIST_STR, "list", None),
    bool: (BOOL, "value", False),
}


def _fields(types: dict[str, Any]) -> tuple[FieldSpec, ...]:
    out = []
    for name, kind in types.items():
        if isinstance(kind, ClassSpec):
            out.append(FieldSpec(name, TypeSpec("class", name=kind.name)))  # an enum's member: always set
        elif kind in _FIELD_TYPES:
            spec, default_kind, default = _FIELD_TYPES[kind]
            out.append(FieldSpec(name, spec, default_kind, default))
        else:
            raise TypeError(
                f"the record field {name!r} is typed {kind!r}: type it str, int, float, datetime.date, "
                "uac.dates.Period, list[str], bool or an enum of enum_class()"
            )
    return tuple(out)


#: the fields every record ends with: when it was said and the facts it comes from
COMMON_FIELDS = _fields({"said_on": _dt.date, "sources": list[str]})


def record_class(name: str, fields: dict[str, Any], doc: str) -> ClassSpec:
    """A kind's record class: ``fields`` maps each field, in order, to its type -- ``str``, ``int``,
    ``float`` or ``Period`` (None when the facts do not tell it), ``list[str]`` (empty when they
    tell none), ``bool`` (False unless they say so) or an enum (:func:`enum_class`, always set) --
    then :data:`COMMON_FIELDS`."""
    return ClassSpec(name, "dataclass", _fields(fields) + COMMON_FIELDS, doc=doc)


def enum_class(name: str, members: tuple[str, ...], doc: str) -> ClassSpec:
    return ClassSpec(name, "enum", (), tuple((m, m) for m in members), doc=doc)


# -- the text the rules read ----------------------------------------------------------

#: "(on 8 June 2023)", "(in July 2023)", "(the week before 9 June 2023)" written by the extractor
_ANNOTATION = re.compile(r"\s*\((?:on|in|the week|the weekend|between)\b[^()]*\)")
_SPACES = re.compile(r"\s{2,}")

#: words that soften a plan ("maybe", "thinking of") -- it stays planned, never done
HEDGES = re.compile(
    r"\b(?:maybe|perhaps|possibly|probably|might|may|thinking (?:of|about)|considering|hop(?:e|es|ing) to"
    # "and say I'm going to Córdoba, ...": a case supposed
    r"|say\s+(?:i|we|\w+(?:\s+and\s+others)?)\s*(?:is|are|am|'m|m|were)\s+(?:going|moving|leaving|flying))\b",
    re.I,
)


def word_list(words: str) -> re.Pattern[str]:
    """Any of ``words`` (whitespace-separated; "_" joins a phrase's words: "road_trip"), as
    whole words in any case."""
    alternatives = sorted((w.replace("_", r"\s+") for w in words.split()), key=len, reverse=True)
    return re.compile(r"\b(?:" + "|".join(alternatives) + r")\b", re.I)


#: words of a wish or a hypothetical ("would love to", "one day", "if we") -- nothing done or planned
WISHES = re.compile(
    r"\b(?:would\s+love|'d\s+love|one\s+day|someday|some\s+day|bucket\s+list|wish(?:es)?\s+(?:i|we|to)|"
    r"if\s+(?:i|we)|dream\s+(?:trip|of|is))\b",
    re.I,
)

#: adverbs between a subject and its verb ("Sam just got back", "Sam now works")
ADVERBS = (
    r"(?:(?i:just|finally|recently|also|actually|already|really|now|then|once|eventually|even|"
    r"still|currently|officially|totally|happily|spontaneously|last|first|originally|\w+ly)\s+)*"
)


def without_dates_written(text: str) -> str:
    """``text`` without the resolved dates the extractor wrote ("(on 18 May 2024)"), its
    own date phrases kept ("on saturday")."""
    return _ANNOTATION.sub("", text)


def plain(text: str, base: _dt.date | None) -> str:
    """``text`` without the resolved dates the extractor wrote and without the date
    phrases themselves ("Sam flew to Porto for a wedding in May (in May 2023)." ->
    "Sam flew to Porto for a wedding."), with the places of several words it writes in lower case
    written as the gazetteer does ("back from new orleans" -> "back from New Orleans":
    :func:`uac.extract.places.title_places`)."""
    from ...extract.places import title_places

    text = title_places(_ANNOTATION.sub("", text))
    if base is not None:
        found = find_relative_dates(text, base)
        for item in reversed(found):
            text = text[: item.start] + text[item.end :]
    text = _INNER_ADVERBS.sub("", text)
    text = _SPACES.sub(" ", text)
    return carry_subject(re.sub(r"\s+([,.!?;])", r"\1", text).strip())


#: "Sam moved on the 25th and started at Kumo Creative": the subject goes on after "and" with a verb of
#: the past, and is written again so each verb's rules find it ("... and Sam started at Kumo Creative")
_CARRIED = re.compile(
    r"^(?P<subj>(?-i:[A-Z][\w’'-]+)(?:\s+and\s+others)?)\s+(?:(?:just|finally|also)\s+)?"
    r"(?P<v1>[a-z]+ed|went|got|bought|flew|took|had|made|ran|came|left|did|saw|met|ate|drove|spent|found|sold|gave)\b"
    r"(?P<mid>[^.;!?]{0,90}?)(?P<joint>,?\s+(?:and|and\s+then|then)\s+)"
    # the verbs whose rules need their subject: a job started, a thing bought, a meal had (a workout's
    # and a trip's rules read "... and hiked", "... and flew" themselves)
    r"(?=(?:started|began|bought|ordered|had)\b)"
)
_OTHER_SUBJECT_IN = re.compile(
    r"\b(?:he|she|they|we|I|it|you)\b|\b(?-i:" + CAPITALISED + r")\s+(?:and\s+others\s+)?(?:[a-z]+ed|went|got)\b"
)


def carry_subject(text: str) -> str:
    """``text`` with its first subject written again after "and" before a second verb of the past
    (:data:`_CARRIED`), when no other subject comes between."""
    match = _CARRIED.match(text)
    if match is None or _OTHER_SUBJECT_IN.search(match.group("mid")) or match.group("subj").lower() in NOT_NAMES:
        return text
    return f"{text[: match.end()]}{match.group('subj')} {text[match.end() :]}"


@dataclass(frozen=True)
class Clause:
    """A person and what the fact says they did (``rest`` starts with the verb)."""

    person: str
    #: "we": the person and others
    group: bool
    rest: str


def is_question(fact: "Fact") -> bool:
    return states.is_question(fact.text)


#: a label that opens a message before its news ("now DIWALI: flying to jaipur", "seollal: going to daejeon")
LABEL = re.compile(r"^(?:[\w'’]+\s+){0,2}[\w'’]+:\s+(?=[a-z])")


#: adverbs inside a verb group ("Sam is also thinking of", "Sam has just booked"), left out of the text read
_INNER_ADVERBS = re.compile(
    r"\b(?:also|just|really|actually|finally|even|totally|definitely|seriously|already|still)\s+"
)


def clauses(fact: "Fact", cue: "re.Pattern[str] | None" = None) -> Iterator[Clause]:
    """Every place in ``fact`` where a person is the subject of what follows; none
    when ``cue`` (a kind's words without which none of its rules can match: a cheap
    first look) is not in the text.

    The speaker is found at the start of the text or of a clause (after ", ",
    "; ", ": ", "and ", "but ", "so ", "then ", "when "...); another
    single name only at the start ("Ana went to Rome", a fact about the
    listener).  "Sam's friend went" has no subject here: the fact mentions
    someone else.
    """
    if (cue is not None and cue.search(fact.text) is None) or is_question(fact):
        return iter(())
    return iter(_clauses(fact.text, fact.session_date, fact.speaker))


@lru_cache(maxsize=4096)
def _clauses(text: str, said_on: _dt.date | None, speaker: str | None) -> tuple[Clause, ...]:
    text = plain(text, said_on)
    if speaker and text.startswith(f"{speaker} said: "):
        # the sentence names nobody: its subject is the speaker only when it opens with a verb
        # ("finally ordered a desk", "got back from Rome": chat drops the "I"), else no one
        rest = text[len(f"{speaker} said: ") :]
        rest = LABEL.sub("", rest)  # "seollal: going to daejeon", "news: bought a bike": the news after its label
        report = _SUBJECTLESS.match(rest)
        if report:
            rest = rest[report.start("verb") :] if report.start("verb") and not _ADVERB_OPENS.match(rest) else rest
            return (Clause(speaker, False, rest[:1].lower() + rest[1:]),)  # "oh also grabbed": from the verb
        # "also my old Garmin died so got the Forerunner for 599": a buying verb later, its subject dropped
        later = _BUYING_LATER.search(rest)
        if later is not None and not _SOMEONE.search(rest[: later.start()]):
            return (Clause(speaker, False, rest[later.start("verb") :]),)
        return _travel_later(rest, speaker)
    out: list[Clause] = []
    seen: set[int] = set()
    if speaker and _SUBJECTLESS.match(text):
        # "Had a lovely dinner with Chloe at Hanoi Lane, £62 for the two of Sam and others": the speaker's report
        seen.add(0)
        out.append(Clause(speaker, False, text[:1].lower() + text[1:]))
    if speaker:
        name = re.escape(speaker)
        pattern = re.compile(
            rf"(?:^(?:{_OPENERS}[,!]?\s+)+|^|[,;:—–!]\s+|[^\w\s\x00-\x7f]\s+|\b(?i:and|but|so|then|when|after|before|because|since|as|cause|coz)\s+)({name})(\s+and\s+others)?\s+(?=[a-z])"
        )
        for match in pattern.finditer(text):
            seen.add(match.start(1))
            out.append(Clause(speaker, bool(match.group(2)), text[match.end() :]))
            # "me and abena went to cape coast" (written "Sam and abena went ..."): the speaker with one
            # person typed in lower case, then the verb
            pair = _WITH_ONE.match(text, match.end())
            if pair is not None and not match.group(2) and not is_common_word(pair.group("who")):
                out.append(Clause(speaker, True, text[pair.end() :]))
    if speaker:
        # "In Sam's first week at the new job Sam had to buy ...": the subject after an opening phrase of time
        intro = re.match(
            rf"^(?:In|On|At|After|Before|During|Over|Last|This|Yesterday|Today|Then|Next|Now|Tomorrow|Tonight|Easter|Christmas|Xmas|"
            # "Black Friday Sam got ...", "Memorial Day weekend Sam and others drove ...": the days people shop and travel
            rf"Black|Boxing|Cyber|Thanksgiving|Halloween|Memorial|Labou?r|Presidents|Valentine['’]s|Mother['’]s|Father['’]s|"
            # "Easter finde Sam and others are going to ...", "Next: february Sam and others are going to ..."
            rf"(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day|January|February|March|April|June|July|August|September|October|"
            rf"November|December|"
            # "Two weekends ago Sam took the train ...": a time ago
            rf"(?:One|Two|Three|Four|Five|A|A\s+couple\s+of|A\s+few)\s+(?:days?|weeks?|weekends?|months?)\s+ago)\b[^,.;!?]{{0,60}}?\s({re.escape(speaker)})"
            r"(\s+and\s+others)?\s+(?=[a-z])",
            text,
        )
        if intro is not None and intro.start(1) not in seen:
            seen.add(intro.start(1))
            out.append(Clause(speaker, bool(intro.group(2)), text[intro.end() :]))
    if speaker:
        # "Sam and Sam's 2 besties Farah and Mei Ling going to ...": the speaker with their own people, then the verb
        company = re.match(
            rf"^({re.escape(speaker)})\s+and\s+{re.escape(speaker)}['’]s\s+[^,.;:!?]{{1,50}}?\s+"
            r"(?=(?:going|went|flew|drove|headed|took|spent|are|were|had|did|booked|visited|got\s+back)\b)",
            text,
        )
        if company is not None:  # (the clause "and Sam's 2 besties ..." read at 0 tells nothing)
            seen.add(0)
            out.append(Clause(speaker, True, text[company.end() :]))
    opening = re.match(r"^(" + CAPITALISED + r")(\s+and\s+others)?\s+(?=[a-z])", text)
    if opening and 0 not in seen and opening.group(1).lower() not in NOT_NAMES:
        out.append(Clause(opening.group(1), bool(opening.group(2)), text[opening.end() :]))
    if speaker:
        out.extend(_travel_later(text, speaker))
    return tuple(out)


_WITH_ONE = re.compile(
    r"and\s+(?P<who>(?-i:[a-z][\w'’-]{2,}))\s+(?=(?:went|go|going|flew|drove|headed|took|spent|are|were|had|did|booked|"
    r"visited|got|came|stayed|left|ate|tried|grabbed|bought)\b)"
)


#: a verb of travel after a clause's joint, with no subject of its own ("sorry Sam is rambling, got back
#: from milwaukee sunday", "work was mad, spent two nights in Oslo"); never "flew to" or "drove to", which
#: often tell a leg of a trip told by its destination ("back from Valle de Guadalupe ..., flew to Tijuana")
_TRAVEL_LATER = re.compile(
    r"(?:[,;]\s+|\s(?:and|so|then)\s+)(?:(?:also|just|finally|then)\s+)?"
    r"(?P<verb>got\s+back\s+from|came\s+back\s+from|"
    r"spent\s+(?:the|a|\w+)\s+(?:\w+\s+)?(?:nights?|days?|weeks?|weekend)\s+in)\s"
)


#: a sentence's first words that name no one ("Work was mad", "It was a long week")
_NO_ONE = re.compile(
    r"(?:It|That|This|Work|Life|Weather|Today|Yesterday|Everything|Things|Week|Traffic|School|Shift|Sorry|Anyway)\b"
)


def _travel_later(text: str, speaker: str) -> tuple[Clause, ...]:
    """The speaker's travel told after another clause without its subject (:data:`_TRAVEL_LATER`),
    when nobody else may be its subject (:data:`_SOMEONE`, the speaker's own name aside, and the
    sentence's first word when it names no one: "Work was mad, got back from Oslo")."""
    name = re.escape(speaker)
    out = []
    for later in _TRAVEL_LATER.finditer(text):
        before = re.sub(rf"\b{name}(?:\s+and\s+others)?\b", "I", text[: later.start()])
        if _NO_ONE.match(before):
            before = before[:1].lower() + before[1:]
        if not _SOMEONE.search(before):
            out.append(Clause(speaker, False, text[later.start("verb") :]))
    return tuple(out)


#: words that open a chat sentence before its subject ("Also I bought ...", "Anyway we flew ...")
_OPENERS = (
    r"(?i:also|anyway|plus|oh|ok|okay|well|meanwhile|honestly|luckily|finally|update|news|in\s+other\s+news|"
    r"other\s+news|btw|by\s+the\s+way|so|and|yeah|lol|haha|unrelated|random(?:ly)?|side\s+note|fun\s+fact|k|um|umm|ugh|omg|"
    # "sad news I had to cancel miami", "unfortunately we ...": news told before its subject
    r"(?:sad|bad|good|great|big|happy|exciting|quick|some|the)\s+news|sadly|unfortunately|annoyingly|fyi|quick\s+update|"
    r"guess\s+what)"
)


#: a sentence that opens with a past-tense verb (or an adverb and one): "finally ordered ...",
#: "just got back from ...", "spent the weekend in ..." -- the speaker's own report
_SUBJECTLESS = re.compile(
    r"^(?:(?:just|finally|also|then|and|so|ok|okay|actually|literally|oh|well|anyway|plus|btw|yeah|lol|haha|update|"
    r"news|um|ugh|omg|k|right|ps|today|yesterday)[,:!]?\s+)*"
    r"(?P<verb>bought|ordered|got|picked|paid|spent|flew|drove|went|came|did|had|ran|swam|cycled|finished|read|started|"
    r"moved|visited|booked|tried|grabbed|ate|landed|returned|joined|quit|left|cancelled|treated|gifted|splurged|snagged|"
    r"popped|nipped|hopped|headed|caught|took|stayed|slept|copped|scored)\b",
    re.I,
)


#: a buying verb after a clause's joint, with no subject of its own ("..., got her a scooter off amazon, £35")
_BUYING_LATER = re.compile(
    r"(?:[,;]\s+|\s(?:and|so|then)\s+|\s[—–-]\s+)(?:(?:also|just|finally|then)\s+)?"
    r"(?P<verb>bought|ordered|got|picked\s+up|grabbed|splurged\s+on|snagged|treated\s+(?:myself|themselves)\s+to|"
    r"gifted\s+(?:myself|themselves))\s+(?!back\b|home\b|to\b|lost\b|sick\b|stuck\b)"
)
#: someone who may be the subject of that verb: a pronoun or kin before it ("my sister flew in and got ...")
_SOMEONE = re.compile(
    r"\b(?:he|she|they|we|you|my\s+(?:sister|brother|mum|mom|dad|wife|husband|partner|friend|boss|son|daughter|"
    r"kids?|parents|bf|gf)|guy|girl|friend|mate|colleague|coworker|co-worker|woman|man|lady|neighbou?r|"
    + CAPITALISED
    + r"\s+(?:and\s+"
    + CAPITALISED
    + r"\s+)?(?:[a-z]+ed|went|flew|came|drove|was|is|got|had|took|said))\b|\b"
    + CAPITALISED
    + r",?\s*$"
)

#: an adverb the kinds' rules read themselves ("finally ordered", "just got back")
_ADVERB_OPENS = re.compile(r"^(?:just|finally|also|then|actually|literally)\s", re.I)

#: the same, for the kinds that read a sentence's report beyond its first clause
SUBJECTLESS = _SUBJECTLESS


@lru_cache(maxsize=4096)
def plain_cached(text: str, said_on: _dt.date | None) -> str:
    return plain(text, said_on)


# -- names ----------------------------------------------------------------------------

MONTH_WORDS = (
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
).split()
WEEKDAY_WORDS = "monday tuesday wednesday thursday friday saturday sunday".split()
#: capitalised words that are never a place, an organisation or a companion
NOT_NAMES = set(
    MONTH_WORDS
    + WEEKDAY_WORDS
    + """christmas easter thanksgiving halloween hanukkah ramadan diwali i mom
    what when where who why how which these those here its also but and so then after before next every
    some many most all one your if since while because although though once just still even only maybe
    perhaps sometimes usually often now recently finally unfortunately luckily thankfully actually honestly
    glad thanks yes no well oh hey hi hello hiya heya howdy hola ciao salut aloha namaste greetings dear yo
    morning evening afternoon wow sorry great nice cool anyway besides plus speaking
 dad mum god he she they we it this that there the a an my our his her their
    today tomorrow yesterday""".split()
)
#: lowercase joiners inside a name ("Rio de Janeiro", "Stratford upon Avon")
_JOINERS = r"(?:de|da|do|dos|del|della|di|la|le|of|upon|am|on|sur|en|&)"
_WORD = r"(?:[A-ZÀ-ÖØ-Þ][\w’'&.-]*[\w&]|[A-ZÀ-ÖØ-Þ])(?![\w’'&-])"
#: one capitalised name: "Lisbon", "New York", "Rio de Janeiro", "Acme Corp", "AT&T"
NAME = rf"(?:{_WORD})(?:\s+(?:{_JOINERS}\s+)?(?:{_WORD}))*"
#: a name, "the Alps", or several joined by commas and "and" ("Kyoto and Osaka")
PLACES = rf"(?:the\s+)?{NAME}(?:(?:,\s+|,?\s+and\s+)(?:the\s+)?{NAME})*"
#: one word in lower case, as chats write a place ("back from japan", "a weekend in leipzig"), that
#: only the gazetteer can tell is one (:func:`~uac.extract.places.lookup_lower`)
#: words after a name that make it an eatery's ("boston brewing", "santorini grill"), not a place's
EATERY_AFTER = (
    r"(?:brewing|brewery|brewhouse|grill|grillhouse|kitchen|bar|cafe|café|bistro|diner|tavern|pub|pizza|pizzeria|"
    r"burgers?|noodles?|sushi|ramen|taqueria|cantina|deli|bakery|eatery|steakhouse|bbq|smokehouse|canteen)"
)
#: a name that holds an eatery word is where people eat, not who employs them ("Calabar Kitchen", "Brew Bistro")
EATERY_NAME = re.compile(rf"\s(?i:{EATERY_AFTER})\b")
LOWER_NAME = rf"(?-i:(?![A-ZÀ-ÖØ-Þ])[^\W\d_](?:[^\W\d_]|-){{2,}})(?![\w'’-])(?!\s+(?i:{EATERY_AFTER})\b)"


def clean_name(text: str, person: str | None = None) -> str | None:
    """A captured name, or ``None`` when it is not one (a month, a person's own name,
    a possessive like "Ana's")."""
    text = text.strip().rstrip(".,;")
    if not text:
        return None
    words = text.split()
    if words[0].lower() in NOT_NAMES and words[0].lower() != "the":
        from ...extract.places import is_place

        if len(words) == 1 or not is_place(text):
            return None  # a month or a pronoun, but "Mar del Plata" is a place
    if words[0].lower() == "the" and len(words) == 1:
        return None
    if re.search(r"['’]s?$", text):
        return None
    if person and text in (person, f"{person} and others"):
        return None
    if person and len(words) > 1:
        # "back from the Engadin Lukas Brunner was a different person": the speaker the extractor wrote for
        # "I", run into the name before it for want of a comma
        cut = re.sub(rf"(?<=[^\W\d_])(?<!\band)\s+{re.escape(person)}(?:\s+and\s+others)?$", "", text)
        if cut != text:
            return clean_name(cut, person)
    return text


def split_names(text: str, person: str | None = None) -> list[str]:
    """ "Kyoto and Osaka" -> ["Kyoto", "Osaka"]; names that are no names dropped."""
    parts = re.split(r",\s+and\s+|,\s+|\s+and\s+", text)
    # "Inverness on Fiona MacLeod's (own)": a name read on past "on" into someone's
    parts = [_ON_SOMEONE.sub("", p) for p in parts]
    return [name for name in (clean_name(p, person) for p in parts) if name]


_ON_SOMEONE = re.compile(rf"(?<=\S)\s+on\s+{OWNER}$")


_PEOPLE_STOP = (
    r"(?=\s+(?:for|to|in|on|at|from|last|next|this|yesterday|today|tomorrow|during|while|because|since|after|before|"
    r"who|which|that|when|where|but|so|then|was|were|is|are|and\s+(?:it|had|was|were|got|went|they|we|is)|as)\b|[,.;!?()]|$)"
)
#: "with Ana", "with Sam's sister and Ana", "with the kids", "with friends"
WITH = re.compile(rf"\bwith\s+(?P<who>[\w’'-]+(?:\s+[\w’'-]+){{0,5}}?){_PEOPLE_STOP}")


#: what people are called when they are not named ("the kids", "Sam's friends", "a colleague")
PEOPLE_WORDS = set(
    """kids children child family fam friends friend partner husband wife parents mom mum dad mother father
    sister sisters brother brothers colleagues colleague coworkers coworker team group girlfriend boyfriend
    son sons daughter daughters cousin cousins grandparents grandma grandpa aunt uncle niece nephew
    roommate roommates neighbors neighbours classmates baby twins folks gang crew fiance fiancee
    people guys girls boys everyone dog dogs""".split()
)


def _is_people(part: str) -> bool:
    """A name ("Ana"), someone's someone ("Sam's sister") or people ("the kids")."""
    words = part.split()
    if words[0][:1].isupper() and words[0].lower() not in NOT_NAMES:
        return True
    return words[-1].lower() in PEOPLE_WORDS


def companions(rest: str, person: str) -> list[str]:
    """The people named after "with" in ``rest``, in order, without ``person`` itself."""
    out: list[str] = []
    for match in WITH.finditer(rest):
        who = _AGO.sub("", match.group("who"))  # "with the kids two weekends ago"
        for part in re.split(r",\s+and\s+|,\s+|\s+and\s+", who):
            part = part.strip()
            if not part or part == person or not _is_people(part):
                continue
            if part not in out:
                out.append(part)
    return out


# -- numbers --------------------------------------------------------------------------

_NUMBERS = {**CARDINALS, "couple": 2, "a couple of": 2}
NUMBER = r"(?:\d[\d,]*(?:\.\d+)?|(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[\s-](?:one|two|three|four|five|six|seven|eight|nine))?(?:\s+(?:hundred|thousand))?)"


#: "two weekends ago" at the end of a "with ..." phrase (a date the date finder does not know)
_AGO = re.compile(rf"\s+(?:{NUMBER}|a\s+few|several|a\s+couple\s+of)\s+\w+\s+ago$", re.I)


def number(text: str) -> float | None:
    """``"450"``, ``"1,200.50"``, ``"five"``, ``"twenty-five"``, ``"a hundred"``, ``"two thousand"``."""
    text = text.strip().lower()
    if re.fullmatch(r"\d[\d,]*(?:\.\d+)?", text):
        return float(text.replace(",", ""))
    total = 0.0
    current = 0.0
    for word in re.split(r"[\s-]+", text):
        if word in ("hundred", "thousand"):
            current = (current or 1) * (100 if word == "hundred" else 1000)
            if word == "thousand":
                total, current = total + current, 0.0
        elif word in _NUMBERS:
            current += _NUMBERS[word]
        elif word == "and":
            continue
        else:
            return None
    return total + current


# -- dates ----------------------------------------------------------------------------


def when(fact: "Fact") -> Period | None:
    return fact.event_date


def in_order(sightings: "list[Sighting]", facts: "dict[str, Fact]") -> "list[tuple[Sighting, Fact]]":
    """Each sighting with its fact, in the order the facts were said (:func:`order_key`)."""
    return sorted(((s, facts[s.fact_id]) for s in sightings), key=lambda pair: order_key(pair[1]))


def order_key(fact: "Fact") -> tuple[Any, ...]:
    """Facts in the order they were said: by session date, then position in the log."""
    match = re.search(r"-f(\d+)$", fact.id)
    return (fact.session_date or _dt.date.min, fact.session_id, int(match.group(1)) if match else 0, fact.id)


# -- shared by the kinds -------------------------------------------------------------


class Said(NamedTuple):
    """A statement by its speaker (:func:`speaker_words`)."""

    #: its plain text
    text: str
    #: the words after the speaker as the subject ("Sam ran 10k" -> "ran 10k"), else None
    rest: str | None
    #: the speaker
    person: str


def speaker_words(fact: "Fact") -> Said | None:
    """A statement by its speaker, with the words after the speaker as the subject; None for
    a question or no speaker."""
    person = fact.speaker
    if not person or is_question(fact):
        return None
    text = plain_cached(fact.text, fact.session_date)
    for prefix in (f"{person} said: ", f"{person} "):
        if text.startswith(prefix):
            return Said(text, text[len(prefix) :], person)
    return Said(text, None, person)


def without_said(text: str, speaker: str | None) -> str:
    """``text`` without the "Sam said: " the rule extractor opens a sentence that names nobody
    with ("Sam said: got back from Rome."); as it is when it opens otherwise."""
    prefix = f"{speaker} said: "
    return text[len(prefix) :] if speaker and text.startswith(prefix) else text


def one_record_each(kind: "Kind", sightings: list["Sighting"], facts: dict[str, "Fact"]) -> list["Assembled"]:
    """One record per sighting, in the order they were said (a purchase, a workout: each
    report is its own thing)."""
    from .model import Assembled

    out = []
    for sighting, fact in in_order(sightings, facts):
        values = dict(sighting.fields)
        # the sentence after that said what it cost ("Bellroy, $189.") is a source too
        paid_in = values.pop("_amount_from", None)
        sources = [fact.id] + ([paid_in] if paid_in is not None and paid_in != fact.id else [])
        values.update(said_on=fact.session_date, sources=sources)
        out.append(Assembled(kind.name, values, list(sources)))
    return out
