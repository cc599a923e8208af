"""Rewriting first and second person into names.

"I went" -> "Caroline went", "my" -> "Caroline's", "I'm" -> "Caroline is";
with exactly two speakers, "you" is the other one ("Did you go?" ->
"Did Melanie go?", "you love" -> "Melanie loves").  A verb right after a
replaced subject is put in the third person singular when it is a present
tense form ("I love" -> "Caroline loves", "I now work" -> "Caroline now
works", "I kind of like" -> "Caroline kind of likes"); adverbs in between are
skipped, never conjugated, past tense and modals stay.  "You" is conjugated for
as a subject wherever a common bare verb follows it ("glad you have" -> "glad
Melanie has", "who you are" -> "who Melanie is"), not after a word that makes it
an object ("let you know", "made you feel").  An emphatic "I myself" is just the
name.  "We" is the speaker and the people with them ("We went" ->
"Caroline and others went", "our" -> "their"); reflexives become
"themselves" ("I made it myself" -> "Caroline made it themselves") or, with no
subject to refer to, "oneself".
"""

from __future__ import annotations

import re

_ADVERBS = set(
    """really just also always never still usually often totally actually even sometimes recently
    finally definitely absolutely kinda sorta truly honestly seriously literally mostly already
    only both all rarely occasionally generally probably certainly personally now then ever once
    too so barely hardly almost mainly especially simply first later currently lately sometime
    somehow already recently nowadays again soon""".split()
)
_NO_CHANGE = set(
    """can could will would should shall might must may did was had went got made saw took came
    gave told felt thought found knew left met ran began brought bought built caught chose drew
    drove ate fell fought flew forgot grew heard held hid hit hurt kept laid led lent let lost
    meant paid put quit read rode rang rose said sat sent set shook shot showed shut sang sank
    slept slid spoke spent spun stood stole stuck struck swam swung taught tore threw understood
    woke wore won wrote became began lit dealt dug fed forgave froze hung knelt leapt overcame
    sought sold sped split spread sprang stank strode strove swore swept wept wound withdrew
    used used to gotta wanna gonna""".split()
)
_IRREGULAR_3SG = {
    "am": "is",
    "are": "is",
    "have": "has",
    "do": "does",
    "don't": "doesn't",
    "haven't": "hasn't",
    "aren't": "isn't",
    "were": "was",
    "weren't": "wasn't",
    "go": "goes",
    "'m": " is",
    "'ve": " has",
    # "i been a paralegal since 2019", "i done the shopping": the auxiliary dropped, as people type
    "been": "has been",
    "done": "has done",
    "seen": "has seen",
}
_NOT_VERBS = set("""and or but so because if when then that the a an to of in on at for with as not no""".split())
_CONTRACTIONS_I = {"i'm": "{n} is", "i've": "{n} has", "i'll": "{n} will", "i'd": "{n} would"}
#: contractions of "I" as phones type them, without the apostrophe, that are no other word
#: ("ill" and "id" are words: they stay as they are)
_UNMARKED_I = {"im": "i'm", "ive": "i've"}
_CONTRACTIONS_YOU = {"you're": "{n} is", "you've": "{n} has", "you'll": "{n} will", "you'd": "{n} would"}
_INVERTED = {
    "am": "is",
    "are": "is",
    "have": "has",
    "do": "does",
    "were": "was",
    "aren't": "isn't",
    "don't": "doesn't",
    "haven't": "hasn't",
    "weren't": "wasn't",
}

