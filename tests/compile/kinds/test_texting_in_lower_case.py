"""Meals, purchases and jobs told the way people text: names in lower case made of common words,
"got" for buying, bare prices, CV lines and past jobs told with their years."""

from __future__ import annotations

import datetime as dt

import pytest

from uac.dates import Period

from .conftest import records_of


def _meals(line: str) -> list[tuple[str, float | None]]:
    return [(r["place"], r["amount"]) for r in records_of("meal", line, speaker="Kim", said_on=dt.date(2026, 3, 15))]


@pytest.mark.parametrize(
    "line, found",
    [
        # common words that name an eatery: an eatery's word last, or a bill shared out
        (
            "had lunch with him at the crab shack thurs, $75, he reckons he can throw me heaps of work",
            ("Crab Shack", 75.0),
        ),
        (
            "best feed was hurricanes grill in surfers on the friday, ribs, $210 aussie for the 3 of us",
            ("Hurricanes Grill", 210.0),
        ),
        ("took mama and everybody to big bad breakfast saturday, $64 for all four of us", ("Big Bad Breakfast", 64.0)),
        (
            "and we did biscuit head saturday morning, 34 for both of us, that boy ate a biscuit bigger than his head",
            ("Biscuit Head", None),
        ),
        # an eatery at the head of the sentence, typed in lower case, with its verdict
        (
            "olde pink house saturday night was everything, the crispy flounder, $96 for both of us",
            ("Olde Pink House", 96.0),
        ),
        ("thalassa NYE dinner was insane, our share for me and arjun came to 4.5k", ("Thalassa", None)),
        ("The Kitchin was extraordinary: £210 for the two of us with a bottle", ("Kitchin", 210.0)),
        # "brekkie", "did brunch", a possessive eatery done
        (
            "we had brekkie at copper kitchen at the mount before the viewings, $62 for the 3 of us",
            ("Copper Kitchen", 62.0),
        ),
        (
            "chloe and i did brunch at higher ground this morning, my share was A$31 for a ricotta hotcake",
            ("Higher Ground", 31.0),
        ),
        (
            "we did hattie b's saturday for lunch, medium for me, $24 w my drink and banana pudding",
            ("Hattie B's", 24.0),
        ),
        # someone else's wish later in the sentence is no plan of this meal
        (
            "had our team lunch at meghana foods yesterday, i paid since i'm the lead, and now half the team wants to do it every month",
            ("Meghana Foods", None),
        ),
    ],
)
def test_an_eatery_named_in_lower_case_of_common_words(line, found):
    assert _meals(line) == [found]


@pytest.mark.parametrize(
    "line",
    [
        "I looked at business class for about 30 seconds, $9,000 each, and closed the tab",
        "I'd rather be here with Callum at tea time, it's 40 each way on the train",
        "the food was amazing, 40 for both of us",
        "Lisbon for lunch on saturday was great.",
        "we're doing lunch at the crab shack next week, $75 for both of us",
    ],
)
def test_no_meal_from_words_that_name_no_eatery_had(line):
    assert _meals(line) == []


def test_a_verdict_never_names_the_words_after_to():
    assert _meals("The Kitchin was extraordinary: £210 for the two of us, which I've decided not to think about") == [
        ("Kitchin", 210.0)
    ]


def test_brekkie_is_breakfast():
    [meal] = records_of("meal", "we had brekkie at copper kitchen, $62 for the 3 of us", speaker="Kim")
    assert meal["meal"] == "breakfast"


def _bought(line: str) -> list[tuple[str, float | None]]:
    records = records_of("purchase", line, speaker="Kim", said_on=dt.date(2025, 9, 8))
    return [(r["item"], r["amount"]) for r in records]


@pytest.mark.parametrize(
    "line, found",
    [
        ("also random but i finally broke down and got new hokas yesterday, 140 bucks which hurt", [("hokas", 140.0)]),
        ("and got new blunnies today, 260 bucks, the old ones had holes in em", [("new blunnies", 260.0)]),
        # "got" with whom it is for: the thing right after, not the shop named after it
        ("i did get him a bike saturday tho, dicks sporting goods, $189, a 24 inch one", [("bike", 189.0)]),
        # the thing after a colon
        (
            "I've got him a present already: a framed old OS map of Strathglass, £60 off a woman on Etsy",
            [("framed old OS map of Strathglass", 60.0)],
        ),
    ],
)
def test_got_with_a_new_thing_a_shop_or_whom_it_is_for_is_a_purchase(line, found):
    assert _bought(line) == found


