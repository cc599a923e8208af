"""Purchases: what someone bought, for how much, in which currency, when and where.

Seen in a clause whose subject is a person, in the past tense: "bought a bike
for $450", "paid 30 euros for a haircut", "spent £200 on concert tickets",
"got a new phone for 300 dollars", "picked up a lamp at IKEA for €25",
"ordered a desk from Amazon", "purchased a car".  An amount needs a currency
(a sign, a word or a code: "$450", "30 euros", "EUR 30", "fifty bucks"), so
"spent five nights" and "paid attention" are no purchases; "got" and "picked
up" count only with an amount ("got a cat" is no purchase); plans ("wants to
buy a car") are not purchases yet.

Amounts come from :func:`uac.extract.money.find_amounts` (price-parser, babel,
number words): "bought a couch for £850 and a lamp for 65" is two purchases,
the second in the first one's currency; "ordered a standing desk yesterday --
£340" puts the amount after a dash; "got a bike for fifty quid" is 50 GBP.
"nearly bought", "didn't buy", "looked at" are no purchases.

Assembling: every sighting is one purchase.

In a chat: "bought one already, the Patagonia parka, £260" names the thing
after the comma; "a little print of the canal houses" is a print ("a pair of
boots" keeps its "of"); "the running shoes I bought in June, £120" is a
purchase named before the speaker; "a couch for £850 from Loaf and a lamp for
65" prices the lamp in the couch's currency.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ...dates import Period
from ...extract.money import currency_code, share_told_first
from ...extract.words import is_common_word
from . import patterns as p
from .model import Sighting

if TYPE_CHECKING:
    from ...facts.model import Fact

NAME = "purchase"

_SYMBOLS = {"$": "USD", "€": "EUR", "£": "GBP", "¥": "JPY", "₹": "INR"}
_WORDS = {
    "dollar": "USD",
    "dollars": "USD",
    "bucks": "USD",
    "usd": "USD",
    "euro": "EUR",
    "euros": "EUR",
    "eur": "EUR",
    "pound": "GBP",
    "pounds": "GBP",
    "quid": "GBP",
    "gbp": "GBP",
    "yen": "JPY",
    "jpy": "JPY",
    "chf": "CHF",
    "francs": "CHF",
    "franc": "CHF",
    "sek": "SEK",
    "nok": "NOK",
    "dkk": "DKK",
    "cad": "CAD",
    "aud": "AUD",
    "rupees": "INR",
    "inr": "INR",
    "pesos": "MXN",
    "mxn": "MXN",
    "reais": "BRL",
    "brl": "BRL",
}
_CODE = r"(?:USD|EUR|GBP|JPY|CHF|SEK|NOK|DKK|CAD|AUD|INR|MXN|BRL)"
_WORD_CURRENCY = (
    r"(?:dollars?|bucks|euros?|pounds?|quid|yen|francs?|rupees|pesos|reais|kroner|kronor|baht|rand|ringgit|zloty|"
    r"dirhams|" + _CODE + r")"
)
_NUM = rf"(?:{p.NUMBER})(?:\s*(?P<k>k|K|grand)\b)?"
AMOUNT = (
    rf"(?P<amount>(?P<symbol>[$€£¥₹])\s?(?P<n1>\d[\d,]*(?:\.\d+)?)(?:\s*(?P<k1>k|K)\b)?"
    rf"|(?P<code>{_CODE})\s?(?P<n2>\d[\d,]*(?:\.\d+)?)"
    rf"|(?P<n3>{p.NUMBER})(?:\s*(?P<k3>k|K)\b)?\s*(?P<word>{_WORD_CURRENCY})\b"
    rf"|(?P<n4>\d[\d,]*(?:\.\d+)?)\s?(?P<symbol2>[€£¥])"
    rf"|(?P<grand>{p.NUMBER})\s+grand\b)"
)
_STOP = (
    r"(?=\s+(?:for|at|from|on|in|with|yesterday|today|last|this|and|but|because|bc|cuz|coz|to|online|off|which|that|so|when|after|"
    r"while|since|during)\b|[,.;!?()]|$)"
)
_ITEM = r"(?P<item>(?!(?:into|it|them|that|this|one(?!\s+of\s+(?:those|these|the)\s)|some|nothing|anything|something|time|attention|a\s+visit)\b)[\w'’-]+(?:\s+[\w'’-]+){0,5}?)"
_ITEM_TO_STOP = rf"{_ITEM}{_STOP}"
_BUY = r"(?:bought|grabbed|purchased|ordered|splurged\s+on|treated\s+(?:\S+|themselves)\s+to|snagged|scored|got|picked\s+up|paid\s+for|brought\s+back|had\s+to\s+buy)"
_WHERE = re.compile(
    rf"\b(?:at|from|on|sa(?=\s+[A-Z]))\s+(?P<where>(?:the\s+)?{p.NAME}|the\s+(?:[a-z]+\s+)?(?:market|store|shop|mall|supermarket|bakery|"
    rf"flea\s+market|farmers\s+market|thrift\s+store|airport|station|bookstore|pharmacy)|[a-z]+\.(?:com|co\.uk|de|fr))"
)


def _rule(body: str) -> re.Pattern[str]:
    return re.compile(rf"^{p.ADVERBS}{body}")


#: (pattern, needs an amount)
RULES: tuple[tuple[re.Pattern[str], bool], ...] = (
    (
        _rule(
            rf"{_BUY}\s+{_ITEM}\s+(?:(?:at|from|on)\s+(?:the\s+)?{p.NAME}\s+)?(?:for|at)\s+(?:only\s+|just\s+|about\s+|around\s+|like\s+)?{AMOUNT}"
        ),
        True,
    ),
    (
        _rule(
            rf"(?:paid|shelled\s+out|forked\s+out|dropped)\s+(?:only\s+|just\s+|about\s+|around\s+|like\s+)?{AMOUNT}\s+(?:for|on|to\s+get|to\s+buy)\s+{_ITEM_TO_STOP}"
        ),
        True,
    ),
    (_rule(rf"spent\s+(?:only\s+|just\s+|about\s+|around\s+|like\s+)?{AMOUNT}\s+on\s+{_ITEM_TO_STOP}"), True),
    (_rule(rf"(?:bought|purchased|ordered|splurged\s+on|snagged)\s+{_ITEM_TO_STOP}"), False),
)


def amount_of(match: re.Match[str]) -> tuple[float | None, str | None]:
    """The amount and its ISO currency code from an :data:`AMOUNT` match."""
    g = match.groupdict()
    if g.get("symbol"):
        value, currency, k = p.number(g["n1"]), _SYMBOLS[g["symbol"]], g.get("k1")
    elif g.get("code"):
        value, currency, k = p.number(g["n2"]), g["code"].upper(), None
    elif g.get("word"):
        word = g["word"].lower()
        value, currency, k = p.number(g["n3"]), _WORDS.get(word) or currency_code(word) or word.upper(), g.get("k3")
    elif g.get("symbol2"):
        value, currency, k = p.number(g["n4"]), _SYMBOLS[g["symbol2"]], None
    elif g.get("grand"):
        value, currency, k = p.number(g["grand"]), "USD", "k"
    else:
        return None, None
    if value is not None and k:
        value *= 1000
    return value, currency


#: whom a gift is for ("got my mom a scarf")
_KIN = (
    r"mom|mum|mother|dad|father|parents|sister|brother|son|daughter|kids|wife|husband|partner|boyfriend|girlfriend|"
    r"gran|granny|grandma|grandpa|nan|aunt|auntie|uncle|cousin|niece|nephew|friend|boss|colleague|in-laws"
)


def _item(text: str, person: str) -> str | None:
    text = re.sub(
        # "got brody a marucci bat": whom it is for, in capitals or not, before the thing
        r"^(?:themselves|himself|herself|oneself|(?:him|her|them|us)(?=\s+(?:a|an|the|some)\s)|(?-i:[A-Za-z][a-z]+)(?=\s+(?:a|an|some)\s))\s+",
        "",
        text.strip(),
    )
    # "got my mom a scarf", "bought Ana's brother a watch": the gift, not whom it is for
    text = re.sub(
        rf"^(?:(?:{p.OWNER}|my|his|her|their|our)\s+)(?:(?:little|baby|big|younger|older|eldest|youngest)\s+)?"
        rf"(?:{_KIN})\s+(?=(?:a|an|the|some)\s)",
        "",
        text,
    )
    # "got the mam a nespresso", "bought for the shop a new till": whom or what it is for, then the thing
    text = re.sub(r"^(?:for\s+)?(?:the|my|our|his|her|their)\s+[a-z][\w'’-]*\s+(?=(?:a|an|some)\s+\S)", "", text)
    # "little brother a lego set", the "my" already gone
    text = re.sub(
        rf"^(?:(?:little|baby|big|younger|older|eldest|youngest)\s+)?(?:{_KIN}|mam|nan|nana|missus|hubby)\s+(?=(?:a|an|some)\s+\S)",
        "",
        text,
    )
    text = re.sub(r"^(?:a\s+)?(?:lot|lots|bunch)\s+of\s+", "", text)
    # "one of those air fryers": the kind of thing, one of it ("air fryer")
    one_of = re.match(r"^one\s+of\s+(?:those|these|the)\s+(?P<kind>.*\w)(?P<s>s)$", text)
    text = re.sub(r"^one\s+of\s+(?:those|these|the)\s+", "", text)
    if one_of is not None and not one_of.group("kind").endswith("s"):
        kind = one_of.group("kind")
        text = kind[:-2] + "y" if kind.endswith("ie") else kind  # "canopies": a canopy
    # "a little print of the canal houses": the print; "a pair of boots" keeps its "of"
    of = re.match(r"^(?P<head>.*?\S)\s+of\s+(?:the|a|an|my|our|their|his|her)\s+\S.*$", text.strip())
    if of and of.group("head").split()[-1].lower() not in _MEASURES:
        text = of.group("head")
    # "the keyboard Sam has been staring at": the thing, not the clause about it
    text = re.split(rf"\s+{re.escape(person)}(?:\s+and\s+others)?\s+", text, maxsplit=1)[0] if person else text
    # "the Yeti cooler the big one", "the dagne dover one it was": the thing, not what is said of it
    text = _SAID_OF_IT.sub("", text)
    kept = _ONE_AFTER.sub("", text)
    named = [w for w in kept.split() if w.lower() not in ("a", "an", "the", "some", "new", "old", "used", "another")]
    if named and (len(named) > 1 or named[0][:1].isupper() or ("-" not in named[0] and not is_common_word(named[0]))):
        text = kept  # never "a new one" -> "new": that one is named before (:func:`_antecedent`)
    text = text.strip().rstrip(".,")
    for own in (f"{person}'s ", f"{person}’s "):  # "Dana Kowalczyk's tax refund": a full name of several words
        if person and text.startswith(own):
            text = text[len(own) :]
    words = text.split()
    while words and (
        words[0].lower()
        in ("a", "an", "the", "some", "their", "his", "her", "my", "these", "those", "this", "that", "proper", "own")
        or words[0] in (f"{person}'s", f"{person}’s")
    ):
        words = words[1:]
    # "a cast iron pan instead", "a new harness there": where or why, not the thing
    while len(words) > 1 and words[-1].lower() in _TRAILING:
        words = words[:-1]
    if " ".join(words).lower() in _REFUNDS or (words and words[-1].lower() in _MONEY_IN):
        return None  # "got the £249 back in full", "got my tax refund, 2,340": money coming in, nothing bought
    if words and (words[-1].lower() in _NO_GOODS or " ".join(words[-2:]).lower() in _NO_GOODS):
        return None  # "got a new job at Acme, $90k", "got a parking ticket, $80": nothing bought
    if words and all(w.lower().strip(",.") in _FILLERS for w in words):
        return None  # "85 euros, so like 136$": the same price again, no second thing
    return " ".join(words) or None


#: words that name no thing, before a price said again in another money
_FILLERS = {"so", "like", "about", "around", "roughly", "approx", "or", "which", "is", "thats", "that's", "aka", "ie"}
#: what "got" names that is no thing bought: work, a lift, a penalty, a mishap
_NO_GOODS = {
    "job",
    "role",
    "position",
    "promotion",
    "lift",
    "ride",
    "fine",
    "puncture",
    "parking ticket",
    "speeding ticket",
    "parking fine",
    "flat tyre",
    "flat tire",
}
#: what "got ... back" names when money comes back: a refund, not a thing bought
_REFUNDS = {"back", "refund", "full refund", "money back", "deposit back", "change", "cashback"}
#: the last word of money someone receives ("my tax refund", "a bonus", "my first paycheck")
_MONEY_IN = {
    "refund",
    "paycheck",
    "paycheque",
    "payslip",
    "bonus",
    "raise",
    "salary",
    "wage",
    "wages",
    "tips",
    "allowance",
    "payout",
    "reimbursement",
    "rebate",
    "cashback",
    "stimulus",
    "inheritance",
    "scholarship",
    "grant",
    "stipend",
}


#: what follows an item's name and says something of it: "the big one", "it was", "which is"
_SAID_OF_IT = re.compile(r"(?<=\S)\s+(?:it|its|it['’]s|which|that)\b.*$", re.I)
#: "the Yeti cooler the big one", "the dagne dover one": the make, the word "one" after it
_ONE_AFTER = re.compile(r"(?<=\S)\s+(?:(?:the|a)\s+(?:[\w-]+\s+)?ones?\b.*|ones?)$", re.I)


#: words that end an item's phrase without naming it
_TRAILING = {
    "instead",
    "there",
    "here",
    "too",
    "again",
    "anyway",
    "online",
    "finally",
    "today",
    "yesterday",
    "afterwards",
    "back",
}


#: the words before "of" that measure what follows it ("a pair of boots", "a set of bowls")
_MEASURES = set(
    """pair pairs set sets bottle bottles box boxes bag bags pack packs cup cups piece pieces couple bunch lot lots
    crate case jar jars tin tins roll rolls kilo kilos bar bars slice basket bundle""".split()
)


#: words without which no rule of this kind can match (a cheap first look)
CUE = re.compile(
    r"\b(?:bought|grabbed|purchased|ordered|paid|spent|got|picked|splurged|snagged|scored|shelled|forked|dropped|treated|brought|buy|"
    r"gifted)\b",
    re.I,
)


_BUY_START = re.compile(rf"^{p.ADVERBS}(?P<verb>{_BUY})\s+")
_NOT_BOUGHT = re.compile(
    r"^(?:almost|nearly|never|not|didn't|did\s+not|won't|would|could|might|want|wanted|looked|stared)\b"
)
#: where an item's words end before its amount ("a couch for", "a desk yesterday --", "tiles from a shop near")
_ITEM_END = re.compile(
    r"\s+(?:for|at|from|on|in|off|with|yesterday|today|last|this|online|which|that|because|bc|cuz|coz|cause|to|but|and\s+it|so)\b.*$"
    r"|\s+the\s+(?:day|night|week|morning|evening|weekend)\s+(?:before|after)\b.*$"
    r"|\s*[—–:(].*$|\s+-\s.*$|\s*,.*$"
    r"|\s+sa\s+(?=[A-Z]).*$",  # Tagalog "at": "a new suitcase sa Carrefour"
    re.S,
)

#: a thing priced without a currency before the next thing of the list: "... for 399 and a steam mop"
_PRICED_BEFORE = re.compile(
    r"\s+for\s+(?P<n>[1-9]\d{1,2}(?:\.\d\d)?|[1-9]\d{0,2}(?:,\d{3})+(?:\.\d\d)?)\s+and\s+(?=(?:a|an|the|some)\s)"
)
#: what a later segment of a list of things bought says when its thing was not bought
_NOT_BOUGHT_AFTER = re.compile(
    r"\b(?:eyeing|eyed|looked\s+at|looking\s+at|almost|nearly|didn't|did\s+not|left\s+it|walked\s+out|tried\s+on)\b",
    re.I,
)
#: a segment that opens with a preposition ("at JB Hi-Fi, ...") says where, not what
_PREPOSITION = re.compile(r"^(?:at|from|in|on|off|to|for|with)\b", re.I)


#: a second thing after one priced in letters and digits: "... and a fridge from Game R7 499"
_AND_LOCAL = re.compile(
    r"^\s+and\s+(?P<item>(?:a|an|the|some|new)\s+[\w'’-]+(?:\s+[\w'’-]+){0,2}?)"
    r"(?:\s+(?:from|at|off)\s+[\w'’-]+(?:\s+[\w'’-]+){0,2}?)?,?\s+(?-i:[A-Z][A-Za-z]{0,2})\$?\s?[1-9]"
)
#: "and a standing lamp for 65", "and matching juttis 2,200", "and a bed frame, another 340": one more thing
#: after the last price of a list, priced without a currency
_AND_PRICED = re.compile(
    r"^\s*(?:(?:from|at|on|in)\s+[A-Z][\w'’&-]*(?:\s+[A-Z][\w'’&-]*)*\s+)?(?:,\s*)?and\s+"
    # "and a side table for 45"; "and goggles for 25": things, one or two words, without "a"
    # "and addie new adidas cleats for 85": whom it is for, first; "and matching juttis 2,200", "and a bed
    # frame, another 340": the price after a comma or a space, two digits at least
    r"(?:(?-i:[a-z][a-z]+)\s+(?=new\b|a\b|an\b|the\b|some\b))?"
    r"(?P<item>(?:a|an|the|some|new)\s+[\w'’ -]+?|(?:[a-z][\w'’-]*\s+)?[a-z][\w'’-]*[a-rt-z]s)"
    r"(?:\s+for\s+(?P<n>\d[\d,]*(?:\.\d\d)?)|(?:,\s+(?:another\s+)?|\s+)(?P<n2>[1-9]\d{0,2}(?:,\d{3})+|[1-9]\d{1,5}(?:\.\d\d)?))\b"
    r"(?P<k>k\b)?(?!\s*(?:%|km|miles|min|mins|minutes|nights|days|hours|hrs|years|yrs|weeks|months|people|of\b))"
)


def _several(fact: "Fact", clause: p.Clause) -> list[dict[str, Any]] | None:
    """Every item bought in the clause, each with the amount that follows it; None when
    the clause names no amount (the older rules then read it)."""
    from ...extract.money import find_amounts

    start = _BUY_START.match(clause.rest)
    if start is None or _NOT_BOUGHT.match(clause.rest):
        return None
    body = clause.rest[start.end() :]
    amounts = find_amounts(body)
    if not amounts:
        return None
    items: list[dict[str, Any]] = []
    last = 0
    for money in amounts:
        segment = body[last : money.start]
        last_end = last
        if last:
            # "... for $1,899 which I'll be paying off, and a second hand fridge for $350": the next
            # thing is in the segment's last clause, not in what was said of the one before
            segment = re.split(r",\s+(?:and\s+)?(?=(?:a|an|the|some|two|three)\s)", segment)[-1]
        last = money.end
        if last_end and _REFERENCE.search(segment):
            continue  # "$499 down from $899": a price the thing did not cost
        segment = re.sub(r"^\s*(?:,|and|\+|plus|also|then)\s+", "", segment.strip(" ,;()"))
        segment = re.sub(r"^(?:one|some|a\s+couple)\s+of\s+(?:those|these|the|them)\s+", "", segment)
        segment = re.sub(r"^(?:another|an\s+extra)\s+", "", segment)
        bare = _PRICED_BEFORE.search(segment)
        if bare is not None:
            # "a Dyson for 399 and a steam mop for $89": the first thing priced without a currency,
            # in the one the next is priced in
            first = _item(_ITEM_END.sub("", segment[: bare.start()]).strip(), clause.person)
            if first is not None:
                items.append({"item": first, "amount": p.number(bare.group("n")), "currency": money.currency})
            segment = segment[bare.end() :]
        item = _ITEM_END.sub("", segment).strip()
        if re.match(r"^(?:one|it|them|that|this|these|those)\b", item) and "," in segment:
            # "bought one already, the Patagonia down parka": the thing is named after the comma
            item = _ITEM_END.sub("", segment.split(",", 1)[1].strip()).strip()
        if last_end and _NOT_BOUGHT_AFTER.search(segment):
            break  # "..., was eyeing up the Dyson too but $899 for a vacuum is insane": looked at, not bought
        if _ATTRIBUTIVE.fullmatch(segment.strip()) and (after := _PRICED_THING.match(body, money.end)) is not None:
            item, last = after.group("item"), after.end()  # "a new €30 lamp": the thing follows its price
        named = _item(item, clause.person) if item and not _PREPOSITION.match(item) else None
        if named is None:
            if items and items[-1]["amount"] is None:
                items[-1].update(amount=money.amount, currency=money.currency)
            continue
        items.append({"item": named, "amount": money.amount, "currency": money.currency})
    # "and a standing lamp for 65": a later item priced without a currency takes the one before it
    tail = body[last:]
    match = _AND_PRICED.match(tail)
    if match and items:
        later = _item(match.group("item"), clause.person)
        if later:
            amount = float((match.group("n") or match.group("n2")).replace(",", ""))
            if match.group("k"):
                amount *= 1000
            items.append({"item": later, "amount": amount, "currency": items[-1]["currency"]})
    return items or None


#: what comes before a price that is the thing's adjective ("a new €30 lamp", "two $15 tickets")
_ATTRIBUTIVE = re.compile(
    r"(?:(?:a|an|the|my|our|some|these|those|two|three|four|new|used|second-?hand|cheap)\s*)+", re.I
)
_PRICED_THING = re.compile(
    rf"\s+(?!(?:each|apiece|off|from|for|on|in|at|worth|and|or|total|deposit|voucher|a|an|the)\b){_ITEM_TO_STOP}"
)


#: a price said for comparison, not paid: "down from", "retail was", "instead of"
_REFERENCE = re.compile(
    r"\b(?:down\s+from|reduced\s+from|marked\s+down\s+from|instead\s+of|rather\s+than|retail(?:s|\s+(?:is|was))?|retails\s+for|rrp|"
    r"originally|normally|usually|which\s+is|which\s+was|vs|versus|compared\s+to|than)\s*(?:like\s+)?$",
    re.I,
)


#: a clause after a comma that goes on with the same subject: "climbed for two hours, got a harness there for $75"
_GOES_ON = re.compile(
    r"(?:,\s+(?:and\s+)?|\s+and\s+|:\s+)(?:then\s+)?(?=(?:bought|got|picked\s+up|ordered|grabbed)\s+(?:a|an|the|some|two|three|new)\b)"
)
#: "it is FREEZING here, bought a heater, R1099": a purchase told after a comma, its subject dropped,
#: with the verbs that only say buying (never "got"), in a sentence no one else is the subject of
_BOUGHT_AFTER = re.compile(
    r",\s+(?:and\s+)?(?:so\s+)?(?=(?:bought|ordered|purchased)\s+(?:a|an|the|some|two|three|new)\b)"
)
_SOMEONE_ELSE = re.compile(
    r"\b(?:he|she|they|his|her|their|"
    + p.CAPITALISED
    + r"['’]s|guy|girl|man|woman|friend|colleague|boss|mum|mom|dad|brother|"
    r"sister|partner|husband|wife|boyfriend|girlfriend)\b|(?<![Ii]n\s)(?<![Aa]t\s)(?<![Tt]o\s)(?<!from\s)(?<!near\s)(?<=\s)"
    + p.CAPITALISED
    + r"\b"
)
#: a phrase of place or purpose before the speaker buys: "For the new place I ordered ...", "At the
#: market we got ..."
_OPENING_PHRASE = (
    r"^(?i:for|at|on|in|from|after)\s+(?i:the|a|an|my|our|this|that)\s+(?:[\w'’-]+\s+){{1,3}}?{person}"
    r"(?:\s+and\s+others)?\s+(?=(?:bought|ordered|got|picked\s+up|purchased)\b)"
)
#: a label before a colon that opens a chat's sentence: "Also christmas:", "Update:", "Big news:"
_LABEL = re.compile(r"^(?:[A-Za-z][\w'’-]*\s+){0,2}[A-Za-z][\w'’-]*:\s+")
_OPENS_REPORT = re.compile(
    r"^(?:(?:just|also|then|and|so|ok|okay)\s+)*(?:(?:has|have|had)\s+)?(?:[a-z]+ed|swam|ran|rode|begun)\b", re.I
)


def _going_on(fact: "Fact") -> list[p.Clause]:
    """Clauses of the speaker's own report that go on after a comma without a subject
    (the sentence opens with the speaker or with a past verb)."""
    person = fact.speaker
    if not person or p.is_question(fact) or CUE.search(fact.text) is None:
        return []
    text = p.plain_cached(fact.text, fact.session_date)
    text = p.without_said(text, person)
    report = re.sub(r"^(?:(?:and|also|so|oh|ok|okay|then)\s+)+", "", text, flags=re.I)  # "And I treated myself: ..."
    label = _LABEL.match(report)
    if label is not None and p.SUBJECTLESS.match(report[label.end() :]) and not p.HEDGES.search(text):
        # "Also christmas: got my mom a scarf ...": a label, then the speaker's report without its subject
        return [p.Clause(person, False, report[label.end() :])]
    report = report[len(person) + 1 :] if report.startswith(f"{person} ") else report
    if p.HEDGES.search(text):
        return []
    opening = re.match(_OPENING_PHRASE.format(person=re.escape(person)), report)
    if opening is not None:
        # "For the new place I ordered a mattress ($899) and a bed frame for 340": a phrase before the subject
        return [p.Clause(person, False, report[opening.end() :])]
    if not (_OPENS_REPORT.match(report) or p.SUBJECTLESS.match(report)):
        bought = _BOUGHT_AFTER.search(text)
        before = text[: bought.start()] if bought is not None else ""
        if bought is None or any(m.group(0) != person for m in _SOMEONE_ELSE.finditer(before)):
            return []
        return [p.Clause(person, False, text[bought.end() :])]
    return [p.Clause(person, False, text[m.end() :]) for m in _GOES_ON.finditer(text)]


#: "a new one", "a second-hand one": the thing is named earlier in the sentence
_ONE = re.compile(r"^(?:(?P<adj>[a-z][\w-]*)\s+)?ones?$")
_NEEDED = re.compile(
    r"\b(?:(?:need|needs|needed|want|wants|wanted|replace|replaced|replacing)\s+(?:a|an|the|some)\s+(?:new\s+)?(?P<a>[a-z][\w-]*)"
    r"|(?:[Tt]he|[Oo]ur|[Mm]y|[Tt]heir|"
    + p.CAPITALISED
    + r"'s|"
    + p.CAPITALISED
    + r"’s)\s+(?:old\s+)?(?P<b>[a-z][\w-]*)\s+(?:died|dying|broke|broken|gave\s+up|packed\s+in|fell\s+apart|"
    r"(?:is|are|was|were)\s+(?:dead|ancient|broken|falling\s+apart|worn\s+out|knackered|done)))\b"
)


def _antecedent(item: str, before: str) -> str:
    """ "a new one" after "the kettle dying" is a kettle, "a second-hand one" after "we need a
    fridge" a second-hand fridge: the thing needed, wanted or broken before the purchase in the
    same sentence; ``item`` as it is when the sentence names none."""
    one = _ONE.match(item)
    if one is None:
        return item
    found = [m.group("a") or m.group("b") for m in _NEEDED.finditer(before)]
    if not found:
        return item
    adjective = one.group("adj")
    return f"{adjective} {found[-1]}" if adjective and adjective not in ("new", "another", "other") else found[-1]


def detect(fact: "Fact") -> list[Sighting]:
    out = _detect(fact)
    if out and any(s.fields.get("item") for s in out):
        text = p.plain_cached(fact.text, fact.session_date)
        out = [_unnamed(_named(s, text), text) for s in out]
        if len(out) == 1:
            out = [_my_share(out[0], text)]
    return [_not_ahead(s, fact) for s in out]


def _my_share(sighting: Sighting, text: str) -> Sighting:
    """One thing bought whose price is followed by the speaker's share of it ("a washing machine for
    $1,700, my half 850"): the amount is what the speaker paid."""
    amount, item = sighting.fields.get("amount"), sighting.fields.get("item")
    if not isinstance(amount, (int, float)) or not isinstance(item, str):
        return sighting
    at = text.find(item)
    mine = share_told_first(text[at + len(item) :] if at >= 0 else text, sighting.fields.get("person"))
    if mine is None or not 0 < mine < amount:
        return sighting
    return replace(sighting, fields={**sighting.fields, "amount": mine})


