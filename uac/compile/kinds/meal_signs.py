"""Meals out told in no fixed shape: a venue and the signs of a meal eaten there.

The rules of :mod:`.meals` read the shapes people write most ("had dinner at X",
"went to X for lunch").  People also write "Din Tai Fung w Jas tonight at Holland V,
$58, xiao long bao therapy", "the clinic christmas do was friday at Saan", "the boss
took the 3 of us to Logan Brown and put it on the company card", "Fergburger was worth
the 40 min queue, $21.50 for a burger".  No verb or order is common to them; what is
common is a *venue* tied into the sentence and *signs* that a meal was eaten there.
This reader, tried only where the shaped rules found nothing, asks for both:

- a venue: a capitalised name right after "at", "@" or "to", at the head of the
  sentence before a time or a companion ("X last night", "X w Jas tonight"), or
  before "was" and a verdict ("X was worth", "X on Valentine's was incredible");
  never a place of the gazetteer, a person (after "with", "w", "and"), a month, a
  weekday, someone's home ("at Ana's") or a place that is no eatery (an airport, a
  hotel, a mall);
- signs of a meal, of two kinds: a meal word ("dinner", "brunch", "the christmas do")
  is enough alone; otherwise two of: a dish or drink ("the crab curry", "venison",
  "two glasses of pinot"), an eatery word ("the bill", "the menu"), and the way a
  shared meal is paid ("my half", "for the two of us", "the boss shouted", "on the
  company card", "wouldn't let me pay").  An amount of money alone is no sign: a
  purchase has one too.

A sentence that buys, cooks or orders in, asks, wishes or plans is no meal out
here; the others are reported meals, with the first amount after the venue as the cost.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from ...extract.dates import tense
from ...extract.places import city_sizes, is_place
from ...extract.words import is_common_word
from . import patterns as p
from .meals import _KIN, FOODS, LOWER_EATERY, LOWER_TIME_TAIL, _dated_ahead, _lower_name, _sighting, _title
from .model import Sighting

if TYPE_CHECKING:
    from ...facts.model import Fact

#: words that name a meal, or an occasion people eat at ("the clinic christmas do")
MEAL_WORDS = re.compile(
    r"\b(?:dinner|dinners|lunch|lunches|brunch|breakfast|brekkie|brekky|supper|(?:best|worst|last|first|big|good|nice)\s+meal|"
    r"(?:a|best|good|great|massive|huge|big|top|decent|solid)\s+feed|tea\s+time|(?:christmas|xmas|work|team|office|"
    r"farewell|leaving|staff|end\s+of\s+year)\s+(?:do|party|drinks)|date\s+night|tasting\s+menu|set\s+menu)\b",
    re.I,
)
#: dishes and drinks, as people name what they ate (a lexicon of food and drink, not of places)
_DISHES = """
ramen shoyu tonkotsu udon soba tempura sushi sashimi omakase yakitori katsu gyoza izakaya bento donburi
dumplings dumpling bao xiao long dim sum wonton noodles noodle pho banh laksa rendang satay nasi goreng roti
curry curries biryani dosa masala naan tikka korma dal paneer samosa thali jollof suya injera tagine couscous
mezze meze hummus falafel shawarma kebab kebabs souvlaki gyros moussaka halloumi khachapuri pierogi varenyky
pasta ragu gnocchi risotto lasagne lasagna carbonara pizza pizzas margherita burrata antipasti tiramisu
tapas paella jamon jamón croquetas patatas sardines bacalhau pastel pasteis churros ceviche empanadas
tacos taco burrito burritos nachos quesadilla mole enchiladas
burger burgers fries chips steak steaks ribeye brisket ribs wings bbq barbecue pulled pork
crab crabs lobster oysters oyster scallops scallop prawns shrimp mussels clams calamari octopus squid seafood
fish flounder salmon tuna cod snapper
lamb duck venison wagyu pork chicken beef veal goat rabbit confit schnitzel bratwurst sausages
salad soup stew chowder pie pies roast gravy yorkshire
cheese charcuterie fondue raclette bread croissant croissants pastry pastries pancakes waffles eggs benedict
cake cakes dessert desserts pudding gelato ice cream cheesecake brownie crumble
wine pinot prosecco champagne sangria mezcal sake cocktails cocktail margaritas beer beers pint pints
coffees coffee flat white chai
indonesian malaysian singaporean filipino nepalese lankan pakistani ukrainian nigerian ethiopian balinese
mutton daal dhal flammkuchen bibimbap bulgogi kimchi japchae tteokbokki kedgeree haggis toastie sarnie sandwich
sandwiches bagel bagels shakshuka arepas pupusas pozole tamales birria carnitas elote asado parrilla choripán
milanesa feijoada moqueca picanha coxinha açaí pastrami cheesesteak poutine smørrebrød
""".split()
#: dishes of several words (each word alone names something else: "tom", "pad", "full")
_DISH_PHRASES = """bunny chow|pad thai|tom yum|som tam|full english|fry-up|cullen skink|bangers and mash|al pastor|
pão de queijo|fish soup""".replace("\n", "").split("|")
DISHES = re.compile(
    r"\b(?:"
    + "|".join(sorted({re.escape(w) for w in (*_DISHES, *FOODS, *_DISH_PHRASES)}, key=len, reverse=True))
    + r")\b",
    re.I,
)
#: what a table, not a shop, has
_EATERY_WORDS = re.compile(
    r"\b(?:the\s+bill|bill\s+(?:came|was)|the\s+menu|menu|the\s+food|the\s+chef|waiter|waitress|our\s+table|"
    r"a\s+table|booked\s+a\s+table|queue|courses|starters?|mains?|restaurant|bistro|eatery|food\s+was|ate|eaten|"
    r"devoured|stuffed|so\s+full|too\s+full|fine\s+dining|dining|(?:plates?|bowls?|rounds?)\s+of|"
    r"cantina|fonda|taqueria|comedor|chop\s+bar|dhaba|mamak|hawker|izakaya|trattoria|osteria|brasserie|bistro|tavern|pub)\b",
    re.I,
)
#: how a meal for several is paid, or paid by someone else
_PAID = re.compile(
    r"\b(?:my\s+half|my\s+share|my\s+part|my\s+cut|my\s+shout|worth\s+every\s+(?:penny|cent|rupee|dollar|euro|pound|peso|baht|yen|rand)|(?:he|she|they|boss|dad|mum|mom|md)\s+shouted|shouted\s+(?:us|we|me|everyone|the)|"
    r"treated\s+(?:us|we|me|everyone)|on\s+(?:him|her|them|the\s+company|the\s+firm|the\s+house)|company\s+card|"
    r"for\s+(?:the\s+|all\s+)?(?:two|2|three|3|four|4|five|5|six|6)(?:\s+of\s+(?:us|we))?|for\s+both(?:\s+of\s+(?:us|we))?|each|a\s+head|pp|"
    r"(?:w|with|incl\.?|including|plus)\s+(?:the\s+)?tip|we\s+split|split\s+(?:it|the\s+bill)|"
    r"(?:two|2|three|3|four|4|five|5|six|6|seven|7|eight|8|nine|9|ten|10|\d+)\s+of\s+(?:us|we)|"
    # "burgers, 38 total", "52 bucks for me and Maddie": a bill told whole, or for who sat at the table
    r"(?<=\d)\s+total|\d(?:\s*(?:bucks|dollars|quid|euros?))?\s+(?:in\s+)?total|for\s+me\s+and\s+(?-i:[A-Z])\w+|"
    # "650 for me and it was worth every peso", "280 for my side": the speaker's part of a bill
    r"(?<=\d)\s+for\s+(?:me|my\s+side|my\s+part)\b(?!\s+and\s+(?-i:[a-z]))|"
    r"\b(?:I|me)\s+paid(?!\s+(?:for\s+)?(?:the\s+)?(?:tickets?|parking|fuel|petrol|gas|deposit|rent))|my\s+treat|(?:the\s+)?tab\s+(?:was|came)|"
    r"paid\s+for\s+(?:the\s+)?(?:whole\s+)?table|(?:wouldn'?t|would\s+not|didn'?t)\s+let\s+(?:me|us|we|anyone)\s+pay|insisted\s+on\s+paying|picked\s+up\s+the\s+(?:bill|tab))\b",
    re.I,
)
#: a bill shared out: "for the 4 of us", "for my half", "each" (with an amount it is a meal's)
_SHARED = re.compile(
    r"\b(?:for\s+(?:the\s+|all\s+)?(?:two|2|three|3|four|4|five|5|six|6|\d+)\s+of\s+(?:us|we)|for\s+both(?:\s+of\s+(?:us|we))?|"
    # "R1 200 for two"
    r"(?<=\d\s)for\s+(?:two|three|four|five|six)\b|"
    r"for\s+my\s+half|my\s+half|my\s+share|my\s+part|each|a\s+head|pp)\b",
    re.I,
)
#: a bill: an amount shared, told whole or split ("38 total", "30 each", "23 bucks for the two of us")
_PAID_BILL = re.compile(
    r"\d(?:[\d.,]*)(?:\s*(?:bucks|dollars|quid|euros?|k))?\s+(?:in\s+)?(?:total|each|for\s+(?:the\s+)?(?:two|2|three|3|four|4|both)\b"
    r"|for\s+me\s+and\s+(?-i:[A-Z]))|\bsplit\s+it\b|\bwe\s+split\b|\bbill\s+(?:was|came)",
    re.I,
)
#: someone takes people out: "took the 3 of us to", "shouted us all lunch", "treated me"
_TREAT = re.compile(
    r"\b(?:took|taken|takes)\s+(?:me|us|we|everyone|all\s+of\s+(?:us|we)|the\s+(?:whole\s+)?(?:team|gang|crew|family|\d+\s+of\s+(?:us|we)|"
    r"\w+\s+of\s+(?:us|we)))(?:\s+out)?\s+(?:to|for)\b|\btreated\b|\bshouted\b|\bmy\s+shout\b"
    # the speaker takes someone ("took shell to santorini grill", "took him to finlays"): with a dish, a meal
    r"|\b(?:took|taken)\s+(?:him|her|them|(?-i:[a-z][a-z]+|" + p.CAPITALISED + r"))\s+(?:out\s+)?(?:to|for)\b",
    re.I,
)
#: a sentence that is no meal out: buying, cooking, ordering in, a hotel stay
_NOT_A_MEAL_OUT = re.compile(
    r"\b(?:bought|buy|buying|purchased|ordered\s+(?:online|from)|delivery|deliveroo|uber\s*eats|takeaway|take-out|"
    r"takeout|cooked|cooking|recipe|baked|made\s+(?:dinner|lunch|brunch)|at\s+home|checked\s+in|stayed\s+at|"
    r"staying\s+at|booking|booked\s+(?:flights?|a\s+hotel|an\s+airbnb)|with\s+the\s+room|room\s+service|"
    r"(?:breakfast|brunch)\s+(?:was\s+)?included|complimentary)\b",
    re.I,
)
#: cooking said not to have happened: "didn't feel like cooking", "too dead to cook" -- so they ate out
_NO_COOKING = re.compile(
    r"(?:didn['’]?t|did\s+not|don['’]?t|couldn['’]?t|not|too\s+\w+\s+to|no\s+energy\s+(?:for|to)|refused?\s+to|refuses\s+to)\s+"
    r"(?:feel\s+like\s+|want\s+to\s+|be\s+bothered\s+|be\s+bothered\s+to\s+)?$",
    re.I,
)


def _not_out(text: str) -> bool:
    """Does the sentence buy, cook or order in (:data:`_NOT_A_MEAL_OUT`), other than cooking said
    not to have happened?"""
    for match in _NOT_A_MEAL_OUT.finditer(text):
        if match.group(0).lower().startswith("cook") and _NO_COOKING.search(text[: match.start()]):
            continue
        return True
    return False


#: the last word of a name that is no eatery
_NO_EATERY = re.compile(
    r"\b(?:airport|station|terminal|mall|centre|center|market|beach|park|zoo|museum|harbour|harbor|port|hospital|"
    r"office|gym|campus|hotel|resort|lodge|inn|hostel|airbnb|stadium|arena|church|library|school|university|uni|"
    r"clinic|airlines?|air|rd|road|ave|avenue|cove|bay|beach|falls|lake|mountain|mt|peak|hill|island|river|valley|"
    r"gorge|track|trail|reserve|forest|cave|caves|point|lookout|springs|gardens)$",
    re.I,
)
#: hotel chains, whose breakfast is the stay's ("breakfast at the Hilton")
_HOTELS = set(
    "hilton marriott hyatt sheraton westin ritz novotel ibis radisson intercontinental fairmont premier travelodge "
    "holiday hampton courtyard doubletree crowne mercure accor".split()
)
_TIME = (
    r"(?:last\s+night|tonight|yesterday|today|this\s+(?:morning|evening|week)|on\s+(?:the\s+)?\w+day|\w+day(?:\s+night)?|"
    r"(?:mon|tues?|wed|weds|thu|thurs?|fri|sat|sun)(?:\s+night)?|for\s+[\w’']+\s+(?:bday|birthday|anniversary))"
)
_VERDICT = (
    r"(?:was|were|is)\s+(?:(?:so|honestly|actually|absolutely|just|really|still)\s+)*(?:worth|incredible|amazing|"
    r"unreal|insane|great|good|lovely|delicious|perfect|the\s+best|next\s+level|elite|fire|superb|excellent|epic|"
    r"a\s+vibe|special|extraordinary|outstanding|phenomenal|stunning|brilliant|fantastic|wonderful|divine|"
    r"spectacular|everything|a\s+triumph|top\s+notch|immaculate|banging|mint)"
)
_NAME = p.NAME


def _venues(text: str) -> list[tuple[int, str]]:
    """Where a venue is tied into ``text``: (position, name said), in order."""
    return _venues_in(text)


#: what is eaten, or a night out, just before "in" a venue's name: "the francesinha in", "were out in"
_EATEN_IN = re.compile(
    r"(?:\bout|\b(?:dinner|lunch|brunch|breakfast|supper|do|party|meal)\b(?:\s+\w+){0,2}|"
    r"\b(?:francesinha|pizza|burger|curry|ramen|tapas|steak|pints?|coffee|chips|sushi|tacos))\s*$",
    re.I,
)


#: what was eaten or drunk, a meal, a table or a tip: what makes a thing done or found an eatery
_TABLE_TOLD = re.compile(rf"{DISHES.pattern}|{MEAL_WORDS.pattern}|{_EATERY_WORDS.pattern}|\b(?:drinks|tip)\b", re.I)


def _venues_in(text: str) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    # "out in Market Lane on Friday", "the francesinha in Café Santiago": "in" a venue, as Irish English says it
    for match in re.finditer(rf"(?:\bat|@|\bto|\b(?P<in>in))\s+(?:the\s+)?(?P<v>{_NAME})", text):
        if re.search(rf"(?:^|[,;:]\s*){_NAME}\s+$", text[: match.start()]):
            continue  # "Long Beach at Dempsey": where the name before it is, not the venue
        if match.group("in") and not _EATEN_IN.search(text[max(0, match.start() - 30) : match.start()]):
            continue  # "in Kazimierz", "in Plagwitz": where, unless a meal or a night out comes just before it
        found.append((match.start("v"), match.group("v")))
    # a name typed in lower case ("at taverna mykonos on the danforth", "to delancey noodle bar")
    for match in re.finditer(rf"(?:\bat|@|\bto)\s+(?:the\s+)?(?P<v>{LOWER_EATERY.format()})", text):
        found.append((match.start("v"), match.group("v")))
    # "we had Runza last night ..., 23 bucks for the two of us": the eatery eaten, by its name
    for match in re.finditer(
        rf"\b(?:we|I|me)\s+(?:\w+\s+)?(?:had|got|grabbed)\s+(?P<v>{_NAME})(?=\s*,|\s+(?:because|bc|cause|since|after|"
        rf"for\s+(?:dinner|lunch|tea|supper)|{_TIME})\b)",
        text,
    ):
        found.append((match.start("v"), match.group("v")))
    # "on Saturday we did Chaf Pozi in Soweto after the game, R350 for my share", "we found Barbakan deli in
    # Chorlton, brunch was £31": an eatery done or found, in capitals or lower case
    for match in re.finditer(
        rf"\b(?:we|I|me)\s+(?:\w+\s+)?(?:did|found|tried)\s+(?:the\s+)?"
        rf"(?P<v>(?:{_NAME})(?:\s+(?:deli|caf[eé]|bistro|kitchen|grill|diner|bakery|pub|bar))?|{LOWER_EATERY.format()})"
        rf"(?=\s*[,(]|\s+(?:in|on|near|for|after|with|w|and|{_TIME})\b)",
        text,
    ):
        if _TABLE_TOLD.search(text):
            found.append((match.start("v"), match.group("v")))  # never "we tried Zumba on Tuesday, £10 each"
    lead = re.match(
        rf"^(?:(?i:also|and|then|btw|ok|so|oh|anyway|update)[,:\s]+)?(?P<v>{_NAME})\s+(?:{_TIME}|w/?\s|with\s)", text
    )
    if lead is not None:
        found.append((lead.start("v"), lead.group("v")))
    # "olde pink house saturday night was everything", "thalassa NYE dinner was insane": an eatery typed in
    # lower case at the head, its verdict after (two words, or one with the meal it was)
    low = re.match(
        rf"^(?:(?i:also|and|then|btw|ok|so|oh|anyway|update)[,:\s]+)?(?P<v>(?-i:[A-Za-z][a-z’'-]*"
        rf"(?:\s+(?!(?:for|at|in|on|with|and|to|of|was|were|is|the)\b)[a-z][\w’'-]*){{0,2}}?))"
        rf"\s+(?:(?i:{_TIME})\s+|(?i:nye|christmas|xmas|bday|birthday|anniversary)\s+)?"
        rf"(?P<meal>(?:for\s+)?(?i:dinner|lunch|brunch|breakfast|brekkie|supper|meal|feed)\s+)?{_VERDICT}",
        text,
    )
    if low is not None and (low.group("meal") or " " in low.group("v")):
        found.append((low.start("v"), low.group("v")))
    for match in re.finditer(rf"(?P<v>{_NAME})(?:\s+(?:on|for|in)\s+[\w’'-]+(?:\s+[\w’'-]+)?)?\s+{_VERDICT}", text):
        found.append((match.start("v"), match.group("v")))
    # "best feed was kan eang at the pier", "fave meal was Ember"
    # "the best was shin shin ramen near tenjin, 980 yen", "best meal was this bibimbap place called namwon-jip"
    best = (
        r"(?i:best|fave|favourite|favorite|top)\s+(?:(?i:feed|meal|dinner|lunch|brunch|brekkie|breakfast|food|eats?)\s+)?"
        r"(?i:was|were)\s+(?:at\s+)?(?:(?i:this|that|a|an|the)\s+(?:[\w’'-]+\s+){0,3}?(?i:place|restaurant|spot|caf[eé]|bar|stall)"
        r"\s+(?i:called|named)\s+)?"
    )
    for match in re.finditer(rf"{best}(?P<v>{_NAME}|{LOWER_EATERY.format()})", text):
        found.append((match.start("v"), match.group("v")))
    # "Best food was suya from Glover Court in Ikoyi": the dish, then where it came from
    for match in re.finditer(rf"{best}(?:[a-z][\w'’-]*\s+){{1,3}}?(?:from|at)\s+(?:the\s+)?(?P<v>{_NAME})", text):
        if DISHES.search(match.group(0)):
            found.append((match.start("v"), match.group("v")))
        # "insisted on Tek Sen the 1st night", "highlights: Menya Kaze in Ebisu, ¥1,400 for ...", "a small
        # Swahili place near the office called Barka"
    for match in re.finditer(
        rf"(?i:\binsisted\s+on|highlights?:|\b(?P<tried>tried)|\bcalled|\bnamed)\s+(?P<v>{_NAME})", text
    ):
        if not match.group("tried") or _TABLE_TOLD.search(text):
            found.append((match.start("v"), match.group("v")))
    # "including in Fade Street Social, where we had dinner": the name the meal was had in
    for match in re.finditer(
        rf"\b(?:in|at)\s+(?:the\s+)?(?P<v>{_NAME}),\s+where\s+(?:we|I|\w+\s+and\s+I)\s+(?:had|ate|grabbed)\b", text
    ):
        found.append((match.start("v"), match.group("v")))
    return sorted(found)


def _venue_name(said: str, text: str, at: int, person: str) -> str | None:
    """The eatery's name, or None when the name is someone, somewhere or no eatery."""
    if at == 0 and " " in said and said[1:] == said[1:].lower():
        said = (
            said[:1].lower() + said[1:]
        )  # "Olde pink house was everything": typed in lower case, the head capitalised
    if said[:1].islower():
        said = LOWER_TIME_TAIL.sub("", re.split(r"\s+(?:on|in)\s+", said)[0])
        words = [w for w in re.split(r"[\s&-]+", said) if w]
        if (
            not words
            or said in p.NOT_NAMES
            or (all(map(is_common_word, words)) and not _named_in_words(words, text, at))
        ):
            return None  # "at work", "to bed", "at like 6am": words, no name
        if len(words) == 1 and (words[0].rstrip("s") in _KIN or words[0].endswith(("'s", "’s"))):
            return None  # "at grandmas", "at sam's": someone's home
        # "we did franklin on the friday, $85 for both of us with beers": a small town's name an eatery's here
        said = _lower_name(said) or (_title(said) if _eaten_at_town(_title(said), text) else "")
    name = p.clean_name(said, person) if said else None
    if (
        name is None
        and said
        and re.fullmatch(r"[A-Z][\w&-]*(?:\s+[A-Z][\w&-]*)*['’]s", said)
        and said.split()[0].lower().rstrip("'’s") not in _KIN  # "at Auntie Mei's": her home
        and re.search(r"(?:\bat|\bto|@|\b(?:did|tried|found))\s+(?:the\s+)?$", text[:at])
        and (
            _PAID_BILL.search(text)
            or re.match(
                rf"\s+for\s+(?:a\s+|an\s+|some\s+|the\s+)?(?:{DISHES.pattern}|{MEAL_WORDS.pattern})",
                text[at + len(said) :],
                re.I,
            )
        )
    ):
        # "we went to Stella's ..., burgers, 38 total": a bill paid is had at no one's home; "went to
        # Gounden's for bunny chow": nor is a dish gone out for
        name = said
    if name is None:
        return None
    name = re.split(r"\s+(?:on|in)\s+", name, maxsplit=1)[0]  # "Bravas on Cotham Hill": the street is where
    if re.match(r"The\s+[A-Z]", name):
        name = name[4:]  # "The Kitchin was extraordinary": the article is no part of the name
    if name.split()[0].lower() in p.NOT_NAMES or name.lower() in p.NOT_NAMES:
        return None
    if _NO_EATERY.search(name) or name.split()[0].lower() in _HOTELS:
        return None
    if re.match(
        r"\s+(?:on|in)\s+\S+(?:\s+\S+)?,?\s+(?:\d+|one|two|three|four|five|six|seven|a\s+couple\s+of)\s+nights?\b",
        text[at + len(said) :],
        re.I,
    ):
        return None  # "we were at the hytte on Tjøme, two nights": where they stayed, not where they ate
    called = re.search(r"\b(?:called|named)\s+$", text[:at]) is not None  # "an Indian restaurant called Bombay"
    if is_place(name) and not called and not _placed_in(text, at + len(said), name) and not _eaten_at_town(name, text):
        return None  # "at La Mesa in Papillion" is an eatery named after a place; "at La Mesa" a place
    after_at = re.search(r"\bat\s+$", text[:at]) is not None
    if (
        " " not in name
        and is_common_word(name)
        and not (after_at and _placed_in(text, at + len(said), name, anywhere=_SHARED.search(text) is not None))
    ):
        return None  # "Dinner w Wei Jie", "Lunch at ...": a word that opens the sentence (not "at Marble in Rosebank")
    before = text[max(0, at - 6) : at].lower()
    if re.search(r"(?:\bw/?|\bwith|&)\s+$", before):
        return None  # "w Jas", "with Mia": a companion
    if name in p.companions(text, person) or re.match(
        rf"{re.escape(name)}\s+(?:and\s+I|&\s+I|says|said|told)\b", text[at:]
    ):
        return None
    return name