@pytest.mark.parametrize(
    "line",
    [
        "got a parking ticket at the mall, $80",
        "got a new job at Acme, $90k",
        "got a lift from dad, $20 for petrol",
        "got two quotes from builders, $5k and $7k",
        "got a flat tyre on monday, $150 to fix",
        "got a cold on monday, took 3 days off",
    ],
)
def test_got_that_buys_nothing(line):
    assert _bought(line) == []


def test_bare_prices_after_for_are_read_in_the_users_money():
    from uac.compile.offline import _assemble

    from .conftest import facts_of

    line = "already sorted the big stuff, got a new chilly bin for 120 and a gazebo for 189 at mitre 10 yesterday."
    _, assembled, _ = _assemble(facts_of(line, speaker="Wiremu", said_on=dt.date(2025, 11, 30)), "NZD")
    found = [(a.fields["item"], a.fields["amount"], a.fields["currency"]) for a in assembled["purchase"]]
    assert found == [("chilly bin", 120.0, "NZD"), ("gazebo", 189.0, "NZD")]


def _jobs(*lines: str) -> list[dict]:
    return records_of("job", *lines, speaker="Mei", said_on=dt.date(2026, 8, 18))


def test_the_lines_of_a_cv_are_jobs_with_their_spans():
    message = (
        "ok here's my cv bit, can u tidy it:\n- HMO2, royal melbourne hospital, feb 2026 - now.\n"
        "- house officer, tan tock seng hospital singapore, may 2025 - jan 2026\n"
        "- research assistant, singapore eye research institute, 2019 - 2020."
    )
    found = [(j["employer"], j["role"], j["start"], j["end"], j["current"]) for j in _jobs(message)]
    assert found == [
        ("Royal Melbourne Hospital", "HMO2", Period("2026-02"), None, True),
        ("Tan Tock Seng Hospital", "house officer", Period("2025-05"), Period("2026-01"), False),
        ("Singapore Eye Research Institute", "research assistant", Period("2019"), Period("2020"), False),
    ]


@pytest.mark.parametrize(
    "line",
    [
        "- my sister, her flat in leeds, 2019 - 2020",  # no title
        "- HMO2, melbourne, feb 2026 - now",  # a town, no employer
        "- house officer, tan tock seng hospital, jan 2026 - may 2025",  # ends before it starts
    ],
)
def test_no_job_from_a_line_that_is_no_cv_line(line):
    assert _jobs(line) == []


@pytest.mark.parametrize(
    "line, employer, role, start, end",
    [
        (
            "back when i was a yard hand at carters in te rapa i could do this in my head, 5 yrs on the yard from 2005 to 2010",
            "Carters",
            "yard hand",
            Period("2005"),
            Period("2010"),
        ),
        (
            "back at wipro when i was a senior test engineer we had the same mess with selenium",
            "Wipro",
            "senior test engineer",
            None,
            None,
        ),
        (
            "i want to do 1:1s properly, at wipro (2016 to 2021) i never once had a manager who did them",
            "Wipro",
            None,
            Period("2016"),
            Period("2021"),
        ),
    ],
)
def test_a_past_job_told_with_its_title_or_its_years(line, employer, role, start, end):
    [job] = _jobs(line)
    assert (job["employer"], job["role"], job["start"], job["end"], job["current"]) == (
        employer,
        role,
        start,
        end,
        False,
    )


@pytest.mark.parametrize(
    "line",
    [
        "when i was a kid at school we did this",
        "when my dad was a teacher at Eton he hated it",
        "back when Tom was a nurse at Grady",
    ],
)
def test_no_past_job_of_a_child_or_of_someone_else(line):
    assert _jobs(line) == []


@pytest.mark.parametrize(
    "line, employer",
    [
        ("been at kahu construction 9 yrs now and that kit did most of it lol", "Kahu Construction"),
        # a doubt in a clause of its own is about something else
        (
            "i've been at kahu 9 yrs as foreman and i'm comfy but honestly been thinking about going out on my own",
            "Kahu",
        ),
    ],
)
def test_a_firm_in_lower_case_held_for_years(line, employer):
    assert [(j["employer"], j["current"]) for j in _jobs(line)] == [(employer, True)]


def test_a_doubt_in_the_same_clause_still_holds_the_job_back():
    assert _jobs("maybe i'll join the firm in march") == []