def _not_ahead(sighting: Sighting, fact: "Fact") -> Sighting:
    """A thing bought is bought by the day it is told: a date after it is another's ("sunny's bday is aug 8
    and i got him a weber kettle"), not the purchase's."""
    when = sighting.fields.get("when")
    if isinstance(when, Period) and fact.session_date is not None and when.start > fact.session_date:
        return replace(sighting, fields={**sighting.fields, "when": None})
    return sighting


#: words that stand for a thing named elsewhere, or name none: "bought it for 246€", "paid $650 for my half"
_STANDS_FOR = set("it them one ones that this these those both half share part portion mine and so".split())
#: the thing named before it in the sentence: "the coat went on sale ..., I bought it"
_NAMED_BEFORE = re.compile(
    r"\b(?:the|a|an|my|our|that|this|those|these)\s+(?P<thing>(?:[\w-]+\s+){0,2}?[a-z][\w-]{2,})"
    r"(?=\s+(?:went|was|were|is|are|had|has|dropped|came|finally|on|in|at|that|which|i|we|[A-Z]\w*\s+(?:bought|got))\b|\s*[,.;])"
)
#: words after a determiner that name no thing bought
_NOT_THINGS = set(
    """sale time day week weekend month year end moment guy man woman lady shop store place price deal bill way lot one
    thing stuff other same last first next morning evening night afternoon website site app""".split()
)


