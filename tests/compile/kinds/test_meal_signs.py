"""Meals out told in no fixed shape: a venue tied into the sentence and the signs of a meal."""

from __future__ import annotations

import datetime as dt

import pytest

from uac.compile.kinds import meal_signs

from .conftest import facts_of, records_of


def _meals(*lines: str, speaker: str = "Kim") -> list[dict]:
    return records_of("meal", *lines, speaker=speaker, said_on=dt.date(2024, 5, 20))


@pytest.mark.parametrize(
    "line, place, amount",
    [
        # the venue heads the sentence, a time or a companion after it
        ("Marigold Room w Tash last night, the lamb shoulder, $64 for both of us", "Marigold Room", 64.0),
        ("btw Kettle & Fig on saturday for Ro's bday, the duck ragu!!", "Kettle & Fig", None),
        # someone takes people out, or pays
        ("the boss took the whole team to Vesuvio Grill and put it on the company card", "Vesuvio Grill", None),
        ("Nan insisted on Golden Wok the first night, 9 of us, wouldn't let me pay", "Golden Wok", None),
        # an occasion that is a meal, and where it was
        ("our end of year do was at Brindle House, the pork belly was unreal", "Brindle House", None),
        # a verdict on the venue with a dish and its price
        ("Smokestack was worth the queue, $19 for a brisket sandwich", "Smokestack", 19.0),
        ("highlights: Sora Izakaya in Shibuya, ¥3,200 for the best yakitori", "Sora Izakaya", None),
        # a venue after "the", a name that opens with an accented capital, a table paid for
        ("we did a late anniversary dinner at the Copper Stag, $92 for both of us", "Copper Stag", 92.0),
        ("on the Sunday Ian took all of us to Élan Bistro and paid for the whole table", "Élan Bistro", None),
        ("we went to Tashi Kitchen after and I had like two plates of dumplings, it was $35", "Tashi Kitchen", 35.0),
        # typed in lower case, after "the"; a bill shared out with its amount; a hedge of something else
        ("we took the weans to the wee bao house, £38 for the 4 of us", "Wee Bao House", 38.0),
        (
            "had her birthday at casa lucca, £72 for the 3 of us, rory threw a meatball so we're barred probably",
            "Casa Lucca",
            72.0,
        ),
        # typed in lower case
        ("me and jo went to pepe's cantina for dinner after, $48 my half", "Pepe's Cantina", 48.0),
        # the speaker takes someone, with a dish; a name in lower case ends before "the"
        ("took shell to santorini grill in northbridge last night, the souvlaki is unreal", "Santorini Grill", None),
        (
            "took him to finlays the last night, the seafood bbq place, $64 for the two of us, massive feed",
            "Finlays",
            64.0,
        ),
        # the best meal was somewhere
        (
            "best feed was kan eang at the pier in chalong, whole snapper + prawns, 2,100 baht for both of us",
            "Kan Eang",
            2100.0,
        ),
        ("The team took me for lunch on Monday at a small Swahili place near the office called Barka.", "Barka", None),
        (
            "On the Sunday Otieno, Akinyi and I went to Kosewe in town for fish and ugali, I paid, 3,400.",
            "Kosewe",
            None,
        ),
    ],
)
def test_a_venue_with_the_signs_of_a_meal_is_a_meal_out(line, place, amount):
    [meal] = _meals(line)
    assert meal["place"] == place
    if amount is not None:
        assert meal["amount"] == amount


@pytest.mark.parametrize(
    "line",
    [
        "bought a ramen bowl set at Muji for $30, for my half of the flat",  # a purchase, dish word and all
        "made a lamb curry at home for the two of us, the recipe from Ottolenghi",  # cooked at home
        "we'll try Marigold Room next week for dinner",  # a plan
        "would love to have dinner at Noma one day",  # a wish
        "should we do dinner at Marigold Room on friday?",  # a question
        "had breakfast at the Hilton, it came with the room",  # a hotel
        "lunch at Bondi Beach was a sandwich on the sand, $12",  # a place, not a venue
        "dinner with Priya at Lisbon was amazing",  # a city of the gazetteer
        "we went to Tokyo, the ramen, the sushi, 6 nights",  # a trip, not a meal out
        "Dinner w Tash and Ro on friday, $40 each",  # a meal word opening the sentence is no venue
    ],
)
def test_no_meal_out_without_both_a_venue_and_a_meal(line):
    assert [meal_signs.detect(f) for f in facts_of(line, speaker="Kim")] == [[]]


def test_the_venue_nearest_the_meal_is_the_one_eaten_at():
    [meal] = _meals("Last day at Brightwater Physio, then Jo and I went to Casa Pintada for a farewell dinner, $58")
    assert meal["place"] == "Casa Pintada"


