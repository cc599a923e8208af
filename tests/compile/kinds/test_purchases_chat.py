"""Purchases as chats tell them: the thing named after "one", "of the ...", an item
named before the speaker bought it, a second item priced without its currency."""

from __future__ import annotations

import datetime as dt

import pytest

from uac.compile.kinds import detect, doubt

from .conftest import facts_of, records_of


def _bought(line: str) -> list[tuple]:
    return [
        (s.fields["item"], s.fields["amount"], s.fields["currency"])
        for f in facts_of(line)
        for s in detect(f)
        if s.kind == "purchase" and not doubt(s)
    ]


@pytest.mark.parametrize(
    "line, expected",
    [
        (
            "Forget it, I bought one already, the Barbour wax jacket, £210 in the end.",
            [("Barbour wax jacket", 210.0, "GBP")],
        ),
        ("I bought a small painting of the harbour at the market for €35.", [("small painting", 35.0, "EUR")]),
        ("I bought a pair of hiking boots for $140.", [("pair of hiking boots", 140.0, "USD")]),
        ("I have to send back the wool blanket I bought last week, £70, it itches.", [("wool blanket", 70.0, "GBP")]),
        (
            "Ordered a bookcase for £120 from Habitat and a side table for 45.",
            [("bookcase", 120.0, "GBP"), ("side table", 45.0, "GBP")],
        ),
    ],
)
def test_chat_purchases(line, expected):
    assert _bought(line) == expected


@pytest.mark.parametrize(
    "line",
    [
        "I looked at the lamp I almost bought, £90, no way.",
        "The cake my sister bought was huge.",
    ],
)
def test_no_chat_purchase(line):
    assert _bought(line) == []


@pytest.mark.parametrize(
    "line, expected",
    [
        ("I bought a wok instead, $38, because the old one warped.", [("wok", 38.0, "USD")]),
        (
            "Swam for an hour at the lido, got a new pair of goggles there for £12.",
            [("new pair of goggles", 12.0, "GBP")],
        ),
        ("I brought back a rug from Marrakesh, 900 dirhams, no regrets.", [("rug", 900.0, "AED")]),
        ("I returned the Bose earbuds I got in March, $199, the fit was awful.", [("Bose earbuds", 199.0, "USD")]),
        ("We paid 45 lari for the whole feast.", []),
    ],
)
def test_purchases_told_in_passing(line, expected):
    assert _bought(line) == expected


@pytest.mark.parametrize(
    "line",
    [
        "Tom climbed for an hour, got a new harness for $80.",
        "Maybe I'll swim at the lido, got a voucher for £12 somewhere.",
    ],
)
def test_no_purchase_going_on_from_someone_else_or_a_maybe(line):
    assert _bought(line) == []


def test_a_purchase_going_on_after_the_speakers_report():
    assert _bought("I ran the park loop twice, then got a new pair of socks for $15.") == [
        ("new pair of socks", 15.0, "USD")
    ]


@pytest.mark.parametrize(
    "line, expected",
    [
        # "one" is the thing needed, wanted or broken earlier in the sentence
        ("The kettle died, so I bought a new one at Kmart for forty euros.", [("kettle", 40.0, "EUR")]),
        (
            "We need a fridge because ours is the landlord's, so I got a second-hand one off Marketplace yesterday, £300.",
            [("second-hand fridge", 300.0, "GBP")],
        ),
        # the make named after the item
        (
            "My shoes are ancient so I ordered new ones yesterday, some Brooks, 119,90 € which hurt.",
            [("Brooks shoes", 119.9, "EUR")],
        ),
        (
            "I also bought a bike finally, a used Gazelle off Kleinanzeigen for 260 Euro.",
            [("used Gazelle bike", 260.0, "EUR")],
        ),
        # a subject after an opening word; the item before a relative clause or a relative date
        ("Also I bought a moka pot for €65 for my practice coffee.", [("moka pot", 65.0, "EUR")]),
        (
            "I finally caved and ordered the keyboard I've been staring at for a month, €89, brown switches.",
            [("keyboard", 89.0, "EUR")],
        ),
        ("I bought hiking poles the day before we left, 59,95 €, for the walks.", [("hiking poles", 59.95, "EUR")]),
    ],
)
def test_purchases_named_before_or_after_their_word(line, expected):
    assert _bought(line) == expected


def test_one_stays_one_when_the_sentence_names_nothing_before_it():
    assert _bought("I bought a new one for €30.") == [("new one", 30.0, "EUR")]


