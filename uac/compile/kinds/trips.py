"""Trips: where someone went (or plans to go), when, for how long, with whom, why.

A trip is seen in a clause whose subject is a person and whose verb says
travel: "got back from Lisbon", "flew to Porto for a wedding", "spent five
nights in Rome", "visited Kyoto and Osaka", "went camping"; planned with
"is going to Oslo", "will fly to", "wants to visit", "is planning a trip to",
"is thinking of camping", "booked flights to"; cancelled with "cancelled the
Oslo trip", "called off the trip to Oslo" ("isn't going to Oslo after all"
cancels a plan only if there is one).  The destination is a capitalised name
after the verb or preposition ("went to the gym", "went to bed", "flew through
the book" name none); "went to X" is no trip when the same fact is a meal out.

As people write in a chat: a destination in lower case counts when the
gazetteer alone accepts it (a country, or a city of 200,000 people whose name
is no English word: "back from japan", never "a nice day"); "five nights in
kyoto and three in osaka" is two done trips with their nights; "booked Porto
for my birthday" and "my packing list for Vienna" are plans; the speaker as a
subject mid-sentence ("at Christmas we are going to ...") and a sentence
without its subject ("spent the weekend in Edinburgh") are read like any clause.

Assembling: sightings of the same person and destination are one trip when a
plan is later reported as done (the done trip keeps both sources and its own
dates), when two reports of a done trip overlap in time (or one is undated and
they were said within a month), or when a plan is repeated; a cancellation
closes the latest plan.  Two trips to one place in different periods stay two.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

from ...dates import Period
from ...extract.dates import tense
from . import patterns as p
from .model import Assembled, Kind, Sighting

if TYPE_CHECKING:
    from ...facts.model import Fact

NAME = "trip"
STATUSES = ("done", "planned", "cancelled")

#: a destination as written in a chat: capitalised, or in lower case (:data:`~.patterns.LOWER_NAME`)
_PLACES = rf"(?P<place>{p.PLACES}|{p.LOWER_NAME}(?:\s+and\s+{p.LOWER_NAME})?)"
_NIGHTS = rf"(?P<nights>{p.NUMBER})\s+nights?"
_TRIP_WORD = r"(?:trip|vacation|holiday|getaway|honeymoon|tour|road\s+trip|break|visit)"
_OWNER = rf"(?:a|an|the|their|this|that|{p.OWNER})"
_ACTIVITY = r"(?P<activity>camping|backpacking|skiing|on\s+a\s+road\s+trip|on\s+a\s+cruise|a\s+road\s+trip|a\s+cruise)"
#: a plan, not a wish: "would love to", "wants to", "might", "could" say what someone would like, and make no trip
_MODAL = (
    r"(?:will|plans?\s+to|intends?\s+to|"
    r"(?:is|are)\s+(?:planning|going|about|excited|set)\s+to|can't\s+wait\s+to|"
    r"(?:is|are)\s+(?:finally\s+)?going\s+to)"
)
#: an occasion a trip is for ("for a conference", "for Ana's wedding")
_OCCASION = (
    r"(?:conference|wedding|funeral|festival|reunion|summit|convention|workshop|course|training|meeting|stag(?:\s+do)?|"
    r"hen(?:\s+do)?|bachelor(?:ette)?\s+party|graduation|christening|birthday|work\s+trip|business\s+trip|"
    # "for a trade show", "for a shoot", "for Leonie's 30th"
    r"trade\s+show|expo|trade\s+fair|shoot|gig|tournament|site\s+visit|client\s+visit|\d{2}(?:st|nd|rd|th))"
)
#: a holiday of the year, spent somewhere: "spent Christmas in Leeds", "spent Natal in Santos", "spent Raya in Jasin"
_HOLIDAY = (
    r"(?:Christmas|Xmas|Easter|New\s+Year(?:['’]s(?:\s+Eve)?)?|NYE|Thanksgiving|Diwali|Deepavali|Eid|(?:Hari\s+)?Raya(?:\s+Haji)?|"
    r"Natal|Navidad|R[ée]veillon|CNY|Chinese\s+New\s+Year|Lunar\s+New\s+Year|Songkran|Hanukkah|Passover|Carnival|Carnaval|"
    r"Ostern|Weihnachten|Pâques|No[ëe]l|Seollal|Chuseok|Golden\s+Week|Bayram|(?:the\s+)?(?:long\s+|bank\s+holiday\s+)?weekend|"
    r"(?:the\s+)?(?:school\s+)?holidays|half[-\s]term|spring\s+break)"
)
#: someone's family home: "Sam's parents'", "Ana's mum's place", "the in-laws'"
_FAMILY = (
    rf"(?:(?:{p.OWNER}|the|our|his|her|their)\s+)(?:parents|family|folks|mum|mom|dad|father|mother|grandparents|grandma|"
    r"grandad|grandpa|grandfather|grandmother|granny|nan|gran|in-laws|sister|brother|aunt|auntie|uncle|cousins?|son|daughter)(?:['’]s|['’])?(?:\s+(?:place|house|home|flat))?"
)
#: how a journey is made: "took the train", "caught a flight", "is taking the ICE"
_CARRIER = r"(?:train|bus|coach|ferry|flight|plane|boat|ICE|TGV|overnight\s+train|sleeper|night\s+train|(?-i:[A-Z]{2,4})(?=\s+(?:over|out|down|up|back|across|to)\b))"
#: short hops: "popped over to Berlin", "nipped up to Leeds"
_HOPPED = r"(?:popped|nipped|hopped|zipped|jetted|whizzed)"
#: how long a stay was: "for the weekend", "a week", "the long weekend", "a few days", "three nights"
_STAY = rf"(?:(?:a|an|the|one|{p.NUMBER}|a\s+few|a\s+couple\s+of)\s+(?:long\s+|short\s+|quick\s+|whole\s+)?(?:nights?|days?|weeks?|weekends?|fortnight))\b"
_GO = r"(?:go|fly|travel|head|drive|sail|take\s+a\s+(?:\w+\s+)?trip|go\s+on\s+a\s+(?:\w+\s+)?trip|get\s+away)"


@dataclass(frozen=True)
class _Rule:
    pattern: re.Pattern[str]
    status: str
    #: the fact's period is the trip's "start" or its "end" ("got back from ... yesterday"),
    #: or "booked": when the booking was made, not the trip
    dated: str = "start"
    #: a cancellation that only closes an existing plan ("isn't going to Oslo after all")
    weak: bool = False
    #: a visit to family ("to Sam's parents' in Truro"): a later "Christmas at mum and dad's was
    #: lovely" reports it done
    family: bool = False
    #: a plan only when the fact dates it after the day it was said ("are at Ana's mum's in Leeds
    #: the first weekend of August")
    ahead: bool = False
    #: a cue strong enough to make a place the gazetteer does not hold a destination
    #: (:func:`_by_cue`): "strong" alone ("spent three nights in Halls Gap"), "verb" by the
    #: verb it matched (flew, took the train: alone; drove, went: with a stay told after it)
    cue: str = ""
    #: what the fact's whole text (its date phrases too) must also say: "were in Hermanus" is a
    #: trip with "this weekend" or "at the weekend" (:data:`_AWAY_TIME`)
    told: "re.Pattern[str] | None" = None


def _rule(
    body: str,
    status: str,
    dated: str = "start",
    weak: bool = False,
    family: bool = False,
    ahead: bool = False,
    cue: str = "",
    told: "re.Pattern[str] | None" = None,
) -> _Rule:
    return _Rule(re.compile(rf"^{p.ADVERBS}{body}"), status, dated, weak, family, ahead, cue, told)


#: the time of a stay away, said with a place one "was in": a weekend, a holiday ("we were in
#: Hermanus this weekend", "were in Montagu at the weekend", "were in Oban over Easter")
_AWAY_TIME = re.compile(
    r"\b(?:this|last|the|that|at\s+the|over\s+the|for\s+the)\s+(?:long\s+|bank\s+holiday\s+)?weekend\b|"
    r"\b(?:over|for|at)\s+(?:the\s+)?(?:Easter|Christmas|New\s+Year|half[-\s]term|school\s+holidays)\b|"
    # "we were at the hytte on Tjøme, two nights": the nights away
    r"\b(?:\d+|one|two|three|four|five|six|seven|a\s+couple\s+of)\s+nights?\b",
    re.I,
)


RULES: tuple[_Rule, ...] = (
    # done, dated by the return
    _rule(
        rf"(?:got|came|is|was|are|were|has\s+been|have\s+been|flew|drove|headed|made\s+it)\s+(?:back|home)\s+"
        rf"from\s+(?:{_OWNER}\s+(?:\w+\s+){{0,2}}?{_TRIP_WORD}\s+(?:to|in)\s+)?{_PLACES}",
        "done",
        "end",
        cue="strong",
    ),
    _rule(
        rf"(?:got|came|is|was|are|were|has\s+been|have\s+been|just\s+got)\s+back\s+from\s+{_OWNER}\s+(?:\w+\s+)?"
        rf"(?P<activity>road\s+trip|camping\s+trip|hiking\s+trip|ski\s+trip|cruise|backpacking\s+trip)",
        "done",
        "end",
    ),
    _rule(
        rf"(?:is|are)\s+(?:traveling|travelling|touring|backpacking|road-?tripping)\s+(?:through|around|in|across)\s+{_PLACES}",
        "done",
    ),
    _rule(
        rf"returned\s+(?:home\s+)?from\s+(?:{_OWNER}\s+(?:\w+\s+){{0,2}}?{_TRIP_WORD}\s+(?:to|in)\s+)?{_PLACES}",
        "done",
        "end",
        cue="strong",
    ),
    # done
    _rule(
        rf"(?:flew|drove|travell?ed|headed|went|went\s+back|sailed|cycled|hitchhiked|road-?tripped|{_HOPPED}|(?:took|caught|got)\s+(?:a|the)\s+"
        rf"{_CARRIER})\s+(?:over\s+|out\s+|down\s+|up\s+|off\s+|back\s+|across\s+|all\s+the\s+way\s+)?"
        rf"to\s+{_PLACES}",
        "done",
        cue="verb",
    ),
    # "visited my sister in London": a family visit (before "visited X", which would read "Sam's" as the place)
    _rule(rf"visited\s+{_FAMILY}\s+in\s+{_PLACES}", "done", family=True),
    _rule(rf"(?:visited|toured|explored)\s+{_PLACES}", "done"),
    # a night away: "stayed over in Franschhoek", "stayed the night in Oban", "slept over in X"
    _rule(rf"(?:stayed|slept)\s+(?:over|the\s+night|overnight)\s+in\s+{_PLACES}", "done", cue="strong"),
    _rule(
        rf"spent\s+(?:{_NIGHTS}|(?:a|an|the|{p.NUMBER})\s+(?:long\s+)?(?:days?|weeks?|weekends?|holidays?|summer|vacation|months?))"
        rf"\s+(?:in|on|at|around|touring|exploring)\s+{_PLACES}",
        "done",
        cue="strong",
    ),
    # "We were at my parents in Písek from Friday to Monday": a stay at family, its time told
    _rule(
        rf"(?:was|were)\s+(?:at|with)\s+{_FAMILY}\s+in\s+{_PLACES}",
        "done",
        family=True,
        cue="strong",
        told=re.compile(
            r"\b(?:from\s+\w+day\b[^.;]{0,40}?\bto\b|nights?\b|weekend\b|overnight\b|\d{1,2}(?:st|nd|rd|th)?\s*(?:-|–|to)\s*\d)",
            re.I,
        ),
    ),
    # "I was in bogotá for work", "we were in Lisbon for a wedding": a stay away, told by why
    _rule(
        rf"(?:was|were)\s+in\s+{_PLACES}\s+(?:for\s+(?:work|a\s+(?:conference|wedding|work\s+trip|meeting|course|"
        rf"training|few\s+days|week|weekend|couple\s+of\s+days)|the\s+(?:weekend|week|conference|wedding))|on\s+business)\b",
        "done",
        cue="strong",
    ),
    # "from the 13th to the 16th I'll be in kumasi for work": a stay away ahead
    _rule(
        rf"(?:will\s+be|(?:is|are|am)\s+going\s+to\s+be)\s+in\s+{_PLACES}\s+(?:for\s+(?:work|a\s+(?:conference|wedding|"
        rf"work\s+trip|meeting|course|training|few\s+days|week|weekend|couple\s+of\s+days)|the\s+(?:weekend|week|conference|"
        rf"wedding))|on\s+business)\b",
        "planned",
        cue="strong",
    ),
    # "I was on a work trip in Most", "we were on a road trip to Utah"
    _rule(
        rf"(?:was|were)\s+on\s+{_OWNER}\s+(?:\w+\s+){{0,2}}?{_TRIP_WORD}\s+(?:to|in)\s+{_PLACES}", "done", cue="strong"
    ),
    # "we were at Kuba's family chata in Chocerady on the Sázava, Friday to Sunday": someone's place away
    _rule(
        rf"(?:was|were)\s+at\s+(?:{p.OWNER}|the|a|our)\s+(?:[a-z]+\s+)?(?:chata|chalupa|cabin|cottage|hytte|dacha|bach|"
        rf"lake\s+house|beach\s+house|holiday\s+home|summer\s+house|villa|farm)\s+(?:in|on|at|near)\s+{_PLACES}",
        "done",
        cue="strong",
        told=re.compile(r"\b(?:\w+day\b[^.;]{0,40}?\bto\s+\w+day|nights?\b|weekend\b|overnight\b)", re.I),
    ),
    # "we spent Natal in Santos, 23rd to 27th", "spent Raya in Jasin": a holiday spent away
    _rule(rf"spent\s+{_HOLIDAY}\s+(?:in|on|at)\s+{_PLACES}", "done", cue="strong"),
    # "took my sister Hani to Kuantan, Fri 8th to Sun 10th, 2 nights": someone taken away, the stay told
    _rule(
        rf"took\s+(?:{p.OWNER}\s+(?:[a-z]+\s+){{1,2}}?(?:[A-Z][\w-]+\s+)?|the\s+(?:kids|boys|girls|family)\s+|[A-Z][\w-]+\s+)to\s+{_PLACES}",
        "done",
        cue="strong",
        told=re.compile(
            r"\b(?:\d+|one|two|three|four|five|six|seven|a\s+couple\s+of)\s+nights?\b|\bovernight\b|\bfor\s+the\s+weekend\b",
            re.I,
        ),
    ),
    _rule(
        rf"(?:had|took|went\s+on|made|enjoyed|did)\s+{_OWNER}\s+(?:\w+\s+){{0,2}}?{_TRIP_WORD}\s+(?:to|in|of|around|through)\s+{_PLACES}",
        "done",
        cue="strong",
    ),
    _rule(rf"(?:stayed|was|were)\s+in\s+{_PLACES}\s+for\s+{_NIGHTS}", "done", cue="strong"),
    # a stay told by its length: "were on Usedom for the weekend", "were in Palermo for a week", "had a week in Noosa"
    _rule(rf"(?:stayed|was|were)\s+(?:away\s+)?(?:in|on)\s+{_PLACES}\s+for\s+{_STAY}", "done", cue="strong"),
    _rule(rf"(?:had|did)\s+{_STAY}\s+(?:in|on|at)\s+{_PLACES}", "done", cue="strong"),
    # "we were in Hermanus this weekend!!", "were in Montagu at the weekend, hot springs": a weekend away
    _rule(
        rf"(?:was|were)\s+(?:away\s+|up\s+|down\s+|over\s+|out\s+)?(?:at\s+(?:the|a|our|my)\s+[\w’'-]+\s+)?(?:in|on)\s+{_PLACES}"
        rf"(?=\s*(?:[,.;!?—–]|\s-\s|$|(?:at|over|for|and)\s+))",
        "done",
        cue="strong",
        told=_AWAY_TIME,
    ),
    # "was in Oslo last week for a conference, two nights": being somewhere, for an occasion or some nights
    _rule(
        rf"(?:was|were)\s+(?:away\s+)?in\s+{_PLACES}(?=[^.;!?]*?(?:\bfor\s+(?:a|an|the|{p.OWNER})\s+(?:[\w-]+\s+){{0,3}}?{_OCCASION}\b|,\s+{_NIGHTS}\b))",
        "done",
    ),
    # family visited: "drove down to Sam's parents' in Truro", "are going to Sam's mum's in Leeds"
    _rule(
        rf"(?:went|drove|flew|headed|travell?ed|got\s+the\s+train|took\s+the\s+train)\s+(?:(?:down|up|over|back|out|home)\s+)?to\s+{_FAMILY}\s+in\s+{_PLACES}",
        "done",
        family=True,
    ),
    _rule(
        rf"(?:is|are|am)\s+(?:going|heading|driving|flying|travell?ing|off)\s+(?:(?:down|up|over|back|out|home)\s+)?to\s+{_FAMILY}\s+in\s+{_PLACES}",
        "planned",
        family=True,
    ),
    # "I'm going up to see my father in Llanrwst (the weekend of the 15th)": a visit to family
    _rule(
        rf"(?:is|are|am)\s+(?:going|heading|driving|flying|travell?ing|off)\s+(?:(?:down|up|over|back|out|home)\s+)?to\s+"
        rf"(?:see|visit|stay\s+with)\s+{_FAMILY}\s+in\s+{_PLACES}",
        "planned",
        family=True,
        cue="strong",
    ),
    _rule(
        rf"(?:is|are|am)\s+(?:staying\s+)?(?:at|with)\s+{_FAMILY}\s+in\s+{_PLACES}", "planned", family=True, ahead=True
    ),
    _rule(rf"went\s+{_ACTIVITY}(?:\s+(?:in|to|at|near|around)\s+{_PLACES})?", "done"),
    # planned
    _rule(
        rf"(?:is|are|am)\s+(?:going|flying|heading|traveling|travelling|driving|off|moving\s+on|popping|nipping|hopping|"
        rf"(?:taking|catching|getting)\s+(?:a|the)\s+{_CARRIER})\s+(?:(?:back|over|down|up|out|across)\s+)?to\s+{_PLACES}",
        "planned",
        cue="verb",
    ),
    # "Farah and I going Bangkok, flying Sat 14 Feb": going to a place without "to", as Malaysian, Singaporean
    # and Indian English say it (a place of the gazetteer, its time or its journey after it)
    _rule(
        rf"(?:(?:is|are|am)\s+)?(?:going|(?:all\s+|both\s+)?go)\s+{_PLACES}(?=\s+(?:this|next|on|in|for|from|the|with|w|tomorrow|again|\d)\b|[,.;!]|$)",
        "planned",
        cue="verb",
        told=re.compile(r"\b(?:nights?|weekend|flying|flight|driving|trip|holiday|\d{1,2}(?:st|nd|rd|th)?\b)", re.I),
    ),
    # "I'm bringing him to Killarney for the weekend, Friday 7th to Sunday 9th": a trip given someone, ahead
    _rule(
        rf"(?:is|are|am)\s+(?:bringing|taking|whisking)\s+(?:him|her|them|the\s+(?:kids|boys|girls|family)|{p.OWNER}\s+\w+|"
        rf"(?-i:[A-Z][\w'’-]+))\s+(?:away\s+|off\s+|up\s+|down\s+)?to\s+{_PLACES}",
        "planned",
        ahead=True,
        cue="verb",
    ),
    # "Doing a mini road trip this weekend, Cork to Dingle": a road trip from one place to another
    _rule(
        rf"(?:(?:is|are|am)\s+)?(?:doing|going\s+on)\s+a\s+(?:[\w-]+\s+){{0,2}}?road\s*trip\b[^.;!?]{{0,40}}?,?\s+{p.NAME}\s+to\s+{_PLACES}",
        "planned",
        ahead=True,
        cue="verb",
    ),
    _rule(rf"(?:is|are|am)\s+visiting\s+{_FAMILY}\s+in\s+{_PLACES}", "planned", family=True),
    _rule(rf"(?:is|are)\s+visiting\s+{_PLACES}", "planned"),
    # "Jess and I are doing Namibia after Christmas!", "are going home to PE for the break"
    _rule(
        rf"(?:is|are|am)\s+doing\s+{_PLACES}(?=\s+(?:in|after|for|over|this|next|at|on|from|with|w|the|two|three|"
        rf"friday|saturday|sunday|monday|tuesday|wednesday|thursday|\d+)\b|[,.;!]|$)",
        "planned",
    ),
    # "Christmas we go to my mum in Zwolle, 25th to 27th": the present of a plan, told with its dates ahead
    _rule(
        rf"(?:go|goes|fly|flies|drive|drives|head|heads)\s+(?:(?:up|down|over|back)\s+)?to\s+(?:{_FAMILY})\s+in\s+{_PLACES}",
        "planned",
        ahead=True,
        family=True,
    ),
    _rule(
        rf"(?:go|goes|fly|flies|drive|drives|head|heads)\s+(?:(?:up|down|over|back)\s+)?to\s+{_PLACES}",
        "planned",
        ahead=True,
        cue="verb",
    ),
    # "I'm planning Berlin, just us two, Friday 16 to Monday 19 January"
    _rule(rf"(?:is|are|am)\s+planning\s+{_PLACES}(?=\s*[,.;!]|\s+(?:for|in|on|next|this|from)\b)", "planned"),
    # "I have a course in Nijmegen a week on Thursday", "has a conference in Lisbon next month": an event away, ahead
    _rule(
        rf"(?:has|have|had|got)\s+(?:a|an|the|{_OWNER})\s+(?:[\w’'-]+\s+){{0,3}}?(?:course|conference|congress|training|"
        rf"workshop|interview|wedding|summit|retreat|offsite|onsite)\s+in\s+{_PLACES}",
        "planned",
        ahead=True,
    ),
    # "we had a company offsite in sapanca, 24-26 july": the event away, done (never an interview or a
    # meeting, an hour's errand: "I had an interview in Porto yesterday")
    _rule(
        rf"had\s+(?:a|an|the|{_OWNER})\s+(?:[\w’'-]+\s+){{0,3}}?(?:course|conference|congress|training|"
        rf"workshop|wedding|summit|retreat|offsite|onsite|tournament)\s+in\s+{_PLACES}",
        "done",
        cue="strong",
    ),
    # "the girls and I have Vegas booked for end of April": a place booked, ahead
    _rule(rf"(?:has|have|got)\s+{_PLACES}\s+(?:all\s+|finally\s+)?booked\b", "planned", dated="start", cue="strong"),
    # "We did Memorial Day weekend out at Lake McConaughy", "did a long weekend in Galway": a time away, done
    _rule(
        rf"did\s+(?:[\w’'-]+\s+){{0,3}}?(?:weekend|week|trip|getaway|break)\s+(?:(?:out|up|down|away)\s+)?(?:at|in|on|to)\s+{_PLACES}",
        "done",
        cue="strong",
    ),
    # "Akinyi and I leave for Diani on Thursday!", "we're leaving for Lisbon tomorrow"
    _rule(rf"(?:leave|leaves|(?:is|are|am)\s+leaving)\s+for\s+{_PLACES}", "planned", cue="verb"),
    # "Mariel and I did Hatta overnight on the 5th-6th", "did Bergen for the weekend": a stay done
    _rule(
        rf"did\s+{_PLACES}\s+(?=overnight\b|for\s+(?:the|a)\s+(?:weekend|night|long\s+weekend)\b|(?:last|this)\s+weekend\b)",
        "done",
        cue="strong",
    ),
    # "did Puerto for New Year's, five nights in a cabaña", "ended up doing mahabaleshwar with kavya, 1 night":
    # a place done, with the nights told after it
    _rule(
        rf"(?:did|ended\s+up\s+doing)\s+{_PLACES}(?=[^.;!?]{{0,60}}?\b(?:\d+|one|two|three|four|five|six|seven)\s+nights?\b)"
        # (never where the nights name another place: "Did Goa for NYE, 3 nights in Calangute" is Calangute)
        rf"(?![^.;!?]{{0,60}}?\bnights?\s+(?:in|at|on)\s+(?-i:[A-Z]))",
        "done",
        cue="strong",
    ),
    # "is going to the EAHP congress in Copenhagen", "are off to a wedding in Kilkenny": an event away
    _rule(
        rf"(?:is|are|am)\s+(?:going|heading|flying|driving|off|travell?ing)\s+(?:(?:up|down|over|out)\s+)?to\s+"
        rf"(?:the|a|an|{p.OWNER}|{p.NAME}['’]s)\s+(?:[\w’'-]+\s+){{0,3}}?(?P<event>congress|conference|wedding|festival|"
        rf"concert|gig|summit|workshop|training|course|retreat|interview|tournament|offsite|onsite|reunion|expo|convention|"
        rf"trade\s+show|fair|hackathon)\s+(?:in|at)\s+{_PLACES}",
        "planned",
    ),
    _rule(rf"(?:is|are|am)\s+(?:going|heading|flying|driving)\s+home\s+to\s+{_PLACES}", "planned", family=True),
    _rule(
        rf"{_MODAL}\s+(?:finally\s+|also\s+|maybe\s+|really\s+)?(?:{_GO}\s+(?:back\s+)?to|visit|explore|"
        rf"spend\s+(?:{_NIGHTS}|(?:a|an|the|{p.NUMBER})\s+(?:\w+\s+)?\w+)\s+in)\s+{_PLACES}",
        "planned",
    ),
    # "are planning a quick Abu Dhabi overnight on the 22nd", "is planning a Khor Fakkan weekend"
    _rule(
        rf"(?:is|are)\s+(?:planning|booking|organi[sz]ing)\s+(?:a|an)\s+(?:(?:quick|little|short|long|cheap|girls['’]?|lads['’]?)\s+)?"
        rf"(?P<place>{p.NAME})\s+(?:overnight|weekend|trip|getaway|break|holiday|vacation|staycation)\b",
        "planned",
    ),
    _rule(
        # (never "is thinking about a trip to X", "considering", "dreaming of": a wish or a hedge, no plan)
        rf"(?:is|are)\s+(?:planning|booking|organi[sz]ing)\s+"
        rf"(?:going\s+to|{_OWNER}\s+(?:\w+\s+){{0,2}}?{_TRIP_WORD}\s+to|(?:visiting|flying\s+to|traveling\s+to|travelling\s+to|"
        rf"heading\s+to))\s+{_PLACES}",
        "planned",
    ),
    _rule(
        rf"(?:is|are)\s+planning\s+(?:on\s+|to\s+)?(?:going\s+|go\s+)?{_ACTIVITY}"
        rf"(?:\s+(?:in|to|at|near|around)\s+{_PLACES})?",
        "planned",
    ),
    _rule(rf"{_MODAL}\s+(?:go\s+)?{_ACTIVITY}(?:\s+(?:in|to|at|near|around)\s+{_PLACES})?", "planned"),
    _rule(
        rf"(?:booked|has\s+booked|have\s+booked|bought)\s+(?:{_OWNER}\s+)?(?:\w+\s+)?(?:flights?|tickets?|trip|hotel|room|"
        rf"train\s+tickets?|plane\s+tickets?)\s+(?:to|in|for)\s+{_PLACES}",
        "planned",
        "booked",
    ),
    # "booked a cottage in Grasmere for a week": a stay booked, in a town the gazetteer may not hold
    _rule(
        rf"(?:booked|has\s+booked|have\s+booked|rented)\s+(?:{_OWNER}\s+)?(?:\w+\s+)?(?:cottage|cabin|chalet|villa|airbnb|"
        rf"apartment|flat|house|lodge|hut|yurt|glamping\s+pod|campsite|bach)\s+(?:in|on|at|near)\s+{_PLACES}",
        "planned",
        "booked",
        cue="strong",
    ),
    # "booked Porto for my birthday", "we booked iceland for october": a place booked is a trip planned
    _rule(
        rf"(?:booked|has\s+booked|have\s+booked)\s+(?P<place>{p.NAME}|{p.LOWER_NAME})(?=\s+(?:for|in|on|at|from|this|next|!)|[,.;!]|$)",
        "planned",
        "booked",
    ),
    # cancelled
    _rule(
        rf"(?:cancell?ed|called\s+off|scrapped|had\s+to\s+cancel|has\s+cancell?ed|have\s+cancell?ed|dropped)\s+"
        rf"(?:{_OWNER}\s+)(?:(?P<place>{p.NAME})\s+)?(?:\w+\s+)?(?:{_TRIP_WORD}|flights?|plans?)"
        rf"(?:\s+(?:to|in)\s+(?P<place2>{p.PLACES}))?",
        "cancelled",
    ),
    # "pulled the pin on Bali", "cancelled Vienna": a place called off
    _rule(
        rf"(?:has\s+|have\s+|had\s+)?(?:cancell?ed|called\s+off|scrapped|pulled\s+the\s+pin\s+on|pulled\s+out\s+of|bailed\s+on|ditched|axed|binned|"
        rf"(?:had|have|has)\s+to\s+cancel)\s+"
        rf"(?:(?:the|our|{_OWNER})\s+)?(?P<place>{p.PLACES}|{p.LOWER_NAME})(?:\s+{_TRIP_WORD})?"
        rf"(?=\s+(?:after|because|bc|cos|for|in|this|next|as|and|but|so|w|with|too|again|now|last|today|yesterday)\b|[,.;!]|$)",
        "cancelled",
    ),
    _rule(
        rf"(?:decided\s+not\s+to|won't|will\s+not|is\s+not|isn't|are\s+not|aren't|can't|cannot)\s+"
        rf"(?:go(?:ing)?|fly(?:ing)?|travel(?:l?ing)?|head(?:ing)?|make\s+it)\s+to\s+{_PLACES}",
        "cancelled",
        weak=True,
    ),
)

_DURATION = re.compile(
    rf"^(?:{p.NUMBER}|a|an|the|one|a\s+few|a\s+couple\s+of)\s+(?:\w+\s+)?(?:nights?|days?|weeks?|months?|years?|hours?|weekend)\b",
    re.I,
)
_PURPOSE = re.compile(
    rf"\bfor\s+(?!(?:the\s+)?(?:two|three|four|five|six|seven|eight|\d+|all|both)\s+of\b)(?P<purpose>(?:a|an|the|{p.OWNER}|their|work|business|pleasure|fun|vacation|holiday|[a-z]+ing)\b[^,.;!?()]*?)"
    r"(?=\s+(?:with|in|on|at|last|next|this|and|but|from|to|because|while|after|before)\b|[,.;!?()]|$)"
)


def _purpose(rest: str) -> str | None:
    for match in _PURPOSE.finditer(rest):
        text = match.group("purpose").strip()
        if _DURATION.match(text) or re.search(r"[$€£¥]|\d", text):
            continue
        text = re.sub(r"^(?:a|an|the)\s+", "", text)
        if text and text.lower() not in ("it", "that", "this", "them", "me"):
            return text
    return None


def _nights(value: str | None) -> int | None:
    if not value:
        return None
    amount = p.number(value)
    return int(amount) if amount is not None else None


#: words without which no rule of this kind can match (a cheap first look)
CUE = re.compile(
    r"\b(?:back|fl[eoy]\w*|flies|will\s+be\s+in|going\s+to\s+be\s+in|went|go|goes|going|head\w*|travel\w*|visit\w*|spen[dt]|stay\w*|"
    r"trip|vacation|holiday|"
    r"getaway|overnight|nights?|weekend|staycation|honeymoon|tour\w*|camping|backpacking|skiing|cruise|book\w*|cancel\w*|called\s+off|scrapped|off\s+to|"
    r"dr[io]ve|driv\w*|sailed|cycled|took|returned|bought|explor\w*|break|won't|isn't|aren't|can't|not|(?:was|were)\s+(?:away\s+)?(?:in|on)|parents|family|folks|in-laws|"
    r"doing|slept|popp\w*|nipp\w*|hopp\w*|zipped|jetted|caught|catching|taking|pulled|bailed|ditched|axed|binned|leav\w*|plann\w*|course|conference|congress|training|workshop|interview|offsite|onsite|retreat|summit|tournament|"
    r"(?:had|did)\s+\w+\s+(?:\w+\s+)?(?:nights?|days?|weeks?|weekends?|fortnight))\b",
    re.I,
)


def detect(fact: "Fact", *, meal: bool = False) -> list[Sighting]:
    """The trips ``fact`` tells of (``meal``: the fact is a meal out, so "went to X" is no trip)."""
    said = bool(fact.speaker) and fact.text.startswith(f"{fact.speaker} said: ")
    out: list[Sighting] = []
    if said or not p.is_question(fact):
        out.extend(_packing(fact))
        out.extend(_nights_in(fact))
    if out:
        return out
    for clause in list(p.clauses(fact, CUE)) + (_anywhere(fact) if not said else []) + _no_subject(fact):
        if out:
            break
        for rule in RULES:
            match = rule.pattern.match(clause.rest)
            if match is None or rule.told is not None and rule.told.search(fact.text) is None:
                continue
            groups = match.groupdict()
            raw = groups.get("place") or groups.get("place2")
            places = p.split_names(raw, clause.person) if raw else []
            # a rule with a cue of travel may name a small town ("went down to Raglan"; see _by_cue)
            places, country = resolve_places(places, towns=bool(rule.cue))
            activity = groups.get("activity")
            unplaced = None
            if not places and not activity and raw and not meal and rule.cue:
                places, country = _held_in(clause.rest[match.end() :], clause.person)
            if not places and not activity and raw and not meal:
                town = _by_cue(rule, match, raw, clause, fact)
                if town is not None:
                    places, unplaced = [town], UNPLACED
            if not places and not activity:
                if (
                    raw
                    and raw[:1].isupper()
                    and not meal
                    and rule.status != "cancelled"
                    and p.clean_name(raw, clause.person)
                ):
                    # "went to Zorblat Falls": a name the gazetteer does not know -- no trip, unclear
                    out.append(Sighting(NAME, fact.id, {"_doubt": "a place the gazetteer does not know"}, None))
                    break
                continue  # "went to Sakura Tei": a name, but no place
            if meal and rule.status == "done" and not activity:
                continue
            after = clause.rest[match.end() :]
            if raw and _attributive(raw, after):
                continue
            nights = groups.get("nights")
            if nights is None and rule.status != "cancelled":
                # "flew to Rome for a wedding, three nights": the nights told after a comma
                told = _NIGHTS_AFTER.search(after)
                nights = told.group("nights") if told else None
            fields = _fields(fact, rule, places, activity, nights, clause, after)
            fields["country"] = country
            fields["place_note"] = unplaced
            if rule.ahead and (
                fields["_when"] is None or fact.session_date is None or fields["_when"].start <= fact.session_date
            ):
                continue  # "is at Ana's mum's in Leeds" today, or undated: where someone is, not a trip planned
            if rule.family:
                fields["_family"] = True
            key = f"{clause.person}|{(places[0] if places else _activity(activity)).lower()}"
            if rule.weak:
                fields["_weak"] = True
            out.append(Sighting(NAME, fact.id, fields, key))
            break
    if said and not out:
        out = _looking_back(fact) or _recap(fact) or _counted(fact)
    elif not out and not p.is_question(fact):
        out.extend(
            _back_from(fact)
            or _reviewed(fact, p.plain_cached(fact.text, fact.session_date), p.without_dates_written(fact.text))
            or _occasion_ahead(fact)
            or _sent(fact)
            or _owned_trips(fact)
            or _recap(fact)
            or _counted(fact)
        )
    if not out and not p.is_question(fact):
        out.extend(_back_home_visit(fact))
    return out


#: "Christmas at mum and dad's was lovely", "the weekend at Ana's parents' was chaos": a family visit, looked back on
_FAMILY_BACK = re.compile(
    rf"\bat\s+(?:(?:{_FAMILY})|(?:{p.OWNER}\s+)?(?:mum|mom)\s+and\s+dad['’]s"
    # "Christmas at mum's was lovely": a parent's home named without its owner
    r"|(?:mum|mom|mam|dad|nan|gran|grandma|oma|opa|nana)['’]s|(?:parents|grandparents|in-laws)['’])\s+(?:was|were)\b"
    rf"|\b(?:stayed|was|were)\s+(?:at|with)\s+(?:(?:{_FAMILY})|(?:mum|mom)\s+and\s+dad['’]s?)\b"
)


def _back_home_visit(fact: "Fact") -> list[Sighting]:
    """A family visit looked back on: weak, it only reports the person's planned visit to family done."""
    if not fact.speaker or "'" not in fact.text and "’" not in fact.text:
        return []
    text = p.plain_cached(fact.text, fact.session_date)
    text = p.without_said(text, fact.speaker)
    if not _FAMILY_BACK.search(text) or tense(text) is not False or p.HEDGES.search(text):
        return []
    owner = re.search(r"\b(" + p.CAPITALISED + r")['’]s\s+(?:parents|family|folks|mum|mom|dad)", text)
    if owner is not None and owner.group(1) != fact.speaker and fact.speaker not in text[: owner.start()]:
        return []  # "at Tom's parents' was ..." told by someone with Tom: still theirs; told of Tom alone: not
    fields = {"person": fact.speaker, "status": "done", "_family_back": True, "_weak": True, "_when": None}
    return [Sighting(NAME, fact.id, fields, f"{fact.speaker}|@family")]