#: words that open a description, never a name ("the local pub", "a new place", "the usual spot")
_DESCRIBING = set(
    "local usual new old same nearest nearby other little small best first last next good nice cheap fancy "
    "some any every our my his her their the a an this that hotel airport station office".split()
)
#: the last word of an eatery's name typed in lower case: "crab shack", "copper kitchen", "hurricanes grill"
_EATERY_TAIL = re.compile(
    rf"(?i:{p.EATERY_AFTER}|shack|house|foods|kitchens|grille|room|rooms|table|garden|brasserie|trattoria|"
    r"osteria|izakaya|dhaba|canteen|tea\s+room|coffee|roasters|bakehouse|chippy|pantry|larder)$"
)


#: what comes before "at" an eatery typed in common words: a meal, or eating, going or sitting there
_EATING_BEFORE = re.compile(
    rf"{MEAL_WORDS.pattern}|\b(?:had|ate|eaten|did|went|go|going|met|grabbed|got|sat|booked|celebrated|drinks|coffee|"
    rf"feed|meal|brekkie|out)\b",
    re.I,
)


def _named_in_words(words: list[str], text: str, at: int) -> bool:
    """Is a name typed in lower case of common words only an eatery's ("crab shack", "biscuit
    head", "fork and brewer")?  Two words or more, no word of a description first ("the local
    pub"), and either an eatery's word last or a bill shared out in the sentence ("34 for both
    of us", "my half was 58"), and where "to" comes before it, a going or a taking ("took mama to big
    bad breakfast", never "decided not to think about"); "at work", "to the park" stay words."""
    from ...extract.money import share_told_first

    if len(words) < 2 or words[0].lower() in _DESCRIBING or _NO_EATERY.search(words[-1]):
        return False
    before = text[max(0, at - 60) : at]
    if MEAL_WORDS.fullmatch(" ".join(words)):
        return False  # "with Callum at tea time": the meal, not where
    if re.search(r"\bat\s+(?:the\s+)?$", before) and not _EATING_BEFORE.search(before):
        return False  # "I looked at business class for 30 seconds, $9,000 each": no meal had there
    if re.search(r"\bto\s+(?:the\s+)?$", before) and not re.search(
        r"\b(?:went|go|going|goes|took|taken|take|headed|popped|came|come|dragged)\b(?:\s+[\w’'-]+){0,5}\s+to\s+(?:the\s+)?$",
        before,
        re.I,
    ):
        return False
    if _EATERY_TAIL.search(" ".join(words)):
        return True
    shared = any(
        m.group(0).lower() not in ("each", "pp", "a head") or re.search(r"\d\s*(?:\w+\s+)?$", text[: m.start()])
        for m in _SHARED.finditer(text)
    )  # "each way" is no bill; "30 each" is
    return bool(shared or _PAID_BILL.search(text) or share_told_first(text) is not None)