def _localised(*lines: str, currency: str | None = None, kind: str = "purchase", **said) -> list:
    """The sightings of ``kind`` in ``lines`` once their amounts are read against the user's currency
    (``said``: :func:`facts_of`'s options, ``said_on``)."""
    from uac.compile.kinds import localise

    facts = facts_of(*lines, **said)
    seen: dict[str, list] = {}
    for fact in facts:
        for sighting in detect(fact):
            seen.setdefault(sighting.kind, []).append(sighting)
    return localise(seen, facts, currency).get(kind, [])


def _currencies(*lines: str, currency: str | None = None) -> list[str]:
    return [s.fields["currency"] for s in _localised(*lines, currency=currency)]


def test_a_bare_dollar_is_the_users_own_dollar():
    # the country of the home the person told of, else the project's currency; never a pound user's
    assert _currencies("I moved to Melbourne last year.", "I bought a bike for $650.") == ["AUD"]
    assert _currencies("I bought a bike for $650.", "I moved to Toronto last year.") == ["CAD"]
    assert _currencies("I bought a bike for $650.", currency="NZD") == ["NZD"]
    assert _currencies("I moved to Melbourne last year.", "I bought a bike for 650 bucks.", currency="CAD") == ["CAD"]
    assert _currencies("I moved to Leeds last year.", "I bought a bike for $650.") == ["USD"]
    assert _currencies("I moved to Melbourne last year.", "I bought a bike for $650.", currency="GBP") == ["USD"]
    # the US dollar by name stays; no home, no setting: USD
    assert _currencies("I moved to Melbourne last year.", "I bought a bike for US$650.") == ["USD"]
    assert _currencies("I bought a bike for $650.") == ["USD"]


def test_who_writes_the_us_dollar_as_such_pays_in_the_other_dollar_they_name_most():
    # more US places than Canadian ones named, no home told: the "US$" elsewhere says "$" is CAD
    lines = (
        "Back from Seattle, two nights in Juneau and a day in Skagway.",
        "The tour in Ketchikan was US$85, worth it.",
        "Then I drove to Calgary for Fiona's birthday, and on to Edmonton.",
        "I bought a down parka for $340.",
    )
    assert _currencies(*lines) == ["CAD"]
    # without the US dollar written as such, the places alone do not say it
    assert _currencies(*lines[:1], *lines[2:]) == ["USD"]
    # nor with one place of another dollar only
    assert _currencies(*lines[:2], "Then I drove to Calgary for Fiona's birthday.", lines[3]) == ["USD"]


@pytest.mark.parametrize(
    "line, expected",
    [
        # a purchase told after a comma, its subject dropped, with a verb that only says buying
        ("Also it is FREEZING in Stellies, bought a heater, £1099 at Game.", [("heater", 1099.0, "GBP")]),
        # the report goes on after a colon
        (
            "And I treated myself: got a Garmin Forerunner 255 off a guy for £280, like new.",
            [("Garmin Forerunner 255", 280.0, "GBP")],
        ),
    ],
)
def test_a_purchase_told_after_a_comma_or_a_colon(line, expected):
    assert _bought(line) == expected


@pytest.mark.parametrize(
    "line",
    [
        "One guy, Tobi, bought a 3D printer for like 600 euros.",  # someone else's
        "So cold today, Ana bought a heater, £99.",
        "It is freezing and Tom is sulking, bought a heater, £99.",
        "It's freezing, might have bought a heater, £99.",
    ],
)
def test_no_purchase_after_a_comma_of_someone_else_or_hedged(line):
    assert _bought(line) == []


def _local(*lines: str, currency: str | None = None) -> list[tuple]:
    return [
        (s.fields["item"], s.fields["amount"], s.fields["currency"])
        for s in _localised(*lines, currency=currency)
        if not doubt(s)
    ]


def test_got_with_a_price_in_the_users_own_way_of_writing_it():
    line = "got a Garmin Forerunner 255 off a guy on Marketplace for R2 800, like new."
    assert _local(line, currency="ZAR") == [("Garmin Forerunner 255", 2800.0, "ZAR")]
    assert _local(line) == []  # no currency known to be the user's: "R2 800" is no amount
    assert _local("got a cat from a guy for R2D2 reasons", currency="ZAR") == []


