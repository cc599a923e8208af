"""Workouts, books and homes: phrasings, negatives and assembling."""

from __future__ import annotations

import datetime as dt

import pytest

from uac.compile.kinds import assemble, detect, registry
from uac.dates import Period

from .conftest import facts_of

KINDS = {k.name: k for k in registry()}
DAY = dt.date(2024, 3, 4)  # a Monday


def _records(kind: str, *sessions, speaker: str = "Sam") -> list[dict]:
    facts = []
    for number, (day, lines) in enumerate(sessions, 1):
        for fact in facts_of(*lines, speaker=speaker, said_on=day):
            facts.append(fact.replace(id=f"s{number}-{fact.id.split('-')[1]}", session_id=f"s{number}"))
    found = assemble(KINDS[kind], [s for f in facts for s in detect(f) if s.kind == kind], {f.id: f for f in facts})
    return [{k: v for k, v in a.fields.items() if k not in ("sources", "said_on", "person")} for a in found]


# -- workouts ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line, activity, km, minutes",
    [
        ("Ran 12k along the river yesterday in 63 mins, legs gone.", "run", 12.0, 63.0),
        ("I ran 5 miles before work, 44:30.", "run", 8.05, 44.5),
        ("just did 8k round the reservoir, 1h05", "run", 8.0, 65.0),
        ("I swam 60 lengths, so 1.5km, took 48 minutes.", "swim", 1.5, 48.0),
        ("I did a yoga class at lunch and feel human again.", "yoga class", None, None),
        ("In other news I did the Riverside 10k on Sunday, 49:58!", "run", 10.0, 50.0),
        ("parkrun this morning, 27:05, slow but done", "run", 5.0, 27.1),
        ("Cycled 40 km to the coast, took 2h10.", "cycle", 40.0, 130.0),
        ("I finished the half marathon in 1:58, never again.", "run", 21.1, 118.0),
        ("Completed my first marathon, 4:31:10!", "run", 42.2, 271.2),
    ],
)
def test_workout_phrasings(line, activity, km, minutes):
    [workout] = _records("workout", (DAY, [line]))
    assert (workout["activity"], workout["distance_km"], workout["duration_min"]) == (activity, km, minutes)


@pytest.mark.parametrize(
    "line",
    [
        "I will run 10k on Sunday.",
        "I need new running shoes, mine have 800 km on them.",
        "Tom ran a marathon in 3:40.",
        "How fast should I run 5k?",
        "I ran into Ana at the shop.",
        "My training plan says 16k on Saturday.",
    ],
)
def test_no_workout(line):
    assert _records("workout", (DAY, [line])) == []


def test_a_workout_is_dated():
    [workout] = _records("workout", (DAY, ["Ran 10k yesterday in 55 mins."]))
    assert workout["when"] == Period.day(dt.date(2024, 3, 3))


@pytest.mark.parametrize(
    "line, activity, km, minutes",
    [
        (
            "Went bouldering after work at the Arch, like an hour and a half, my fingers are done.",
            "bouldering",
            None,
            90.0,
        ),
        ("Climbed for two hours at the wall on Saturday.", "climbing", None, 120.0),
        ("We drove up to the Peak District and hiked Kinder Scout, 8 miles round.", "hike", 12.87, None),
        ("First proper run in weeks this morning, 4 miles, 38 minutes, dying.", "run", 6.44, 38.0),
        ("Long swim at the lido, half an hour, then cake.", "swim", None, 30.0),
    ],
)
def test_workouts_as_chats_tell_them(line, activity, km, minutes):
    [workout] = _records("workout", (DAY, [line]))
    assert (workout["activity"], workout["distance_km"], workout["duration_min"]) == (activity, km, minutes)


@pytest.mark.parametrize(
    "line",
    [
        "I climbed the stairs to the fourth floor.",
        "A run would be nice tomorrow, 5k maybe.",
        "Hiked up the prices again, the cafe did.",
        "My run club meets on Thursdays.",
    ],
)
def test_no_workout_from_words_that_also_mean_other_things(line):
    assert _records("workout", (DAY, [line])) == []