#: the thing named after its price: "65 euro for a dog bed", "€30 for the lot"
_PRICED_FOR = re.compile(
    r"^[^.;!?]{0,60}?\d[\d.,]*\s*(?:euros?|quid|pounds|dollars|bucks|k)?\s+for\s+(?:a|an|the|some|two|new)\s+"
    r"(?P<thing>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)(?=[\s,.;!]|$)"
)


#: a time read as the thing: "earrings I picked up the week before, £180" read "week before"
_A_TIME = set("the a week day month year weekend night morning before after earlier other last previous".split())
#: the thing named just before the speaker's verb of buying: "gave her gold earrings Sam picked up"
_THING_THEN_BOUGHT = (
    r"(?:\b(?:a|an|the|some|my|her|his|their)\s+|\b(?:gave|give|giving)\s+(?:him|her|them|\w+)\s+)"
    r"(?P<thing>(?:[\w'’-]+\s+){{0,2}}?[a-z][\w'’-]+)\s+(?:that\s+)?{person}\s+(?:had\s+|just\s+)?"
    r"(?:picked\s+up|bought|got|ordered|grabbed)\s*$"
)


def _unnamed(sighting: Sighting, text: str) -> Sighting:
    """A purchase whose thing is a word that stands for it ("I bought it for 246€") is named by
    the thing the sentence names before it ("the coat went on sale ..."); with none, the
    purchase stays on the timeline, unclear, rather than a record of "it"."""
    item = sighting.fields.get("item")
    if isinstance(item, str) and item.split() and all(w.lower() in _A_TIME for w in item.split()):
        at = text.find(f" {item}")
        person = re.escape(str(sighting.fields.get("person") or "I"))
        head = re.sub(r"\s+(?:the|a)$", "", text[:at]) if at >= 0 else ""
        thing = re.search(_THING_THEN_BOUGHT.format(person=person), head)
        if thing is None:
            return Sighting(sighting.kind, sighting.fact_id, {"_doubt": "the thing bought is not named"}, None)
        return Sighting(
            sighting.kind, sighting.fact_id, {**sighting.fields, "item": thing.group("thing")}, sighting.key
        )
    if isinstance(item, str) and item.lower().split()[-1] in ("quote", "quotes", "estimate", "estimates"):
        return Sighting(sighting.kind, sighting.fact_id, {"_doubt": "a quote, not a purchase"}, None)
    if not isinstance(item, str) or item.lower().split()[-1] not in _STANDS_FOR:
        return sighting
    named_after = _PRICED_FOR.search(text[text.find(item) + len(item) :]) if item in text else None
    if named_after is not None and named_after.group("thing").split()[-1].lower() not in _NOT_THINGS:
        # "got him a new one in Maxi Zoo yesterday, 65 euro for a dog bed": the thing named with its price
        return Sighting(
            sighting.kind, sighting.fact_id, {**sighting.fields, "item": named_after.group("thing")}, sighting.key
        )
    if len(item.split()) > 1 and item.lower().split()[-1] in ("one", "ones"):
        return sighting  # "a new one for €30": a purchase, its thing said before the chat (kept with its price)
    at = text.find(f" {item}")
    before = text[: at if at >= 0 else len(text)]
    things = [
        m.group("thing")
        for m in _NAMED_BEFORE.finditer(before)
        if m.group("thing").split()[-1].lower() not in _NOT_THINGS
    ]
    if things:
        return Sighting(sighting.kind, sighting.fact_id, {**sighting.fields, "item": things[-1]}, sighting.key)
    return Sighting(sighting.kind, sighting.fact_id, {"_doubt": "the thing bought is not named"}, None)