def _view(*lines: str, said_on: dt.date, currency: str | None = None) -> dict[str, list[dict]]:
    """The records of every kind the offline view assembles from ``lines``, told in one session."""
    from uac.compile.offline import _assemble

    from .conftest import facts_of

    _, assembled, _ = _assemble(facts_of(*lines, speaker="Sam", said_on=said_on), currency)
    return {kind: [a.fields for a in found] for kind, found in assembled.items()}


def test_a_weekday_told_after_a_trip_reported_is_a_day_of_that_trip():
    view = _view(
        "We got back from Amsterdam last Friday (three nights for half-term, flew out of Bristol on the Tuesday).",
        "We had a rijsttafel at Blauw on the Wednesday night which came to €96, and Sam ate his own weight in satay.",
        said_on=dt.date(2026, 2, 26),
    )
    assert [(m["place"], m["when"]) for m in view["meal"]] == [("Blauw", Period("2026-02-18"))]


def test_a_weekday_with_no_trip_before_it_keeps_its_day():
    view = _view(
        "We had a rijsttafel at Blauw on the Wednesday night which came to €96, and Sam ate his own weight in satay.",
        said_on=dt.date(2026, 2, 26),
    )
    assert [(m["place"], m["when"]) for m in view["meal"]] == [("Blauw", Period("2026-02-25"))]


@pytest.mark.parametrize(
    "line, found",
    [
        # the news before its subject, a companion after the place called off
        ("also sad news i had to cancel miami w monique", ("Miami", "cancelled")),
        ("unfortunately we cancelled Rome", ("Rome", "cancelled")),
    ],
)
def test_a_trip_called_off_after_news_told_first(line, found):
    view = _view("we booked Miami and Rome for the 20th to the 23rd of feb", line, said_on=dt.date(2026, 1, 22))
    assert found in [(t["destination"], t["status"]) for t in view["trip"]]


@pytest.mark.parametrize(
    "line, found",
    [
        ("already got a jacket at kantamanto yesterday, 250 cedis, proper north face", ("jacket", 250.0, "GHS")),
        (
            "unrelated but picked up the makita 18v combo kit from mitre 10 mega on saturday, $649 for the drill",
            ("makita 18v combo kit", 649.0, "NZD"),
        ),
    ],
)
def test_a_purchase_after_an_opening_word_in_capitals_is_the_speakers(line, found):
    currency = "NZD" if "$" in line else "GHS"
    view = _view(line, said_on=dt.date(2026, 5, 17), currency=currency)
    assert [(r["item"], r["amount"], r["currency"]) for r in view["purchase"]] == [found]


@pytest.mark.parametrize(
    "line, place",
    [
        (
            "to compensate, diego took me to alcalde for valentine's, 6,200 with wine for the two of us, the tasting menu",
            "Alcalde",
        ),
        (
            "last night we went to la mutualista (cantina in the centro) with diego and my team, botanas + cervezas, 650 for me",
            "La Mutualista",
        ),
    ],
)
def test_an_eatery_typed_in_lower_case_ends_before_its_preposition(line, place):
    assert [m["place"] for m in _view(line, said_on=dt.date(2026, 2, 22), currency="MXN")["meal"]] == [place]


@pytest.mark.parametrize(
    "line, employer, role, current",
    [
        ("big news i got the offer from atlantic terminal services in tema.", "Atlantic Terminal Services", None, True),
        ("i'm a ux designer at konfío so it's a lot of sitting", "Konfío", None, True),
        (
            "before sahel i was 4 yrs warehouse supervisor at melcom and mr owusu brought me from there",
            "Melcom",
            "warehouse supervisor",
            False,
        ),
    ],
)
def test_jobs_told_in_lower_case(line, employer, role, current):
    assert [(j["employer"], j["role"], j["current"]) for j in _jobs(line)] == [(employer, role, current)]


def test_an_offer_that_may_be_one_of_several_is_no_job():
    assert _jobs("got an offer from atlantic terminal services in tema, still deciding") == []


def test_a_past_job_beside_the_one_joined_in_the_same_sentence():
    line = (
        "the title is a step up (i've been a ux designer since march 2022, before that i was a junior graphic "
        "designer at ogilvy from 2018 until feb 2022)"
    )
    [job] = _jobs(line)
    assert (job["employer"], job["start"], job["end"]) == ("Ogilvy", Period("2018"), Period("2022-02"))


def test_a_place_done_with_a_bill_shared_and_beers_is_no_trip():
    view = _view(
        "we did franklin on the friday, 3 hours in line but worth it, $85 dlls for both of us with beers.",
        "we did Porto last weekend, 2 nights",
        said_on=dt.date(2025, 12, 18),
    )
    assert [t["destination"] for t in view["trip"]] == ["Porto"]