def _placed_in(text: str, end: int, name: str, *, anywhere: bool = False) -> bool:
    """Is the name followed by another place it lies in ("La Mesa in Papillion", "Lisboa on
    Main Street")?  Then it names a venue after a place.  With ``anywhere`` (a bill shared is
    told), any name after "in" will do: a suburb the gazetteer lacks ("at Marble in Rosebank")."""
    after = re.match(rf"\s+(?:in|on)\s+(?P<where>{_NAME})", text[end:])
    return (
        after is not None
        and after.group("where") != name
        and (
            anywhere
            or is_place(after.group("where"))
            or after.group("where").split()[-1] in ("Street", "St", "Road", "Avenue", "Ave")
        )
    )


#: words of a journey: a sentence with one is of a trip, where a town is a town
_JOURNEY_WORDS = re.compile(
    r"\b(?:flew|flight|drove|drive|road\s+trip|trip|nights?|hotel|airbnb|weekend\s+(?:away|in)|holiday|stayed|train)\b",
    re.I,
)


def _eaten_at_town(name: str, text: str) -> bool:
    """A small town's name that is an eatery's here: a dish and a bill shared are told, and no
    journey ("Iain took me to Fishers ..., £110 for the two of us with a bottle of wine, the
    scallops": Fishers, Indiana, is a town of 77,000; "took me to Paris" stays a place)."""
    sizes = city_sizes(name)
    if not sizes or max(sizes.values()) >= 150_000:
        return False
    return bool(DISHES.search(text) and _SHARED.search(text) and not _JOURNEY_WORDS.search(text))


