"""Jobs: who someone works for, as what, from when to when, and whether they still do.

The employer statements are the ones the rule extractor reads to supersede an
old employer (:mod:`uac.extract.states`): "works at Acme as an analyst",
"is a nurse at St Mary Hospital", "started at Globex", "joined Hooli", "got a
job at Google as an engineer", "now works at Initech", "started a new job as a
counselor" (a role without an employer); an end with "is leaving Acme Corp",
"quit their job at the bank", "was laid off from Twitter", "lost their job as
a banker"; "worked at IBM" is a past job.  The subject must be the person:
"Sam's friend works at Initech" is no job of anyone's.  A bare "left X" is a
job's end only when ``X`` is already known as the person's employer.  Where no such statement is made, the speaker's job
named in passing counts (:mod:`.job_mentions`: "four years at Kestrel", an
offer accepted, "my last day at Acme", a promotion -- a new position at the same
employer, the one held ending then); an employer named in full elsewhere ("applied for a job at
Brightwater Energy") gives the record its full name.

Assembling, per person and in the order things were said: a start or a
present statement opens a job (or adds to the open one at the same employer);
a *change* (a start: "joined", "started at", "now works at") closes every other
open job of that person, its end the new job's start when the text dates it;
an end closes the job it names.  A job is ``current`` while nothing closed it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from ...dates import Period
from ...extract.states import read_employer, same_value
from . import job_cv, job_mentions, job_signs
from . import patterns as p
from .model import Assembled, Kind, Sighting

if TYPE_CHECKING:
    from ...facts.model import Fact

NAME = "job"


#: words without which no rule of this kind can match (a cheap first look)
CUE = re.compile(
    r"\b(?:work\w*|job|joined|start\w*|began|begins|hired|leaving|left|quit\w*|laid|fired|let\s+go|position|role|"
    r"resigned|retired|switched|moved|is\s+an?|been\s+an?|teach\w*|nurses|lectures|tutors|coaches|volunteer\w*)\b",
    re.I,
)


_SINCE = re.compile(
    r"\b(?:has|have)\s+been\s+(?:\w+ing|(?:a|an|the)\s+[\w\s-]{1,30}?)\s+(?:at|for|with)\b[^.;]*?\bsince\b", re.I
)


def detect(fact: "Fact") -> list[Sighting]:
    line = job_cv.cv_line(fact)
    if line is not None:
        return [_from_cv(fact, line)]
    out: list[Sighting] = []
    for clause in p.clauses(fact, CUE):
        if clause.group:
            continue
        statement = read_employer(clause.rest)
        if statement is None:
            continue
        period = p.when(fact)
        fields: dict[str, Any] = {
            "person": clause.person,
            "employer": statement.value,
            "role": statement.role,
            # "has been teaching at Sunflower since August 2023": the job's start
            "start": period if statement.event in ("start", "planned") or _SINCE.search(fact.text) else None,
            "end": period if statement.event == "end" else None,
            "_event": statement.event,
            "_weak": statement.weak,
        }
        key = f"{clause.person}|{(statement.value or '').lower()}"
        out.append(Sighting(NAME, fact.id, fields, key))
    # the jobs named in passing, where no statement named them ("last day at Halcyon 13 June, start at Lintas 1 July")
    named = {(s.fields.get("employer") or "").lower() for s in out}
    out.extend(s for s in _passing(fact) if not out or (s.fields["employer"] or "").lower() not in named | {""})
    past = job_cv.past_job(fact)
    if past is not None and past.employer.lower() not in {(s.fields.get("employer") or "").lower() for s in out}:
        # "since I joined konfío in march 2022, before that I was a junior designer at ogilvy from 2018 until feb 2022"
        out = [s for s in out if not _named_nothing(s)] + [_from_cv(fact, past)]
    if all(_named_nothing(s) for s in out):
        # nothing read but a name ("the assistant winemaker job at Boschendal" names it), or a job without
        # its employer ("handed my notice in at jimmys"): the described readers
        told = _described(fact)
        if any(s.fields["_event"] != "mention" for s in told):
            out = [*(s for s in out if s.fields.get("_event") == "mention"), *told]
        else:
            out = out or told
    return out


def _from_cv(fact: "Fact", line: "job_cv.CvLine | job_cv.PastJob") -> Sighting:
    """A job told as a CV line, held now from its start or past with its start and end, or told as
    past ("back when I was a yard hand at carters")."""
    fields: dict[str, Any] = {
        "person": fact.speaker,
        "employer": line.employer,
        "role": line.role,
        "start": line.start,
        "end": line.end,
        "_event": "start" if isinstance(line, job_cv.CvLine) and line.end is None else "past",
        "_weak": False,
    }
    return Sighting(NAME, fact.id, fields, f"{fact.speaker}|{line.employer.lower()}")


def _named_nothing(sighting: Sighting) -> bool:
    """A sighting that names an employer only, or a job without its employer or title."""
    fields = sighting.fields
    return fields.get("_event") == "mention" or (fields.get("employer") is None and fields.get("role") is None)


def _told(fact: "Fact", employer: str | None, role: str | None, event: str, **flags: Any) -> Sighting:
    """A sighting of the speaker's job, dated by the fact where it starts or ends there: by the
    date said right after its employer when there is one ("last day at Halcyon 13 June, start at
    Lintas 1 July": Lintas from 1 July), else by the fact's date."""
    period = _dated_after(fact, employer) or p.when(fact)
    fields: dict[str, Any] = {
        "person": fact.speaker,
        "employer": employer,
        "role": role,
        "start": period if event == "start" else None,
        "end": period if event == "end" else None,
        "_event": event,
        "_weak": False,
        **flags,
    }
    return Sighting(NAME, fact.id, fields, f"{fact.speaker}|{(employer or '').lower()}")


#: how far after an employer's name a date phrase may stand and still be that job's date
_DATE_NEAR = 25


def _dated_after(fact: "Fact", employer: str | None) -> Period | None:
    from ...extract.dates import find_relative_dates

    if not employer or fact.session_date is None:
        return None
    text = p.without_dates_written(fact.text)
    at = text.find(employer)
    if at < 0:
        return None
    end = at + len(employer)
    found = find_relative_dates(text, fact.session_date)  # read whole: each clause's tense directs its dates
    if len(found) < 2:
        return None  # one date at most: the fact's own
    near = [d for d in found if end <= d.start <= end + _DATE_NEAR]
    return near[0].period if near else None


def _passing(fact: "Fact") -> list[Sighting]:
    """The speaker's job named in passing (:mod:`.job_mentions`)."""
    out = []
    for mention in job_mentions.mentions(fact):
        flags: dict[str, Any] = {"_support": True} if mention.event == "mention" else {}
        if mention.since is not None:
            flags["_since"] = mention.since
        out.append(_told(fact, mention.employer, mention.role, mention.event, **flags))
    return out


def _described(fact: "Fact") -> list[Sighting]:
    """The speaker's jobs at employers described, not named (:mod:`.job_signs`)."""
    return [
        _told(fact, job.employer, None, job.event, _weak=job.bare, _bare=job.bare) for job in job_signs.described(fact)
    ]


def assemble(kind: Kind, sightings: list[Sighting], facts: dict[str, "Fact"]) -> list[Assembled]:
    jobs: list[dict[str, Any]] = []
    #: id of a job -> the session whose change (a new job) closed it
    closed_in: dict[int, str | None] = {}
    #: (person, employer, role) named where no job is told ("applied for a job at Brightwater Energy",
    #: "GIS analyst at Boland Spatial")
    names: list[tuple[str, str, str | None]] = []
    promoted: dict[str, tuple[dict[str, Any], "Fact"]] = {}  # person -> a promotion told before any job
    as_of = max((f.session_date for f in facts.values() if f.session_date is not None), default=None)

    def new(fields: dict[str, Any], fact: "Fact", is_open: bool) -> dict[str, Any]:
        record = {k: v for k, v in fields.items() if not k.startswith("_")}
        record.update(current=is_open, said_on=fact.session_date, sources=[fact.id])
        jobs.append(record)
        return record

    add = _add
    sightings = [s for s in sightings if not _after_someone_elses_news(facts.get(s.fact_id), facts)]
    for sighting, fact in p.in_order(sightings, facts):
        fields = sighting.fields
        person, event = fields["person"], fields["_event"]
        mine = [j for j in jobs if j["person"] == person]
        if event == "mention":
            names.append((person, fields["employer"], fields["role"]))
            continue
        if fields.get("_bare") and event != "end":
            resolved = _resolved(fields, [n for who, n, _ in names if who == person] + [j["employer"] for j in mine])
            if resolved is None:
                continue
            fields = resolved
        fields, event = _as_applied(fields, event, [(n, r) for who, n, r in names if who == person])
        employer = fields["employer"]
        if event == "end":
            target = _ended(mine, fields, closed_in, fact.session_id)
            if target is None:
                if not fields["_weak"] and (employer is not None or fields["role"] is not None):
                    new(fields, fact, False)
                continue
            add(target, fields, fact)
            target["end"] = fields["end"] or target["end"]
            target["current"] = False
            continue
        if event == "promotion":
            _promotion(mine, fields, fact, new, add, promoted)
            continue
        if event == "past":
            target = next((j for j in reversed(mine) if _matches(j, fields)), None)
            if target is None:
                new(fields, fact, False)
            else:
                add(target, fields, fact)
            continue
        target = next(
            (j for j in reversed(mine) if j["current"] and employer is not None and _matches(j, fields)), None
        )
        if target is not None:
            add(target, fields, fact)
        else:
            target = new(fields, fact, True)
            if event == "current":
                if person in promoted:  # a new title there, told before: the old one ended then
                    earlier, told_in = promoted.pop(person)
                    _promoted(target, {**earlier, "employer": target["employer"]}, told_in, new, add)
                    target = jobs[-1]  # the new position (or the job itself, the title added)
                _current_before(target, mine, fact, as_of)
        if event in ("start", "planned"):
            for job in mine:
                if job is not target and job["current"]:
                    job["current"] = False
                    closed_in[id(job)] = fact.session_id
                    if job["end"] is None:
                        job["end"] = fields["start"]
    for job in jobs:
        _named_in_full(job, [(n, r) for who, n, r in names if who == job["person"]])
    return [
        Assembled(kind.name, {k: v for k, v in job.items() if not k.startswith("_")}, list(job["sources"]))
        for job in jobs
    ]


#: someone else's new job told: "Chi got the Manchester job!!", "Tom accepted the offer"
_THEIR_NEWS = re.compile(
    rf"\b(?P<who>{p.CAPITALISED})\s+(?:finally\s+|just\s+)?(?:got|landed|accepted|took|was\s+offered|has\s+been\s+offered)\s+"
    r"(?:the|a|an|her|his|their)\b[^.;!?]{0,40}?\b(?:job|role|offer|position|post|promotion)\b"
)


def _after_someone_elses_news(fact: "Fact | None", facts: dict[str, "Fact"]) -> bool:
    """A sentence without its subject ("Lead pharmacist at Wythenshawe Hospital, starting 1st March")
    right after someone else's news of a job ("Chi got the Manchester job!!") is that person's job."""
    if fact is None or not fact.speaker or not fact.text.startswith(f"{fact.speaker} said: "):
        return False
    number = re.search(r"-f(\d+)$", fact.id)
    before = facts.get(f"{fact.id[: number.start()]}-f{int(number.group(1)) - 1}") if number else None
    if before is None or before.session_id != fact.session_id:
        return False
    news = _THEIR_NEWS.search(before.text)
    return news is not None and news.group("who") not in fact.speaker.split()


def _add(record: dict[str, Any], fields: dict[str, Any], fact: "Fact") -> None:
    """Fill the job's gaps from a sighting of it, and keep its source."""
    for name in ("employer", "role", "start", "end"):
        if record.get(name) is None and fields.get(name) is not None:
            record[name] = fields[name]
    if fact.id not in record["sources"]:
        record["sources"].append(fact.id)


def _as_applied(fields: dict[str, Any], event: str, named: list[tuple[str, str | None]]) -> tuple[dict[str, Any], str]:
    """A title won with no employer named ("I got the project engineer role!!") is the job the
    person named beside its employer before ("applied for a project engineer job at Sunveld"):
    a start there; any other stays a new title where they work."""
    role = fields.get("role")
    if event != "promotion" or fields.get("employer") is not None or not role:
        return fields, event
    employers = {n for n, r in named if r and same_value(r, role)}
    if len(employers) != 1:
        return fields, event
    return {**fields, "employer": employers.pop(), "_event": "start"}, "start"


def _promotion(
    mine: list[dict[str, Any]],
    fields: dict[str, Any],
    fact: "Fact",
    new: Any,
    add: Any,
    promoted: dict[str, tuple[dict[str, Any], "Fact"]],
) -> None:
    """A new title where the person works: the job named, else the current one; told before any
    job of theirs ("getting promoted to Senior Engineer"), kept in ``promoted`` for the workplace
    told later."""
    employer = fields["employer"]
    target = next((j for j in reversed(mine) if j["current"] and (employer is None or _matches(j, fields))), None)
    if target is None and employer is not None:
        target = new(fields, fact, True)
    if target is not None:
        _promoted(target, fields, fact, new, add)
    elif not mine and fields["role"]:
        promoted[fields["person"]] = (fields, fact)


def _current_before(job: dict[str, Any], mine: list[dict[str, Any]], fact: "Fact", as_of: Any) -> None:
    """A workplace told as the person's ("telling my boss at Rockline") after a new job was
    told to start later: it is the job the new one ends, over once that start has passed by
    the latest session (``as_of``)."""
    said = fact.session_date
    ahead = [
        j["start"]
        for j in mine
        if j["current"] and isinstance(j.get("start"), Period) and said is not None and j["start"].start > said
    ]
    if not ahead:
        return
    start = min(ahead, key=lambda period: period.start)
    job["end"] = job["end"] or start
    job["current"] = as_of is None or as_of < start.start


def _promoted(job: dict[str, Any], fields: dict[str, Any], fact: "Fact", new: Any, add: Any) -> None:
    """A new title at ``job``: a new position at the same employer from the day it was told,
    the old one ended then ("made principal" in January: project leader until then). A
    promotion told without its title, or to the title the job has, adds to the job."""
    role = fields["role"]
    first = not job.get("role") and job["sources"] == [fact.id]  # the job opened by this very promotion
    if not role or first or (job.get("role") and same_value(role, job["role"])):
        add(job, fields, fact)
        job["role"] = role or job["role"]
        since = fields.get("_since")
        if since is not None and job.get("_previous") is not None:
            # "I start as lead data engineer on the 1st", after "I got the lead role": the day it takes effect
            job["start"] = job["_previous"]["end"] = since
        return
    told = fields.get("_since") or p.when(fact) or (Period.day(fact.session_date) if fact.session_date else None)
    job["current"] = False
    job["end"] = job["end"] or told
    record = new({**fields, "employer": fields["employer"] or job["employer"], "start": told, "end": None}, fact, True)
    record["_previous"] = job


def _ended(
    mine: list[dict[str, Any]], fields: dict[str, Any], closed_in: dict[int, str | None], session: str
) -> dict[str, Any] | None:
    """The job an end names; "handing my notice in" (none named): the job a change in this
    session closed, else the current one."""
    target = next((j for j in reversed(mine) if _matches(j, fields)), None)
    if target is None and fields["employer"] is None and fields["role"] is None:
        target = next((j for j in reversed(mine) if closed_in.get(id(j)) == session), None)
        target = target or next((j for j in reversed(mine) if j["current"]), None)
    return target


def _matches(job: dict[str, Any], fields: dict[str, Any]) -> bool:
    """Whether the sighting's ``fields`` name ``job``: its employer, or its role where none is named."""
    employer = fields["employer"]
    if employer is not None and fields.get("_bare"):
        # "the practice": the job whose description holds the word ("practice in shawlands")
        return employer.lower() in str(job["employer"] or "").lower().split()
    if employer is not None:
        return same_value(job["employer"], employer) or _short_for(job["employer"], employer)
    return fields["role"] is not None and job["role"] == fields["role"]


def _resolved(fields: dict[str, Any], described: list[str | None]) -> dict[str, Any] | None:
    """A kind of workplace alone ("day 3 at the agency") as the employer described before it ("an
    agency in Polanco wants to interview me"); None where nothing was."""
    employer = _described_before(fields["employer"], described)
    return None if employer is None else {**fields, "employer": employer, "_bare": False}


def _described_before(kind_of_place: str, described: list[str | None]) -> str | None:
    """The last employer described with the word ("agency in Polanco" for "the agency")."""
    word = kind_of_place.lower()
    return next((d for d in reversed(described) if d and word in d.lower().split() and d.lower() != word), None)


def _named_in_full(job: dict[str, Any], named: list[tuple[str, str | None]]) -> None:
    """The job's employer as the person named it in full elsewhere, and the title said beside
    that name ("research assistant at SeaWatch Trust") when the job has none."""
    job["employer"] = _full_name(job["employer"], [name for name, _ in named])
    if job["role"] is None:
        titles = {role for name, role in named if role and same_value(name, job["employer"])}
        job["role"] = titles.pop() if len(titles) == 1 else None


def _short_for(one: str | None, other: str | None) -> bool:
    """ "Front Range" and "Front Range Health": one name the first words of the other."""
    if not one or not other:
        return False
    a, b = one.lower().split(), other.lower().split()
    short, full = (a, b) if len(a) <= len(b) else (b, a)
    return len(short) < len(full) and full[: len(short)] == short


def _full_name(employer: str | None, named: list[str]) -> str | None:
    """ "Brightwater" as the person named it in full elsewhere ("Brightwater Energy")."""
    if not employer:
        return employer
    longer = [n for n in named if n and n.lower().startswith(employer.lower() + " ")]
    return max(longer, key=len) if len(set(longer)) == 1 else employer


CLASS = p.record_class(
    "Job",
    {"employer": str, "person": str, "role": str, "start": Period, "end": Period, "current": bool},
    "A job someone holds or held (offline rules): employer, role, start, end, whether it is current.",
)
DESCRIPTION = "Jobs and work: who someone works for, their role, when they started or left, their current employer."
