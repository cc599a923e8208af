"""Jobs named in passing: tenure, an offer accepted, a promotion, leaving."""

from __future__ import annotations

import datetime as dt

import pytest

from uac.compile.kinds import assemble, detect, registry
from uac.dates import Period

from .conftest import facts_of

JOB = next(k for k in registry() if k.name == "job")


def _jobs(*sessions):
    facts = []
    for number, (day, lines) in enumerate(sessions, 1):
        for fact in facts_of(*lines, said_on=day):
            facts.append(fact.replace(id=f"s{number}-{fact.id.split('-')[1]}", session_id=f"s{number}"))
    return [a.fields for a in assemble(JOB, [s for f in facts for s in detect(f)], {f.id: f for f in facts})]


def _one(line: str) -> tuple:
    [job] = _jobs((dt.date(2024, 3, 4), [line]))
    return job["employer"], job["role"], job["current"]


@pytest.mark.parametrize(
    "line, expected",
    [
        ("Almost three years at Pellucid now and nobody has noticed my spreadsheets.", ("Pellucid", None, True)),
        ("ugh, my manager at Orrin Labs moved the deadline again", ("Orrin Labs", None, True)),
        ("ten days into Quillfeather and I already have a desk plant", ("Quillfeather", None, True)),
        ("I'm on 41k at Tallow and the rent keeps going up", ("Tallow", None, True)),
        ("Marrowby offered me the product designer role and I said yes!", ("Marrowby", "product designer", True)),
        ("I accepted the offer from Junco Health this morning.", ("Junco Health", None, True)),
        ("Pellucid promoted me to team lead.", ("Pellucid", "team lead", True)),
        ("Marina Crest offered me Staff Nurse in the ER!!!", ("Marina Crest", "staff Nurse in the ER", True)),
        ("Tallow offered me the lead role, starting in May.", ("Tallow", "lead role", True)),
        ("I've been a nurse at Noor Al Khaleej Hospital since 2019.", ("Noor Al Khaleej Hospital", "nurse", True)),
    ],
)
def test_a_job_named_in_passing(line, expected):
    assert _one(line) == expected


@pytest.mark.parametrize(
    "line",
    [
        "I applied for a job at Marrowby last week.",
        "A recruiter from Junco Health rang me about a role.",
        "Marrowby offered me the product designer role but I turned it down.",
        "Marrowby offered me a job. I said no.",
        "I turned Marrowby down.",
        "My brother's manager at Orrin Labs is awful.",
        "Tom's three years at Pellucid were rough.",
        "We spent two months at Lake Como.",
        "Is the interview at Quillfeather on Friday?",
    ],
)
def test_no_job_in_passing(line):
    assert _jobs((dt.date(2024, 3, 4), [line])) == []


def test_an_offer_accepted_closes_the_old_job_and_notice_ends_that_one():
    old, new = _jobs(
        (dt.date(2023, 9, 1), ["Nearly two years at Tallow and still no raise."]),
        (
            dt.date(2024, 3, 4),
            [
                "I interviewed at Marrowby Studio last week.",
                "Marrowby offered me the senior designer job and I took it, I start in May.",
                "handing my notice in tomorrow, wish me luck",
            ],
        ),
    )
    assert (old["employer"], old["current"]) == ("Tallow", False)
    assert (new["employer"], new["role"], new["current"]) == ("Marrowby Studio", "senior designer", True)
    assert new["start"] == Period.month(2024, 5)


def test_a_promotion_is_a_new_position_and_a_last_day_ends_it():
    before, after = _jobs(
        (dt.date(2023, 2, 1), ["Just over a year at Tallow, my team at Tallow is lovely."]),
        (dt.date(2023, 6, 1), ["I finally got the promotion!", "I was promoted to lead analyst."]),
        (dt.date(2023, 11, 6), ["My last day at Tallow is on Friday."]),
    )
    assert (before["employer"], before["role"], before["current"]) == ("Tallow", None, False)
    assert before["end"] == Period.day(dt.date(2023, 6, 1))
    assert (after["employer"], after["role"], after["current"]) == ("Tallow", "lead analyst", False)
    assert (after["start"], after["end"]) == (Period.day(dt.date(2023, 6, 1)), Period.day(dt.date(2023, 11, 10)))