def detect(fact: "Fact") -> list[Sighting]:
    """A meal out of the speaker's, told in no shape the other rules read (usually nothing)."""
    person = fact.speaker
    if not person or p.is_question(fact):
        return []
    raw = _first_person(p.without_said(p.plain_cached(fact.text, fact.session_date), person), person)
    past = tense(raw) is False
    if (p.HEDGES.search(raw) and not past) or p.WISHES.search(raw) or _not_out(raw) or _ahead(fact, raw):
        return []  # a hedge in a report is of something else ("that's us barred probably")
    if _someone_elses(raw):
        return []
    meal = MEAL_WORDS.search(raw)
    marks = _signs(raw)
    venues = [(at, name) for at, said in _venues(raw) if (name := _venue_name(said, raw, at, person))]
    if any(p.EATERY_NAME.search(f" {name}") for _, name in venues) and past:
        marks = sorted({*marks, -1})  # "We celebrated Friday at the Omaha Steakhouse": its name says it is one
    if len(marks) < (2 if meal is None else 0 if past else 1):
        return []  # "dinner w Ana at Nopa": no tense and no sign it was had
    marks = [m for m in marks if m >= 0]
    anchors = [m.start() for m in MEAL_WORDS.finditer(raw)] or marks or [0]
    if not venues:
        return []
    # the head of the sentence is the venue where it names one ("X w Jas at Holland V"); else the
    # venue nearest the meal
    at, name = venues[0] if venues[0][0] <= 4 else min(venues, key=lambda v: min(abs(v[0] - a) for a in anchors))
    word = meal.group(0).split()[-1].lower() if meal else None
    kind = word if word in ("dinner", "lunch", "brunch", "breakfast", "supper") else None
    return [_sighting(fact, person, raw[at:] if _money_after(raw, at) else raw, name, None, kind)]