def _held_in(after: str, person: str) -> tuple[list[str], str | None]:
    """The place an event named was held in, told right after it ("Back from MMEA Midwinter in
    Minneapolis"): the places of the gazetteer and their country, else none."""
    held = re.match(rf"\s+(?:in|at)\s+(?P<where>{p.NAME})", after)
    return resolve_places(p.split_names(held.group("where"), person)) if held is not None else ([], None)


def _sighted(
    fact: "Fact",
    raw: str,
    rule: _Rule,
    rest: str,
    *,
    nights: str | None = None,
    after: str | None = None,
    weak: bool = False,
    town: bool = False,
    towns: bool = False,
) -> list[Sighting]:
    """The speaker's trip to the places ``raw`` names (none when the gazetteer holds none of
    them, unless ``town``: the cue is strong enough for a town it does not hold), read with
    ``rule`` from the words ``rest`` after the place (``after``: the words its purpose and
    companions are read from, ``rest`` when None)."""
    speaker = fact.speaker or ""
    if speaker:
        raw = re.sub(rf"^{re.escape(speaker)}['’]s\s+", "", raw)  # "back from Aiko's Osaka weekend": her own
    # a booking or a plan without its subject: cues of travel enough for a small town of the
    # table ("bozcaada is booked!!", "flying out to Tofino on Friday")
    names = p.split_names(raw, speaker)
    places, country = resolve_places(names, towns=towns or rule in (_BOOKED, _OFF_TO))
    unplaced = None
    if not places:
        places, country = _held_in(rest, speaker)
    if not places and town and raw.islower():
        places, country, rest = _two_words(raw, rest)
    if not places and town:
        # "Home from Arran and Fiona MacLeod has slept": the one name before the speaker's
        raw = names[0] if len(names) == 1 else raw
        found = _town(raw, speaker) if raw[:1].isupper() else _lower_town(raw)
        places, unplaced = ([found], UNPLACED) if found else ([], None)
    if not places:
        return []
    clause = p.Clause(speaker, False, rest)
    fields = _fields(fact, rule, places, None, nights, clause, rest if after is None else after)
    fields["country"] = country
    if unplaced:
        fields["place_note"] = unplaced
    if weak:
        fields["_weak"] = True
    return [Sighting(NAME, fact.id, fields, f"{speaker}|{places[0].lower()}")]