def _named(sighting: Sighting, text: str) -> Sighting:
    item = sighting.fields.get("item")
    if not isinstance(item, str):
        return sighting
    at = text.find(f" {item}")
    named = _antecedent(item, text[: at if at >= 0 else len(text)]) if _ONE.match(item) else item
    brand = _BRAND.match(text[at + len(item) + 1 :]) if at >= 0 else None
    if brand is not None and brand.group("brand").split()[-1].lower() not in named.lower().split():
        # "new ones, some Brooks": Brooks shoes; "a bike finally, a used Gazelle": a used Gazelle bike
        named = f"{brand.group('brand')} {named.split()[-1]}"
    if named == item:
        return sighting
    return Sighting(sighting.kind, sighting.fact_id, {**sighting.fields, "item": named}, sighting.key)


#: the make of the thing, named after it: "..., some Brooks,", "..., a used Gazelle off Kleinanzeigen"
_BRAND = re.compile(
    r"^(?:\s+(?:finally|yesterday|today|already|too|instead|online))*,\s+(?:some|a|an|the)\s+"
    r"(?P<brand>(?:(?:used|new|second-hand|secondhand|refurbished|cheap|little|old|vintage)\s+)?[A-Z][\w-]*(?:\s+[A-Z][\w-]*)?)(?=[,.;]|\s+(?:off|from|for|at)\b)"
)