@pytest.mark.parametrize(
    "lines",
    [
        ["I work at Halcyon as a project leader.", "And news: made principal!!"],
        ["I work at Halcyon as a project leader.", "I just made principal."],
    ],
)
def test_made_a_title_is_a_promotion_where_the_speaker_works(lines):
    before, after = _jobs((dt.date(2025, 1, 3), lines))
    assert (before["employer"], before["current"]) == ("Halcyon", False)
    assert (after["employer"], after["role"], after["current"]) == ("Halcyon", "principal", True)


@pytest.mark.parametrize("line", ["I made a manager cry today.", "We made lead pipes in shop class.", "made dinner"])
def test_made_without_a_title_is_no_promotion(line):
    assert _jobs((dt.date(2025, 1, 3), ["I work at Halcyon.", line])) == [
        _jobs((dt.date(2025, 1, 3), ["I work at Halcyon."]))[0]
    ]


def test_a_start_at_a_name_beside_a_last_day_is_the_next_job():
    old, new = _jobs(
        (dt.date(2025, 5, 18), ["I work at Halcyon.", "Last day at Halcyon 13 June, start at Lintas 1 July."]),
        (dt.date(2025, 7, 6), ["wk 1 at Lintas done."]),
    )
    assert (old["employer"], old["current"], old["end"]) == ("Halcyon", False, Period.day(dt.date(2025, 6, 13)))
    assert (new["employer"], new["current"]) == ("Lintas", True)
    assert new["start"] == Period.day(dt.date(2025, 7, 1))  # the date said after its name, not the fact's first
    assert len(new["sources"]) == 2


@pytest.mark.parametrize(
    "line, expected",
    [
        ("I squeeze in a swim between night shifts at Hollybrook most weeks.", ("Hollybrook", None, True)),
        ("Honestly the long shifts at Lakeside are wearing me down.", None),
        ("so three weeks at Tinmouth Labs and I still get lost in the car park", ("Tinmouth Labs", None, True)),
        (
            "Cobalt Freight, logistics coordinator, starting on the 3rd!",
            ("Cobalt Freight", "logistics coordinator", True),
        ),
        (
            "I said yes to Westbrook College, I'm teaching a night class there from September.",
            ("Westbrook College", None, True),
        ),
        # the auxiliary dropped, as people type it; a start told with its title first
        ("i been a paralegal at Harmon & Pruitt since march 2019", ("Harmon & Pruitt", "paralegal", True)),
        ("I only started as an instructor at SBB in May.", ("SBB", "instructor", True)),
        # an offer with the pay and a start date after the title is taken
        (
            "GIRL I GOT THE OFFER 😭 Crestline offered me contracts manager, 78k, start date nov 17.",
            ("Crestline", "contracts manager", True),
        ),
    ],
)
def test_a_job_told_as_people_tell_it_in_a_chat(line, expected):
    jobs = _jobs((dt.date(2024, 3, 4), [line]))
    if expected is None:
        # "the long shifts at ..." names no one: no subject, no job
        assert jobs == []
    else:
        assert [(j["employer"], j["role"], j["current"]) for j in jobs] == [expected]


def test_notice_given_at_a_job_named_like_a_town_ends_it():
    jobs = _jobs(
        (dt.date(2024, 1, 8), ["I've got 20 minutes between 12 hour shifts at Lakeside, so quick question."]),
        (dt.date(2024, 3, 4), ["I gave notice at Lakeside on Friday, last day is the 29th."]),
    )
    assert [(j["employer"], j["current"]) for j in jobs] == [("Lakeside", False)]
    assert jobs[0]["end"] is not None


