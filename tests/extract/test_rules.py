"""The rule-based extractor on LoCoMo-shaped sessions."""

from __future__ import annotations

import datetime as dt

import pytest

from uac.extract.persons import rewrite_persons
from uac.extract.rules import RuleExtractor
from uac.extract.sentences import is_contentless, split_sentences
from uac.sessions import load_sessions
from uac.sessions.model import Session, Turn


@pytest.fixture
def facts(locomo_file):
    sessions = load_sessions(locomo_file, sample_id="conv-t1")
    extractor = RuleExtractor()
    return {s.session_id: extractor.extract(s) for s in sessions}


def texts(items):
    return [f.text for f in items]


def test_first_person_and_relative_date(facts):
    [fact] = [f for f in facts["conv-t1_s1"] if f.evidence == ("D1:3",)]
    assert fact.text == "Caroline went to a LGBTQ support group yesterday (on 7 May 2023) and it was so powerful."
    assert fact.event_date == dt.date(2023, 5, 7)
    assert fact.speaker == "Caroline"


def test_filler_dropped_content_kept(facts):
    s1 = facts["conv-t1_s1"]
    assert not [f for f in s1 if f.evidence == ("D1:1",)]  # greetings only
    assert not [f for f in s1 if f.evidence == ("D1:5",)]  # "Thanks!"
    assert "Melanie is swamped with the kids & work." in texts(s1)


def test_image_caption_kept_as_fact(facts):
    d14 = [f for f in facts["conv-t1_s1"] if f.evidence == ("D1:4",)]
    assert "Melanie shared an image: a photo of a painting of a sunset over a lake." in texts(d14)
    assert "Melanie painted that lake sunrise last year (in 2022)." in texts(d14)


def test_second_person_becomes_the_listener(facts):
    s2 = texts(facts["conv-t1_s2"])
    assert "Caroline asked: Does Melanie have pets?" in s2
    assert "Caroline's dog Rex loves the beach." in s2
    assert "Melanie has a cat named Oliver." in s2
    assert "Melanie is moving to Boston next month (in June 2023)." in s2
    assert any(t.startswith("Melanie and others went camping") and "(on 23 May 2023)" in t for t in s2)


def test_every_fact_names_a_person_and_cites_its_turn(locomo_file):
    sessions = load_sessions(locomo_file, sample_id="conv-t1")
    for session in sessions:
        ids = {t.turn_id for t in session.turns}
        for fact in RuleExtractor().extract(session):
            assert any(name in fact.text for name in session.speakers), fact.text
            assert set(fact.evidence) <= ids
            assert not any(w in fact.text.split() for w in ("I", "my", "me")), fact.text


def test_deterministic(locomo_file):
    [s] = load_sessions(locomo_file, sample_id="conv-t2")
    assert RuleExtractor().extract(s) == RuleExtractor().extract(s)


@pytest.mark.parametrize(
    "sentence, content",
    [
        ("Hey Mel!", False),
        ("Thanks!", False),
        ("Wow", False),
        ("Good to see you!", False),
        ("What's up with you?", False),
        ("Wow, I adopted a cat.", True),
        ("Thanks, the lasagna recipe was great!", True),
        ("I went there.", True),
        ("42", True),
    ],
)
def test_contentless(sentence, content):
    assert is_contentless(sentence, {"Melanie", "Caroline"}) is (not content)


def test_split_sentences_keeps_abbreviations():
    assert split_sentences("I met Dr. Smith today. It was fun! Really?\nNew line") == [
        "I met Dr. Smith today.",
        "It was fun!",
        "Really?",
        "New line",
    ]


@pytest.mark.parametrize(
    "sentence, expected",
    [
        ("I love painting my house.", "Ann loves painting Ann's house."),
        ("I'm tired and I've been busy.", "Ann is tired and Ann has been busy."),
        ("Are you coming with your sister?", "Is Ben coming with Ben's sister?"),
        ("I think you should go.", "Ann thinks Ben should go."),
        ("I really enjoy hiking.", "Ann really enjoys hiking."),
        ("I went home.", "Ann went home."),
        # adverbs between the subject and its verb are skipped, never conjugated
        ("I now work at Initech.", "Ann now works at Initech."),
        ("I currently work at Initech.", "Ann currently works at Initech."),
        ("I usually go early.", "Ann usually goes early."),
        ("I finally finished it.", "Ann finally finished it."),
        ("I apply to jobs.", "Ann applies to jobs."),
        # "we" is the speaker and others; reflexives refer back, or are generic
        ("We went camping with our kids.", "Ann and others went camping with their kids."),
        ("We're so proud of ourselves.", "Ann and others are so proud of themselves."),
        ("Relaxing and expressing ourselves is key.", "Relaxing and expressing oneself is key."),
        ("I made it myself.", "Ann made it themselves."),
        ("You should be proud of yourself.", "Ben should be proud of themselves."),
        ("You guys should come!", "Ben and others should come!"),
        ("Our house is big.", "Ann's house is big."),
        # hedges and emphatic reflexives
        ("I kind of like it.", "Ann kind of likes it."),
        ("I sort of want to go.", "Ann sort of wants to go."),
        ("I myself went.", "Ann went."),
        # "you" as a subject wherever a bare verb follows it; an object stays one
        ("I hope you have fun.", "Ann hopes Ben has fun."),
        ("Glad you have support!", "Glad Ben has support!"),
        ("It got you to where you need to be.", "It got Ben to where Ben needs to be."),
        ("Art shows who you are.", "Art shows who Ben is."),
        ("Make sure you take a break.", "Make sure Ben takes a break."),
        ("I think you really need a rest.", "Ann thinks Ben really needs a rest."),
        ("I need it.", "Ann needs it."),
        ("I miss you so much.", "Ann misses Ben so much."),
        ("Thank you so much!", "Thank Ben so much!"),
        ("I will let you know.", "Ann will let Ben know."),
        ("It made you feel good.", "It made Ben feel good."),
        ("Did you make it?", "Did Ben make it?"),
        ("How do you feel?", "How does Ben feel?"),
        # "'d" is "had" before a past participle, "would" before anything else
        ("I'd lost a bet to Lwazi.", "Ann had lost a bet to Lwazi."),
        ("We'd already booked it.", "Ann and others had already booked it."),
        ("I'd love to go.", "Ann would love to go."),
        ("I'd need a car.", "Ann would need a car."),
        # a word of any alphabet is one word: "Tjøme" ends in no "me", "Émile" holds no "mile"
        ("We went to Tjøme and I love it.", "Ann and others went to Tjøme and Ann loves it."),
        ("Émile and I swam at Malmö.", "Émile and Ann swam at Malmö."),
    ],
)
def test_rewrite_persons(sentence, expected):
    assert rewrite_persons(sentence, "Ann", "Ben") == expected