def _two_words(raw: str, rest: str) -> tuple[list[str], str | None, str]:
    """A place in lower case of two words, the second after ``raw`` ("back from nam dinh",
    "hoi an"): the town of the gazetteer, its country and the words after it, else none."""
    from ...extract.places import lookup

    second = re.match(r"\s+([^\W\d_][^\W\d_'’-]+)\b", rest)
    if second is None or not second.group(1).islower():
        return [], None, rest
    place = lookup(f"{raw} {second.group(1)}".title(), towns=True)
    if place is None or place.kind == "country":
        return [], None, rest
    return [place.canonical or place.name], place.country, rest[second.end() :]


def _back_from(fact: "Fact") -> list[Sighting]:
    """ "Back from Oslo, two nights, and ...", "Home from Bergen, which was ...": the speaker's return,
    told without a subject."""
    if not fact.speaker or not re.match(r"(?i)(?:just\s+|finally\s+)?(?:back|home)\s+(?:from|fr|fae)\b", fact.text):
        return []
    text = p.plain_cached(fact.text, fact.session_date)
    back = _BACK_FROM.pattern.match(text[:1].lower() + text[1:])
    if back is None:
        return []
    rest = text[back.end() :]
    nights = re.match(rf"^,\s+{_NIGHTS}\b", rest)
    # a return is cue enough for a town the gazetteer does not hold ("Home from Arran and I have slept")
    return _sighted(
        fact,
        back.group("place"),
        _BACK_FROM,
        rest,
        nights=nights.group("nights") if nights else None,
        town=True,
    )


