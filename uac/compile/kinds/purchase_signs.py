"""Purchases told in no fixed shape: a verb of buying, the thing, and a price after it.

The rules of :mod:`.purchases` read the shapes people write most ("bought a couch for $850",
"paid £30 for a haircut").  People also write "snagged a robot vacuum, $499 down from $899",
"grabbed a monitor arm ($129) and one of those anti-fatigue mats ($45)", "I went with the
Mitsubishi heat pump in the end, $3,450 installed", "copped the jordan 4s, $215 off this dude".
What they share is a verb of buying, then the thing, then its *price* somewhere after it.  This
reader, tried only where the shaped rules read nothing in the sentence, asks for all three:

- a verb of buying said of the past, a specific one ("grabbed", "snagged", "copped", "nabbed",
  "went with", "ended up getting", "treated myself to"); "got", "paid", "came to" and "arrived"
  say too little here (got two quotes, paid a deposit), and "new runners $180" alone is no sign;
- a price after the verb: an amount of money (:func:`uac.extract.money.find_amounts`), or a
  bare number of three digits or more after a comma ("the kit, 1150"), which the user's own
  currency prices (``_bare_amount``);
- the thing: the words before the price since the verb, a list mark or the price before,
  without where or whom it was bought for.

Never a purchase here: a question, a wish or a plan ("thinking about", "might", "should"),
things looked at, sold, quoted or almost bought, rent, bills and subscriptions, a meal out or a
journey, a price given for comparison ("down from $899"), or someone else's purchase.  Each
price is one purchase, with the thing before it.

Measured on unseen lives, a looser first version (any "got", "paid", "arrived", or "new X"
with a price) read more purchases but at about one right in two; this one keeps to the signs
that name a purchase.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from . import patterns as p
from .meal_signs import _EATERY_WORDS, DISHES, MEAL_WORDS, _first_person, _someone_elses
from .model import Sighting
from .purchases import _REFERENCE

if TYPE_CHECKING:
    from ...facts.model import Fact

NAME = "purchase"

#: a verb of getting a thing, said of the past
_BOUGHT = p.word_list(
    "bought bougth purchased grabbed picked_up ordered copped nabbed snagged scored splurged treated_myself "
    "treated_me treated_themselves caved went_with ended_up_with ended_up_getting ended_up_buying invested_in "
    "binili comprei compré"
)
#: "got" that names a purchase: a new or second-hand thing ("got new hokas yesterday, 140 bucks", "got a
#: new chilly bin for 120"), or a thing got from or at a shop ("got a ski jacket from kathmandu saturday,
#: 180 on sale", "got him a bike saturday tho, dicks sporting goods, 189"); never a quote, a ticket, a
#: raise or a call ("got two quotes", "got a parking ticket, $80")
_GOT = re.compile(
    r"\b(?:got|get)\s+(?:(?P<for>him|her|them|mum|mom|dad|(?-i:[A-Z][a-z]+)|(?-i:[a-z]{3,}))\s+(?=(?:a|an|some)\s)|myself\s+)?"
    r"(?:(?:a|an|some|the|my|two|2|a\s+couple\s+of)\s+)?(?:(?P<new>(?:brand[\s-]+)?new|second[\s-]?hand|used|proper|real)\s+"
    r"|(?(for)|(?!))"
    r"|(?=(?:[\w'’&-]+\s+){1,4}?(?:from|at|off)\s|(?:[\w'’&-]+\s+){1,3}?(?:yesterday|today|on\s+\w+day|\w+day)\b))",
    re.I,
)
#: what "got" names that is no thing bought: a quote, a ticket, a raise, a call, a lift, an illness
_GOT_NOTHING = re.compile(
    r"\b(?:quotes?|tickets?|refund|raise|bonus|fine|deal|job|role|offer|discount|calls?|emails?|texts?|message|"
    r"letter|promotion|results?|cold|flu|covid|lift|ride|table|seats?|spot|upgrade|chance|feeling|sense|idea|news|"
    r"time|reply|answer|invite|invitation|puncture|flat|scratch|dent|parking|speeding|vaccine|jab|shot|haircut|"
    r"massage|interview|place|room|visa|license|licence|loan|mortgage|pay|paid|salary|rise)\b",
    re.I,
)
#: someone else as the subject of the verb of buying
_THEIRS = re.compile(
    r"\b(?:he|she|they|he['’]s|she['’]s|they['’]ve|his|buddy|mate|friend|son|daughter|husband|wife|grandson|"
    r"granddaughter|neighbou?r|brother|sister|mum|mom|dad|boss|colleague)\b(?:\s+\S+){0,3}\s*$",
    re.I,
)
#: what a meal out has and a thing bought has not (a dish, the bill, the menu)
MEAL_SIGNS = re.compile(rf"{DISHES.pattern}|{_EATERY_WORDS.pattern}", re.I)
#: a person named just before the verb: "one guy, Tobi, bought", "Jas's bro also just bought"
_NAMED_BUYER = re.compile(
    r"\b" + p.CAPITALISED + r"(?:['’]s\s+\w+)?,?\s+(?:(?:also|just|meanwhile|finally|then|\w+ly)\s+)*$"
)
#: a sentence that buys nothing: a plan, a wish, a question to decide, a look, a sale, a quote
_NOT_BOUGHT = re.compile(
    r"\b(?:looking\s+at|looked\s+at|eyeing|eyed|thinking|considering|tempted|want|wants|wanted|wanna|wish|"
    r"should|says|said\s+(?:i|me)|would|might|could|planning|plan\s+to|gonna|going\s+to|will|saving\s+(?:up\s+)?for|"
    r"almost|nearly|didn'?t|did\s+not|never|sold|selling|sell|quotes?|quoted|estimate|asking|retail\s+(?:is|was)|"
    r"worth\s+it\s+for|rent|bills?|subscription|salary|wage|deposit|fine|refund(?:ed)?|returned|took\s+(?:it|them)\s+back|"
    r"sent\s+(?:it|them)\s+back)\b",
    re.I,
)
#: a trip's or an outing's cost, not a thing bought
_NOT_A_THING = re.compile(
    r"\b(?:flights?|hotel|airbnb|hostel|nights?|tickets?\s+to|fare|uber|taxi|cab|train|bus|tram|ferry|ride|lift|"
    r"parking|petrol|gas|fuel|entry|"
    r"admission|tuition|fees?|lessons?|membership|haircut|massage|for\s+(?:lunch|dinner|brunch|breakfast))\b",
    re.I,
)
#: where the thing's words start: after a verb of buying, a list mark, a clause's joint or an earlier price
_START = re.compile(
    rf"(?:{_BOUGHT.pattern}|\b(?:got|get)\b|\b(?:and|plus|also|then|with|\+)\b|[,;:—–()]|\s-\s|^)",
    re.I,
)
#: what follows the thing's name before its price: where, from whom, for whom, when, "it was"
_TAIL = re.compile(
    r"\s+(?:for|at|from|off|on|in|with|via|through|to|which|that|it|its|it['’]s|was|were|is|cost|costs|came|"
    r"yesterday|today|last|this|in\s+the|like|about|around|only|just|approx|roughly)\b.*$"
    r"|\s*[—–(,:].*$|\s+-\s.*$",
    re.I | re.S,
)
#: words that name no thing bought
_NO_THING = set(
    """it one ones them that this these those both all everything something anything nothing total price each
    half share part portion mine one ones whole lot setup thing things stuff deal bargain sale delivery shipping postage tax tip down
    bill quote quotes estimate difference extra rest change cash money card""".split()
)
#: a bare price right after the thing: "a Nespresso, 3,499 at Liverpool", "the kit, 1150."
_BARE = re.compile(
    r"(?:,|—|–|-)\s*(?!(?:19|20)\d\d\b)(?P<n>[1-9]\d{2,}(?:\.\d\d)?|[1-9]\d{0,2}(?:,\d{3})+(?:\.\d\d)?)"
    r"(?![\d,.]*\s*(?:%|km|kg|k\b|m\b|hrs?|hours|mins?|nights?|days?|people|followers|steps|model|edition))"
)


#: a bare price after "for": "got a new chilly bin for 120 and a gazebo for 189" (never "for 2 weeks",
#: "for 10 years", "for 3 of us")
_BARE_FOR = re.compile(
    r"\bfor\s+(?!(?:19|20)\d\d\b)(?P<n>[1-9]\d{1,}(?:\.\d\d)?|[1-9]\d{0,2}(?:,\d{3})+(?:\.\d\d)?)"
    r"(?![\d,.]*\s*(?:%|km|kg|k\b|m\b|hrs?|hours|mins?|minutes|nights?|days?|weeks?|months?|years?|yrs?|people|"
    r"of\s+us|kids|followers|steps|model|edition|pieces|pcs|inch|in\b|cm|mm|l\b|litres?|liters?|gb|tb|th\b|st\b|nd\b|rd\b))"
)


#: a bare price straight after the thing a verb of buying named, before the next thing, the shop or the
#: sentence's end: "bought a new gas cylinder 380 and a blender 650 at melcom"
_BARE_AFTER = re.compile(
    r"(?<=[a-z])\s+(?!(?:19|20)\d\d\b)(?P<n>[1-9]\d{2,}(?:\.\d\d)?|[1-9]\d{0,2}(?:,\d{3})+(?:\.\d\d)?)"
    r"(?=\s+(?:and|at|from|off|in|on|plus)\b|\s*[,.;!]|\s*$)"
)


def detect(fact: "Fact") -> list[Sighting]:
    """The speaker's purchases told in no shape the other rules read (usually none)."""
    from ...extract.money import find_amounts

    person = fact.speaker
    if not person or p.is_question(fact):
        return []
    text = _first_person(p.without_said(p.plain_cached(fact.text, fact.session_date), person), person)
    if p.WISHES.search(text) or _NOT_BOUGHT.search(text) or MEAL_WORDS.search(text) or _someone_elses(text):
        return []
    verb = _BOUGHT.search(text) or _GOT.search(text)
    if verb is not None and (
        _THEIRS.search(text[max(0, verb.start() - 30) : verb.start()])
        or _named_buyer(text[max(0, verb.start() - 40) : verb.start()])
        or re.match(r"\s+(?:himself|herself)\b", text[verb.end() :])
        or _another_before(text[: verb.start()])
    ):
        return []  # "my grandson ... he's got himself one", "Kiri meanwhile bought himself": someone else's
    if MEAL_SIGNS.search(text):
        return []  # "Chengdu Garden, £48, the dumplings": a meal out, not a thing
    bought = verb is not None
    prices: list[tuple[int, int, float, str | None]] = [
        (m.start, m.end, m.amount, m.currency) for m in find_amounts(text)
    ]
    if verb is None:
        return _new_things(fact, text, prices)
    if not prices:
        bare = [*_BARE.finditer(text), *_BARE_FOR.finditer(text)]
        if not bare and verb.re is _BOUGHT:
            bare = list(_BARE_AFTER.finditer(text))
        prices = sorted((m.start("n"), m.end("n"), float(m.group("n").replace(",", "")), None) for m in bare)
    out: list[Sighting] = []
    before = 0
    for start, end, amount, currency in prices:
        segment, before_segment = text[before:start], before
        before = end
        if _REFERENCE.search(segment):
            continue  # "$499 down from $899", "which is $399 here": a price not paid
        item = _got_thing(segment, verb, before_segment, person) or _thing(segment, person)
        if item is None or _NOT_A_THING.search(segment):
            continue
        if not bought or verb is None or verb.start() >= start:
            continue  # the verb of buying comes before the price it paid
        if verb.re is _GOT and _GOT_NOTHING.search(item):
            continue  # "got a parking ticket, $80": no thing bought
        item = _with_its_kind(item, text[verb.end() : start], person)
        fields = _bought(fact, person, item, amount, currency)
        if currency is None:
            fields["_bare_amount"] = True
        out.append(Sighting(NAME, fact.id, fields, f"{fact.id}#{len(out)}"))
    return out