def test_a_companion_is_no_venue_and_a_place_after_a_name_is_where_it_is():
    [meal] = _meals("Din Din Palace w Mo tonight at Holland Village, $30, the xiao long bao")
    assert meal["place"] == "Din Din Palace"
    assert _meals("Farewell dinner from the firm, Long Beach at Dempsey, chilli crab") == []


def test_signs_are_read_in_the_first_person_again():
    assert meal_signs._first_person("Kim and others split, $74 Kim's half, took Kim to", "Kim") == (
        "we split, $74 my half, took me to"
    )


@pytest.mark.parametrize(
    "line",
    [
        "dinner at Casa Pintada\u2028last night, $58 for both of us",  # a line separator inside
        "\u200fdinner at Casa Pintada last night, $58 for both of us",  # a right-to-left mark first
        "dinner at \x1b[31mCasa Pintada\x1b[0m, $58 \x00for both",  # escape and control characters
        "\u202eTokyo done!! 5 nights wasn't enough",  # a right-to-left override
        "back from kal\u2028barri, 5 nights \x1b[0m",  # a town after a return, broken by a separator
        "grabbed a \x00robot vacuum\u200f, $499 down from $899",  # a purchase with control characters
        "resigned from \u202ePersistent\u2028 today",  # an employer behind a right-to-left override
        "🍜🍜🍜",
    ],
)
def test_odd_characters_never_break_the_readers_of_signs(line):
    from uac.compile.kinds import job_signs, purchase_signs, trip_signs

    facts = facts_of(line, speaker="Kim")
    for fact in facts:
        meal_signs.detect(fact)
        purchase_signs.detect(fact)
        job_signs.described(fact)
    trip_signs.in_turns(facts, set())
    for kind in ("meal", "purchase", "job", "trip"):
        records_of(kind, line, speaker="Kim")


@pytest.mark.parametrize(
    "line, place, amount",
    [
        # an eatery called by its owner's name, with a bill paid: no one's home
        ("we went to Stella's in Bellevue on the 29th, him me and Maddie, burgers, $38 total", "Stella's", 38.0),
        # an eatery named after a place, and the town it is in
        ("Galentines was Friday, me Carla and Deb at La Mesa in Papillion, we split it so $30 each", "La Mesa", 30.0),
    ],
)
def test_a_venue_by_its_owner_or_after_a_place(line, place, amount):
    [meal] = _meals(line, speaker="Dana")
    assert (meal["place"], meal["amount"]) == (place, amount)


@pytest.mark.parametrize(
    "line",
    [
        "we went to Stella's on the 29th, him me and Maddie, so nice to see her place",  # a home, no bill
        "Soo-ah's bday was saturday, took her out, 180k for two",  # someone's birthday, no venue
        "we stopped at La Mesa on the way, burgers, $38 total",  # a place, with no town it lies in
    ],
)
def test_a_possessive_or_a_place_without_its_signs_is_no_venue(line):
    assert not any(m["place"] in ("Stella's", "La Mesa", "Soo-ah's") for m in _meals(line, speaker="Dana"))


@pytest.mark.parametrize(
    "line, place, amount",
    [
        # the venue's own name says it is an eatery, in a report
        (
            "We celebrated Friday at the Omaha Steakhouse, me and Maddie and Jen, $140 with tip.",
            "Omaha Steakhouse",
            140.0,
        ),
        # the eatery eaten by its name, cooking said not to have happened
        (
            "we had Runza last night because I didn't feel like cooking, 23 bucks for the two of us",
            "Runza",
            23.0,
        ),
    ],
)
def test_an_eatery_by_its_name_alone(line, place, amount):
    [meal] = _meals(line, speaker="Dana")
    assert (meal["place"], meal["amount"]) == (place, amount)


@pytest.mark.parametrize(
    "line",
    [
        "we had Covid last week, the whole house",
        "we had Pasta Night last night, cooked it myself, 12 bucks for the two of us",
    ],
)
def test_something_had_that_is_no_eatery(line):
    assert _meals(line, speaker="Dana") == []


def test_a_meal_at_a_place_described_then_named_in_lower_case():
    line = "on saturday we drove over to cunda, walked around, dinner at a fish place by the water called ada balık, 2.800 for both of us"
    assert [m["place"] for m in _meals(line, speaker="Emre")] == ["Ada Balık"]


@pytest.mark.parametrize(
    "line, place, speaker",
    [
        (
            "got home friday and saturday was aoife's birthday - dinner in Marseille on dominick street, 120 euro",
            "Marseille",
            "Seán",
        ),
        ("best meal was this bibimbap place called namwon-jip, 26k for both of us and i paid", "Namwon-Jip", "Ji-ho"),
        (
            "The best meal was at an Indian restaurant called Bombay on Linnégatan, 890 SEK for the three of us",
            "Bombay",
            "Ingrid",
        ),
    ],
)
def test_the_best_meal_called_by_its_name_and_a_meal_after_a_dash(line, place, speaker):
    assert [m["place"] for m in _meals(line, speaker=speaker)] == [place]


