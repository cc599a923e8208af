"""States a person is in that a new statement replaces: their employer and their home.

Read from the third-person text the rule extractor writes ("Sam now works at
Initech as a designer.", "Sam and others live in Lisbon now.").  A
:class:`Statement` says which state (``employer`` or ``home``), its value (the
organisation or the place, ``None`` when the text names none: "Sam started a
new job as a counselor"), and what happened:

* ``start`` -- a new one: "started at", "joined", "got a job at", "was hired
  by", "now works at", "moved to", "relocated to", "lives in X now";
* ``current`` -- a plain present: "works at", "is a designer at", "lives in";
* ``end`` -- "is leaving", "left", "quit", "was laid off from", "lost their
  job at";
* ``past`` -- "worked at", "used to work at", "used to live in";
* ``planned`` -- "is moving to", "will start at".

Only a statement whose subject is the person counts ("Sam's friend works at
Initech" is a mention, not Sam's employer).  A bare "left X" / "is leaving
X" is *weak* (``X`` may be a city) unless ``X`` looks like an organisation
("Acme Corp", "Initech Inc."): it counts only where ``X`` is already known as
the person's employer.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from ..facts.model import Fact
    from .base import ExtractedFact

EMPLOYER = "employer"
HOME = "home"

_ANNOTATION = re.compile(r"\s*\((?:on|in|the week|the weekend|between)\b[^()]*\)")
_ADVERBS = (
    r"(?:(?:just|finally|recently|also|actually|already|really|now|then|officially|currently|still|"
    r"happily|eventually|even|\w+ly)\s+)*"
)
_WORD = r"(?:[A-Z][\w’'&.-]*[\w&]|[A-Z])(?![\w’'&-])"
_JOINERS = r"(?:de|da|do|del|la|le|of|am|on|&|and)"
#: an organisation or a place: capitalised words ("Acme Corp", "Rio de Janeiro", "Procter & Gamble")
NAME = rf"(?:{_WORD})(?:\s+(?:{_JOINERS}\s+)?(?:{_WORD}))*"
#: a lowercase workplace after "works at": "a bakery", "the local hospital"
_LOWER_ORG = (
    r"(?:a|an|the)\s+(?!home\b|night\b|weekend\b|moment\b|end\b)[a-z][\w-]*"
    r"(?:\s+(?!(?:as|at|for|with|in|on|since|from|to|and|but|last|next|this|yesterday|today|because|so|until|when|after|"
    r"before|downtown|nearby|now|there|here|part-time|full-time|again|anymore)\b)[a-z][\w-]*){0,3}"
)
_ROLE_STOP = r"(?:at|for|with|in|and|but|since|on|from|to|last|next|this|yesterday|today|tomorrow|ago|every|until|when|after|before|because|so|who|which|that)\b"
_ROLE = rf"(?:(?:a|an|the)\s+)?(?P<role>(?!{_ROLE_STOP}|(?:a|an|the)\b)[A-Za-z][\w-]*(?:\s+(?!{_ROLE_STOP})[A-Za-z][\w-]*){{0,3}})"
_POSSESSIVE = r"(?:[A-Z][\w’'-]*['’]s|his|her|their)"
_ORG_SUFFIX = re.compile(
    r"\b(?:Corp|Corporation|Inc|Ltd|LLC|GmbH|AG|SA|Co|Company|Group|Labs?|Technologies|Tech|Systems|Bank|"
    r"Partners|Consulting|Studios?|Media|Industries|Solutions|University|College|Hospital|School|Agency)\b\.?$"
)
_NOT_NAMES = set(
    """january february march april may june july august september october november december monday tuesday
    wednesday thursday friday saturday sunday christmas easter i mom dad""".split()
)


@dataclass(frozen=True)
class Statement:
    state: str
    value: str | None
    event: str
    role: str | None = None
    #: "left X" without a sign that X is an organisation
    weak: bool = False


def _org(value: str | None) -> str | None:
    if value is None:
        return None
    value = value.strip().rstrip(".,;")
    if not value or value.split()[0].lower() in _NOT_NAMES or re.search(r"['’]s?$", value):
        return None
    return value


def _role(value: str | None) -> str | None:
    if not value:
        return None
    value = " ".join(value.split())
    return value or None


class _Rule:
    """One statement pattern, compiled the first time a text could match it.

    ``keys`` are words any match contains (lower case); a text without one of
    them is not tried, so a session that never speaks of jobs or homes does not
    pay for compiling these patterns (about 75 ms of every ingest otherwise)."""

    __slots__ = ("body", "keys", "_pattern")

    def __init__(self, body: str, keys: tuple[str, ...]) -> None:
        self.body = body
        self.keys = keys
        self._pattern: re.Pattern[str] | None = None

    def match(self, rest: str, words: str) -> re.Match[str] | None:
        """Match at the start of ``rest``; ``words``: ``rest`` lowered, spaces collapsed."""
        if not any(key in words for key in self.keys):
            return None
        if self._pattern is None:
            self._pattern = re.compile(rf"^{_ADVERBS}{self.body}")
        return self._pattern.match(rest)


def _rule(body: str, *keys: str) -> _Rule:
    return _Rule(body, keys)


def _words(rest: str) -> str:
    return " ".join(rest.lower().split())


_AS_ROLE = rf"(?:\s+as\s+{_ROLE})?"
#: the present of the verbs of a trade done at one workplace
_TRADE_VERBS = r"teaches|is\s+teaching|has\s+taught|has\s+been\s+teaching|has\s+been\s+nursing|nurses|lectures|tutors|coaches|volunteers|is\s+volunteering"
_ORG = rf"(?P<org>{NAME})"
_ANY_ORG = rf"(?P<org>{NAME}|{_LOWER_ORG})"

#: (pattern, event, weak) for the employer, tried in order
_EMPLOYER: tuple[tuple[_Rule, str, bool], ...] = (
    (
        _rule(
            rf"(?:will\s+start|is\s+starting|is\s+going\s+to\s+start|starts)\s+(?:a\s+new\s+job\s+|work\s+|working\s+)?(?:at|with|for)\s+{_ORG}{_AS_ROLE}",
            "start",
        ),
        "planned",
        False,
    ),
    (
        _rule(
            rf"(?:started|began)\s+(?:a\s+new\s+job\s+|a\s+job\s+|work\s+|working\s+|{_POSSESSIVE}\s+new\s+job\s+)?(?:at|with|for)\s+{_ANY_ORG}{_AS_ROLE}",
            "started",
            "began",
        ),
        "start",
        False,
    ),
    (
        _rule(
            rf"(?:started|began)\s+(?:a|an|{_POSSESSIVE})\s+(?:new\s+)?(?:job|position|role|gig|career)\s+as\s+{_ROLE}(?:\s+(?:at|with|for)\s+{_ANY_ORG})?",
            "started",
            "began",
        ),
        "start",
        False,
    ),
    # "started as instructor at SBB in May", "began as a junior designer with Arup"
    (
        _rule(
            rf"(?:started|began)\s+(?:out\s+)?as\s+(?:an?\s+|the\s+)?(?P<role>[a-z][\w-]*(?:\s+[a-z][\w-]*){{0,2}}?)\s+(?:at|with|for)\s+{_ORG}",
            "started",
            "began",
        ),
        "start",
        False,
    ),
    (_rule(rf"joined\s+{_ORG}{_AS_ROLE}(?!\s+(?:for|and|at|on|to|in\s+(?:a|an|the))\b)", "joined"), "start", False),
    (
        _rule(
            rf"(?:got|landed|accepted|took|started)\s+(?:a|an|the)\s+(?:new\s+)?(?:\w+\s+)?(?:job|position|role|offer|internship)\s+(?:at|with|from|in)\s+{_ANY_ORG}{_AS_ROLE}",
            "job",
            "position",
            "role",
            "offer",
            "internship",
        ),
        "start",
        False,
    ),
    (
        _rule(
            rf"(?:got|landed|accepted)\s+(?:a|an|the)\s+(?:new\s+)?(?:job|position|role)\s+as\s+{_ROLE}(?:\s+(?:at|with|for)\s+{_ANY_ORG})?",
            "job",
            "position",
            "role",
        ),
        "start",
        False,
    ),
    (_rule(rf"(?:got|was|has\s+been|have\s+been)\s+hired\s+(?:at|by)\s+{_ORG}{_AS_ROLE}", "hired"), "start", False),
    (_rule(rf"(?:switched|moved)\s+(?:jobs\s+)?to\s+{_ORG}\s+as\s+{_ROLE}", "switched", "moved"), "start", False),
    (_rule(rf"now\s+works?\s+(?:at|for|with)\s+{_ANY_ORG}{_AS_ROLE}", "work"), "start", False),
    (
        _rule(
            rf"(?:works?|is\s+working|has\s+been\s+working|has\s+worked)\s+(?:at|for)\s+{_ANY_ORG}{_AS_ROLE}", "work"
        ),
        "current",
        False,
    ),
    (_rule(rf"works\s+as\s+{_ROLE}\s+(?:at|for|with)\s+{_ANY_ORG}", "work"), "current", False),
    # the verbs of a trade done at a workplace: "teaches at Merri Creek Secondary", "nurses at St Mary's"
    (
        _rule(rf"(?:{_TRADE_VERBS})\s+at\s+{_ORG}", "teach", "nurs", "lectur", "tutor", "coach", "volunteer"),
        "current",
        False,
    ),
    (
        _rule(
            rf"(?:is|(?:has\s+)?been)\s+(?:a|an)\s+(?P<role>[a-z][\w-]*(?:\s+[a-z][\w-]*){{0,2}}?)\s+(?:at|for|with)\s+{_ORG}",
            "is a",
            "been a",
        ),
        "current",
        False,
    ),
    (_rule(rf"(?:worked|used\s+to\s+work)\s+(?:at|for)\s+{_ANY_ORG}{_AS_ROLE}", "work"), "past", False),
    (
        _rule(
            rf"(?:quit|left|is\s+leaving|is\s+quitting|resigned\s+from|retired\s+from|lost|was\s+let\s+go\s+from)\s+{_POSSESSIVE}\s+(?:job|position|role)\s+(?:at|with)\s+{_ANY_ORG}",
            "job",
            "position",
            "role",
        ),
        "end",
        False,
    ),
    (
        _rule(
            rf"(?:quit|left|lost|is\s+leaving|is\s+quitting)\s+{_POSSESSIVE}\s+(?:job|position|role)\s+as\s+{_ROLE}",
            "job",
            "position",
            "role",
        ),
        "end",
        False,
    ),
    (_rule(rf"(?:resigned|retired)\s+from\s+{_ORG}", "resigned", "retired"), "end", False),
    (
        _rule(rf"(?:was|got)\s+(?:laid\s+off|fired|let\s+go)\s+(?:from|by)\s+{_ORG}", "laid", "fired", "let go"),
        "end",
        False,
    ),
    (
        _rule(
            rf"(?:quit|is\s+quitting|is\s+leaving|left|is\s+moving\s+on\s+from)\s+{_ORG}(?!\s+(?:for|to)\s+(?:a|the)?\s*(?:trip|vacation|holiday))",
            "quit",
            "leaving",
            "left",
            "moving on",
        ),
        "end",
        True,
    ),
)

_PLACE = rf"(?P<place>{NAME})"
_HOME: tuple[tuple[_Rule, str], ...] = (
    (_rule(rf"(?:is|are)\s+(?:moving|relocating)\s+(?:back\s+)?to\s+{_PLACE}", "moving", "relocating"), "planned"),
    (
        _rule(
            rf"(?:will|is\s+going\s+to|are\s+going\s+to|plans?\s+to|wants?\s+to)\s+(?:move|relocate)\s+(?:back\s+)?to\s+{_PLACE}",
            "move",
            "relocate",
        ),
        "planned",
    ),
    (
        _rule(
            rf"(?:moved|relocated|has\s+moved|have\s+moved)\s+(?:back\s+)?(?:in)?to\s+(?:(?:a|an|the|{_POSSESSIVE})\s+(?:new\s+)?(?:apartment|flat|house|home|place|condo)\s+in\s+)?{_PLACE}",
            "moved",
            "relocated",
        ),
        "start",
    ),
    (_rule(rf"(?:settled|has\s+settled)\s+(?:down\s+)?in\s+{_PLACE}", "settled"), "start"),
    (_rule(rf"now\s+lives?\s+in\s+{_PLACE}", "live"), "start"),
    (
        _rule(
            rf"(?:lives?|is\s+living|are\s+living|has\s+lived|have\s+lived|has\s+been\s+living)\s+in\s+{_PLACE}",
            "live",
            "living",
            "lived",
        ),
        "current",
    ),
    (_rule(rf"(?:used\s+to\s+live|lived)\s+in\s+{_PLACE}", "live", "lived"), "past"),
)


_TAG_QUESTION = re.compile(
    r",\s*(?:remember|right|you\s+know|no|yeah|ok|okay|huh|eh|isn't\s+it|didn't\s+\w+|"
    # "I bought a padded jacket at Decathlon, 199, is that enough??": the question is of the thing told
    r"(?:is|was)\s+(?:that|it|this)\s+(?:enough|ok|okay|good|bad|normal|too\s+much|a\s+good\s+(?:deal|price)|worth\s+it|fine|right))"
    r"\s*\?+$",
    re.I,
)


def is_question(text: str) -> bool:
    """A question ("Ana asked: Did Sam go to Osaka?", "Is it far?"), not a statement
    with a tag ("Sam had dinner at Nopa last Friday, remember?")."""
    text = text.strip()
    if re.match(r"^[A-Z][\w'’-]*(?: [A-Z][\w'’-]*)? asked:", text):
        return True
    return text.endswith("?") and _TAG_QUESTION.search(text) is None and not report_with_question(text)


#: the words a question opens with ("What should I pack", "Do you think", "Is it far")
_ASKS = re.compile(
    r"^(?:[A-Z][\w'’-]*\s+(?:said|asked):\s+)?(?:(?:ok|okay|so|and|but|also|hey|hi|um|hmm)[,!]?\s+)*"
    r"(?i:what|where|when|why|how|who|whom|whose|which|is|are|am|was|were|do|does|did|can|could|should|shall|would|"
    r"will|have|has|had|any|anyone|anybody|isn't|aren't|don't|doesn't|didn't|won't|wouldn't|shouldn't|ur|you)\b"
)
#: a message of many clauses is a report when only its end asks: at least this many words and commas
REPORT_WORDS, REPORT_COMMAS = 25, 2


def report_with_question(text: str) -> bool:
    """ "ok so I did a thing, bought a road bike off Trade Me last night, a 2019 Giant TCR, ... for
    $1,150 which I reckon is pretty good??": a long run-on report whose last clause asks -- its
    clauses are statements (it opens with no question word, has three clauses or more and
    :data:`REPORT_WORDS` words)."""
    if _ASKS.match(text) is not None:
        return False
    return (len(text.split()) >= REPORT_WORDS and text.count(", ") >= REPORT_COMMAS) or _REPORT_FIRST.match(
        text
    ) is not None


#: a report told first, a question after it: "Also Sam bought a winter coat at Beams, 24,900円, Tokyo wind is
#: colder than Osaka??" -- someone's deed in the past opens it, a comma ends it before the asking
_REPORT_FIRST = re.compile(
    r"^(?:[A-Z][\w'’-]*\s+said:\s+)?(?:(?:ok|okay|so|and|also|anyway|btw|well|oh)[,!]?\s+)*"
    r"(?:(?-i:[A-Z])[\w'’-]*(?:\s+and\s+others)?\s+)?(?:(?:just|finally|already)\s+)?"
    r"(?:bought|got|ordered|had|went|flew|drove|booked|paid|spent|picked\s+up|grabbed|ran|did)\b[^?]{8,}?,\s",
    re.I,
)


def strip_dates(text: str) -> str:
    return _ANNOTATION.sub("", text)


def read_employer(rest: str) -> Statement | None:
    """The employer statement ``rest`` (the words after a person) makes, if any."""
    words = _words(rest)
    for pattern, event, weak in _EMPLOYER:
        match = pattern.match(rest, words)
        if match is None:
            continue
        groups = match.groupdict()
        org = _org(groups.get("org"))
        role = _role(groups.get("role"))
        if org is None and role is None:
            continue
        if org is not None and org[:1].islower():
            weak = False
        weak = weak and not _ORG_SUFFIX.search(org or "")
        if event == "current" and re.match(r"^(?:\w+\s+)*?now\s", rest):
            event = "start"
        return Statement(EMPLOYER, org, event, role, weak)
    return None


def read_home(rest: str) -> Statement | None:
    """The home statement ``rest`` makes, if any ("lives in Lisbon now" is a change)."""
    words = _words(rest)
    for pattern, event in _HOME:
        match = pattern.match(rest, words)
        if match is None:
            continue
        place = _org(match.group("place"))
        if place is None:
            continue
        tail = rest[match.end() :]
        if event == "current" and re.match(r"^\s*(?:now|these\s+days)\b", tail):
            event = "start"
        return Statement(HOME, place, event)
    return None


def statements(text: str, person: str) -> list[Statement]:
    """What ``text`` says about ``person``'s employer and home, with ``person`` (or
    "``person`` and others") as its subject at the start of the sentence or clause."""
    text = strip_dates(text)
    name = re.escape(person)
    out: list[Statement] = []
    for match in re.finditer(rf"(?:^|[,;:]\s+|\b(?i:and|but|so|then)\s+)({name})(\s+and\s+others)?\s+(?=[a-z])", text):
        rest = text[match.end() :]
        employer = read_employer(rest) if not match.group(2) else None
        home = read_home(rest)
        out.extend(s for s in (employer, home) if s is not None)
    return out


# -- supersession ------------------------------------------------------------------------------

_SUFFIX_WORDS = re.compile(r"\s+(?:corp|corporation|inc|ltd|llc|gmbh|co|company|group)\.?$")


def same_value(a: str | None, b: str | None) -> bool:
    """ "Acme" and "Acme Corp" are one employer; "Lisbon" and "lisbon" one home."""
    if a is None or b is None:
        return a is b
    a, b = (_SUFFIX_WORDS.sub("", re.sub(r"^(?:the|a|an)\s+", "", v.lower().strip())) for v in (a, b))
    return a == b


def _recorded(fact: "Fact") -> list[Statement]:
    """The states an earlier fact holds: the keys the rules stored in its ``meta``,
    else what its text says (facts from before the keys, or from a model)."""
    meta = fact.meta or {}
    if meta.get("state") in (EMPLOYER, HOME):
        return [
            Statement(
                meta["state"],
                meta.get("state_value"),
                str(meta.get("state_event") or "current"),
                meta.get("state_role"),
            )
        ]
    if not fact.speaker:
        return []
    return statements(fact.text, fact.speaker)


def _order(fact: "Fact") -> tuple:
    match = re.search(r"-f(\d+)$", fact.id)
    return (fact.session_date or _dt.date.min, fact.session_id, int(match.group(1)) if match else 0, fact.id)


def link_states(session_id: str, extracted: list["ExtractedFact"], known: Sequence["Fact"]) -> list["ExtractedFact"]:
    """``extracted`` (a session's facts, in order) with state keys in ``meta`` and
    ``supersedes`` set where a fact replaces the person's latest valid employer or
    home fact (from ``known`` or earlier in the session).

    A new employer or home ("start") supersedes a valid fact with a different
    value; a plain present ("current") does so only after the old one was left;
    leaving ("end") supersedes the fact that said the person works there.
    Plans and past statements are kept as they are and supersede nothing.
    """
    latest: dict[tuple[str, str], tuple[str, Statement]] = {}
    for fact in sorted((f for f in known if f.invalid_at is None), key=_order):
        person = (fact.meta or {}).get("state_person") or fact.speaker
        for statement in _recorded(fact):
            if person and statement.event in ("start", "current", "end") and not statement.weak:
                latest[(person, statement.state)] = (fact.id, statement)
    out: list[ExtractedFact] = []
    for number, item in enumerate(extracted, 1):
        fact_id = f"{session_id}-f{number}"
        person = item.speaker
        if not person or is_question(item.text) or item.text.startswith(f"{person} said:"):
            out.append(item)
            continue
        meta = dict(item.meta)
        supersedes = item.supersedes
        for statement in statements(item.text, person):
            previous = latest.get((person, statement.state))
            if statement.weak:
                if previous is None or not same_value(previous[1].value, statement.value):
                    continue  # "left Lisbon": not an employer they are known to have
                statement = Statement(statement.state, previous[1].value, "end", statement.role)
            if "state" not in meta:
                meta.update(
                    state=statement.state, state_value=statement.value, state_event=statement.event, state_person=person
                )
                if statement.role:
                    meta["state_role"] = statement.role
            if statement.event not in ("start", "current", "end"):
                continue
            if previous is not None and supersedes is None:
                old = previous[1]
                changed = not same_value(old.value, statement.value)
                if (
                    (statement.event == "start" and (changed or old.event == "end"))
                    or (statement.event == "current" and changed and old.event == "end")
                    or (statement.event == "end" and not changed and old.event in ("start", "current"))
                ):
                    supersedes = previous[0]
            latest[(person, statement.state)] = (fact_id, statement)
        out.append(
            replace(item, meta=meta, supersedes=supersedes)
            if meta != item.meta or supersedes != item.supersedes
            else item
        )
    return out