@pytest.mark.parametrize(
    "line, expected",
    [
        (
            "I traded in the Civic and got a used Subaru Outback, 18,500, because it's the law here",
            [("used Subaru Outback", 18500.0, "AUD")],
        ),
        (
            "I got the Sony noise cancelling headphones because they were 379 on sale",
            [("Sony noise cancelling headphones", 379.0, "AUD")],
        ),
        ("I got a desk chair off Marketplace last week, 650, a proper office one.", [("desk chair", 650.0, "AUD")]),
    ],
)
def test_a_price_with_no_currency_is_in_the_users_own(line, expected):
    assert _local(line, currency="AUD") == expected
    # no currency known to be the user's: bought all the same, its amount unknown (never a number in no currency)
    assert _local(line) == [(expected[0][0], None, None)]


@pytest.mark.parametrize(
    "line",
    [
        "I got 2 coffees, 40 minutes later we left.",
        "I got a new bike, 2019 model, so happy.",
        "I got the train, 145, and then a bus.",
        "I got a cat, 12, she is old but sweet.",
    ],
)
def test_no_bare_price_from_a_count_a_year_or_a_journey(line):
    assert _local(line, currency="AUD") == []


@pytest.mark.parametrize(
    "line, expected",
    [
        # a gift: the thing, not whom it is for
        ("I got my brother a watch for £80.", [("watch", 80.0, "GBP")]),
        ("I bought Ana's mum a scarf for £20.", [("scarf", 20.0, "GBP")]),
        # a label before a colon, then the report without its subject
        ("Also christmas: got my mom a scarf at the Watershed for £20, she'll love it.", [("scarf", 20.0, "GBP")]),
    ],
)
def test_a_gift_and_a_labelled_report(line, expected):
    assert _bought(line) == expected


@pytest.mark.parametrize(
    "line",
    ["Update: got the job!", "News: Tom got a new car for £9000.", "Christmas: might get my mom a scarf for £20."],
)
def test_no_purchase_after_a_label_without_one(line):
    assert _bought(line) == []


def test_bucks_said_in_rand_are_rand():
    line = "got my mom a scarf for two hundred bucks"
    assert _local(line, currency="ZAR") == [("scarf", 200.0, "ZAR")]
    assert _local(line, currency="GBP") == [("scarf", 200.0, "USD")]  # a pound user's bucks stay dollars
    assert _local("got a scarf for 200 dollars", currency="ZAR") == [("scarf", 200.0, "USD")]


def test_a_report_after_chat_openers_and_a_bare_price_after_when():
    from .conftest import records_of

    [caps] = records_of("purchase", "oh also grabbed new steel caps, $189.95", speaker="Mick")
    assert (caps["item"], caps["amount"]) == ("new steel caps", 189.95)
    [desk] = records_of("purchase", "ok so finally ordered a standing desk, $340", speaker="Mick")
    assert (desk["item"], desk["amount"]) == ("standing desk", 340.0)


def _meal_costs(*lines: str, currency: str | None = None) -> list:
    return [(s.fields["amount"], s.fields["currency"]) for s in _localised(*lines, currency=currency, kind="meal")]


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "Akinyi and I had dinner at Mama Oliech on Friday, it came to 2.8k for both of us and I paid.",
            (2800.0, "KES"),
        ),
        ("We went to About Thyme on the Friday, the bill was 9,500 with the wine, my treat.", (9500.0, "KES")),
        ("We had lunch at Kosewe in town, I paid, 3,400.", (3400.0, "KES")),
        ("We had dinner at Kosewe, the wait was 40 minutes.", (None, None)),
    ],
)
def test_a_meals_cost_said_without_a_currency_is_in_the_users_own(line, expected):
    assert _meal_costs(line, currency="KES") == [expected]
    assert _meal_costs(line) == [(None, None)]  # no currency known to be the user's: no amount


def test_a_price_named_a_sentence_or_two_later_and_a_gift_bought_before_its_day():
    told = "ok dont tell anyone lol but i bought a ring. i'm gonna propose to marisol. the ring was $3,400, wow."
    assert _local(told) == [("ring", 3400.0, "USD")]
    assert _local("i bought a ring. we saw a film. the car was $3,400.") == []  # another thing's price
    said = dt.date(2025, 7, 30)
    line = "sunny's bday is aug 8 and i got him a weber kettle, $159, he's been grilling for years."
    [gift] = _localised(line, said_on=said)
    assert (gift.fields["item"], gift.fields["amount"], gift.fields["when"]) == ("weber kettle", 159.0, None)
    assert _local("i already bought a suit at nordstrom rack yesterday for 240 but idk", currency="USD") == [
        ("suit", 240.0, "USD")
    ]


