"""The answer prompt says which facts STATE does not represent, and a question that matches
no domain still gets every domain's description."""

from __future__ import annotations

import pytest

from uac.answer.state_view import build_state_channel
from uac.llm.rule_model.request import block, block_text
from uac.memory import UserMemory

from .test_state_view import make_project

pytestmark = pytest.mark.embeddings

#: the offline rules make a trip record of the first; the gazetteer knows none of the other places
TRIPS = (
    "We got back from Lisbon on Sunday.",
    "We went to Zorblat Falls last week.",
    "We went to Quxville in May.",
    "We went to Blorpton Springs in April.",
)


@pytest.fixture
def four_trips(tmp_path, scripted_llm):
    memory = UserMemory.create(tmp_path / "sam", user_name="Sam", llm=scripted_llm)
    memory.add_session(
        {"date": "2024-06-03", "messages": [{"role": "user", "content": t} for t in TRIPS]}, extractor="rules"
    )
    memory.compile(mode="offline")
    yield memory
    memory.close()


def test_the_prompt_marks_the_facts_no_record_holds(four_trips, scripted):
    scripted.enqueue("Four trips.")
    answer = four_trips.ask("How many trips did I take?", tool_mode="off", top_archive=0)
    system, context = (m.content for m in scripted.requests[0].messages[:2])
    state = block_text(context, "state")
    assert state.startswith("# Facts no typed record below holds (at most a timeline entry), by domain: travel 3.")
    facts = block(context, "facts")
    marked = [line for line in facts if "| not in STATE]" in line]
    assert len(marked) == 3 and not any("Lisbon" in line for line in marked)
    assert any("Lisbon" in line and "not in STATE" not in line for line in facts)
    assert 'A fact marked "not in STATE" is in no typed record' in system
    assert [item.to_json()["in_state"] for item in answer.facts if "Lisbon" not in item.text] == [False] * 3
    # what it costs: one line in STATE, 15 characters per marked fact, one sentence in the system prompt
    assert len(state.splitlines()[0]) < 160


def test_nothing_is_marked_when_every_fact_is_in_a_record(tmp_path, scripted_llm, scripted):
    memory = UserMemory.create(tmp_path / "sam", user_name="Sam", llm=scripted_llm)
    memory.add_session({"date": "2024-06-03", "messages": [{"role": "user", "content": TRIPS[0]}]}, extractor="rules")
    memory.compile(mode="offline")
    scripted.enqueue("One trip.")
    memory.ask("How many trips did I take?", tool_mode="off", top_archive=0)
    system, context = (m.content for m in scripted.requests[0].messages[:2])
    assert "not in STATE" not in context and "not in STATE" not in system
    memory.close()


CAREER_SCHEMA = '''"""Where Sam has worked: employers, roles and when each job began and ended; the job search."""
from dataclasses import dataclass, field


@dataclass
class Job:
    """One job."""
    employer: str
    role: str
    sources: list[str] = field(default_factory=list)
'''
CAREER_STATE = (
    "from .schema import Job\n\njobs: list[Job] = [\n"
    + "".join(f'    Job(employer="Employer {i}", role="Role {i}", sources=["f{i}"]),\n' for i in range(40))
    + "]\n"
)


def test_a_question_matching_no_domain_gets_the_manifest_and_the_descriptions(tmp_path):
    root = make_project(tmp_path, {"career": (CAREER_SCHEMA, CAREER_STATE, "jobs (40 × Job)")})
    channel = build_state_channel(root, "Where was I in March 2023?", loading="modular", budget=1_000)
    assert channel.domains == []
    assert "- career: jobs (40 × Job)" in channel.text
    assert "Where Sam has worked: employers, roles and when each job began and ended; the job search." in channel.text
    assert "classes: Job(employer, role)" in channel.text
    assert not channel.truncated
    # "working" meets the description's "worked": that question finds its domain
    assert build_state_channel(root, "Where was I working in March 2023?", loading="modular", budget=1_000).domains == [
        "career"
    ]


def test_a_fact_one_domain_left_out_that_another_records_is_no_gap(four_trips):
    """A fact routed to two domains, recorded in one and left out of the other, is in STATE:
    STATE's opening line counts it nowhere, as FACTS marks it nowhere."""
    from uac.answer.gaps import view_gaps
    from uac.compile.ledger import EMPTY_STATE_HASH, Ledger, save_ledger

    (lisbon,) = [f.id for f in four_trips.facts() if "Lisbon" in f.text]
    ledger = Ledger("hobbies", considered={lisbon: "the trip is recorded in travel"})
    save_ledger(four_trips.project.paths.internal, ledger, EMPTY_STATE_HASH)
    gaps = view_gaps(four_trips.context, None)
    assert gaps.per_domain == {"hobbies": 0, "travel": 3}
    assert lisbon not in gaps.unrepresented and len(gaps.unrepresented) == 3