#: "work sends me to London, monday the 20th to thursday the 23rd", "they're sending me to Joburg in
#: June", "my boss sent me to Oslo": a trip someone else sends the speaker on, planned unless said in
#: the past ("sent")
_SENT = r"\b(?:(?P<ahead>sends|is\s+sending|are\s+sending|['’]re\s+sending|['’]s\s+sending|will\s+send|sending)|sent)\s+{me}\s+(?:off\s+|over\s+|up\s+|down\s+|out\s+)?to\s+"


def _sent(fact: "Fact") -> list[Sighting]:
    if not fact.speaker or fact.speaker not in fact.text or p.HEDGES.search(fact.text):
        return []
    text = p.plain_cached(fact.text, fact.session_date)
    match = re.search(_SENT.format(me=re.escape(fact.speaker)) + _PLACES, text)
    if match is None:
        return []
    status = "planned" if match.group("ahead") else "done"
    return _sighted(fact, match.group("place"), _Rule(re.compile(_SENT), status), text[match.end() :])


#: "my cousin's wedding in Leeds, driving up on the Friday": an occasion somewhere, and the journey to it ahead
_OCCASION_AHEAD = re.compile(
    rf"\b(?P<purpose>{_OCCASION})\s+in\s+(?P<place>{p.PLACES})[,;]?\s+(?:and\s+)?(?:(?:{p.CAPITALISED}(?:\s+and\s+others)?)\s+"
    rf"(?:is|are|am)\s+)?(?:flying|driving|heading|travell?ing|taking\s+the\s+train|getting\s+the\s+train)\b"
)


def _occasion_ahead(fact: "Fact") -> list[Sighting]:
    if not fact.speaker or fact.speaker not in fact.text or p.HEDGES.search(fact.text):
        return []
    text = p.plain_cached(fact.text, fact.session_date)
    match = _OCCASION_AHEAD.search(text)
    if match is None:
        return []
    rest = text[match.end() :]
    nights = re.search(rf"\bfor\s+{_NIGHTS}\b", rest)
    out = _sighted(
        fact,
        match.group("place"),
        _Rule(_OCCASION_AHEAD, "planned"),
        rest,
        nights=nights.group("nights") if nights else None,
    )
    for sighting in out:
        sighting.fields["purpose"] = sighting.fields.get("purpose") or match.group("purpose")
    return out


_NIGHTS_AFTER = re.compile(rf"^[^.;!?]*?,\s+{_NIGHTS}\b")

#: what a trip to a place the gazetteer does not hold says of it (``place_note``)
UNPLACED = "not in the gazetteer: named by a travel cue, country unknown"
#: verbs of travel that say a journey alone ("flew to", "took the train to"); "drove", "went",
#: "headed" also go to the shops, so they need a stay told after the place
_LONG_HAUL = re.compile(rf"(?:flew|sailed|jetted|(?:took|caught|got)\s+(?:a|the)\s+{_CARRIER})\b")
_STAY_AFTER = re.compile(
    # "went to Ericeira with Rui and Joana, one night in a surf house": who with, before the stay
    rf"^\s*(?:(?:with|w/?)\s+[\w’'-]+(?:(?:,\s+|\s+and\s+|\s+&\s+)[\w’'-]+){{0,3}})?\s*(?:,\s*)?(?:for\s+{_STAY}|,?\s*{_NIGHTS}\b|(?:for|over)\s+(?:the\s+)?(?:Easter|Christmas|New\s+Year|half[-\s]term|"
    rf"school\s+holidays|holidays|long\s+weekend)\b)"
)
#: words that make a name a venue, an organisation or a street, never a town
_VENUE = re.compile(
    r"\b(?:Hotel|Hostel|Inn|Lodge|Resort|Motel|Airbnb|Kitchen|Bar|Cafe|Café|Bistro|Grill|Restaurant|Pizzeria|Diner|"
    r"Brasserie|Trattoria|Taverna|Pub|Tei|House|Corp|Inc|Ltd|GmbH|AG|Group|Bank|University|Uni|College|School|Academy|"
    r"Hospital|Clinic|Airport|Station|Centre|Center|Office|HQ|Store|Shop|Mall|Market|Gym|Club|Stadium|Arena|Church|"
    r"Museum|Gallery|Studio|Street|St|Road|Rd|Lane|Avenue|Square|Park\s+Run)\b"
)
#: capitalised words after a travel verb that are no town: places of everyday life, shops and brands
_NOT_TOWNS = set(
    """work home school uni bed church town gym office hospital airport mum mom dad nan gran grandma grandpa
    ikea aldi lidl tesco costco bunnings target walmart kmart amazon apple google netflix spotify uber
    hilton marriott hyatt ritz sheraton novotel ibis travelodge radisson westin
    christmas easter summer winter spring autumn fall weekend""".split()
)


_A_NIGHT = re.compile(
    r"\b(?:\d+|one|two|three|a)\s+nights?\b|\b(?:overnight|hotel|airbnb|homestay|chalet|cabin|camping)\b", re.I
)