# -- books ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line, title, author",
    [
        ("Finished The Overstory on the train yesterday.", "The Overstory", None),
        ("just finished Piranesi by Susanna Clarke, wow", "Piranesi", "Susanna Clarke"),
        ("I've read A Gentleman in Moscow twice now.", "A Gentleman in Moscow", None),
        ("Also read Klara and the Sun on the flight, loved it.", "Klara and the Sun", None),
        ("I finished Stoner (the John Williams one) and cried.", "Stoner", "John Williams"),
    ],
)
def test_book_phrasings(line, title, author):
    [book] = _records("book", (DAY, [line]))
    assert (book["title"], book["author"]) == (title, author)


@pytest.mark.parametrize(
    "line",
    [
        "I finished the report at midnight.",
        "I want to read Piranesi next.",
        "Should I read The Overstory?",
        "Ana finished Piranesi last week.",
        "I read the news and regretted it.",
        "I finished work early on Friday.",
    ],
)
def test_no_book(line):
    assert _records("book", (DAY, [line])) == []


def test_a_book_told_twice_is_one_with_its_finish():
    [book] = _records(
        "book",
        (dt.date(2024, 2, 1), ["I've read Piranesi by Susanna Clarke."]),
        (DAY, ["Finished Piranesi again yesterday."]),
    )
    assert (book["title"], book["author"], book["finished"]) == (
        "Piranesi",
        "Susanna Clarke",
        Period.day(dt.date(2024, 3, 3)),
    )


@pytest.mark.parametrize(
    "line, title, author",
    [
        (
            "Also read The Glass Hotel on the train, finally, Emily St. John, so good.",
            "The Glass Hotel",
            "Emily St. John",
        ),
        (
            "I'm still reading Station Eleven, Emily Mandel — finished it on the bus actually.",
            "Station Eleven",
            "Emily Mandel",
        ),
    ],
)
def test_an_author_after_a_comma(line, title, author):
    [book] = _records("book", (DAY, [line]))
    assert (book["title"], book["author"]) == (title, author)


def test_still_reading_is_no_book_read():
    assert _records("book", (DAY, ["I'm still reading Station Eleven, it's slow going."])) == []


def test_an_author_named_in_the_next_sentence():
    [book] = _records(
        "book", (DAY, ["Finished Piranesi on the train yesterday.", "Susanna Clarke is a genius, honestly."])
    )
    assert (book["title"], book["author"]) == ("Piranesi", "Susanna Clarke")
    # the sentence may say "book" too
    [book] = _records(
        "book", (DAY, ["Finished Piranesi on the train yesterday.", "Susanna Clarke is a genius but that book is odd."])
    )
    assert book["author"] == "Susanna Clarke"


def test_an_author_sentence_gives_nothing_to_a_book_of_another_session_or_one_with_an_author():
    books = _records(
        "book",
        (dt.date(2024, 2, 1), ["Finished Piranesi on the train yesterday."]),
        (
            DAY,
            [
                "Susanna Clarke is a genius, honestly.",
                "I finished Stoner by John Williams.",
                "Ana Lopez is a genius at pub quizzes.",
            ],
        ),
    )
    assert [(b["title"], b["author"]) for b in books] == [("Piranesi", None), ("Stoner", "John Williams")]
    assert _records("book", (DAY, ["Rosa Diaz is a genius."])) == []


# -- homes ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line, city, country, current",
    [
        ("We moved to Glasgow last spring.", "Glasgow", "GB", True),
        ("I live in Lyon with two cats.", "Lyon", "FR", True),
        ("Six years in Leeds and I still get lost.", "Leeds", "GB", True),
        ("We're moving to Valencia, Spain in the autumn.", "Valencia", None, False),
        ("I used to live in Porto.", "Porto", None, False),
    ],
)
def test_home_phrasings(line, city, country, current):
    [home] = _records("home", (DAY, [line]))
    assert (home["city"], home["current"]) == (city, current)
    if country:
        assert home["country"] == country


@pytest.mark.parametrize(
    "line",
    ["I moved to a new team.", "We live in hope.", "My sister lives in Glasgow.", "Two weeks in Lisbon was perfect."],
)
def test_no_home(line):
    assert _records("home", (DAY, [line])) == []


def test_a_move_closes_the_old_home_and_a_plan_comes_true():
    leeds, york = _records(
        "home",
        (dt.date(2024, 1, 5), ["Six years in Leeds and I still get lost.", "We're moving to Cardiff in March."]),
        (dt.date(2024, 4, 2), ["We have been in Cardiff since the 14th and I love it."]),
    )
    assert (leeds["city"], leeds["current"]) == ("Leeds", False)
    assert (york["city"], york["country"], york["current"]) == ("Cardiff", "GB", True)
    assert york["start"] == Period.month(2024, 3)