#: "got a Garmin off a guy on Marketplace for R2 800": "got" with a price no sign of the kinds reads --
#: a purchase only if the user's currency, written the local way, reads it (``_local_only``:
#: :func:`uac.compile.kinds.context.localise`)
_GOT_LOCAL = _rule(
    rf"(?:got|picked\s+up|scored)\s+{_ITEM}\s+(?:(?:off|from|at|on)\s+(?:[\w'’-]+\s+){{1,5}}?)?for\s+(?=[A-Za-z]{{0,3}}\$?\s?\d)"
)


#: a price said with no currency: "got a used Subaru Outback, 18,500, because ...", "got the Sony
#: headphones because they were 379 on sale" -- in the user's own currency, if one is known
#: (``_bare_amount``: :func:`uac.compile.kinds.context.localise`); three digits at least (or two with
#: their cents, "89.99"), so never
#: a count, an age or minutes ("got a cat, 12"), nor a year, nor a journey ("got the train, 145")
#: where a thing was got: "off a guy on Marketplace", "from Coricraft", "at Markham"
_FROM_PLACE = r"(?:\s+(?:off|from|at|on)\s+(?:[\w'’-]+\s+){0,3}?[\w'’-]+)"
_BARE = _rule(
    rf"(?:bought|got|picked\s+up|ordered|purchased|grabbed|snagged|scored|copped|had\s+to\s+buy|"
    rf"treated\s+(?:\S+|themselves)\s+to|gifted\s+(?:themselves|\S+))\s+{_ITEM}"
    rf"{_FROM_PLACE}?"
    # "treated myself to a keychron keyboard after the race, 9,200"
    rf"(?:\s+online)?(?:\s+(?:after|before|for)\s+(?:the|my|a|our)\s+[\w'’-]+(?:\s+(?:place|flat|house|room|trip|race))?)?"
    # "picked up the kit from total tools yesterday arvo, 1150": when it was, before the price
    r"(?:\s+(?:yesterday|today|last\s+\w+|this\s+\w+|(?:on\s+)?(?:mon|tues|wednes|thurs|fri|satur|sun)day|the\s+other\s+day)"
    r"(?:\s+(?:arvo|morning|afternoon|night|evening))?)?"
    # "got my suit yesterday at Markham, R3 500": where, after when
    rf"{_FROM_PLACE}?"
    # "got new cycling shoes on Saturday R1 899": a price in letters and digits needs no comma before it
    r"(?:\s+(?=(?-i:[A-Z][A-Za-z]{0,2})\$?\s?[1-9])|,\s+|\s+because\s+(?:it|they)\s+(?:was|were)\s+|\s+for\s+(?:only\s+|just\s+|about\s+|around\s+|like\s+)?"
    # "bought an air fryer 79k on coupang": a price in thousands needs no comma before it
    r"|\s+(?=[1-9]\d{0,2}(?:\.\d{1,2})?\s?k\b))"
    # "got new glasses, RM450": a sign in letters before the number -- the user's own money's, or no amount
    r"(?P<presign>(?-i:[A-Z][A-Za-z]{0,2})\$?\s?(?=\d))?"
    # "18,500", "379", "1500" (never a year), "2.5k"
    # "27.999", "6.750": thousands marked by a dot, as most of Europe and Turkey write them
    # "89.99": two digits with their cents are a price too
    # "R1 899", "R285 000": thousands set apart by a space, only after a sign in letters
    r"(?P<bare>(?(presign)[1-9]\d{0,2}(?:\s\d{3})+(?![\d,.]\d)|(?!))|[1-9]\d{2}(?:\.\d\d)?|[1-9]\d\.\d\d|[1-9]\d{0,2}(?:,\d{3})+(?:\.\d\d)?|[1-9]\d{0,2}(?:\.\d{3})+(?:,\d\d)?|(?!(?:19|20)\d\d\b)[1-9]\d{3,5}|"
    r"(?P<thousands>[1-9]\d{0,2}(?:\.\d{1,2})?)\s?k)"
    # "6.750tl", "450 lei": a sign in letters after the number -- the user's own money's, or no amount
    r"(?P<sign>(?<=\d)\s?(?!k\b|and\b|on\b|at\b|so\b|lol\b)[^\W\d_]{1,4}\.?(?=[\s,.;!]|$))?"
    r"(?=\s*(?:[,.;!](?!\d)|$)|\s+(?:on\s+sale|in\s+the\s+sale|because|bc|cause|cuz|and|but|so|which|only|yesterday|today|last|"
    r"from|at|off|on|via|online|lol|haha|lmao|tbh|tho|though|btw)\b)"
)