#: a new thing with its price straight after it and no verb: "Also a new mattress, £349, because",
#: "my new boots from Sportsmans, R1 300, gave me blisters"; the thing opens the sentence or a list
_NEW_PRICED = re.compile(
    r"(?:^|\b(?:also|and|plus)\s+|[,;:]\s*)(?:a|my|the)\s+(?:brand[\s-]+)?new\s+"
    r"(?P<thing>[a-z][\w'’-]*(?:\s+[a-z][\w'’-]*){0,3}?)"
    r"(?:\s+(?:from|off|at)\s+(?:the\s+)?[\w'’&-]+(?:\s+[\w'’&-]+){0,2}?)?\s*[,(—–-]?\s*$",
    re.I,
)
#: the next thing of the same list, priced: "..., and a kettle and toaster from Argos for 40 quid"
_AND_PRICED = re.compile(
    r"(?:^|[,;]\s*|\s)(?:and|plus)\s+(?:a|an|some|the)\s+(?P<thing>[a-z][\w'’-]*(?:\s+[a-z][\w'’-]*){0,4}?)"
    r"(?:\s+(?:from|off|at)\s+(?:the\s+)?[\w'’&-]+(?:\s+[\w'’&-]+){0,2}?)?\s+(?:for\s+)?$",
    re.I,
)
#: things a new one of is no purchase: a job, a home, people, a plan
_NOT_NEW_THINGS = re.compile(
    r"\b(?:job|role|position|post|boss|manager|team|colleagues?|office|flat|apartment|place|house|home|room|"
    r"neighbou?rs?|landlord|lease|contract|salary|rate|price|rent|plan|phone\s+plan|policy|school|baby|puppy|"
    r"kitten|partner|girlfriend|boyfriend|year|season|term|series|episode|menu|record)s?\b",
    re.I,
)