def test_had_to_buy_after_an_opening_phrase_of_time():
    line = "In my first week at the new job I had to buy a standing fan from Naivas, 4,800, and it is a lifesaver."
    assert _local(line, currency="KES") == [("standing fan", 4800.0, "KES")]
    assert _local("also i had to buy chef coats bc mine are all stained, 3 for $89.97") == [
        ("chef coats", 89.97, "USD")
    ]
    assert _local("I want to buy a standing fan, 4,800.", currency="KES") == []


def test_a_price_in_no_currency_is_in_the_one_the_user_writes_most():
    lines = (
        "Also finally replaced my shoes, 289 dhs, from Deira City Centre.",
        "I bought a Samsung A35 for my brother, AED 1,099 from Sharaf DG.",
        "Bought a stethoscope, 420 dirhams.",
        "I bought a padded jacket at Decathlon, 199, is that enough??",
    )
    assert _local(*lines)[-1] == ("padded jacket", 199.0, "AED")
    # two amounts are too few to tell: the bare price stays unknown
    assert _local(*lines[1:])[-1] == ("padded jacket", None, None)


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (
            "shopping done this week — got the lehenga from a jaipur label on insta for 38k.",
            ("lehenga", 38000.0, "INR"),
        ),
        (
            "also treated myself to a keychron keyboard after the race, 9,200, typing on it now",
            ("keychron keyboard", 9200.0, "INR"),
        ),
        ("gifted myself the sony XM5s, 26,990.", ("sony XM5s", 26990.0, "INR")),
        (
            "dhanteras shopping with mummy — got her a gold chain, nearly 2 lakh, papa almost fainted",
            ("gold chain", 200000.0, "INR"),
        ),
    ],
)
def test_things_bought_after_a_dash_or_as_a_treat(line, expected):
    assert _local(line, currency="INR") == [expected]


def test_a_price_said_again_in_another_money_is_no_second_thing():
    line = "I brought back six old azulejo tiles from a little shop near the Sé, 85 euros, so like 136$, lovely."
    assert [item for item, _, _ in _local(line, currency="CAD")] == ["six old azulejo tiles"]


@pytest.mark.parametrize(
    "line, item, amount",
    [
        ("also bought an air fryer 79k on coupang, last night made mandu", "air fryer", 79000.0),
        ("ordered a mattress online for the busan place, 420k, should arrive the same day.", "mattress", 420000.0),
    ],
)
def test_a_price_in_thousands_with_no_currency_needs_no_comma(line, item, amount):
    [bought] = records_of("purchase", line)
    assert (bought["item"], bought["amount"]) == (item, amount)


def test_a_second_thing_priced_like_the_first_after_and():
    found = records_of("purchase", "got the lehenga from a jaipur label on insta for 38k and matching juttis 2,200.")
    assert [(b["item"], b["amount"]) for b in found] == [("lehenga", 38000.0), ("matching juttis", 2200.0)]
    found = records_of("purchase", "this weekend got brody a marucci bat for $299 and addie new adidas cleats for 85.")
    assert [(b["item"], b["amount"]) for b in found] == [("marucci bat", 299.0), ("new adidas cleats", 85.0)]
    found = records_of("purchase", "I bought a couch for £850 and 2 kids 5 years old were there.")
    assert [b["item"] for b in found] == ["couch"]


@pytest.mark.parametrize(
    "line, expected",
    [
        ("ALSO bought a desk lamp for £45, finally.", [("desk lamp", 45.0, "GBP")]),
        # the speaker's share told before its number
        ("Hani and I bought Mum a washing machine for £1,700, my half 850.", [("washing machine", 850.0, "GBP")]),
        ("bought a couch for $900, my share was 450", [("couch", 450.0, "USD")]),
        # someone else's share is not the speaker's amount
        ("bought a couch for $900, Ana's share was 450", [("couch", 900.0, "USD")]),
    ],
)
def test_an_adverb_in_capitals_and_the_speakers_share_told_first(line, expected):
    assert _bought(line) == expected


def test_got_with_a_price_signed_the_users_way_before_the_number():
    line = "also got new glasses, RM450 at the optical shop on Burma Road."
    assert _local(line, currency="MYR") == [("new glasses", 450.0, "MYR")]
    assert _local(line, currency="GBP") == []  # "RM" is no sign of the user's money: no amount to tell
    assert _local("Hani and I bought Mak a new Samsung washing machine, RM1,700, my half 850.", currency="MYR") == [
        ("new Samsung washing machine", 850.0, "MYR")
    ]


