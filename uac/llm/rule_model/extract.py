"""The extraction responder: one fact per informative sentence of each turn.

It reads the turns of the ``turns`` block, skips small talk and
questions, names the speaker instead of "I"/"my", and dates a fact when its
sentence gives a date ("on 7 May 2023", "May 7, 2023", "2023-05-07") or says
"yesterday", "today" or "last night" (resolved against the date of the ``session`` block).

A sentence that leaves something ("left", "quit", "resigned from", "no longer
works at") supersedes every known fact shown with the prompt that names the
same thing (the ``known_facts`` block; a capitalised name of the sentence other than its speaker) and is
about the same speaker: "I left Acme" ends Acme's job, salary and promotion
hopes at once -- ``supersedes`` is then a list; otherwise it is null.
"""

from __future__ import annotations

import datetime as _dt
import re

from ...dates import MONTH_NAMES, MONTHS
from ..types import ChatRequest
from .reply import Reply
from .request import block, fact_lines, first_user, session_date, turn_lines

_SENTENCE = re.compile(r"(?<=[.!?])\s+")
_IMAGE = re.compile(r"\s*\[image: ([^\]]*)\]")
_SMALL_TALK = re.compile(
    r"^(hi|hey|hello|thanks|thank you|bye|goodbye|good night|wow|cool|great|nice|haha|lol|ok|okay|sure)\b", re.I
)
_MONTH = "(" + "|".join(MONTH_NAMES) + ")"
_DAY_MONTH_YEAR = re.compile(rf"\b(\d{{1,2}}) {_MONTH},? (\d{{4}})\b", re.I)
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH} (\d{{1,2}}),? (\d{{4}})\b", re.I)
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_RELATIVE = (("last night", -1), ("yesterday", -1), ("today", 0), ("tonight", 0))
_FIRST_PERSON = (
    (re.compile(r"\bI'm\b"), "{s} is"),
    (re.compile(r"\bI've\b"), "{s} has"),
    (re.compile(r"\bI'll\b"), "{s} will"),
    (re.compile(r"\bI'd\b"), "{s} would"),
    (re.compile(r"\bI\b"), "{s}"),
    (re.compile(r"\b[Mm]y\b"), "{s}'s"),
    (re.compile(r"\b[Mm]yself\b"), "{s}"),
    (re.compile(r"\bme\b"), "{s}"),
)


def find_day(sentence: str, session: _dt.date | None) -> _dt.date | None:
    for pattern, order in ((_DAY_MONTH_YEAR, "dmy"), (_MONTH_DAY_YEAR, "mdy")):
        match = pattern.search(sentence)
        if match:
            parts = match.groups()
            day, month = (parts[0], parts[1]) if order == "dmy" else (parts[1], parts[0])
            try:
                return _dt.date(int(parts[2]), MONTHS[month.lower()], int(day))
            except ValueError:
                return None
    match = _ISO.search(sentence)
    if match:
        try:
            return _dt.date(*map(int, match.groups()))
        except ValueError:
            return None
    if session is not None:
        lowered = sentence.lower()
        for phrase, offset in _RELATIVE:
            if re.search(rf"\b{phrase}\b", lowered):
                return session + _dt.timedelta(days=offset)
    return None


def third_person(sentence: str, speaker: str) -> str:
    text = sentence
    for pattern, replacement in _FIRST_PERSON:
        text = pattern.sub(replacement.format(s=speaker), text)
    if speaker not in text:
        text = f"{speaker} said: {text}"
    return text


#: leaving something (a job, a club, a flat): a change of plan is reconcile's to settle
_ENDING = re.compile(r"\b(?:left|quit|resigned from|no longer (?:work|live|go)s? (?:at|in|to))\b", re.I)
_NAME = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*\b")


def ended_by(sentence: str, speaker: str, known: list[tuple[str, str]]) -> list[str]:
    """The known facts (id, text) a sentence ends: it says something ended, and they name a
    thing it names (not its speaker) and the speaker."""
    if not _ENDING.search(sentence):
        return []
    names = {n.split()[0] for n in _NAME.findall(sentence)} - {speaker, "I", *speaker.split()}
    return [
        ident
        for ident, text in known
        if speaker in text and any(re.search(rf"\b{re.escape(n)}\b", text) for n in names)
    ]


def informative(sentence: str) -> bool:
    return len(sentence.split()) >= 4 and not sentence.rstrip().endswith("?") and not _SMALL_TALK.match(sentence)


def respond_extract(request: ChatRequest) -> Reply:
    prompt = first_user(request)
    session = session_date(prompt)
    known = [(f.fact_id, f.text) for f in fact_lines(block(prompt, "known_facts"))]
    facts = []
    for turn in turn_lines(block(prompt, "turns")):
        captions = _IMAGE.findall(turn.text)
        body = _IMAGE.sub("", turn.text)
        for sentence in _SENTENCE.split(body.strip()):
            sentence = sentence.strip()
            if not informative(sentence):
                continue
            day = find_day(sentence, session)
            ended = ended_by(sentence, turn.speaker, known)
            facts.append(
                {
                    "text": third_person(sentence, turn.speaker),
                    "evidence": [turn.turn_id],
                    "event_date": day.isoformat() if day else None,
                    "supersedes": ended or None,
                    "speaker": turn.speaker,
                }
            )
        for caption in captions:
            facts.append(
                {
                    "text": f"{turn.speaker} shared an image: {caption.strip()}.",
                    "evidence": [turn.turn_id],
                    "event_date": None,
                    "supersedes": None,
                    "speaker": turn.speaker,
                }
            )
    return Reply("extract", {"facts": facts})


__all__ = ["ended_by", "find_day", "respond_extract", "third_person"]