def _new_things(fact: "Fact", text: str, prices: list[tuple[int, int, float, str | None]]) -> list[Sighting]:
    """Things bought told with no verb: a new thing with its price ("a new mattress, £349"), and
    the things priced after it in the same list ("and a kettle and toaster from Argos for 40 quid")."""
    person = fact.speaker or ""
    out: list[Sighting] = []
    before = 0
    for start, end, amount, currency in prices:
        segment = text[before:start]
        before = end
        shape = _NEW_PRICED if not out else _AND_PRICED
        match = shape.search(segment)
        if match is None or _NOT_NEW_THINGS.search(match.group("thing")) or _NOT_A_THING.search(segment):
            break
        if re.match(r"\s*(?:a|an|per|/)\s*(?:month|week|year|night|pm|pw|pcm|mo)\b|\s*each\b", text[end:], re.I):
            break  # "a new flat, £1,200 a month": a rate, not a thing bought
        item = _named_in(match.group("thing"), person)
        if item is None:
            break
        out.append(Sighting(NAME, fact.id, _bought(fact, person, item, amount, currency), f"{fact.id}#{len(out)}"))
    return out


def _bought(fact: "Fact", person: str, item: str, amount: float, currency: str | None) -> dict[str, Any]:
    """The fields of a purchase these signs read: when the fact dates it, where never told."""
    return {"person": person, "item": item, "amount": amount, "currency": currency, "when": p.when(fact), "where": None}