def _by_cue(rule: _Rule, match: "re.Match[str]", raw: str, clause: p.Clause, fact: "Fact") -> str | None:
    """A place the gazetteer does not hold (a small town, an island, a region: "Halls Gap",
    "Usedom", "the Harz") named by a strong cue of travel: a return, a stay told by its
    length, a flight or a train; "went to X", "drove to X" or "are going to X" only with a
    stay after it or dates that span days ("are going to Watamu on 15th to 17th August").
    The name is one or two or three capitalised words, no venue, organisation, month,
    person or common word; None otherwise."""
    if rule.cue == "verb":
        when = p.when(fact)
        # dates that span days, or a weekend with a night away told ("going Bukit Tinggi the weekend after
        # next, ..., 1 night only")
        days = when is not None and (
            when.precision == "range" or when.precision == "weekend" and _A_NIGHT.search(clause.rest[match.end() :])
        )
        if (
            not days
            and not _LONG_HAUL.search(match.group(0)[: match.start("place")])
            and not _STAY_AFTER.match(clause.rest[match.end() :])
        ):
            return None
    elif rule.cue != "strong":
        return None
    return _town(raw, clause.person)


def _lower_town(raw: str) -> str | None:
    """A town typed in lower case after a strong cue ("back from kalbarri"): one or two words,
    the last no word of the dictionary, none a month, a day or a place of everyday life."""
    from ...extract.words import is_common_word

    words = raw.split()
    if not 1 <= len(words) <= 2 or not all(re.fullmatch(r"[a-z][a-z'’-]+", w) for w in words):
        return None
    if any(w in _NOT_TOWNS or w in p.NOT_NAMES or w in p.MONTH_WORDS or w in p.WEEKDAY_WORDS for w in words):
        return None
    if is_common_word(words[-1]) or (len(words) == 2 and is_common_word(words[0]) and not _TOWN_WORD.match(words[0])):
        return None
    return " ".join(w[:1].upper() + w[1:] for w in words)


#: a first word a town's name may have in common with the dictionary ("port hedland", "lake tekapo")
_TOWN_WORD = re.compile(
    r"(?:port|lake|mount|mt|fort|cape|saint|st|san|santa|north|south|east|west|new|old|upper|lower)$"
)


def _town(raw: str, person: str | None) -> str | None:
    """``raw`` as the name of a town, an island or a region, or None (see :func:`_by_cue`)."""
    from ...extract.places import fold, is_common_word

    name = p.clean_name(raw, person)
    if name is None or re.search(r",|\band\b", name):
        return None
    bare = re.sub(r"^the\s+", "", name)
    words = bare.split()
    if not bare[:1].isupper() or len(words) > 3 or _VENUE.search(bare) or is_common_word(bare):
        return None
    if fold(bare) in _NOT_TOWNS or any(w.lower() in p.NOT_NAMES for w in words) or (bare.isupper() and len(bare) > 1):
        return None  # "back from Christmas", "flew to IKEA", "drove to Ana"
    if person and bare in person.split():
        return None
    return bare


def _anywhere(fact: "Fact") -> list[p.Clause]:
    """The speaker as a subject mid-sentence, before a verb of travel ("at Christmas Sam
    and others are going to Porto")."""
    if not fact.speaker or p.is_question(fact) or CUE.search(fact.text) is None:
        return []
    text = p.plain_cached(fact.text, fact.session_date)
    name = re.escape(fact.speaker)
    verbs = (
        r"(?:went|flew|drove|got\s+back|came\s+back|spent|visited|(?:is|are)\s+(?:going|flying|heading|driving|planning|leaving)"
        r"|(?:has|have)\s+(?:a|an)\s|leaves?\s+for)\b"
    )
    return [
        p.Clause(fact.speaker, bool(m.group(1)), text[m.end() :])
        for m in re.finditer(rf"(?<=[a-z]\s){name}(\s+and\s+others)?\s+(?={verbs})", text)
        if not _SUPPOSED.search(text[: m.start()])
    ]


def _no_subject(fact: "Fact") -> list[p.Clause]:
    """ "Doing a mini road trip this weekend, Cork to Dingle": a plan told without its subject, the speaker's."""
    if not fact.speaker or p.is_question(fact):
        return []
    body = p.without_said(p.plain_cached(fact.text, fact.session_date), fact.speaker)
    lead = _NO_SUBJECT.match(body)
    if lead is None:
        return []
    return [p.Clause(fact.speaker, False, "is " + body[lead.end() :][:1].lower() + body[lead.end() + 1 :])]


#: a sentence opening on the verb of a trip ahead, its subject left out
_NO_SUBJECT = re.compile(r"^(?:(?i:so|and|also|then|oh|ok)[,!]?\s+)?(?=(?i:doing|going|heading|driving|flying)\s)")


#: a clause supposed, not told: "If we went to Salalah instead we'd need five days", "unless Sam flew"
_SUPPOSED = re.compile(r"\b(?i:if|unless|whether|suppose|supposing|imagine|what\s+if|even\s+if)\s+$")


#: "Sam's packing list for Lisbon", "Sam is packing for Oslo": a trip ahead
_PACKING = re.compile(rf"\b(?:packing\s+(?:list\s+)?for|pack\s+for)\s+(?P<place>{p.NAME})")
#: "Five nights in kyoto and three in osaka": a report of nights spent, each place its own trip
_NIGHTS_IN = re.compile(
    # "seollal was 4 nights in daejeon": the time away, then its nights
    rf"^(?i:(?:we|and|so|then|just)\s+)?(?:(?i:the\s+)?[\w'’]+\s+(?i:was|were)\s+)?(?i:spent\s+)?(?P<n1>(?i:{p.NUMBER}))\s+nights?\s+(?P<at>in|on|at)\s+(?P<p1>{p.PLACES}|{p.LOWER_NAME})"
    rf"(?:(?:,\s+|,?\s+and\s+|,?\s+then\s+)(?P<n2>(?i:{p.NUMBER}))(?:\s+nights?)?\s+in\s+(?P<p2>{p.NAME}|{p.LOWER_NAME}))?"
)


#: where nights told later in a sentence start: after a comma, a semicolon or a colon
_NIGHTS_LATER = re.compile(rf"[,;:]\s+(?=(?i:{p.NUMBER})\s+nights?\s+(?:in|on|at)\s+)")


_NIGHTS_IN_LATER = re.compile(_NIGHTS_IN.pattern.removeprefix("^"))


def _packing(fact: "Fact") -> list[Sighting]:
    if not fact.speaker or "pack" not in fact.text or fact.speaker not in fact.text:
        return []
    text = p.plain_cached(fact.text, fact.session_date)
    match = _PACKING.search(text)
    if match is None:
        return []
    places, country = resolve_places([match.group("place")])
    if not places:
        return []
    clause = p.Clause(fact.speaker, False, text[match.end() :])
    fields = _fields(fact, _Rule(_PACKING, "planned"), places, None, None, clause, clause.rest)
    fields["country"] = country
    return [Sighting(NAME, fact.id, fields, f"{fact.speaker}|{places[0].lower()}")]


def _nights_in(fact: "Fact") -> list[Sighting]:
    if not fact.speaker or "night" not in fact.text:
        return []
    text = p.plain_cached(fact.text, fact.session_date)
    if text.startswith(f"{fact.speaker} said: "):
        text = text[len(f"{fact.speaker} said: ") :]
    elif text.startswith(f"{fact.speaker} and others "):
        text = text[len(f"{fact.speaker} and others ") :]
    match = _NIGHTS_IN.match(text)
    if match is None and re.match(rf"{re.escape(fact.speaker)}(?:\s+said:)?\s", fact.text) and tense(text) is False:
        # "Raya recap: drove down Thursday 19th, back Monday 23rd, 4 nights in Jasin": the nights told after a
        # comma of the speaker's own report in the past
        later = _NIGHTS_LATER.search(text)
        match = _NIGHTS_IN_LATER.match(text, later.end()) if later is not None else None
    if match is None or tense(text) is True or p.HEDGES.search(text):
        return []
    out = []
    for first, number, name in (
        (True, match.group("n1"), match.group("p1")),
        (False, match.group("n2"), match.group("p2")),
    ):
        if not name:
            continue
        places, country = resolve_places(p.split_names(name, fact.speaker))
        unplaced = None
        if not places and first and not (match.group("at") == "at" and name.startswith("the ")):
            # "three nights at Halls Gap": nights told are a stay, in a town the gazetteer may not hold
            town = _town(name, fact.speaker)
            if town is not None:
                places, unplaced = [town], UNPLACED
        if not places:
            continue
        clause = p.Clause(fact.speaker, False, text[match.end() :])
        fields = _fields(fact, _Rule(_NIGHTS_IN, "done"), places, None, number, clause, clause.rest)
        fields["country"] = country
        fields["place_note"] = unplaced
        out.append(Sighting(NAME, fact.id, fields, f"{fact.speaker}|{places[0].lower()}"))
    return out


_REVIEW = re.compile(
    rf"^(?:(?i:and|but|oh|also|btw|so|ok|anyway)[,!]?\s+)*(?:The\s+)?"
    # "christmas in sligo was lovely", "the week in Kerry was class": the time away, then its place
    rf"(?:(?i:christmas|xmas|easter|new\s+year|the\s+(?:weekend|week|trip|holiday|break|night|stay))\s+(?i:in|at|on)\s+)?"
    rf"(?P<place>{p.NAME}|{p.LOWER_NAME})(?:\s+(?:{_TRIP_WORD}|course|conference|training|hen|stag|wedding|weekend|thing))?\s+(?:was|were)\s+"
    r"(?:(?i:so+)\s+|really\s+|absolutely\s+|just\s+|truly\s+|actually\s+|honestly\s+|pretty\s+|properly\s+)?"
    r"(?:wonderful|amazing|great|beautiful|incredible|fantastic|awesome|lovely|fun|stunning|unforgettable|magical|relaxing|"
    r"brilliant|epic|class|sick|chaos|bliss|heaven|magic|grand|lekker|unreal|wild|mental|a\s+riot|a\s+laugh|a\s+triumph|peaceful|"
    r"perfect|breathtaking|gorgeous|nice|good|fine|ok|okay|busy|exhausting|hot|cold|rainy|crowded|expensive|"
    r"disappointing|terrible|a\s+blast|a\s+dream|the\s+best|humid|freezing|wet|windy|"
    # "jaipur was 6 nights, went 17th came back 23rd": the stay it was
    rf"(?i:{p.NUMBER})\s+nights?|"
    # "minneapolis was last weekend, home sunday, 2 nights": when it was, looked back on
    r"last\s+(?:weekend|week|month))\b"
)


#: "montreal w claire last weekend!!", "Lisbon with Ana this past week": a fragment that opens
#: with a place, who the speaker was with and a time gone by
_WITH_WHEN = re.compile(
    rf"^(?P<place>{p.NAME}|{p.LOWER_NAME})\s+(?:w/?|with)\s+[A-Za-z][\w’'-]*(?:\s+and\s+[A-Za-z][\w’'-]*)?\s+"
    r"(?i:last|this\s+past)\s+(?i:weekend|week|night|month|monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b"
)
#: "Nyc recap bc ...", "Lisbon debrief:": a recap of a place is told once back from it
_RECAP = re.compile(
    # "Thanksgiving in Fargo recap: ...": a holiday spent at a place, recapped
    rf"^(?:{_HOLIDAY}\s+(?:in|at)\s+)?(?P<place>{p.NAME}|{p.LOWER_NAME})(?:\s+{_TRIP_WORD})?\s+(?i:recap|debrief|report)\b"
)