def _signs(text: str) -> list[int]:
    """Where the signs of a meal are: each dish, table word, way of paying and treat named
    (an amount of money counts once, beside a dish)."""
    from ...extract.money import find_amounts

    marks = sorted({m.start() for sign in (DISHES, _EATERY_WORDS, _PAID, _TREAT) for m in sign.finditer(text)})
    paid = [m.start for m in find_amounts(text)] or [m.start() for m in _LOCAL_PRICE.finditer(text)]
    if paid and (DISHES.search(text) or _SHARED.search(text)):
        marks.append(paid[0])  # "£38 for the 4 of us", "$21.50 for a burger", "R780 for the two of us"
    return sorted(set(marks))


#: a price in the signs of a local currency, which only the user's currency reads (:mod:`.context`):
#: "R780", "R1 200", "RM45", "K250" -- a sign here only beside a dish or a bill shared
_LOCAL_PRICE = re.compile(r"(?<![\w$€£¥])(?-i:[A-Z][A-Za-z]?)\s?[1-9]\d{0,2}(?:[ ,.]\d{3})*(?:[.,]\d\d)?(?![\w.,]\d)")


#: a meal of someone else's: a person opens the sentence ("my sister had dinner at X", "Ana took
#: Tom for lunch") and the speaker is not at the table (no "me", "us", "we", "the whole team")
_OTHER = re.compile(
    r"^(?:(?:my|our|his|her|their)\s+)?(?:sister|brother|mum|mom|dad|parents|friend|friends|colleague|cousin|aunt|"
    r"uncle|he|she|they|" + p.CAPITALISED + r")\s+(?:\w+\s+)?(?:had|went|took|ate|tried|grabbed|got|treated|did)\b"
)
_AT_THE_TABLE = re.compile(
    r"\b(?:me|us|we|i|everyone|everybody|all\s+of\s+us|the\s+(?:whole\s+)?(?:team|gang|crew|family|lot|flat)|"
    r"\w+\s+of\s+(?:us|we))\b",
    re.I,
)