#: the ending of an adverb or participle a chat opens with in capitals ("Honestly", "Unrelated"): no name
_AN_ADVERB = re.compile(r"(?:ly|[a-z]{4}ed)$")


def _named_buyer(head: str) -> bool:
    """A person named just before the verb (:data:`_NAMED_BUYER`), not a word the chat opens with
    ("Already got a jacket", "Unrelated but picked up")."""
    match = _NAMED_BUYER.search(head)
    if match is None:
        return False
    word = match.group(0).split()[0].strip(",").lower()
    return not (word in _CALLS or _AN_ADVERB.search(word))


def _another_before(head: str) -> bool:
    """Someone else named before the verb and the speaker nowhere there ("Tom climbed for an
    hour, got a new harness"): whose purchase it is stays unclear."""
    if re.search(r"\b(?:me|my|we|us|our|i)\b", head, re.I):
        return False
    return any(
        m.group(0).lower() not in p.NOT_NAMES
        and m.group(0).lower() not in _CALLS
        # "Unrelated but picked up ...", "Honestly grabbed ...": the head's capital on an adverb
        and not (m.start() == 0 and _AN_ADVERB.search(m.group(0)))
        for m in re.finditer(r"\b" + p.CAPITALISED + r"\b", head)
    )


#: words a chat opens with that name nobody ("Mate grabbed ...", "Sorted. Got ...")
_CALLS = set(
    """mate bro bruv babe dude man guys lads lad yo ok okay so well oh also update news sorted righto right
    honestly basically lol haha ugh omg welp caved finally splurged confession already anyway btw meanwhile
    yesterday today tonight""".split()
)