_JOURNEY = re.compile(r"\b(?:train|bus|tram|ferry|flight|plane|taxi|uber|cab|lift|ride|tube|metro)s?$", re.I)


def _detect(fact: "Fact") -> list[Sighting]:
    out: list[Sighting] = []
    for clause in list(p.clauses(fact, CUE)) + _going_on(fact):
        several = _several(fact, clause)
        if several:
            where = _WHERE.search(clause.rest)
            place = p.clean_name(where.group("where"), clause.person) if where else None
            for number, bought in enumerate(several):
                out.append(
                    Sighting(
                        NAME,
                        fact.id,
                        {"person": clause.person, **bought, "when": p.when(fact), "where": place},
                        f"{fact.id}#{number}",
                    )
                )
            break
        if _NOT_BOUGHT.match(clause.rest):
            if _money_in(clause.rest):
                # "looked at a Dyson for £480", "almost bought": not bought -- no purchase, unclear
                out.append(Sighting(NAME, fact.id, {"_doubt": "looked at or almost bought, not bought"}, None))
                break
            continue
        for pattern, needs_amount in RULES:
            match = pattern.match(clause.rest)
            if match is None:
                continue
            item = _item(match.group("item"), clause.person)
            if item is None:
                continue
            amount, currency = amount_of(match) if needs_amount else _later_amount(clause.rest[match.end() :])
            if needs_amount and amount is None:
                continue
            where = _WHERE.search(clause.rest)
            fields: dict[str, Any] = {
                "person": clause.person,
                "item": item,
                "amount": amount,
                "currency": currency,
                "when": p.when(fact),
                "where": p.clean_name(where.group("where"), clause.person) if where else None,
            }
            if fields["where"] is None and where and where.group("where")[:1].islower():
                fields["where"] = where.group("where")
            if amount is None and not needs_amount:
                # "bought a sofa for the new place, Harvey Norman on Saturday, 1,249": a price in no currency
                bare = _later_bare(clause.rest[match.end() :])
                if bare is not None:
                    fields.update(amount=bare, _bare_amount=True)
            out.append(Sighting(NAME, fact.id, fields, None))
            break
        if not out or (len(out) == 1 and out[0].fields.get("amount") is None):
            # "bought the headphones for 2.5k": a price in no currency, the user's own (see _unpriced)
            unpriced = _unpriced(fact, clause)
            if unpriced is not None and (not out or unpriced.fields.get("_bare_amount")):
                out[:] = [unpriced, *_and_bare(fact, clause, unpriced)]
        if out:
            break
    if not out:
        out.extend(_relative(fact))
    if not out:
        from .purchase_signs import detect as by_signs

        out.extend(by_signs(fact))
    return out