@pytest.mark.parametrize(
    "line, activity, km, minutes",
    [
        # the sport a bare "did 1.5km" was, from its sentence
        (
            "Did 1.5km at Brunswick Baths this morning too, took me about 40 min, trying to get back into swimming.",
            "swim",
            1.5,
            40.0,
        ),
        (
            "And I'm trying to get back in shape, did a 45 min spinning class at the gym this morning.",
            "spinning class",
            None,
            45.0,
        ),
        ("Did 10k along the canal on tuesday, 54 minutes, my knees hate me.", "run", 10.0, 54.0),
    ],
)
def test_workouts_the_sentence_names(line, activity, km, minutes):
    [workout] = _records("workout", (DAY, [line]))
    assert (workout["activity"], workout["distance_km"], workout["duration_min"]) == (activity, km, minutes)


def test_a_swim_without_a_distance_or_time_is_no_workout():
    assert _records("workout", (DAY, ["Bohinj, swam in the lake, freezing, 10/10."])) == []


def test_a_home_found_becomes_current_when_the_move_is_told():
    found = (dt.date(2024, 12, 14), ["We got the rental in Geelong!!"])
    assert [(h["city"], h["current"]) for h in _records("home", found)] == [("Geelong", False)]
    moved = (dt.date(2025, 2, 8), ["We moved on the 18th and I'm three weeks in."])
    assert [(h["city"], h["current"]) for h in _records("home", found, moved)] == [("Geelong", True)]
    # a move that names no place, with no home found before it, is nothing
    assert _records("home", moved) == []


def test_a_lease_signed_is_a_home_found():
    signed = (dt.date(2025, 7, 8), ["ALSO we signed a lease on a townhouse in Papillion!! moving Aug 16, 3 bed."])
    assert [(h["city"], h["current"]) for h in _records("home", signed)] == [("Papillion", False)]
    moved = (dt.date(2025, 8, 21), ["moved Saturday, Tyler and his buddies, everything done by 3."])
    assert [(h["city"], h["current"]) for h in _records("home", signed, moved)] == [("Papillion", True)]


@pytest.mark.parametrize(
    "line, city, current",
    [
        ("We live in leipzig now.", "Leipzig", True),
        ("Honestly our new place in Leeds is tiny.", "Leeds", True),
    ],
)
def test_homes_said_in_lower_case_or_as_a_new_place(line, city, current):
    [home] = _records("home", (DAY, [line]))
    assert (home["city"], home["current"]) == (city, current)


def test_a_move_from_one_city_to_another_tells_both_homes():
    said = dt.date(2025, 3, 20)
    ahead = _records("home", (said, ["I'm moving from Nairobi to Mombasa on 31st March."]))
    assert [(h["city"], h["current"], h["start"]) for h in ahead] == [
        ("Nairobi", True, None),
        ("Mombasa", False, Period("2025-03-31")),
    ]
    done = _records("home", (said, ["We moved from Leeds to York in May."]))
    assert [(h["city"], h["current"]) for h in done] == [("Leeds", False), ("York", True)]
    assert _records("home", (said, ["My sister is moving from Leeds to York."])) == []


def test_a_run_told_after_another_thing_the_speaker_did_in_the_same_sentence():
    said = dt.date(2025, 6, 10)
    line = "On Saturday I finally bought proper running shoes at City Mall, and on Sunday I ran 6 km on Nyali beach."
    assert [(w["activity"], w["distance_km"]) for w in _records("workout", (said, [line]))] == [("run", 6.0)]
    assert _records("workout", (said, ["I bought running shoes and Tom ran 6 km."])) == []


def test_a_count_of_books_or_someones_thing_is_no_title():
    said = dt.date(2025, 1, 5)
    assert _records("book", (said, ["My goals: read 12 books this year."])) == []
    assert _records("book", (said, ["I read Joy's message twice."])) == []
    assert [b["title"] for b in _records("book", (said, ["I finished 1984 on the plane."]))] == ["1984"]


