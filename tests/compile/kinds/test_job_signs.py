"""Jobs at employers people describe rather than name."""

from __future__ import annotations

import datetime as dt

import pytest

from uac.compile.kinds import job_signs

from .conftest import fact_of, facts_of, records_of


def _jobs(*lines: str) -> list[dict]:
    return records_of("job", *lines, speaker="Shona", said_on=dt.date(2025, 1, 10))


@pytest.mark.parametrize(
    "line, employer, current",
    [
        (
            "work is mental, im doing 3 days at the practice in shawlands and honestly im knackered",
            "practice in shawlands",
            True,
        ),
        ("and... i got the health board job!!!!", "health board", True),
        ("ok i got the hamilton job!!!! cardiac icu", "Hamilton", True),
        (
            "I have accepted a short contract with the provincial transportation ministry",
            "provincial transportation ministry",
            True,
        ),
        ("first week at the fintech in Shoreditch done", "fintech in Shoreditch", True),
        ("I accepted the offer from a boutique advisory firm in Mayfair", "boutique advisory firm in Mayfair", True),
        ("my boss at the health board is lovely", "health board", True),
        ("I was made redundant from the council in march", "council", False),
    ],
)
def test_a_job_at_an_employer_described(line, employer, current):
    [job] = _jobs(line)
    assert job["employer"] == employer and job["current"] is current and job["person"] == "Shona"


def test_a_kind_of_workplace_alone_ends_the_job_it_describes():
    old, new = _jobs(
        "im doing 3 days at the practice in shawlands",
        "i got the health board job!!!!",
        "handed my notice in at the practice before christmas",
    )
    assert (old["employer"], old["current"], new["employer"], new["current"]) == (
        "practice in shawlands",
        False,
        "health board",
        True,
    )
    # alone, it opens no job: "the new firm" says no more than "a firm"
    assert _jobs("handed in my notice at the new firm today") == []
    assert _jobs("I joined the startup on monday") == []


def test_a_name_in_lower_case_and_a_job_named_by_what_it_is():
    old, new = _jobs(
        "2 and 1 with westline so 1 week off at a time. been with westline 5 yrs tho",
        "haha. news: took the lithium job. finish with westline end of jan, start 10 feb",
    )
    assert (old["employer"], old["current"], new["employer"], new["current"]) == ("Westline", False, "lithium", True)
    # a word of the dictionary is no name typed in lower case
    assert _jobs("been with family 5 yrs now") == []


def test_a_workplace_alone_is_the_one_described_before():
    freelance, agency = _jobs(
        "I'm a freelance photographer here in CDMX",
        "an agency in Polanco saw my Instagram and wants to interview me for a staff photographer job.",
        "Day 3 at the agency!!! everyone is so nice",
    )
    assert (freelance["employer"], freelance["current"]) == ("freelance", False)
    assert (agency["employer"], agency["current"]) == ("agency in Polanco", True)
    # with nothing described before, "the agency" is no job
    assert _jobs("Day 3 at the agency!!! everyone is so nice") == []


@pytest.mark.parametrize(
    "line",
    [
        "finally got the plumbing job done",  # a chore
        "my sister got the hamilton job",  # someone else's
        "if i got the health board job i'd cry",  # a hypothetical
        "maybe I'll apply to the health board",  # an application
        "got an offer from a boutique advisory firm in Mayfair",  # an offer, not accepted
        "would love to work at the natural history museum one day",  # a wish
        "i got the analyst job",  # a title names no employer
        "is the practice in shawlands open on saturdays?",  # a question
    ],
)
def test_no_job_is_read(line):
    assert [job for job in job_signs.described(fact_of(line, speaker="Shona")) if job.event != "mention"] == []


def test_odd_text_reads_no_job_and_never_fails():
    lines = ["!!!!", "got the  job", "at the \u2028 practice", "\u200f\u202e joined the firm", "🏥🏥🏥", "I joined the"]
    for fact in facts_of(*lines, speaker="Shona"):
        assert [job for job in job_signs.described(fact) if not job.bare] == []


@pytest.mark.parametrize(
    "line, employer, current",
    [
        ("yaar I just resigned from Persistent 😅 60 days notice and full drama from my manager", "Persistent", False),
        ("welp got laid off from Fernwood this morning lmao", "Fernwood", False),
        ("I was sacked from Zenith Bank today after eleven years.", "Zenith Bank", False),
        ("handed my notice in at jimmys today. 4 wks and im out", "Jimmys", False),
        ("omg first shift at starbucks tmrw ☕️😭 is it weird to bring snacks", "Starbucks", True),
        (
            "Dear sir, I have joined Infosys Mysore campus as Systems Engineer trainee from today itself.",
            "Infosys Mysore",
            True,
        ),
        ("I've gone locum as of this month after nine years at Boots.", "Boots", False),
        ("SIGNED 🎉🎉 backend eng at Loop Health, start the week after next.", "Loop Health", True),
        ("Today is my last working day in Infosys after serving 90 days notice.", "Infosys", False),
        ("righto so I chucked in my job at the pub in Paddo yesterday", "pub in Paddo", False),
        ("Bro I drive for a living apart from my full-time job at TCS.", "TCS", True),
    ],
)
def test_a_job_at_an_employer_named_with_the_verbs_of_work(line, employer, current):
    jobs = [j for j in _jobs(line) if j["employer"] == employer]
    assert [(j["employer"], j["current"]) for j in jobs] == [(employer, current)]


@pytest.mark.parametrize(
    "line",
    [
        "joined Tom and the kids for lunch at the beach",  # a person, no work
        "left Sydney on friday, the flight was fine",  # a place
        "Tom's three years at Pellucid were rough",  # someone else's
        "quit Twitter finally, best decision this year",  # an app, no work
        "five years in Manchester now and I still love it",  # where someone lives
    ],
)
def test_no_job_from_the_verbs_of_work_said_of_something_else(line):
    assert _jobs(line) == []