#: names of a time of year, never a trip's place alone ("Spring break", "Summer hols"; "Spring, Texas" is one)
_SEASONS = {"spring", "summer", "autumn", "fall", "winter"} | {
    # and a holiday's name ("Raya recap": Hari Raya, not Raya in India)
    "raya",
    "eid",
    "diwali",
    "deepavali",
    "christmas",
    "xmas",
    "easter",
    "thanksgiving",
    "ramadan",
    "hanukkah",
    "songkran",
    "cny",
    "nye",
    "seollal",
    "chuseok",
    "bayram",
}


def resolve_places(names: list[str], *, towns: bool = False) -> tuple[list[str], str | None]:
    """The names that are places (by the gazetteer of :mod:`uac.extract.places`), a name
    qualified by the next one joined to it ("Paris", "Texas" -> "Paris, Texas"), and the
    country they share (None when they lie in several, or it is ambiguous).  ``towns``: a
    capitalised name may be a small town of :mod:`uac.extract.towns` too."""
    from ...extract.places import is_nickname, is_us_state, lookup, lookup_lower

    out: list[str] = []
    countries: list[str | None] = []
    index = 0
    while index < len(names):
        name = names[index]
        following = names[index + 1] if index + 1 < len(names) else None
        qualifier = lookup(following) if following else None
        if qualifier is not None and following is not None and (qualifier.kind != "city" or is_us_state(following)):
            place = lookup(name, following)
            if place is not None and ", " in place.name:
                out.append(f"{name}, {following}")
                countries.append(place.country)
                index += 2
                continue
        if name.lower() in _SEASONS:
            index += 1
            continue  # "Spring break is march 14-22": a time of year, not Spring, Texas
        lower = name[:1].islower() and not name.startswith("the ")
        place = lookup_lower(name, towns=towns) if lower else lookup(name, towns=towns)
        if place is not None:
            # "SWEDEN IS BOOKED": a name in capitals is the gazetteer's
            if name.isupper() and len(name) > 3:
                cased = lookup_lower(name.lower(), towns=towns)
                out.append(cased.name if cased is not None and not cased.name.isupper() else name.title())
            else:
                out.append(place.name if lower or is_nickname(name) else name)
            countries.append(place.country)
        index += 1
    known = {c for c in countries}
    return out, (known.pop() if len(known) == 1 else None)


#: "Maya said: got back from Savannah on Thursday." -- a report without its subject, the speaker's own
_BACK_FROM = _Rule(
    re.compile(
        rf"^(?:(?:just|finally|only)\s+)?(?:(?:got|came|flew|am|been|back)\s+)?(?:back|home)\s+(?:from|fr|fae)\s+{_PLACES}"
    ),
    "done",
    "end",
)
#: a greeting before a return told without a subject: "Kia ora from Brunswick, back from Wellington"
_GREETING = re.compile(
    r"(?i)^(?:hi|hey|hello|kia\s+ora|greetings|morning|evening|ok|okay|so|well|yay|phew|update)\b[^,.;!?]{0,30}[,!]\s+"
)
#: "Anyway Italy is BOOKED": a place booked is a trip planned
_BOOKED = _Rule(
    re.compile(
        rf"^(?:(?i:anyway|ok|okay|so|and|also|well|right)[,!]?\s+)*(?:(?i:the\s+)?(?i:flights?|tickets?|trains?|ferry)\s+(?i:to|for)\s+)?"
        rf"(?P<place>{p.NAME}|{p.LOWER_NAME})(?:\s+(?i:flights?|tickets?|trip|hotel))?\s+(?i:is|are)\s+(?:(?i:all|officially|finally|now)\s+)?(?i:booked)\b"
    ),
    "planned",
    "booked",
)
#: "Maya said: flying out to Oslo next week to see flats." -- a plan without its subject
_OFF_TO = _Rule(
    re.compile(
        rf"^(?:(?:so|and|then|also)\s+)?(?:flying|heading|driving|travell?ing|off|going|going\s+home|heading\s+home)\s+(?:(?:out|over|down|up|back)\s+)?to\s+{_PLACES}"
    ),
    "planned",
)


def _recap(fact: "Fact") -> list[Sighting]:
    """ "nyc recap bc i need to tell someone", "Lisbon debrief: ...": a sentence that opens with
    a recap of one place looks back on it; weak, like "Kyoto was wonderful", it only completes a
    plan of the speaker's, never makes a trip alone."""
    text = p.plain_cached(fact.text, fact.session_date)
    text = p.without_said(text, fact.speaker)
    match = _RECAP.match(text)
    if match is None:
        # "montreal w claire last weekend!!": a place, who with, a time gone by -- a report
        raw = p.without_said(fact.text, fact.speaker)
        match = _WITH_WHEN.match(raw[:1].lower() + raw[1:])  # the raw text: "last weekend" is its time
        if match is None or tense(raw) is not False or p.HEDGES.search(raw) or re.search(r"\bwould\b", raw):
            return []
        return _sighted(fact, match.group("place"), _Rule(_WITH_WHEN, "done"), text, after=text)
    # a recap is told of a place gone to: a small town of the table too ("kaş recap: PERFECT")
    if len(resolve_places(p.split_names(match.group("place"), fact.speaker), towns=True)[0]) != 1:
        return []
    return _sighted(
        fact, match.group("place"), _Rule(_RECAP, "done"), text[match.end() :], after="", weak=True, towns=True
    )


#: a label before the news of a sentence: "now DIWALI: ...", "update: ...", "Plans: ..."
_LABEL = p.LABEL


def _looking_back(fact: "Fact") -> list[Sighting]:
    """ "Kyoto was wonderful" (a sentence that names nobody, "Maya said: Kyoto was
    wonderful.") said by someone who planned to go there: the plan came true.  Weak: it only completes an existing plan, it never makes a trip alone."""
    text = p.plain_cached(fact.text, fact.session_date)[len(f"{fact.speaker} said: ") :]
    text = _LABEL.sub("", text)  # "now DIWALI: flying to jaipur on 17th": the news after its label
    greeting = _GREETING.match(text)
    if greeting is not None and _BACK_FROM.pattern.match(text[greeting.end() :].lower()):
        text = text[greeting.end() :]  # "Kia ora from Brunswick, back from Wellington since sunday"
    lowered = text[:1].lower() + text[1:]
    hedged = p.HEDGES.search(text) is not None
    for rule, said in ((_BOOKED, text), (_OFF_TO, lowered), (_BACK_FROM, lowered)):
        match = rule.pattern.match(said)
        doubted = hedged
        if rule is _BOOKED and match is not None:
            # "flights to Japan are booked!! ..., maybe Hakone": a hedge after the booking is of the rest
            doubted = p.HEDGES.search(re.split(r"[,.;!?]", said[match.end() :], maxsplit=1)[0]) is not None
        if match is not None and not (doubted and rule.status == "planned"):
            # a return is cue enough for a town the gazetteer does not hold ("back from coorg since sunday")
            found = _sighted(fact, match.group("place"), rule, text[match.end() :], town=rule is _BACK_FROM)
            if found:
                return found
    return _reviewed(fact, text, p.without_dates_written(fact.text)[len(f"{fact.speaker} said: ") :])


def _reviewed(fact: "Fact", text: str, dated: str) -> list[Sighting]:
    """ "Kyoto was wonderful", "christmas in sligo was lovely": a place looked back on (``text`` without
    its date phrases, ``dated`` with them: "minneapolis was last weekend, 2 nights")."""
    match = _REVIEW.match(text)
    if match is None:
        text = dated
        match = _REVIEW.match(text)
    if match is None:
        return []
    # a place the gazetteer does not hold ("Watamu was so relaxing") only completes a plan of it
    placed = len(resolve_places(p.split_names(match.group("place"), fact.speaker))[0]) == 1
    if not placed and _town(match.group("place"), fact.speaker) is None:
        return []
    stay = _NIGHTS_TOLD.search(text[match.end() :])
    # "Manila was ok btw, 3 nights": a place looked back on with the nights spent there is a stay told
    return _sighted(
        fact,
        match.group("place"),
        _Rule(_REVIEW, "done"),
        text[match.end() :],
        after="",
        nights=stay.group("nights") if stay else None,
        weak=stay is None or not placed,
        town=not placed,
    )


#: "..., so 4 nights", ", 3 nights,": the nights of a stay, told after a comma
_NIGHTS_TOLD = re.compile(rf",\s+(?:(?i:so|and|just|only)\s+)?(?P<nights>(?i:{p.NUMBER}))\s+(?:nights?|nts)\b")
#: "4 sleeps till Bali!!", "two weeks until Japan": a count of the days left before a trip
_COUNTDOWN = re.compile(
    rf"^(?P<n>(?i:{p.NUMBER}))\s+(?:(?i:more)\s+)?(?P<unit>(?i:sleeps|days|weeks))\s+(?i:till|until|til|to)\s+(?P<place>{p.NAME})(?=\s*(?:[,.;!]|$))"
)
#: "Perth trip wrapped.", "JKT wk over.": a trip told as over, with its place
_WRAPPED = re.compile(
    rf"^(?P<place>{p.NAME})\s+(?i:trip|wk|week|weekend|stint|leg)\s+(?i:wrapped|done|over|finished|complete)\b"
)


def _counted(fact: "Fact") -> list[Sighting]:
    """ "4 sleeps till Bali!!" (planned), "Perth trip wrapped." (done), "Melbs was so fun, ..., so 4
    nights" (done): a trip told by the time left before it, by its end or by the nights a place
    looked back on lasted, with a place of the gazetteer (a sentence of the speaker's)."""
    if not fact.speaker or p.is_question(fact):
        return []
    text = p.without_said(p.plain_cached(fact.text, fact.session_date), fact.speaker)
    ahead = _COUNTDOWN.match(text)
    if ahead is not None:
        found = _sighted(fact, ahead.group("place"), _Rule(_COUNTDOWN, "planned"), text[ahead.end() :])
        days = p.number(ahead.group("n"))
        if found and days is not None and fact.session_date is not None and not found[0].fields["_when"]:
            # "4 sleeps till Bali": the trip starts that many days (weeks) after it was said
            step = 7 if ahead.group("unit").lower().startswith("week") else 1
            start = Period.day(fact.session_date + _dt.timedelta(days=int(days) * step))
            found[0].fields.update(start=start, _when=start)
        return found
    if p.HEDGES.search(text):
        return []
    over = _WRAPPED.match(text)
    if over is not None:
        return _sighted(fact, over.group("place"), _Rule(_WRAPPED, "done"), text[over.end() :])
    review = _REVIEW.match(text)
    stay = _NIGHTS_TOLD.search(text[review.end() :]) if review is not None else None
    if review is None or stay is None:
        return []
    # "Melbs was so fun, it was Jess's 30th so we flew over ..., so 4 nights": a stay looked back on
    return _sighted(
        fact, review.group("place"), _Rule(_REVIEW, "done"), text[review.end() :], nights=stay.group("nights")
    )


#: "Calvin's upcoming trip to Boston", "Tim's trip to the UK", "John's Rocky Mountains trip"
_OWNED = re.compile(
    rf"\b(?P<owner>{p.CAPITALISED})['’]s\s+(?:(?P<adj>upcoming|next|planned|recent|last|first|solo|big|family|"
    rf"weekend|short|long|road|camping|business|work)\s+)*(?:(?P<named>{p.NAME})\s+)?{_TRIP_WORD}"
    rf"(?:\s+(?:to|in)\s+(?P<place>{p.PLACES}))?"
)
_TRIP_NOUN = re.compile(rf"['’]s\s+(?:\w+\s+){{0,4}}?{_TRIP_WORD}\b")
_FUTURE_CUES = re.compile(
    r"\b(?:upcoming|next|planned|will|can't\s+wait|looking\s+forward|excited\s+(?:about|for)|soon|plans?)\b", re.I
)
_PAST_CUES = re.compile(
    r"\b(?:was|were|took|had|went|got|came|snapped|enjoyed|loved|remember(?:s|ed)?|reminds?|back)\b", re.I
)