def _unpriced(fact: "Fact", clause: p.Clause) -> Sighting | None:
    """A purchase whose price no sign of the kinds reads: said with no currency ("got a used
    Subaru, 18,500": ``_bare_amount``), or "got" with a price the user's currency may write
    ("got a Garmin off a guy for R2 800": ``_local_only``); the user's currency decides in
    :func:`uac.compile.kinds.context.localise`."""
    where = _WHERE.search(clause.rest)
    bare = _BARE.match(clause.rest)
    # "got the lehenga from a jaipur label on insta for 38k": the thing, not where it came from
    item = _item(_ITEM_END.sub("", bare.group("item")).strip(), clause.person) if bare is not None else None
    if bare is not None and item is not None and not _money_in(clause.rest) and not _JOURNEY.search(item):
        before = _WHERE.search(clause.rest[: bare.start("presign") if bare.group("presign") else bare.start("bare")])
        place = p.clean_name(before.group("where"), clause.person) if before is not None else None
        said = re.sub(r"\s", "", bare.group("thousands") or bare.group("bare"))
        if re.fullmatch(r"\d{1,3}(?:\.\d{3})+(?:,\d\d)?", said):
            said = said.replace(".", "").replace(",", ".")  # "27.999": thousands by a dot
        amount = p.number(said)
        if amount is not None and bare.group("thousands"):
            amount *= 1000  # "2.5k"
        fields = {"amount": amount, "where": place, "_bare_amount": True}
        if bare.group("sign") or bare.group("presign"):
            fields = {"amount": None, "where": place, "_local_only": True}  # read in the user's own signs
    else:
        got = _GOT_LOCAL.match(clause.rest)
        item = _item(got.group("item"), clause.person) if got is not None else None
        if got is None or item is None or _money_in(clause.rest[got.end() :]):
            return None
        place = p.clean_name(where.group("where"), clause.person) if where else None
        fields = {"amount": None, "where": place, "_local_only": True}
    return Sighting(
        NAME, fact.id, {"person": clause.person, "item": item, "currency": None, "when": p.when(fact), **fields}, None
    )