#: words a chat opens with that are nobody ("Already got a jacket", "Finally had dinner at ...")
_OPENING_WORDS = set(
    "already also finally honestly unrelated anyway btw ok okay so then just yesterday today tonight and but update "
    "literally actually basically".split()
)


def _someone_elses(text: str) -> bool:
    match = _OTHER.match(text)
    if match is None or _AT_THE_TABLE.search(text) is not None:
        return False
    first = text.split(maxsplit=1)[0].lower().strip(",")
    return not (first in _OPENING_WORDS or first.endswith("ly"))


def _first_person(text: str, person: str) -> str:
    """The text with the speaker said in the first person again, as the signs are written
    ("Sam's half" -> "my half", "took Sam to" -> "took me to", "Sam and others split" -> "we split")."""
    name = re.escape(person)
    text = re.sub(rf"\b{name}\s+and\s+others\b", "we", text)
    text = re.sub(rf"\b{name}['’]s\b", "my", text)
    return re.sub(rf"\b{name}\b", "me", text)


def _money_after(text: str, at: int) -> bool:
    from ...extract.money import find_amounts

    return bool(find_amounts(text[at:]))


#: a meal still ahead ("we'll try X", "booked X for the 14th", "dinner at X next week"); not "will
#: dream about it" or "next level"
_AHEAD = re.compile(
    r"\b(?:going\s+to|gonna|tomorrow|planning|plan\s+to|wants?\s+to|wanna|hop(?:e|ing)\s+to|can'?t\s+wait|"
    r"booked\s+(?:it|a\s+table|us|for)|will\s+(?:have|go|eat|try|book|be|take|do|get|meet)|next\s+(?:week|month|year|time|\w+day))\b|'ll\b",
    re.I,
)