@pytest.mark.parametrize(
    "line",
    [
        "I said yes to Priya, we're doing dinner on Friday.",
        "I covered Tom's shifts at Hollybrook last week.",
        "Priya gave notice at Cobalt Freight.",
    ],
)
def test_no_job_from_a_yes_or_shift_or_notice_of_someone_else(line):
    assert _jobs((dt.date(2024, 3, 4), [line])) == []


def test_a_job_named_short_later_is_the_same_job():
    jobs = _jobs(
        (dt.date(2024, 1, 8), ["Got it!! Cobalt Freight Logistics, logistics coordinator, starting on the 3rd."]),
        (dt.date(2024, 2, 20), ["ok two weeks at Cobalt Freight and I love it."]),
    )
    assert [(j["employer"], j["current"]) for j in jobs] == [("Cobalt Freight Logistics", True)]


@pytest.mark.parametrize(
    "line, expected",
    [
        # the verbs of a trade, tenure said the other way round, the news as a list with "start"
        ("I teach at Merri Creek Secondary, they're good kids.", ("Merri Creek Secondary", None, True)),
        ("I've been at Merri Creek 8 years. Is this mad?", ("Merri Creek", None, True)),
        (
            "Kontor Systems, senior backend developer, start 4 November.",
            ("Kontor Systems", "senior backend developer", True),
        ),
        ("Nine years with Halden Freight and my manager still can't spell my name.", ("Halden Freight", None, True)),
    ],
)
def test_a_job_said_with_a_trade_or_tenure(line, expected):
    assert _one(line) == expected


@pytest.mark.parametrize(
    "line",
    [
        "Head of Maths, starting term 1 next year.",
        "5 years with Mira yesterday 🥹 we went out for dinner.",
        "My sister teaches at Merri Creek Secondary.",
    ],
)
def test_no_job_from_a_title_a_partner_or_someone_else(line):
    assert _jobs((dt.date(2024, 3, 4), [line])) == []


def test_a_title_at_a_name_names_the_job_a_last_day_ends():
    jobs = _jobs(
        (dt.date(2024, 8, 4), ["GOT THE JOB.", "research assistant at SeaWatch Trust, the kelp monitoring project!!"]),
        (dt.date(2025, 2, 16), ["last day at SeaWatch is the 28th."]),
    )
    assert [(j["employer"], j["role"], j["current"]) for j in jobs] == [("SeaWatch Trust", "research assistant", False)]


def test_a_title_at_a_name_gives_the_full_name_of_a_job_started():
    jobs = _jobs(
        (dt.date(2025, 1, 6), ["GIS analyst at Boland Spatial in Stellenbosch, full time."]),
        (dt.date(2025, 3, 12), ["started at Boland on the Monday after.", "first day at Kestrel is a blur"]),
    )
    assert [(j["employer"], j["role"]) for j in jobs] == [("Boland Spatial", "GIS analyst"), ("Kestrel", None)]


@pytest.mark.parametrize(
    "line",
    [
        "research assistant at SeaWatch Trust, the kelp monitoring project!!",  # a title alone: no job
        "My brother is a nurse at St Mary's.",
        "Tom's last day at Acme is Friday.",
    ],
)
def test_no_job_from_a_title_alone_or_someone_elses_last_day(line):
    assert _jobs((dt.date(2024, 3, 4), [line])) == []


@pytest.mark.parametrize(
    "line, expected",
    [
        ("I've been offered a position at Ahus and I accepted.", ("Ahus", None, True)),
        ("I'm the sous chef at Bell Street now.", ("Bell Street", "sous chef", True)),
        ("I've been teaching at Scoil Mhuire for six years.", ("Scoil Mhuire", None, True)),
        ("Handed in my notice at Wipro today.", ("Wipro", None, False)),
    ],
)
def test_more_ways_chats_tell_a_job(line, expected):
    assert _one(line) == expected


@pytest.mark.parametrize(
    "line",
    ["I've been offered a job at Google but I said no.", "My sister is a nurse at Ahus.", "made dinner at Bell Street"],
)
def test_an_offer_turned_down_or_someone_elses_job_is_no_job(line):
    assert _jobs((dt.date(2024, 3, 4), [line])) == []