@pytest.mark.parametrize(
    "line, city",
    [
        ("Hello from Porto!! I moved on saturday, the 6th. The mudança was a nightmare", "Porto"),
        ("Greetings from Abuja! We moved in on the 28th, truck arrived a day late", "Abuja"),
        ("hello from pune!! moved in on the 2nd, the flat is tiny but the balcony is great.", "Pune"),
    ],
)
def test_a_move_told_from_the_new_home(line, city):
    from uac.compile.offline import _assemble

    facts = facts_of(line, said_on=dt.date(2025, 9, 10))
    _, assembled, _ = _assemble(facts)
    assert [(h.fields["city"], h.fields["current"]) for h in assembled["home"]] == [(city, True)]


def test_a_greeting_from_a_place_without_a_move_is_no_home():
    from uac.compile.offline import _assemble

    _, assembled, _ = _assemble(facts_of("Hello from Porto!! The food here is great.", said_on=dt.date(2025, 9, 10)))
    assert assembled["home"] == []


def test_a_lease_signed_and_its_moving_in_day_passed_is_presumed_lived_in():
    lease = (
        dt.date(2027, 1, 10),
        ["Bigger news: I've signed a lease on a flat in Stirling.", "Moving in on Saturday 27th February."],
    )
    [home] = _records("home", lease, (dt.date(2027, 3, 7), ["Can you help with a letter?"]), speaker="Fiona MacLeod")
    assert (home["city"], home["start"], home["current"], home["presumed"]) == (
        "Stirling",
        Period("2027-02-27"),
        True,
        True,
    )
    [home] = _records("home", lease, speaker="Fiona MacLeod")  # nothing said after the day: not lived in yet
    assert (home["current"], home.get("presumed", False)) == (False, False)


def test_a_move_told_by_its_movers_and_a_home_lived_in_since_a_year():
    said = (
        dt.date(2026, 4, 22),
        [
            "ok i need a moving checklist, i been in my apartment in east point since 2018 and i got so much stuff.",
            "movers quoted me 2,800 from east point to charlotte and relocation covers up to 6k.",
        ],
    )
    homes = _records("home", said, speaker="Keisha")
    assert [(h["city"], h["start"], h["current"]) for h in homes] == [
        ("East Point", Period("2018"), True),
        ("Charlotte", None, False),
    ]
    assert _records("home", (dt.date(2026, 4, 22), ["My sister's movers quoted her 900 from Leeds to York."])) == []


@pytest.mark.parametrize(
    "line, title, author",
    [
        # a title in lower case with its author, as chats write it
        ("oh and i finally finished the women by kristin hannah last night.", "The Women", "Kristin Hannah"),
        (
            "random but finally finished atomic habits by james clear, took me since august lol.",
            "Atomic Habits",
            "James Clear",
        ),
        ("also finished that legacy book by james kerr on the drive down", "Legacy", "James Kerr"),
        # in quotes, the author after "from"
        ('I finished last week "Der Trafikant" from Robert Seethaler.', "Der Trafikant", "Robert Seethaler"),
        # a title in quotes that holds a word of time
        (
            'And I finished "Tomorrow, and Tomorrow, and Tomorrow" by Gabrielle Zevin on the bus this week.',
            "Tomorrow, and Tomorrow, and Tomorrow",
            "Gabrielle Zevin",
        ),
        # alone in lower case where the sentence is about reading
        ("finished boy swallows universe on the flight back, such a good book", "Boy Swallows Universe", None),
        ("at least i finished palace of illusions on the trip, in the hammock itself", "Palace of Illusions", None),
    ],
)
def test_books_in_lower_case_or_in_quotes(line, title, author):
    assert [(b["title"], b["author"]) for b in _records("book", (dt.date(2026, 5, 19), [line]))] == [(title, author)]


@pytest.mark.parametrize(
    "line",
    [
        "i finished my shift at 7 and went to bed",
        "finished the report on the plane",
        "finished the half marathon in 2:10, brutal",
        "my sister finished the women by kristin hannah",
        "Tom finished the women by kristin hannah",
        "just finished the first draft of my thesis on the plane",
        "I want to finish the women by kristin hannah",
        "also i finished kitchen prep again on the drive back from the dunes",
        "I actually finished the book for once, Lessons in Chemistry",
        "finished tomorrow and tomorrow and tomorrow on the plane back",
    ],
)
def test_no_book_from_work_a_race_or_someone_elses_reading(line):
    assert _records("book", (dt.date(2026, 5, 19), [line])) == []