#: someone else who wants or plans: "half the team wants to do it every month" is their wish, not a plan of this meal
_THEIR_WISH = re.compile(
    r"\b(?:he|she|they|everyone|everybody|team|kids|(?-i:[A-Z][a-z]+)|(?:my|his|her|their)\s+\w+)\s+(?:now\s+|also\s+|already\s+)?$",
    re.I,
)


_THEY_SAID = re.compile(
    r"\b(?:they|he|she|everyone|everybody|(?-i:[A-Z][a-z]+))\s+(?:said|say|says|reckon|reckons|think|thinks|joked|told\s+me)\b",
    re.I,
)


def _ahead(fact: "Fact", text: str) -> bool:
    """A plan: said ahead or dated after the day it was said; a wish of someone else's later in
    the sentence ("..., and now half the team wants to do it every month") is none."""
    for match in _AHEAD.finditer(text):
        wish = re.match(r"(?:wants?|wanna|hop)", match.group(0), re.I) is not None
        before = text[max(0, match.start() - 50) : match.start()]
        if wish and match.start() > 0 and _THEIR_WISH.search(before[-30:]):
            continue
        if _THEY_SAID.search(before):
            continue  # "..., and they said i'll get 'tapatía-ized' in a month": words reported, no plan of the meal
        return True
    return _dated_ahead(fact)