def test_a_title_then_its_employer_by_town_then_a_start_is_a_job_starting():
    [job] = _jobs((dt.date(2025, 3, 23), ["Senior Lecturer in Early Modern History, York, starting 1st September."]))
    assert (job["employer"], job["start"], job["current"]) == ("York", Period("2025-09-01"), True)
    assert _jobs((dt.date(2025, 3, 23), ["Lisbon, York, starting to feel like home."])) == []


def test_a_title_at_its_employer_with_a_start_date_told_in_passing():
    line = "galway rang friday evening, deputy principal in Coláiste Ard Mhuire, start date monday 25th of august."
    [job] = _jobs((dt.date(2025, 4, 29), [line]))
    assert (job["employer"], job["role"], job["start"]) == (
        "Coláiste Ard Mhuire",
        "deputy principal",
        Period("2025-08-25"),
    )
    assert _jobs((dt.date(2025, 4, 29), ["my sister is a nurse in Dublin, start of her shift at 7"])) == []


def test_the_employer_first_with_a_capitalised_title_and_a_team_lunch_at_an_eatery():
    [job] = _jobs((dt.date(2025, 5, 2), ["THEY OFFERED ME!!! Savannah Crest, Finance Manager, start date 1st July."]))
    assert (job["employer"], job["start"]) == ("Savannah Crest", Period("2025-07-01"))
    lunch = "Funny enough I had lunch with my team at Calabar Kitchen on Herbert Macaulay on Wednesday."
    assert _jobs((dt.date(2025, 5, 2), [lunch])) == []


def _jobs_over(*sessions):
    from uac.compile.offline import _assemble

    facts = []
    for number, (day, line) in enumerate(sessions, 1):
        for fact in facts_of(line, said_on=day):
            facts.append(fact.replace(id=f"s{number}-{fact.id.split('-')[1]}", session_id=f"s{number}"))
    _, assembled, _ = _assemble(facts)
    return sorted((a.fields["employer"], a.fields.get("role"), a.fields["current"]) for a in assembled["job"])


@pytest.mark.parametrize(
    "news",
    [
        "I got promoted to Associate Producer, starting Feb 2!",
        "big news: promoted to associate producer from feb 2!!",
        "they confirmed me and from February 2nd my title is Associate Producer, with a small raise.",
    ],
)
def test_a_promotion_to_a_title_in_capitals_or_told_as_a_title(news):
    found = _jobs_over((dt.date(2025, 3, 6), "I work as a QA lead at Pixelnest."), (dt.date(2026, 1, 20), news))
    assert sorted((e, (r or "").lower(), c) for e, r, c in found) == [
        ("Pixelnest", "associate producer", True),
        ("Pixelnest", "qa lead", False),
    ]


def test_the_subject_goes_on_after_and_before_a_verb_whose_rules_need_it():
    from uac.compile.kinds.patterns import carry_subject

    assert carry_subject("Sam moved on the 25th and started at Kumo Creative.") == (
        "Sam moved on the 25th and Sam started at Kumo Creative."
    )
    assert carry_subject("Sam met Ana and she bought a car.") == "Sam met Ana and she bought a car."
    assert carry_subject("Sam took your advice and joined the pool at a gym.") == (
        "Sam took your advice and joined the pool at a gym."
    )


@pytest.mark.parametrize(
    "news, role",
    [
        ("I got promoted!!!!! team lead, it started last Monday, I'm over 6 coordinators now.", "team lead"),
        ("abi i got promoted!!! mobile team lead since monday. 4 people under me", "mobile team lead"),
    ],
)
def test_a_title_told_alone_after_the_news_of_a_promotion(news, role):
    before, after = _jobs(
        (dt.date(2025, 6, 11), ["I started at Prairie Logistics on Monday as a logistics coordinator."]),
        (dt.date(2025, 11, 11), [news]),
    )
    assert (before["employer"], before["current"]) == ("Prairie Logistics", False)
    assert (after["employer"], after["role"], after["current"]) == ("Prairie Logistics", role, True)