def _local_meals(*lines: str, speaker: str = "Sipho", currency: str | None = "ZAR") -> list[tuple]:
    from uac.compile.offline import _assemble

    _, assembled, _ = _assemble(facts_of(*lines, speaker=speaker, said_on=dt.date(2026, 2, 25)), currency)
    return [(a.fields["place"], a.fields["amount"], a.fields["currency"]) for a in assembled["meal"]]


@pytest.mark.parametrize(
    "line, expected",
    [
        # a bill for two in the signs of the user's money is a sign of a meal, beside the venue
        (
            "Saturday night we went to Ile Maurice to celebrate, R1 200 for two but the view eish worth it.",
            ("Ile Maurice", 1200.0, "ZAR"),
        ),
        (
            "the one night Thabo and I went to Kloof Street House like you said, R780 for the two of us and I claimed it back lol",
            ("Kloof Street House", 780.0, "ZAR"),
        ),
    ],
)
def test_a_bill_shared_in_local_signs_is_a_meal_out(line, expected):
    assert _local_meals(line) == [expected]


def test_a_local_price_alone_is_no_sign_of_a_meal():
    # a price and a venue, but no dish, no table and no bill shared: a purchase or a ticket as well
    assert _local_meals("Saturday we went to Gold Reef City, R450 and the rides were closed.") == []


def test_the_name_a_meal_was_had_in_and_a_name_after_the():
    found = _meals("Kirsty wore it all night, including in Fade Street Social, where we had dinner, €65 each.")
    assert [(m["place"], m["amount"]) for m in found] == [("Fade Street Social", 65.0)]
    found = _meals("We had fish and chips at the Bay on Saturday, £11 for a haddock supper.")
    assert [(m["place"], m["amount"]) for m in found] == [("Bay", 11.0)]
    # "the Italian restaurant" stays a description, and "dinner in Lisbon" names no venue
    found = _meals("We had dinner at the Italian restaurant on Saturday, £30.")
    assert [m["place"] for m in found] == ["the Italian restaurant"]
    assert _meals("dinner in Lisbon was lovely, $40.") == []


def test_a_meal_opening_a_clause_after_a_comma_names_its_eatery():
    line = (
        "we were in westport the weekend before last, dinner in the Clew Bay Bistro was 78 quid and we climbed nothing."
    )
    assert [(m["place"], m["amount"]) for m in _meals(line)] == [("Clew Bay Bistro", 78.0)]


@pytest.mark.parametrize(
    "line, place",
    [
        ("The girls and I were out in Market Lane on Friday, 42 euro each and half of that was wine.", "Market Lane"),
        ("The francesinha in Café Santiago nearly killed me, 31 euro for the two of us with beers.", "Café Santiago"),
    ],
)
def test_a_venue_after_in_where_a_meal_or_a_night_out_comes_just_before(line, place):
    assert [m["place"] for m in _meals(line)] == [place]


def test_a_neighbourhood_after_in_is_no_venue():
    assert _meals("Walked around Kazimierz all afternoon, 45 zł for two tickets to the museum and a coffee.") == []


@pytest.mark.parametrize(
    "line, place",
    [
        # a common word after "at", placed in a suburb the gazetteer lacks, with a bill shared
        (
            "oh and we did Naledi's birthday on Saturday at Marble in Rosebank, bill was £1,450 for the two of us.",
            "Marble",
        ),
        # a small town's name that is an eatery's: a dish and a bill shared, no journey
        (
            "Iain took me to Fishers on Friday night, £110 for the two of us with a bottle of wine, the scallops were incredible.",
            "Fishers",
        ),
        # an eatery done or found
        ("on Saturday we did Chaf Pozi in Soweto after the game, £350 for my share with drinks.", "Chaf Pozi"),
        ("Last Sunday we found Barbakan deli in Chorlton, brunch was £31 for us and the twins.", "Barbakan deli"),
        # someone's name with "'s" gone to for a dish; the dish, then where it came from
        (
            "after the interview I went to Gounden's for bunny chow, quarter mutton £95, best thing in months.",
            "Gounden's",
        ),
        (
            "Best food was suya from Glover Court in Ikoyi with my dad on Boxing Day, £125 for a mountain of it.",
            "Glover Court",
        ),
    ],
)
def test_a_meal_told_by_its_venue_and_its_bill(line, place):
    assert [m["place"] for m in records_of("meal", line)] == [place]


@pytest.mark.parametrize(
    "line",
    [
        "He took me to Paris for the weekend, €300 for the two of us with the wine.",
        "we tried Zumba on Tuesday, £10 each",
        "we did Rome in three days, €300 each for the hotel",
    ],
)
def test_a_town_a_class_or_a_city_done_is_no_meal(line):
    assert records_of("meal", line) == []