#: verbs that end in -ly (everything else ending in -ly is read as an adverb)
_LY_VERBS = {
    "apply",
    "reply",
    "supply",
    "rely",
    "fly",
    "ally",
    "multiply",
    "comply",
    "imply",
    "bully",
    "tally",
    "rally",
    "sully",
}
#: present tense verbs that end in -ed like a past tense
_ED_VERBS = {"need", "feed", "succeed", "proceed", "exceed", "bleed", "breed", "speed", "heed", "embed", "shed"}
_YOU_GROUP = {"guys", "all", "two", "both"}
#: "kind of", "sort of": read like an adverb between a subject and its verb
_HEDGES = {"kind", "sort"}
#: words after which "you" is an object whose bare verb stays ("let you know", "made you feel")
_OBJECT_BEFORE = set(
    """did do does didn't don't doesn't can could will would should shall may might must can't couldn't
    won't wouldn't shouldn't let lets make makes made help helps helped watch watched see saw seen hear
    heard have has had got get to""".split()
)
#: common verbs in their bare form: "you" followed by one of them is the subject
#: ("glad you have", "where you need", "who you are")
_BARE_VERBS = set(
    """are have need want know love like do get make go feel seem deserve keep find enjoy think look mean
    try say see hope wish work live play paint read write run cook bake plan start stop finish help call
    visit travel use learn teach grow build buy sell pay spend remember forget believe understand agree
    prefer miss care handle manage deal put bring come stay leave move join watch listen hear tell ask
    show give share practice decide choose sound happen become take hold win lose create draw sing dance
    train study check pick set""".split()
)

#: a word of any alphabet ("Tjøme" is one word: its "me" is no pronoun), a run of spaces, or one other character
_TOKEN = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?|\s+|[^\w\s]|[\d_]")


def _third_person(verb: str) -> str:
    low = verb.lower()
    if low in _IRREGULAR_3SG:
        return _IRREGULAR_3SG[low]
    if (
        low in _NO_CHANGE
        or (low.endswith("ed") and low not in _ED_VERBS)
        or low.endswith("n't")
        or low in _NOT_VERBS
        or low.endswith("ing")
    ):
        return verb
    if low.endswith("s") and not low.endswith("ss"):
        return verb  # already third person, or not a verb
    if re.search(r"(s|sh|ch|x|z|o)$", low):
        return verb + "es"
    if re.search(r"[^aeiou]y$", low):
        return verb[:-1] + "ies"
    return verb + "s"


def _conjugate_after(tokens: list[str], index: int) -> None:
    """Put the verb following position ``index`` in the third person (skipping adverbs)."""
    j = index + 1
    while j < len(tokens):
        token = tokens[j]
        if token.isspace():
            j += 1
            continue
        if not token[0].isalpha():
            return
        low = token.lower().replace("’", "'")
        if low in _ADVERBS or (low.endswith("ly") and len(low) > 4 and low not in _LY_VERBS):
            j += 1
            continue
        if low in _HEDGES and _next_word(tokens, j) == "of":  # "I kind of like" -> "kind of likes"
            j += 1
            while j < len(tokens) and (tokens[j].isspace() or tokens[j].lower() == "of"):
                j += 1
            continue
        if token[0].isupper():
            return
        tokens[j] = _third_person(low) if low in _IRREGULAR_3SG else _third_person(token)
        return


def _previous_word(tokens: list[str], index: int) -> str:
    j = index - 1
    while j >= 0 and tokens[j].isspace():
        j -= 1
    return tokens[j].lower().replace("’", "'") if j >= 0 else ""


def _next_word(tokens: list[str], index: int) -> str:
    j = index + 1
    while j < len(tokens) and tokens[j].isspace():
        j += 1
    return tokens[j].lower() if j < len(tokens) else ""


def _next_verb(tokens: list[str], index: int) -> str:
    """The first word after ``index`` that is not an adverb, lower case."""
    j = index + 1
    while j < len(tokens):
        low = tokens[j].lower().replace("’", "'")
        if tokens[j].isspace() or low in _ADVERBS:
            j += 1
            continue
        return low
    return ""


def _drop_next_word(tokens: list[str], index: int) -> None:
    j = index + 1
    while j < len(tokens) and tokens[j].isspace():
        j += 1
    if j < len(tokens):
        del tokens[index + 1 : j + 1]


_SUBJECTS = {
    "i",
    "we",
    "you",
    "they",
    "he",
    "she",
    "i'm",
    "we're",
    "you're",
    "i've",
    "we've",
    "i'll",
    "we'll",
    "i'd",
    "we'd",
}


def _has_subject(tokens: list[str], index: int, names: tuple[str, ...]) -> bool:
    """Is there a person before ``index`` for a reflexive or "our" to refer to
    (a pronoun, or a name written in for one)?"""
    for token in tokens[:index]:
        if token.lower().replace("’", "'") in _SUBJECTS or any(token == n or token.startswith(n + " ") for n in names):
            return True
    return False