def test_a_title_and_a_time_without_a_job_of_the_speaker_is_nothing():
    assert _jobs((dt.date(2025, 11, 11), ["team lead since monday, lol"])) == []


@pytest.mark.parametrize(
    "news, role, since",
    [
        (
            "My boss called me in on Friday, I'm being promoted to Shift Supervisor from 1st September!",
            "Shift Supervisor",
            Period.day(dt.date(2025, 9, 1)),
        ),
        ("ok news: i'm getting promoted to associate producer, starts feb 2.", "associate producer", None),
        ("Turns out I'll be promoted to senior designer from October 1!!", "senior designer", None),
        ("From 1 october I'm project lead, with a small raise.", "project lead", None),
        ("senior UX designer from october 1st!!", "senior UX designer", None),
    ],
)
def test_a_promotion_told_ahead_starts_on_the_day_it_takes_effect(news, role, since):
    said = dt.date(2025, 8, 26)
    before, after = _jobs(
        (dt.date(2025, 2, 3), ["I work as a UX designer at Kestrel Freight."]),
        (said, [news]),
    )
    told = [d for d in (since,) if d] or [after["start"]]
    assert after["start"] == told[0] and after["start"].start > said  # the day it takes effect, not the day said
    assert (before["employer"], before["current"], before["end"]) == ("Kestrel Freight", False, after["start"])
    assert (after["employer"], after["role"], after["current"]) == ("Kestrel Freight", role, True)


@pytest.mark.parametrize(
    "news, role",
    [
        ("I'M A CHARGE NURSE NOW!!!! can't believe it", "charge nurse"),
        ("I'm now the team lead on nights, six people under me.", "team lead"),
        ("so yeah I'm officially the deputy manager now lol", "deputy manager"),
    ],
)
def test_a_new_title_told_as_what_the_speaker_is_now(news, role):
    before, after = _jobs(
        (dt.date(2025, 2, 3), ["I work as a staff nurse at Marina Crest Hospital."]),
        (dt.date(2025, 4, 6), [news]),
    )
    assert (before["role"], before["current"]) == ("staff nurse", False)
    assert (after["employer"], after["role"], after["current"]) == ("Marina Crest Hospital", role, True)


@pytest.mark.parametrize(
    "line",
    [
        "I'm a nurse and I love it.",
        "my sister is a manager now, she loves it.",
        "I'm the lead singer now in Ana's band.",
        "Am I a manager now?",
        "From what Ana said, I'm the lead on this one.",
    ],
)
def test_no_new_title_from_what_someone_is_or_a_question(line):
    jobs = _jobs(
        (dt.date(2025, 2, 3), ["I work as a staff nurse at Marina Crest Hospital."]),
        (dt.date(2025, 4, 6), [line]),
    )
    assert [(j["role"], j["current"]) for j in jobs] == [("staff nurse", True)]


def test_a_job_held_since_a_month_in_lower_case_starts_then():
    [job] = _jobs((dt.date(2025, 7, 27), ["i been a paralegal at Harmon & Pruitt here in East Point since march 2019"]))
    assert job["start"] == Period.month(2019, 3)


def test_someone_else_who_started_as_a_title_has_no_job_of_the_speakers():
    assert _jobs((dt.date(2025, 7, 27), ["She started as a nurse at Mercy in May."])) == []


def test_a_rank_of_a_field_at_its_employer_with_a_start_is_a_job_starting():
    line = "Head of Geography at Llandaff Vale High School, starting 1st September."
    [job] = _jobs((dt.date(2026, 3, 22), [line]))
    assert (job["employer"], job["role"].lower(), job["start"]) == (
        "Llandaff Vale High School",
        "head of geography",
        Period("2026-09-01"),
    )
    # an advert is no job
    assert (
        _jobs(
            (
                dt.date(2026, 1, 11),
                ["There's a Head of Geography advertised at Llandaff Vale High, closing date the 30th."],
            )
        )
        == []
    )