def _owned_trips(fact: "Fact") -> list[Sighting]:
    """A trip named as someone's ("Tim's trip to the UK last Friday"): done when the
    fact dates it before it was said or speaks of it in the past, planned when it
    says "upcoming" or speaks of the future; otherwise no sighting."""
    if _TRIP_NOUN.search(fact.text) is None:
        return []
    text = p.plain_cached(fact.text, fact.session_date)
    out: list[Sighting] = []
    for match in _OWNED.finditer(text):
        owner = match.group("owner")
        if owner.lower() in p.NOT_NAMES:
            continue
        raw = match.group("place") or match.group("named")
        places, country = resolve_places(p.split_names(raw, owner) if raw else [])
        if not places or (raw and _attributive(raw, text[match.end() :])):
            continue
        period = p.when(fact)
        if _FUTURE_CUES.search(text):
            status = "planned"
        elif (
            period is not None and fact.session_date is not None and period.end < fact.session_date
        ) or _PAST_CUES.search(text):
            status = "done"
        else:
            continue
        clause = p.Clause(owner, False, text[match.end() :])
        rule = _Rule(_OWNED, status)
        fields = _fields(fact, rule, places, None, None, clause, clause.rest)
        fields["country"] = country
        out.append(Sighting(NAME, fact.id, fields, f"{owner}|{places[0].lower()}"))
    return out


_FUNCTION_WORDS = set(
    """and or but with for to in on at from by of last next this that which who where when while after before
    again twice together alone too as so because since until during around near was were is are had has
    and then it""".split()
)


def _attributive(raw: str, after: str) -> bool:
    """ "the Ferrari dealership", "the Apple store": a name that only qualifies the noun
    after it is no destination."""
    word = re.match(r"\s*([a-z][\w-]*)", after)
    return raw.startswith("the ") and word is not None and word.group(1) not in _FUNCTION_WORDS


def _activity(activity: str | None) -> str:
    text = re.sub(r"^(?:on\s+)?(?:a\s+)?", "", (activity or "").strip())
    text = re.sub(r"^(camping|hiking|ski|backpacking)\s+trip$", r"\1", text)
    return " ".join(text.split())


def _ahead_of(start: Period, end: Period | None, said: _dt.date) -> tuple[Period | None, Period | None]:
    """A plan's dates, never all before the day it was said: a month or season gone by this year is
    next year's ("Thessaloniki in January" said on 28 December); any other date gone by is dropped."""
    if start.end >= said:
        return start, end
    if start.precision in ("month", "season"):
        return Period(_next_year(start.start), _next_year(start.end)), None
    return None, None


#: a trip taken may still be going on: its end this long after the day told stays as told
_IN_PROGRESS = _dt.timedelta(days=30)


def _behind(start: Period | None, end: Period | None, said: _dt.date) -> tuple[Period | None, Period | None]:
    """A trip taken is over by the last day it was told of (or goes on for some days more): dates well
    after it ("we came back on the 27th" said on 11 January, read as next December's) are last year's
    when that puts them before the day, else they are dropped (never a trip done months ahead)."""
    if all(day is None or day.end <= said + _IN_PROGRESS for day in (start, end)):
        return start, end  # over, or still going on ("in Lisbon till Sunday")
    back = [None if day is None else Period(_years_back(day.start), _years_back(day.end)) for day in (start, end)]
    if all(day is None or day.end <= said for day in back):
        return back[0], back[1]
    return None, None


def _years_back(day: _dt.date) -> _dt.date:
    try:
        return day.replace(year=day.year - 1)
    except ValueError:  # 29 February
        return day.replace(year=day.year - 1, day=28)


def _next_year(day: _dt.date) -> _dt.date:
    try:
        return day.replace(year=day.year + 1)
    except ValueError:  # 29 February
        return day.replace(year=day.year + 1, day=28)


def _fields(
    fact: "Fact", rule: _Rule, places: list[str], activity: str | None, nights: str | None, clause: p.Clause, after: str
) -> dict[str, Any]:
    period = p.when(fact)
    count = _nights(nights)
    if count is None and rule.status != "cancelled":
        # "flying to Lisbon on 14 May for four nights": the nights told after the date
        told = _FOR_NIGHTS.match(p.without_dates_written(after))
        count = _nights(told.group("n")) if told is not None else None
    start: Period | None = None
    end: Period | None = None
    if rule.status != "cancelled":
        if rule.dated == "booked":
            # "Baku flights are booked!! Sept 11 to 15": days ahead are the trip's, not the booking's
            if (
                period is not None
                and period.precision == "range"
                and fact.session_date
                and period.start > fact.session_date
            ):
                start = period
        elif rule.dated == "end":
            end = period
            if end is not None and end.is_day and count:
                start = Period.day(end.start - _dt.timedelta(days=count))
        else:
            start = period
            if start is not None and start.is_day and count:
                end = Period.day(start.start + _dt.timedelta(days=count))
            elif start is not None and start.is_day:
                end = _stay_until(fact.text, start.start)
    if rule.status == "planned" and start is not None and fact.session_date is not None:
        start, end = _ahead_of(start, end, fact.session_date)
    purpose = _purpose(after)
    if purpose is None and activity:
        purpose = _activity(activity)
    return {
        "person": clause.person,
        "destination": ", ".join(places) if len(places) > 2 else " and ".join(places) if places else None,
        "start": start,
        "end": end,
        "nights": count,
        "companions": p.companions(after, clause.person),
        "purpose": purpose,
        "status": rule.status,
        "_when": period if rule.dated != "booked" or start is not None else None,
    }


#: the nights of a stay told after its place and date: " on 14 May for four nights"
_FOR_NIGHTS = re.compile(rf"^[^,.;!?]{{0,40}}?\bfor\s+(?:(?:just|only|about)\s+)?(?P<n>{p.NUMBER})\s+nights?\b", re.I)
#: the last day of a stay told after its first: "on Monday ... and we're staying till Thursday (on 9 April
#: 2026)", "from the 3rd, back on the 7th"
_UNTIL = re.compile(
    r"\b(?:till|until|til|through|thru|back\s+on|back)\s+(?:the\s+)?(?:[\w'’]+\s+){0,2}?\((?:on)\s+(?P<when>[^()]+)\)",
    re.I,
)
#: a stay told this way lasts at most this long
_STAY_DAYS = 31


