"""The rule-based extractor: no model, deterministic, offline.

Per turn: split into sentences, drop the mark of a list item ("- ", "• ", "2) "),
drop pure filler ("Hey Mel!", "Thanks!", "Wow"), rewrite first person to the speaker and (with two speakers) second
person to the listener, resolve relative dates against the session date and
write them into the text, and attribute a sentence that names nobody to its
speaker ("Caroline said: ...").  One fact per sentence, its turn as evidence;
a shared image becomes "Caroline shared an image: <caption>.".

Who says what: the assistant's turns (a speaker named ``assistant``, ``AI``,
``bot``..., as chat exports name the model's messages) give no facts -- its
suggestions, questions and pleasantries are about nobody; they stay in the
archive, searchable, with the session.

A new employer or home ("I now work at Initech", "I joined Hooli", "we moved
to Berlin") supersedes the speaker's latest valid employer or home fact, from
an earlier session or earlier in this one (:func:`~uac.extract.states.link_states`);
the state keys go into ``meta`` (``state``, ``state_value``, ``state_event``,
``state_person``) so later sessions find them.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Sequence

from ..facts.model import Fact
from ..sessions.model import Session, Turn
from .base import ExtractedFact
from .dates import annotate
from .persons import rewrite_persons
from .sentences import is_contentless, split_sentences
from .states import link_states, report_with_question

_INTERJECTION = re.compile(
    r"^(?:(?:yes|yeah|yep|yup|no|nope|wow|whoa|oh|ah|aw+|haha+|lol|omg|well|so|hey|hi|ok|okay|sure|"
    r"thanks|thank you|totally|absolutely|definitely|cool|awesome|great|nice|congrats|congratulations|sorry)"
    r"(?:[ ,]+[A-Z][a-z]+)?[,!.]+\s+)+",
    re.IGNORECASE,
)


#: a list item's mark before its sentence: "- ", "* ", "• ", "1. ", "2) ", "(3) "
_LIST_MARK = re.compile(r"^\s*(?:[-*•–—·▪●>]+|\(?\d{1,2}[.)])\s+(?=\S)")


def strip_list_mark(sentence: str) -> str:
    """A sentence without the mark of the list item it is ("- back from Lisbon, 3 nights" ->
    "back from Lisbon, 3 nights"; "(2) The house sold." -> "The house sold."), without the
    emoji it opens with ("✈️ back from Lisbon" -> "back from Lisbon") and without the brackets
    it is told in (:func:`_unbracketed`)."""
    return _unbracketed(_LIST_MARK.sub("", _strip_leading_symbols(sentence), count=1))


def _unbracketed(sentence: str) -> str:
    """A sentence told in brackets without them: "(we went to puerto vallarta at the beginning of
    the month, ..." (the bracket never closed) or "(writing this from the café)" -> its words."""
    if not sentence.startswith("("):
        return sentence
    if ")" not in sentence:
        return sentence[1:].lstrip()
    if sentence.rstrip(" .!?").endswith(")") and sentence.count("(") == 1:
        end = sentence.rstrip(" .!?")
        return (end[1:-1] + sentence[len(end) :]).strip()
    return sentence


def _strip_leading_symbols(sentence: str) -> str:
    """``sentence`` without the emoji and symbols before its first word (never a currency sign:
    "$40 for the lot" keeps it)."""
    index = 0
    while index < len(sentence) and (
        unicodedata.category(sentence[index]) in ("So", "Sk", "Mn", "Cf") or sentence[index] in "\ufe0f\u200d "
    ):
        index += 1
    return sentence[index:] if index and index < len(sentence) else sentence


def strip_interjections(sentence: str) -> str:
    """Drop leading "Yes, ", "Wow, Mel! " and the like; the rest of the sentence stays."""
    rest = _INTERJECTION.sub("", sentence, count=1)
    if not rest.strip():
        return sentence
    return rest[:1].upper() + rest[1:]


#: speaker names of the model's side of a chat (messages with ``role: assistant``)
ASSISTANT_NAMES = frozenset(
    {"assistant", "ai", "bot", "chatbot", "model", "gpt", "chatgpt", "claude", "gemini", "copilot"}
)


def is_assistant(speaker: str | None) -> bool:
    """Is ``speaker`` the assistant of a chat (whose sentences are no facts about anyone)?"""
    return (speaker or "").strip().lower() in ASSISTANT_NAMES


def _listener(session: Session, speaker: str) -> str | None:
    """Whom "you" means in ``speaker``'s turns: the one other speaker, unless that is the
    assistant -- a user's "you" to it is an address or a generic you ("everyone says your 20s
    you bounce back"), and the assistant is no one facts are about."""
    others = [s for s in session.speakers if s != speaker]
    return others[0] if len(others) == 1 and not is_assistant(others[0]) else None


def _finish(text: str) -> str:
    text = text.strip()
    if text and text[-1] not in ".!?…\"')":
        text += "."
    return text


class RuleExtractor:
    name = "rules"

    def extract(self, session: Session, known: Sequence[Fact] = ()) -> list[ExtractedFact]:
        facts: list[ExtractedFact] = []
        names = set(session.speakers)
        for turn in session.turns:
            facts.extend(self.turn_facts(session, turn, names))
        return link_states(session.session_id, facts, known)

    def turn_facts(self, session: Session, turn: Turn, names: set[str]) -> list[ExtractedFact]:
        if is_assistant(turn.speaker):
            return []
        listener = _listener(session, turn.speaker)
        out: list[ExtractedFact] = []
        for sentence in split_sentences(turn.text):
            sentence = strip_list_mark(sentence)
            if is_contentless(sentence, names):
                continue
            text = rewrite_persons(strip_interjections(sentence), turn.speaker, listener)
            text, dates = annotate(text, session.date)
            question = text.rstrip().endswith("?") and not report_with_question(text)
            if turn.speaker not in text or (question and not text.startswith(turn.speaker)):
                text = f"{turn.speaker} {'asked' if question else 'said'}: {text}"
            meta = {"extractor": self.name}
            out.append(
                ExtractedFact(
                    text=_finish(text),
                    evidence=(turn.turn_id,),
                    speaker=turn.speaker,
                    event_date=dates[0].period if dates else None,
                    meta=meta,
                )
            )
        if turn.image_caption:
            out.append(
                ExtractedFact(
                    text=_finish(f"{turn.speaker} shared an image: {turn.image_caption}"),
                    evidence=(turn.turn_id,),
                    speaker=turn.speaker,
                    meta={"extractor": self.name, "image": True},
                )
            )
        return out
