"""Employer and home changes supersede the old fact in the rules extractor."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from uac.extract.rules import RuleExtractor
from uac.extract.states import read_employer, read_home, same_value
from uac.facts.model import Fact
from uac.sessions.model import Session, Turn


def session(sid: str, day: dt.date, *lines: str, speaker: str = "Sam") -> Session:
    listener = "Sam" if speaker == "Ana" else "Ana"
    turns = [Turn(f"{sid}:0", listener, "Hi!")] + [Turn(f"{sid}:{i}", speaker, line) for i, line in enumerate(lines, 1)]
    return Session(sid, day, day.isoformat(), tuple(turns))


def run(*sessions: Session) -> list[Fact]:
    """Extract each session seeing the valid facts before it, as ingest does."""
    log: dict[str, Fact] = {}
    for s in sessions:
        known = [f for f in log.values() if f.invalid_at is None]
        for number, item in enumerate(RuleExtractor().extract(s, known), 1):
            fact = Fact(
                f"{s.session_id}-f{number}",
                item.text,
                s.session_id,
                s.date,
                item.evidence,
                item.speaker,
                item.event_date,
                valid_from=s.date,
                meta=item.meta,
            )
            log[fact.id] = fact
            if item.supersedes in log:
                log[item.supersedes] = log[item.supersedes].replace(invalid_at=s.date, superseded_by=fact.id)
    return list(log.values())


def valid_texts(facts: list[Fact]) -> list[str]:
    return [f.text for f in facts if f.invalid_at is None]


D1, D2, D3 = dt.date(2023, 1, 5), dt.date(2023, 3, 5), dt.date(2023, 6, 5)


@pytest.mark.parametrize(
    "change",
    [
        "I now work at Initech.",
        "I started at Initech last week.",
        "I joined Initech as a designer.",
        "I got a job at Initech.",
    ],
)
def test_a_new_employer_supersedes_the_old(change):
    facts = run(session("a", D1, "I work at Acme."), session("b", D2, change))
    [old] = [f for f in facts if f.text == "Sam works at Acme."]
    assert old.invalid_at == D2 and old.superseded_by.startswith("b-")
    assert old.meta["state"] == "employer"


def test_leaving_then_a_new_job_chains():
    facts = run(
        session("a", D1, "I work at Acme."),
        session("b", D2, "I'm leaving Acme Corp."),
        session("c", D3, "I now work at Initech."),
    )
    assert valid_texts(facts) == ["Sam now works at Initech."]


def test_in_one_session():
    facts = run(session("a", D1, "I'm leaving Acme Corp.", "I now work at Initech as a designer."))
    [leaving] = [f for f in facts if "leaving" in f.text]
    assert leaving.superseded_by == "a-f2"


@pytest.mark.parametrize(
    "mention",
    [
        "My friend works at Initech.",
        "I work at Acme.",  # the same employer said again
        "I'm going to start at Initech next month.",  # a plan
        "I worked at Initech years ago.",  # the past
        "Does Initech pay well?",
    ],
)
def test_mentions_do_not_supersede(mention):
    facts = run(session("a", D1, "I work at Acme."), session("b", D2, mention))
    assert "Sam works at Acme." in valid_texts(facts)


def test_left_a_city_is_not_leaving_a_job():
    facts = run(
        session("a", D1, "I work at Acme."),
        session("b", D2, "I left Lisbon yesterday."),
        session("c", D3, "I work at Globex."),
    )
    assert "Sam works at Acme." in valid_texts(facts)  # "works at" alone is no change


def test_the_listeners_statement_is_not_the_speakers_state():
    facts = run(session("a", D1, "I work at Acme."), session("b", D2, "I now work at Initech.", speaker="Ana"))
    assert "Sam works at Acme." in valid_texts(facts)


@pytest.mark.parametrize(
    "change", ["I moved to Berlin last month.", "We live in Berlin now.", "We relocated to Berlin."]
)
def test_a_move_supersedes_the_old_home(change):
    facts = run(session("a", D1, "I live in Lisbon."), session("b", D2, change))
    [old] = [f for f in facts if f.text == "Sam lives in Lisbon."]
    assert old.invalid_at == D2
    [new] = [f for f in facts if f.id == old.superseded_by]
    assert new.meta["state"] == "home" and new.meta["state_value"] == "Berlin"


def test_a_planned_move_does_not():
    facts = run(session("a", D1, "I live in Lisbon."), session("b", D2, "I'm moving to Berlin next month."))
    assert "Sam lives in Lisbon." in valid_texts(facts)


def test_earlier_facts_without_state_keys_are_read_from_their_text():
    old = Fact("x-f1", "Sam works at Acme.", "x", D1, ("x:1",), "Sam", valid_from=D1)
    [item] = RuleExtractor().extract(session("b", D2, "I joined Initech."), [old])
    assert item.supersedes == "x-f1"


def test_readers():
    assert read_employer("now works at Initech as a designer.").event == "start"
    assert read_employer("is leaving Lisbon.").weak
    assert not read_employer("is leaving Acme Corp.").weak
    assert read_home("lives in Lisbon now.").event == "start"
    assert read_home("lives in a small flat.") is None
    assert same_value("Acme", "Acme Corp") and not same_value("Acme", "Initech")


_ORG = st.from_regex(r"[A-Z][a-z]{2,8}(?: (?:Corp|Labs|Inc))?", fullmatch=True).filter(
    lambda w: w.split()[0].lower() not in ("sam", "ana", "may", "march", "june", "july", "august", "the", "mom", "dad")
)


@settings(max_examples=40, deadline=None)
@given(old=_ORG, new=_ORG, verb=st.sampled_from(["I now work at", "I started at", "I joined", "I got a job at"]))
def test_any_new_employer_supersedes_any_other(old, new, verb):
    facts = run(session("a", D1, f"I work at {old}."), session("b", D2, f"{verb} {new}."))
    [first] = [f for f in facts if f.session_id == "a"]
    if same_value(old, new):
        assert first.invalid_at is None
    else:
        assert first.invalid_at == D2
        [second] = [f for f in facts if f.session_id == "b"]
        assert second.meta["state_value"] == new


@settings(max_examples=40, deadline=None)
@given(org=_ORG, who=st.sampled_from(["My friend", "My sister", "Ana's boss", "His brother"]))
def test_someone_elses_job_never_supersedes(org, who):
    facts = run(session("a", D1, "I work at Acme."), session("b", D2, f"{who} now works at {org}."))
    assert "Sam works at Acme." in valid_texts(facts)


def test_ingest_supersedes_a_state_said_many_sessions_before(tmp_path):
    """Ingest does not fold the log: the saved log summary keeps the facts that record a
    state, so an employer said sessions (and process restarts) ago is still closed."""
    import json

    from uac.memory import UserMemory

    root = tmp_path / "sam"
    UserMemory.create(root, user_name="Sam").close()

    def chat(number: int, day: str, line: str) -> Path:
        path = tmp_path / f"chat{number}.json"
        path.write_text(
            json.dumps(
                {
                    "date": day,
                    "messages": [
                        {"role": "user", "name": "Ana", "content": "How are things?"},
                        {"role": "user", "name": "Sam", "content": line},
                    ],
                }
            ),
            "utf-8",
        )
        return path

    lines = [
        "I work at Acme Corp.",
        "I went hiking on Sunday.",
        "I baked bread.",
        "I read a novel.",
        "I now work at Initech as a designer.",
    ]
    for number, line in enumerate(lines):
        memory = UserMemory.open(root)  # a new process each time: nothing kept in memory
        memory.ingest(chat(number, f"2024-0{number + 1}-10", line), format="messages", extractor="rules")
        memory.close()
    facts = UserMemory.open(root).facts(include_superseded=True)
    [acme] = [f for f in facts if "Acme" in f.text]
    [initech] = [f for f in facts if "Initech" in f.text]
    assert acme.invalid_at == dt.date(2024, 5, 10) and acme.superseded_by == initech.id
    assert initech.invalid_at is None


_LEADS = [
    "will start at",
    "is starting work with",
    "starts a new job at",
    "started at",
    "began working for",
    "started her new job at",
    "started a job as a nurse at",
    "joined",
    "got a job at",
    "landed a new position with",
    "accepted the offer from",
    "got a job as a designer",
    "was hired by",
    "switched jobs to",
    "moved to",
    "now works at",
    "works for",
    "is working at",
    "works as a designer at",
    "is a nurse at",
    "used to work at",
    "worked for",
    "quit her job at",
    "left their job as a chef",
    "resigned from",
    "retired from",
    "was laid off from",
    "got fired by",
    "is leaving",
    "is moving on from",
    "is moving to",
    "wants to relocate to",
    "relocated to",
    "moved into a new flat in",
    "settled down in",
    "now lives in",
    "lives in",
    "has been living in",
    "used to live in",
    "lived in",
    "went to",
    "is happy at",
    "loves working",
]
_AFTER = ["Acme", "Initech Corp", "Rio de Janeiro", "Lisbon", "a bakery", "the local hospital", "Sam's", "her", ""]
_TAIL = ["", " as a designer", " for a trip", " now", " last year", " and others", " with Ana"]


@settings(max_examples=400, deadline=None)
@given(
    adverb=st.sampled_from(["", "finally ", "really ", "happily ", "also "]),
    lead=st.sampled_from(_LEADS),
    after=st.sampled_from(_AFTER),
    tail=st.sampled_from(_TAIL),
    gap=st.sampled_from([" ", "  ", "\t", "\n "]),
)
def test_the_key_words_only_skip_patterns_that_cannot_match(adverb, lead, after, tail, gap):
    """Every statement pattern is tried only when one of its key words is in the
    text; the keys must be words any match contains, so the answers are those of
    trying every pattern."""
    import re

    from uac.extract import states

    rest = (adverb + lead).replace(" ", gap) + (" " + after if after else "") + tail + "."
    lowered = states._words(rest)
    for rule, *_ in states._EMPLOYER + states._HOME:
        eager = re.compile(rf"^{states._ADVERBS}{rule.body}").match(rest)
        gated = rule.match(rest, lowered)
        assert (eager.group(0) if eager else None) == (gated.group(0) if gated else None), (rule.keys, rest)