def test_you_is_left_alone_with_more_than_two_speakers():
    session = Session(
        "s-x",
        dt.date(2024, 1, 1),
        "2024-01-01",
        (Turn("a", "Ann", "Did you see my cat?"), Turn("b", "Ben", "No."), Turn("c", "Cy", "I did.")),
    )
    facts = RuleExtractor().extract(session)
    assert "Ann asked: Did you see Ann's cat?" in texts(facts)


def test_rule_facts_read_like_english_and_carry_periods(locomo_file):
    later = {f.text: f for s in load_sessions(locomo_file, sample_id="conv-t1") for f in RuleExtractor().extract(s)}
    painted = later["Melanie painted that lake sunrise last year (in 2022)."]
    assert painted.text == "Melanie painted that lake sunrise last year (in 2022)."
    assert painted.event_date.code == "2022" and painted.event_date.precision == "year"
    assert "date_precision" not in painted.meta
    moving = later["Melanie is moving to Boston next month (in June 2023)."]
    assert moving.event_date.code == "2023-06"  # the month, not 25 June
    job = later["Caroline started a new job as a counselor last week (the week before 2 July 2023)!"]
    assert job.event_date.code == "2023-06-25/2023-07-01"


def test_a_list_items_mark_is_no_part_of_its_sentence():
    from uac.compile.kinds import detect

    text = "quick update:\n- back from Lisbon, 3 nights\n• bought a Barbour jacket for £250\n(3) Dinner at Barrafina, £45 each"
    session = Session(
        "s1", dt.date(2025, 3, 1), "2025-03-01", (Turn("t1", "Olly", text), Turn("t2", "assistant", "Nice!"))
    )
    facts = RuleExtractor().extract(session)
    assert texts(facts)[1:] == [
        "Olly said: Back from Lisbon, 3 nights.",
        "Olly said: Bought a Barbour jacket for £250.",
        "Olly said: Dinner at Barrafina, £45 each.",
    ]
    from uac.facts.model import Fact

    kinds = [
        sorted({s.kind for s in detect(Fact(f"f{i}", f.text, "s1", dt.date(2025, 3, 1), speaker="Olly"))})
        for i, f in enumerate(facts[1:])
    ]
    assert kinds == [["trip"], ["purchase"], ["meal"]]
    # nor are the emoji a sentence opens with part of it; a currency sign stays
    [flew, priced] = RuleExtractor().extract(
        Session("s3", dt.date(2025, 3, 1), "2025-03-01", (Turn("t1", "Olly", "✈️ back from Lisbon. $40 for the lot."),))
    )
    assert (flew.text, priced.text) == ("Olly said: Back from Lisbon.", "Olly said: $40 for the lot.")
    # a number that opens a sentence is no list mark
    [cold] = RuleExtractor().extract(
        Session("s2", dt.date(2025, 3, 1), "2025-03-01", (Turn("t1", "Olly", "-5 degrees today, brr."),))
    )
    assert "-5 degrees" in cold.text


@pytest.mark.parametrize(
    "said, fact",
    [
        # a bracket that opens a sentence and never closes, or wraps it whole, is no part of it
        (
            "(we went to Puerto Vallarta, 3 nights with Diego.",
            "Sam and others went to Puerto Vallarta, 3 nights with Diego.",
        ),
        ("(writing this from the café).", "Sam said: Writing this from the café."),
        # brackets inside the sentence stay
        ("(sorry) I was late (again).", "(sorry) Sam was late (again)."),
    ],
)
def test_a_sentence_told_in_brackets_is_read_without_them(said, fact):
    session = Session("s1", dt.date(2025, 3, 1), "2025-03-01", (Turn("t1", "Sam", said),))
    assert texts(RuleExtractor().extract(session)) == [fact]