def _stay_until(text: str, first: _dt.date) -> Period | None:
    """The day a stay that began on ``first`` ends, told after "till" or "back" in ``text``."""
    from ...dates import read_period

    for match in _UNTIL.finditer(text):
        told = read_period(match.group("when"))
        if not isinstance(told, Period) or not told.is_day:
            continue
        day = told.start
        if day <= first and _WEEKDAY_NAMED.search(match.group(0)):
            # "next Saturday ..., staying till the Wednesday": the first Wednesday after the start
            day += _dt.timedelta(days=7 * ((first - day).days // 7 + 1))
        if first < day <= first + _dt.timedelta(days=_STAY_DAYS):
            return Period.day(day)
    return None


_WEEKDAY_NAMED = re.compile(r"\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b", re.I)


# -- assembling -------------------------------------------------------------------------------


@dataclass
class _Trip:
    key: str | None
    fields: dict[str, Any]
    sources: list[str] = field(default_factory=list)
    #: the session dates it was spoken of, first and last
    first_said: _dt.date | None = None
    last_said: _dt.date | None = None
    #: the period of the sighting that dated it (a plan's month, a done trip's day)
    when: Period | None = None
    #: a visit to family
    family: bool = False


_SLACK = _dt.timedelta(days=14)


def _near(a: Period | None, b: Period | None, slack: _dt.timedelta) -> bool | None:
    """Do two periods meet (within ``slack``)?  ``None`` when either is unknown."""
    if a is None or b is None:
        return None
    return a.start - slack <= b.end and b.start - slack <= a.end


def _inside(day: Period | None, period: Period | None) -> bool:
    return day is not None and period is not None and day in period


def _stay_of(fields: dict[str, Any], when: Period | None) -> Period | None:
    """The days a return tells: its end and the nights before it (a month where none are told),
    else the period that dated the sighting."""
    end, nights = fields.get("end"), fields.get("nights")
    if not isinstance(end, Period) or fields.get("start") is not None or fields.get("status") != "done":
        return when
    # a return with no nights told: a stay of up to a month before it ("back from Lagos since Monday")
    days = nights if isinstance(nights, int) and 0 < nights < 60 else _STAY_DAYS
    return Period(end.start - _dt.timedelta(days=days), end.end)


def _plan_matches(plan: _Trip, when: Period | None) -> bool:
    near = _near(plan.when, when, _SLACK)
    return True if near is None else near


def _same_done(trip: _Trip, when: Period | None, said: _dt.date | None) -> bool:
    near = _near(trip.when, when, _dt.timedelta(days=3))
    if near is not None:
        return near
    if said is None or trip.last_said is None:
        return False
    return abs((said - trip.last_said).days) <= 31


def _merge(trip: _Trip, fields: dict[str, Any], fact_id: str, said: _dt.date | None, *, override: bool) -> None:
    """Fold a sighting into ``trip``: its values win where ``override`` (the done report
    of a plan), else they fill gaps; companions are united.  A destination keeps the name
    it was first given when the new one is the same place ("Mexico City", then "CDMX")."""
    for name, value in fields.items():
        if name.startswith("_") or name == "status":
            continue
        if (
            name == "destination"
            and trip.fields.get(name)
            and value
            and _place_key(value) == _place_key(trip.fields[name])
        ):
            continue
        if name == "companions":
            trip.fields[name] = trip.fields[name] + [c for c in value if c not in trip.fields[name]]
        elif value is not None and (override or trip.fields.get(name) is None):
            trip.fields[name] = value
    if fields.get("_when") is not None and (override or trip.when is None):
        trip.when = fields["_when"]
    if fact_id not in trip.sources:
        trip.sources.append(fact_id)
    trip.last_said = said or trip.last_said


def _place_key(destination: str) -> str:
    """A destination as the gazetteer names it, folded ("CDMX" and "Mexico City" are one); a
    name it does not hold, without a trailing word of kind (:func:`.trip_plans.place_names`)."""
    from ...extract.places import fold, lookup
    from .trip_plans import place_names

    place = lookup(destination) if destination[:1].isupper() else None
    if place is None:
        return place_names(destination)[-1]  # "Arima Onsen", later "Arima": one place
    return fold(place.canonical or destination)


def _key(sighting: Sighting) -> str | None:
    destination = sighting.fields.get("destination")
    if sighting.key is None or not destination or " and " in destination or "," in destination:
        return sighting.key
    person = sighting.key.split("|", 1)[0]
    return f"{person}|{_place_key(destination)}"


#: how long an undated plan to a country waits for the report of a city in it (a season)
_PLAN_DAYS = 120


def _holding(
    trips: list[_Trip], key: str | None, fields: dict[str, Any], when: Period | None, said: _dt.date | None
) -> _Trip | None:
    """The person's trip to a country or region that holds this sighting's city, or to a city
    the sighting's country holds, told about the same time ("got back from Georgia", then
    "six nights in Tbilisi"): one trip, named by the city."""
    from ...extract.places import contains

    destination = fields.get("destination")
    if key is None or not destination or fields["status"] == "cancelled":
        return None
    person = key.split("|", 1)[0]
    for trip in reversed(trips):
        other = trip.fields.get("destination")
        if trip.key is None or not other or trip.key.split("|", 1)[0] != person or trip.fields["status"] == "cancelled":
            continue
        if fields["status"] == "planned" and trip.fields["status"] == "done":
            continue  # a plan is no part of a trip already taken
        if not (contains(other, destination) or contains(destination, other)):
            continue
        near = _near(trip.when, when, _SLACK)
        if near is None:
            # said within a month; an undated plan ("doing Namibia after Christmas"), within a season of a report
            days = _PLAN_DAYS if trip.fields["status"] == "planned" and trip.when is None else 31
            near = said is not None and trip.last_said is not None and abs((said - trip.last_said).days) <= days
        if near:
            return trip
    return None


def assemble(kind: Kind, sightings: list[Sighting], facts: dict[str, "Fact"]) -> list[Assembled]:
    trips: list[_Trip] = []
    for sighting, fact in p.in_order(sightings, facts):
        _take(trips, sighting, fact)
    _been_there(trips, facts)
    out = []
    for trip in trips:
        values = {k: v for k, v in trip.fields.items() if not k.startswith("_")}
        if values.get("status") == "done" and not values.get("presumed") and trip.last_said is not None:
            values["start"], values["end"] = _behind(values.get("start"), values.get("end"), trip.last_said)
        values["destination"] = _full_name(values.get("destination"))
        values["said_on"] = trip.first_said
        values["sources"] = list(trip.sources)
        out.append(Assembled(kind.name, values, list(trip.sources)))
    return out


@lru_cache(maxsize=1)
def _lower_nicknames() -> frozenset[str]:
    from ...extract.places import NICKNAMES

    return frozenset(n.lower() for n in NICKNAMES)


def _full_name(destination: Any) -> Any:
    """A destination said by its nickname, as the gazetteer names it ("vegas" -> "Las Vegas")."""
    from ...extract.places import NICKNAMES, lookup, lookup_lower

    if not isinstance(destination, str) or not destination:
        return destination
    if destination in NICKNAMES or destination.upper() in NICKNAMES or destination.lower() in _lower_nicknames():
        place = lookup(destination) or lookup_lower(destination.lower())
        if place is not None and place.name:
            return place.name
    return destination


def _take(trips: list[_Trip], sighting: Sighting, fact: "Fact") -> None:
    """One sighting, in the order said: it completes, repeats or cancels a trip already
    seen, or is a new one."""
    said = fact.session_date
    fields = dict(sighting.fields)
    status = fields["status"]
    when = fields.get("_when")
    if fields.get("_family_back"):
        _family_visit_done(trips, fields["person"], fact.id, said)
        return
    key = _key(sighting)
    same = [t for t in trips if t.key == key]
    if not same:
        same = _shortened(trips, key, fields.get("destination"))
        if same:  # the plan keeps its full name ("Schiermonnikoog", not "Schier") and its country
            fields = {k: v for k, v in fields.items() if k not in ("destination", "country", "place_note")}
    if not same and not fields.get("_weak") and _held(trips, key, fields, when, fact.id, said):
        return
    plans = [t for t in same if t.fields["status"] == "planned"]
    target = next((t for t in reversed(plans) if _plan_matches(t, _stay_of(fields, when))), None)
    if status == "cancelled":
        if target is not None:
            _merge(target, _undated(fields), fact.id, said, override=False)
            target.fields["status"] = "cancelled"
        elif not fields.get("_weak"):
            trips.append(_new(sighting, fields, said))
    elif status == "planned":
        if target is not None:
            _merge(target, fields, fact.id, said, override=True)
        else:
            trips.append(_new(sighting, fields, said))
    elif fields.get("_weak"):
        # "Kyoto was wonderful": completes a plan whose time has come, else nothing
        if target is not None and (target.when is None or said is None or target.when.start <= said):
            _merge(target, _undated(fields), fact.id, said, override=False)
            target.fields["status"] = "done"
    elif target is not None:
        _plan_came_true(target, fields, fact.id, said)
    else:
        _report(trips, sighting, same, fields, when, fact.id, said)


#: a place named shortened has at least this many letters ("Schier" for Schiermonnikoog)
MIN_SHORTENED = 5


def _shortened(trips: list[_Trip], key: str | None, destination: Any) -> list[_Trip]:
    """The one plan of the person whose place this name shortens ("Schier" for Schiermonnikoog,
    "Szklarska" for Szklarska Poręba, "Estes" for Estes Park), when the name is no place of the
    gazetteer itself; [] otherwise."""
    from ...extract.places import lookup

    if not key or "|" not in key or not isinstance(destination, str) or lookup(destination) is not None:
        return []
    person, name = key.split("|", 1)
    if len(name) < MIN_SHORTENED:
        return []
    longer = [
        t
        for t in trips
        if t.key and t.key != key and t.key.startswith(f"{person}|{name}") and t.fields["status"] == "planned"
    ]
    return longer if len(longer) == 1 else []


def _undated(fields: dict[str, Any]) -> dict[str, Any]:
    """The fields without their dates, for a sighting that must not re-date the trip it joins."""
    return {k: v for k, v in fields.items() if k not in ("start", "end")}


def _family_visit_done(trips: list[_Trip], person: str, fact_id: str, said: _dt.date | None) -> None:
    """ "Christmas at mum and dad's was lovely": the person's latest family visit planned, once its time has come"""
    target = next(
        (
            t
            for t in reversed(trips)
            if t.family
            and t.fields["status"] == "planned"
            and t.fields.get("person") == person
            and (t.when is None or said is None or t.when.start <= said)
            and (t.first_said is None or said is None or t.first_said < said)
        ),
        None,
    )
    if target is not None:
        target.fields["status"] = "done"
        target.sources.append(fact_id)
        target.last_said = said or target.last_said


def _held(
    trips: list[_Trip],
    key: str | None,
    fields: dict[str, Any],
    when: Period | None,
    fact_id: str,
    said: _dt.date | None,
) -> bool:
    """Whether the person's trip to a place holding this sighting's place, or held by it,
    takes the sighting in (see :func:`_holding`); the trip is then named by the city."""
    from ...extract.places import contains

    holder = _holding(trips, key, fields, when, said)
    if holder is None:
        return False
    status = fields["status"]
    city_first = contains(fields["destination"], holder.fields["destination"])
    named = {k: v for k, v in fields.items() if k not in ("destination", "country")}
    done = status == "done" or holder.fields["status"] == "done"
    _merge(holder, named, fact_id, said, override=status == "done" and holder.fields["status"] == "planned")
    if not city_first:
        holder.fields["destination"] = fields["destination"]
        holder.fields["country"] = fields.get("country") or holder.fields.get("country")
        holder.key = key
    if done:
        holder.fields["status"] = "done"
    return True


def _plan_came_true(target: _Trip, fields: dict[str, Any], fact_id: str, said: _dt.date | None) -> None:
    """The plan came true: one done trip, dated by the report of it; the plan's start
    stays only if the report gives none and its end falls in the plan, and the plan's dates
    stay whole when the report, said once they have begun, dates nothing ("Back from Tbilisi!!!")."""
    undated = fields.get("start") is None and fields.get("end") is None
    if undated and target.when is not None and said is not None and target.when.start <= said:
        _merge(target, fields, fact_id, said, override=True)
        target.fields["status"] = "done"
        return
    keep = fields.get("start") is None and _inside(fields.get("end"), target.when)
    target.fields["end"] = None
    if not keep:
        target.fields["start"] = None
        target.when = None
    _merge(target, fields, fact_id, said, override=True)
    target.fields["status"] = "done"


def _report(
    trips: list[_Trip],
    sighting: Sighting,
    same: list[_Trip],
    fields: dict[str, Any],
    when: Period | None,
    fact_id: str,
    said: _dt.date | None,
) -> None:
    """A done trip no plan foretold: another report of a done trip it matches, else a new trip."""
    done = [t for t in same if t.fields["status"] == "done"]
    target = next((t for t in reversed(done) if _same_done(t, when, said)), None)
    if target is not None:
        _merge(target, fields, fact_id, said, override=False)
    else:
        trips.append(_new(sighting, fields, said))


def _been_there(trips: list[_Trip], facts: dict[str, "Fact"]) -> None:
    """A dated plan whose time has come is done when its person later says it was taken
    (:mod:`.trip_plans`); nothing else makes a plan done without a report."""
    from .trip_plans import plans_done

    plans = [
        t
        for t in trips
        if t.fields["status"] == "planned"
        and t.fields.get("destination")
        and t.fields.get("person")
        and t.first_said is not None
    ]
    if plans:
        plans_done(plans, facts, _taken)
        _presume_passed(trips, plans, facts)


def _presume_passed(trips: list[_Trip], plans: list[_Trip], facts: dict[str, "Fact"]) -> None:
    """A plan still planned whose dates passed before the latest session is presumed done
    (:func:`.trip_plans.plan_over`), or folded into the undated report of its place said
    after it (one trip)."""
    from .trip_plans import REPORT_DAYS, last_day, plan_over

    as_of = max((f.session_date for f in facts.values() if f.session_date is not None), default=None)
    for plan in plans:
        if plan.fields["status"] != "planned" or not plan_over(plan.fields, plan.first_said, as_of):
            continue
        last = last_day(plan.fields)
        twin = next(
            (
                t
                for t in trips
                if t is not plan
                and t.key == plan.key
                and t.fields["status"] == "done"
                and (
                    _near(t.when, plan.when, _SLACK)
                    if t.when is not None
                    else t.first_said is not None
                    and last is not None
                    and plan.first_said is not None
                    and plan.first_said <= t.first_said <= last + _dt.timedelta(days=REPORT_DAYS)
                )
            ),
            None,
        )
        if twin is None:
            plan.fields["status"] = "done"
            plan.fields["presumed"] = True
            continue
        _merge(twin, plan.fields, plan.sources[0], plan.first_said, override=False)
        twin.sources.extend(s for s in plan.sources if s not in twin.sources)
        twin.first_said = min(d for d in (twin.first_said, plan.first_said) if d is not None)
        twin.last_said = max(d for d in (twin.last_said, plan.last_said) if d is not None)
        twin.when = twin.when or plan.when
        trips.remove(plan)


def _taken(trip: _Trip, fact: "Fact") -> None:
    trip.fields["status"] = "done"
    trip.sources.append(fact.id)
    trip.last_said = fact.session_date


def _new(sighting: Sighting, fields: dict[str, Any], said: _dt.date | None) -> _Trip:
    values = {k: v for k, v in fields.items() if not k.startswith("_")}
    values["companions"] = list(values.get("companions") or [])
    return _Trip(
        _key(sighting), values, [sighting.fact_id], said, said, fields.get("_when"), bool(fields.get("_family"))
    )


# -- the declaration ------------------------------------------------------------------------

STATUS_ENUM = p.enum_class("TripStatus", STATUSES, "Whether a trip was taken, is planned, or was called off.")
CLASS = p.record_class(
    "Trip",
    {
        "status": STATUS_ENUM,
        "destination": str,
        "country": str,
        "person": str,
        "start": Period,
        "end": Period,
        "nights": int,
        "companions": list[str],
        "purpose": str,
        "place_note": str,
        "presumed": bool,
    },
    "A trip someone took, plans or called off (offline rules): where (and its country, ISO code), when, with whom, why.",
)
DESCRIPTION = "Trips and travel: where someone went or plans to go, when, for how many nights, with whom and why."