def _with_its_kind(item: str, after_verb: str, person: str) -> str:
    """A make named after the thing ("bought new walking boots yesterday, Meindls from Tiso, £165"):
    the make and the thing ("Meindls new walking boots"), not the make alone."""
    if not all(w[:1].isupper() for w in item.split()):
        return item
    first = after_verb.split(",", 1)[0]
    if first.strip() == after_verb.strip():
        return item
    thing = _named_in(first, person)
    if thing is None or not thing[:1].islower() or item.lower() in thing.lower():
        return item
    return f"{item} {thing}"


def _got_thing(segment: str, verb: "re.Match[str] | None", at: int, person: str) -> str | None:
    """The thing right after "got" in ``segment``, up to its first comma ("got him a bike tho, dicks
    sporting goods, 189": the bike, not the shop named after it), or None."""
    if verb is None or verb.re is not _GOT or not at <= verb.start() < at + len(segment):
        return None
    head = segment[verb.end() - at :].split(",", 1)[0]
    head = head.split(":", 1)[1] if ":" in head else head  # "got him a present already: a framed OS map"
    return _named_in(re.sub(r"\s+(?:tho|though|btw|lol)\s*$", "", head), person) if "," in segment else None


def _thing(segment: str, person: str) -> str | None:
    """The thing named last in ``segment`` (the words before a price), or None."""
    item = _named_in(segment[_last_start(segment) :], person)
    arrived = re.search(r"\b(?:arrived|came|showed\s+up|turned\s+up)\b[^,;:]*[,;:—–(]?\s*$", segment, re.I)
    if item is None and arrived is not None:
        # "the belt bag arrived today, $89": the thing before the verb it came with
        prefix = segment[: arrived.start()]
        item = _named_in(prefix[_last_start(prefix) :], person)
    return item


def _last_start(text: str) -> int:
    """Where the last thing's words in ``text`` start (after a verb of buying, a joint or a mark)."""
    starts = [m.end() for m in _START.finditer(text) if m.end() < len(text.rstrip())]
    return starts[-1] if starts else 0


def _named_in(words: str, person: str) -> str | None:
    """The thing ``words`` name, without where, when or for whom it was bought."""
    from .purchases import _item

    words = _BOUGHT.sub("", words)
    words = re.sub(r"[^\w'’)-]+$", "", _TAIL.sub("", words.strip()))  # "the jordan 4s 💯": no emoji
    words = re.sub(r"^(?:one|some|a\s+couple)\s+of\s+(?:those|these|the|them)\s+", "", words.strip(), flags=re.I)
    words = re.sub(r"^(?:treated\s+)?(?:myself|me|themselves|yourself)\s+(?:to\s+)?", "", words.strip(), flags=re.I)
    words = re.sub(r"^(?:up|on|to|out)\s+", "", words, flags=re.I)
    tokens = words.split()
    while tokens and tokens[0].lower().strip(",") in _GLUE:
        tokens = tokens[1:]
    while tokens and tokens[-1].lower().strip(",") in _GLUE:
        tokens = tokens[:-1]
    item = _item(" ".join(tokens), person) if tokens else None
    if not item or len(item.split()) > 6:
        return None
    names = [w.lower().strip("'’.,!") for w in item.split()]
    if names[-1] in _NO_THING or all(w in _NO_THING or w in p.NOT_NAMES for w in names):
        return None
    if any(w in _CLAUSE for w in names):
        return None  # "he said 'mamá", "now me has had", "buddy paid": a clause, not a thing
    if not re.search(r"[A-Za-z]{3}", item) or re.fullmatch(r"[\d\s.,x]+\w?", item) or re.search(r"[()\[\]]", item):
        return None
    if item.split()[0] in ("New", "Used", "Brand"):
        item = item[:1].lower() + item[1:]  # "New runners" opening the sentence
    return item


#: words around a thing's name that are not part of it
_GLUE = set(
    """and so then also plus like was were is it that which me i we he she they you my our your his her their
    just only about around approx roughly basically literally already for at from in on to of with""".split()
)
#: words that make the words before a price a clause, not a thing's name
_CLAUSE = set(
    """said says say thinks think thought reckon reckons has had have paid pays wants want told tells asked
    retails retail took although though split costs""".split()
) | set(
    """
    me him her them us he she they i we you was were is are been being do does did got get gets""".split()
)