@pytest.mark.parametrize(
    "line, expected",
    [
        # thousands set apart by a space, the price after when and where, with no "for"
        (
            "also I just got new cycling shoes on Saturday R1 899 at Cycle Lab so those are staying home",
            [("new cycling shoes", 1899.0, "ZAR")],
        ),
        ("I got my suit yesterday at Markham, R3 500 which is more than I wanted", [("suit", 3500.0, "ZAR")]),
        ("got a cooler box at Builders for the drive, R1 100.", [("cooler box", 1100.0, "ZAR")]),
        # two things, each with its own price
        (
            "the place still looks empty but I got a couch from Coricraft R8 999 and a fridge from Game R7 499 so at least I can sit",
            [("couch", 8999.0, "ZAR"), ("fridge", 7499.0, "ZAR")],
        ),
    ],
)
def test_got_with_a_local_price_set_apart_by_spaces(line, expected):
    assert _local(line, currency="ZAR") == expected
    assert _local(line) == []  # "R1 899" is the rand's way of writing only where the user's money is


def test_a_number_set_apart_by_spaces_is_no_price_without_a_sign():
    # "got 2 600 ..." names no money: spaces group thousands only after a sign in letters
    assert _local("got new tyres at the garage, 2 600 km ago", currency="ZAR") == []


def test_a_price_in_no_currency_after_where_and_when_and_a_thing_named_after_its_price():
    line = "also we bought a sofa for the new place, Harvey Norman on Saturday, 1,249 — so 1.2k near enough — delivered later."
    assert _local(line, currency="EUR") == [("sofa", 1249.0, "EUR")]
    line = "Got him a new one in Maxi Zoo yesterday, 65 euro for a dog bed, the cheek of it."
    assert _local(line, currency="EUR") == [("dog bed", 65.0, "EUR")]
    # a distance is no price
    assert _local("I bought a bike, a Trek, then rode 120 km on it.", currency="EUR") == [("Trek bike", None, None)]


@pytest.mark.parametrize(
    "line, expected",
    [
        # a new thing with its price and no verb, and the next thing of the same list
        (
            "Also a new mattress, £349, because I am not sleeping on the old one, and a kettle and toaster "
            "from Argos for 40 quid.",
            [("mattress", 349.0, "GBP"), ("kettle and toaster", 40.0, "GBP")],
        ),
        ("my new running shoes from Decathlon, £60, are great", [("running shoes", 60.0, "GBP")]),
        # the thing named before the speaker's verb, a time after it
        (
            "I gave her gold earrings I picked up the week before from a jeweller in Hatton Garden, £180.",
            [("gold earrings", 180.0, "GBP")],
        ),
    ],
)
def test_things_bought_told_without_a_verb_before_them(line, expected):
    assert _bought(line) == expected


@pytest.mark.parametrize(
    "line",
    [
        "My new flat, £1,200 a month, is tiny.",
        "Tom's new bike, £900, is mad.",
        "a new job, £45k, and a long commute",
        "The new menu, £35 a head, is too much.",
    ],
)
def test_a_new_thing_priced_is_no_purchase_when_it_is_a_rate_a_job_or_someone_elses(line):
    assert _bought(line) == []


def test_a_pound_is_the_users_own_where_their_land_calls_its_money_so():
    # "pounds" in Cairo are Egyptian; Egypt's own signs ("LE 300", "E£120", "1,200 egp") are read there
    assert _local("We moved to Cairo last year.", "I bought a new kettle yesterday for 850 pounds.") == [
        ("new kettle", 850.0, "EGP")
    ]
    assert _local("We moved to Cairo last year.", "Got a desk lamp for LE 300.") == [("desk lamp", 300.0, "EGP")]
    assert _local("I bought a new kettle for 850 pounds.", currency="EGP") == [("new kettle", 850.0, "EGP")]
    # a Londoner's pounds, and a pound sign in Cairo, stay sterling
    assert _local("We moved to London last year.", "I bought a new kettle for 85 pounds.") == [
        ("new kettle", 85.0, "GBP")
    ]
    assert _local("We moved to Cairo last year.", "I bought a kettle at Heathrow for £40.") == [("kettle", 40.0, "GBP")]


def test_a_country_named_far_more_often_than_any_other_is_home_when_none_is_told():
    lines = (
        "Traffic in Cairo was mad today.",
        "We drove from Cairo to Alexandria for the weekend.",
        "My cousin in Giza says hi.",
        "Alexandria was windy.",
        "Back in Cairo now.",
        "Work sent me to Paris in May, to Rome in June, to Lisbon in July,",
        "then to Vienna, to Madrid, to Berlin, to Prague and to Athens.",
        "I bought a new kettle yesterday for 850 pounds.",
    )
    assert _local(*lines) == [("new kettle", 850.0, "EGP")]
