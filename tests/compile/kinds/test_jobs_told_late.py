"""Jobs whose workplace is named only after the news: a promotion told first, the old job after an offer."""

from __future__ import annotations

import datetime as dt

from uac.compile.offline import _assemble
from uac.dates import Period

from .conftest import facts_of


def _jobs(*sessions: tuple[dt.date, list[str]], speaker: str = "Sipho") -> list[dict]:
    facts = []
    for number, (day, lines) in enumerate(sessions, 1):
        for fact in facts_of(*lines, speaker=speaker, said_on=day):
            facts.append(fact.replace(id=f"s{number}-{fact.id.split('-')[1]}", session_id=f"s{number}"))
    _, assembled, _ = _assemble(facts)
    return sorted(
        ({k: a.fields.get(k) for k in ("employer", "role", "start", "end", "current")} for a in assembled["job"]),
        key=lambda j: (str(j["start"] or ""), str(j["employer"])),
    )


PROMOTED = (
    dt.date(2025, 11, 10),
    ["Work told me today I'm getting promoted to Senior Electrical Engineer from 1 December!!"],
)
OFFER = (dt.date(2026, 1, 22), ["Project engineer at Sunveld Energy starting 1 April."])
BOSS = (dt.date(2026, 1, 22), ["Now the hard part, telling my boss at Rockline."])


def test_a_promotion_told_before_the_workplace_is_a_new_title_there():
    jobs = _jobs(PROMOTED, (dt.date(2025, 12, 20), ["My boss at Rockline gave me Friday off."]))
    assert [(j["employer"], j["role"], j["current"]) for j in jobs] == [
        ("Rockline", None, False),
        ("Rockline", "Senior Electrical Engineer", True),
    ]
    assert jobs[0]["end"] == jobs[1]["start"] == Period.day(dt.date(2025, 12, 1))


def test_the_workplace_told_after_an_offer_starting_later_is_the_job_it_ends():
    later = (dt.date(2026, 5, 3), ["First month at the new job done!"])
    jobs = {(j["employer"], j["role"]): j for j in _jobs(PROMOTED, OFFER, BOSS, later)}
    senior = jobs[("Rockline", "Senior Electrical Engineer")]
    assert (senior["end"], senior["current"]) == (Period.day(dt.date(2026, 4, 1)), False)
    assert jobs[("Sunveld Energy", "project engineer")]["current"] is True
    # told before the new start has come, the old job is still the current one, ending then
    jobs = {(j["employer"], j["role"]): j for j in _jobs(PROMOTED, OFFER, BOSS)}
    assert jobs[("Rockline", "Senior Electrical Engineer")]["current"] is True


def test_a_title_won_with_no_employer_is_a_new_title_where_one_works_dated_by_its_start():
    jobs = _jobs(
        (dt.date(2026, 3, 1), ["I've been a senior data engineer at Lumenpay 4 years this March."]),
        (dt.date(2026, 7, 12), ["I got the lead data engineer role!!", "Still at Lumenpay, just more meetings lol."]),
        (dt.date(2026, 8, 19), ["I start as lead data engineer on the 1st and I need a 30/60/90 day plan."]),
        speaker="Daniel",
    )
    assert [(j["employer"], j["role"], j["current"]) for j in jobs] == [
        ("Lumenpay", "senior data engineer", False),
        ("Lumenpay", "lead data engineer", True),
    ]
    assert jobs[0]["end"] == jobs[1]["start"] == Period.day(dt.date(2026, 9, 1))


def test_a_title_won_that_was_applied_for_elsewhere_is_that_new_job():
    jobs = _jobs(
        (dt.date(2026, 3, 1), ["I've been a senior data engineer at Lumenpay 4 years this March."]),
        (dt.date(2026, 4, 2), ["I applied for a project lead role at Kestrel Grid."]),
        (dt.date(2026, 5, 2), ["I got the project lead role!!"]),
        speaker="Daniel",
    )
    assert {(j["employer"], j["role"], j["current"]) for j in jobs} == {
        ("Lumenpay", "senior data engineer", False),
        ("Kestrel Grid", "project lead", True),
    }


def test_a_job_told_without_its_subject_after_someone_elses_news_is_theirs():
    line = "Big news: Chi got the Manchester job!! Lead pharmacist at Wythenshawe Hospital, starting 1st March."
    assert _jobs((dt.date(2027, 1, 10), [line]), speaker="Daniel") == []
    # the speaker's own news, told the same way, stays theirs
    mine = "Big news: I got the Manchester job!! Lead pharmacist at Wythenshawe Hospital, starting 1st March."
    assert "Wythenshawe Hospital" in [j["employer"] for j in _jobs((dt.date(2027, 1, 10), [mine]), speaker="Daniel")]


def test_jobs_as_irish_english_tells_them():
    jobs = _jobs(
        (dt.date(2025, 7, 8), ["Six years in Hegarty's now and Saturdays never get easier lol."]),
        (
            dt.date(2025, 8, 27),
            ["Also big news maybe — my boss called me in Monday and offered me supervising pharmacist from October."],
        ),
        (dt.date(2026, 3, 5), ["O'Donovan's offered me the pharmacist manager role, start the 30th of March."]),
        speaker="Aoife",
    )
    assert [(j["employer"], j["role"], j["start"], j["current"]) for j in jobs] == [
        ("Hegarty", None, None, False),
        ("O'Donovan", "pharmacist manager", Period.day(dt.date(2026, 3, 30)), True),
        ("Hegarty", "supervising pharmacist", Period.month(2025, 10), False),
    ]
