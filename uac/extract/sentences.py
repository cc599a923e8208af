"""Splitting a turn into sentences and telling filler from content."""

from __future__ import annotations

import re
from collections.abc import Set as AbstractSet

#: words that end in a full stop without ending the sentence ("Dr. Lee", "e.g. this")
_ABBREVIATIONS = set("mr mrs ms dr st jr sr prof vs etc e.g i.e approx no a.m p.m".split())
#: a sentence ends at its stop, a newline, or a run of emoji before the next words ("first shift at
#: starbucks tmrw ☕️😭 is it weird to ...": chat ends a thought with emoji, not a full stop), unless a
#: date follows: "pack for Tbilisi 🇬🇪❄️ Feb 13-18 with Mariel" tells the trip's days
_BOUNDARY = re.compile(
    r"(?<=[.!?…])[\"')\]]*\s+|\n+|(?<=[\U0001F000-\U0001FAFF\u2600-\u27BF\u2B00-\u2BFF\uFE0F\u200D])\s+(?=[A-Za-z])"
    r"(?!(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d)"
)
#: a face typed in the text ends a thought too: a kaomoji ("(≧▽≦)", "(´∀｀)") or an emoticon (":)", ";D", "^^")
_FACE = re.compile(r"(\((?=[^()]*[^\x00-\x7f])[^()A-Za-z0-9]{1,12}\)|(?<!\S)(?:[:;]-?[()DPp]+|\^\^|T_T))[ \t]+(?=\S)")
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9'’\-]*")

#: words that carry no fact on their own (greetings, thanks, reactions, glue)
FILLER = set(
    """
    hi hey hello heya hiya yo bye goodbye cya thanks thank thx ty cheers welcome please sorry
    wow whoa omg lol haha hahaha lmao yay yeah yea yep yes no nope nah ok okay k sure cool
    awesome great amazing nice good wonderful fantastic fab fabulous lovely beautiful brilliant
    incredible cute sweet perfect neat super glad happy absolutely totally definitely indeed
    really so very too much such just quite pretty oh ah aw aww hmm um uh well right true
    agreed exactly same congrats congratulations sounds seems looks like love hope hear see
    talk soon later catch take care anytime bet gotcha got it that's thats this that it's its
    what's whats how's hows how are you your you're i i'm im me my we us our they them it is
    was be been being am are were do does did have has had will would can could should shall
    may might must the a an and or but of to in on at for with about up out new news anything
    something everything nothing what how why when where who which whom there here all any
    again also as if then than going doing being keep let's lets know mean guess think
    """.split()
)


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text`` (newlines always separate)."""
    pieces: list[str] = []
    buffer = ""
    for part in _BOUNDARY.split(_FACE.sub(lambda m: m.group(1) + "\n", text)):
        if not part or not part.strip():
            continue
        candidate = (buffer + " " + part).strip() if buffer else part.strip()
        words = candidate.rstrip(".").split()
        last = words[-1].lower() if words else ""
        if candidate.endswith(".") and (last.rstrip(".") in _ABBREVIATIONS or re.fullmatch(r"[a-z]", last.rstrip("."))):
            buffer = candidate
            continue
        pieces.append(candidate)
        buffer = ""
    if buffer:
        pieces.append(buffer)
    return pieces


def content_words(sentence: str, names: AbstractSet[str] = frozenset()) -> list[str]:
    """The words of ``sentence`` that are not filler, stop words or (prefixes of) names."""
    out = []
    for word in _WORD.findall(sentence):
        low = word.lower().replace("’", "'")
        if low.isdigit():
            out.append(low)
            continue
        if low in FILLER or low.rstrip("s") in FILLER:
            continue
        if any(len(low) >= 3 and name.startswith(low) for name in names):
            continue
        if low.endswith("'s") and low[:-2] in names:
            continue
        out.append(low)
    return out


def is_contentless(sentence: str, names: AbstractSet[str] = frozenset()) -> bool:
    """True for greetings, thanks and reactions ("Hey Mel!", "Thanks!", "Wow, so cool!")."""
    return not content_words(sentence, {n.lower() for n in names})