@pytest.mark.parametrize(
    "line, said_on, found",
    [
        # a stay away told by why
        ("sorry i've been MIA, i was in bogotá for work!!", dt.date(2026, 6, 21), ("Bogotá", "done")),
        ("we were in Leeds for the weekend", dt.date(2026, 6, 21), ("Leeds", "done")),
        (
            "but from the 13th to the 16th i'll be in kumasi for work, mon to thu.",
            dt.date(2025, 10, 4),
            ("Kumasi", "planned"),
        ),
        # the speaker and one person typed in lower case, then the verb
        ("me and abena went to Kumasi last weekend", dt.date(2026, 6, 21), ("Kumasi", "done")),
        # "fly to" in the present, dated ahead: a word that is a name too is the city after it
        (
            "heyyy so mariana and i fly to austin a week from today, thursday the 4th",
            dt.date(2025, 11, 27),
            ("Austin", "planned"),
        ),
    ],
)
def test_trips_told_in_lower_case(line, said_on, found):
    assert [(t["destination"], t["status"]) for t in _view(line, said_on=said_on)["trip"]] == [found]


@pytest.mark.parametrize(
    "line",
    [
        "I was in London for a year as a student",
        "we go to march on saturday",
        "i had dinner with austin on friday",
    ],
)
def test_no_trip_from_a_stay_of_years_a_month_or_a_friend(line):
    assert _view(line, said_on=dt.date(2026, 6, 21))["trip"] == []


def _said_over_days(days: list[tuple[dt.date, str]], currency: str | None = None) -> dict[str, list[dict]]:
    """The offline view of one line a session, each session on its own day, as the extractor writes them."""
    from uac.compile.offline import _assemble
    from uac.extract.rules import RuleExtractor
    from uac.facts.model import Fact
    from uac.sessions.model import Session, Turn

    facts = []
    for n, (day, line) in enumerate(days):
        session = Session(f"s{n}", day, day.isoformat(), (Turn("t1", "Mei", line),))
        for i, f in enumerate(RuleExtractor().extract(session)):
            facts.append(Fact(f"s{n}-f{i}", f.text, f"s{n}", day, speaker="Mei", event_date=f.event_date))
    _, assembled, _ = _assemble(facts, currency)
    return {kind: [a.fields for a in found] for kind, found in assembled.items()}


def test_prices_before_a_move_told_ahead_are_in_the_old_lands_money():
    view = _said_over_days(
        [
            (dt.date(2025, 7, 1), "back in singapore after a week in penang. the heat in singapore is a lot"),
            (dt.date(2025, 7, 6), "also just bought new hokas (clifton 10) at running lab, $219 so i better use them"),
            (dt.date(2025, 12, 16), "moving to melbourne next month"),
            (dt.date(2025, 12, 20), "bought a big samsonite today at taka for $420"),
            (dt.date(2026, 2, 15), "got a zojirushi at jb hi-fi this week, $199"),
        ]
    )
    found = [(p["item"], p["currency"]) for p in view["purchase"]]
    assert found == [("new hokas", "SGD"), ("big samsonite", "SGD"), ("zojirushi", "AUD")]


def test_a_move_told_ahead_with_no_land_named_before_it_leaves_the_dollar_unplaced():
    view = _said_over_days(
        [
            (dt.date(2025, 7, 6), "also just bought new hokas (clifton 10) at running lab, $219 so i better use them"),
            (dt.date(2025, 12, 16), "moving to melbourne next month"),
            (dt.date(2026, 2, 15), "got a zojirushi at jb hi-fi this week, $199"),
        ]
    )
    assert [p["currency"] for p in view["purchase"]] == ["USD", "AUD"]


@pytest.mark.parametrize(
    "line, said_on, found",
    [
        # a suburb left for a town, the day between
        ("moving sat 18 april dansoman to tema comm 25.", dt.date(2026, 3, 29), [("Tema", False)]),
        # the home left after years in it, told with the move
        (
            "we moved into the baner flat on 30th, after almost 10 years in bengaluru (since 2016!!), things are settling.",
            dt.date(2026, 6, 10),
            [("Bengaluru", False)],
        ),
    ],
)
def test_homes_told_in_lower_case(line, said_on, found):
    assert [(h["city"], h["current"]) for h in records_of("home", line, said_on=said_on)] == found


def test_years_somewhere_with_no_move_is_no_home_left():
    assert records_of("home", "after 10 years in London I finally changed jobs", said_on=dt.date(2026, 6, 10)) == []