#: past participles that are no "-ed" word: "I'd lost a bet" is "had lost", "I'd love to" is "would"
_PARTICIPLES = set(
    """been had done gone seen got gotten made lost left taken given found thought told said bought brought
    caught written read eaten run swum flown driven ridden known forgotten heard met paid sent spent won
    booked already just never""".split()
)


def _d_means(tokens: list[str], index: int) -> str:
    """What "'d" stands for after a pronoun at ``index``: "had" before a past participle
    ("I'd lost a bet", "we'd already booked"), else "would" ("I'd love to go")."""
    following = _next_verb(tokens, index)
    return "had" if following in _PARTICIPLES or following.endswith("ed") and not following.endswith("eed") else "would"


def rewrite_persons(sentence: str, speaker: str, listener: str | None) -> str:
    """``sentence`` with I/me/my (and you/your, if ``listener``) replaced by names."""
    tokens = _TOKEN.findall(sentence)
    names = (speaker,) if listener is None else (speaker, listener)
    for i, token in enumerate(tokens):
        low = token.lower().replace("’", "'")
        if low == "i":
            tokens[i] = speaker
            if _next_word(tokens, i) == "myself":  # "I myself went" -> "Sam went"
                _drop_next_word(tokens, i)
            _conjugate_after(tokens, i)
        elif low == "i'd":
            tokens[i] = f"{speaker} {_d_means(tokens, i)}"
        elif low in _CONTRACTIONS_I:
            tokens[i] = _CONTRACTIONS_I[low].format(n=speaker)
        elif low in _UNMARKED_I and (token.islower() or i == 0):
            # "im so tired", "ive started swimming": a phone's "I'm", "I've" without the apostrophe
            tokens[i] = _CONTRACTIONS_I[_UNMARKED_I[low]].format(n=speaker)
        elif low in ("ourselves", "myself", "yourself", "yourselves"):
            tokens[i] = "themselves" if _has_subject(tokens, i, names) else "oneself"
        elif low == "me":
            tokens[i] = speaker
        elif low in ("my", "mine"):
            tokens[i] = f"{speaker}'s"
        elif low == "our":
            tokens[i] = "their" if _has_subject(tokens, i, names) else f"{speaker}'s"
        elif low == "ours":
            tokens[i] = "theirs" if _has_subject(tokens, i, names) else f"{speaker}'s"
        elif low in ("we", "us"):
            if token == "US":
                continue  # "US$40", "the US": the country, never "us"
            tokens[i] = f"{speaker} and others"
        elif low in ("we're", "we've", "we'll", "we'd"):
            tokens[i] = f"{speaker} and others " + (
                {"we're": "are", "we've": "have", "we'll": "will"}.get(low) or _d_means(tokens, i)
            )
        elif listener is None:
            continue
        elif low in _CONTRACTIONS_YOU:
            tokens[i] = _CONTRACTIONS_YOU[low].format(n=listener)
        elif low in ("your", "yours"):
            tokens[i] = f"{listener}'s"
        elif low == "you" and _next_word(tokens, i) in _YOU_GROUP:
            tokens[i] = f"{listener} and others"
            _drop_next_word(tokens, i)
        elif low == "you":
            previous = _previous_word(tokens, i)
            if previous in _INVERTED:  # "are you" -> "is Melanie", "do you" -> "does Melanie"
                j = i - 1
                while tokens[j].isspace():
                    j -= 1
                replacement = _INVERTED[previous]
                tokens[j] = replacement.capitalize() if tokens[j][0].isupper() else replacement
                tokens[i] = listener
            else:
                tokens[i] = listener
                if previous in ("", ",", ";", "and", "but", "so", "if", "when", "that", "because", "as"):
                    _conjugate_after(tokens, i)
                elif previous not in _OBJECT_BEFORE and _next_verb(tokens, i) in _BARE_VERBS:
                    _conjugate_after(tokens, i)
    text = "".join(tokens)
    return text[:1].upper() + text[1:] if text else text