def _and_bare(fact: "Fact", clause: p.Clause, first: Sighting) -> list[Sighting]:
    """The thing bought after the first one priced with no currency ("got the lehenga ... for 38k and
    matching juttis 2,200"), priced the same way (:data:`_AND_PRICED`)."""
    bare = _BARE.match(clause.rest)
    if bare is not None and first.fields.get("_local_only") and bare.group("presign"):
        # "got a couch from Coricraft R8 999 and a fridge from Game R7 499": the next thing, its price
        # read in the user's own signs like the first's (the first amount after its item)
        local = _AND_LOCAL.match(clause.rest[bare.end() :])
        later = _item(local.group("item"), clause.person) if local is not None else None
        if later is None:
            return []
        return [Sighting(NAME, fact.id, {**first.fields, "item": later, "where": None}, f"{fact.id}#2")]
    if bare is None or not first.fields.get("_bare_amount"):
        return []
    match = _AND_PRICED.match(clause.rest[bare.end() :])
    later = _item(match.group("item"), clause.person) if match is not None else None
    if match is None or later is None:
        return []
    amount = float((match.group("n") or match.group("n2")).replace(",", "")) * (1000 if match.group("k") else 1)
    fields = {**first.fields, "item": later, "amount": amount, "where": None}
    return [Sighting(NAME, fact.id, fields, f"{fact.id}#2")]


def _later_amount(rest: str) -> tuple[float | None, str | None]:
    """The price told later in the sentence of a thing bought without one ("ordered a waxed
    jacket from a UK website ..., it was £185 plus shipping"): the one amount of the rest,
    when nothing else is bought or priced in it."""
    from ...extract.money import find_amounts

    paid = find_amounts(rest)
    if len(paid) != 1 or CUE.search(rest[: paid[0].start]) or _NOT_BOUGHT_AFTER.search(rest):
        return None, None
    return paid[0].amount, paid[0].currency


#: a price told later with no currency, after a comma: ", 1,249", ", 850 —" (never a year, a count with
#: its unit, nor two of them)
_LATER_BARE = re.compile(
    r",\s+(?!(?:19|20)\d\d\b)(?P<n>[1-9]\d{0,2}(?:,\d{3})+(?:\.\d\d)?|[1-9]\d{2,4}(?:\.\d\d)?)"
    r"(?![\d,.]*\s*(?:%|km|kg|k\b|m\b|mins?|minutes|hours?|hrs?|nights?|days?|people|miles|steps|sq|am|pm))(?=\s|[,.;!—–-]|$)"
)


def _later_bare(rest: str) -> float | None:
    """The one bare price of ``rest`` (:data:`_LATER_BARE`) when nothing else is bought or priced in it."""
    found = list(_LATER_BARE.finditer(rest))
    if len(found) != 1 or _money_in(rest) or CUE.search(rest[: found[0].start()]) or _NOT_BOUGHT_AFTER.search(rest):
        return None
    return float(found[0].group("n").replace(",", ""))


def _money_in(text: str) -> bool:
    from ...extract.money import find_amounts

    return bool(find_amounts(text))


def _relative(fact: "Fact") -> list[Sighting]:
    """ "return the running shoes I bought in June, £120": the thing the speaker bought,
    named before them."""
    from ...extract.money import find_amounts

    person = fact.speaker
    if (
        not person
        or p.is_question(fact)
        or all(f"{person} {verb}" not in fact.text for verb in ("bought", "ordered", "got"))
    ):
        return []
    text = p.plain_cached(fact.text, fact.session_date)
    match = re.search(
        # never "for the new place I ordered a mattress": the verb's own object follows it
        rf"\b(?:the|those|these|that)\s+(?P<item>[a-z][\w-]*(?:\s+[a-z][\w-]*){{0,3}})\s+{re.escape(person)}\s+(?:bought|ordered)\b"
        r"(?!\s+(?:a|an|the|some|two|three|four|new|my|our)\b)",
        text,
    ) or re.search(
        # "returned the Sony headphones I got last month, $349": got, then given back -- still bought
        rf"\b(?:returned|took\s+back|sent\s+back|gave\s+back)\s+(?:the|those|these|that)\s+(?P<item>[\w-]+(?:\s+[\w-]+){{0,4}})\s+"
        rf"{re.escape(person)}\s+(?:bought|ordered|got)\b",
        text,
    )
    if match is None or _NOT_BOUGHT.match(text[match.end() :].lstrip()):
        return []
    item = _item(match.group("item"), person)
    if item is None:
        return []
    paid = find_amounts(text[match.end() :])
    fields: dict[str, Any] = {
        "person": person,
        "item": item,
        "amount": paid[0].amount if paid else None,
        "currency": paid[0].currency if paid else None,
        "when": p.when(fact),
        "where": None,
    }
    return [Sighting(NAME, fact.id, fields, None)]


#: every report is its own record
assemble = p.one_record_each


CLASS = p.record_class(
    "Purchase",
    {"item": str, "person": str, "amount": float, "currency": str, "when": Period, "where": str},
    "A purchase (offline rules): the item, its amount and currency (ISO code), when and where.",
)
DESCRIPTION = "Purchases and spending: what someone bought, for how much, in which currency, when and where."
