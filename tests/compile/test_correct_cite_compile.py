"""``correct`` and ``cite`` through a whole compile, with replies written the way models
answer: reasoning and prose around a fenced reply, a correction of a field the record lacks
(refused in the repair with the fields it has, the rest of the batch kept), sources as a
string where a list is expected."""

from __future__ import annotations

import datetime as dt
import json

from uac.facts.log import FactLog
from uac.facts.model import Fact

from .helpers import domain_of_prompt, handler_for, prompt_of, records

DAY = dt.date(2023, 1, 5)


def test_a_correction_and_a_citation_settle_their_facts_and_keep_the_record(scripted_memory, scripted):
    memory = scripted_memory
    log = FactLog(memory.project.paths.facts)
    oslo = Fact("s1-f1", "Alice flew to Oslo for a conference.", "s1", DAY, speaker="Alice")
    with memory.project.lock("test"):
        log.append_session("s1", [oslo])
    scripted.handler = handler_for(lambda _i: "travel")
    memory.compile()
    (trip,) = memory.state["travel"]["trips"]
    assert trip.start_date == DAY
    later = dt.date(2023, 2, 1)
    fixed = Fact("s2-f1", "Alice's Oslo flight was on 6 January 2023, not 5 January.", "s2", later, speaker="Alice")
    liked = Fact("s2-f2", "Alice enjoyed the Oslo conference talks.", "s2", later, speaker="Alice")
    with memory.project.lock("test"):
        log.append_session("s2", [fixed, liked])
    replies = iter(
        [
            "<think>s2-f1 corrects the day; s2-f2 supports the trip.</think>\nSure, here are the operations:\n```json\n"
            + json.dumps(
                {
                    "operations": [
                        {"op": "correct", "id": "trip-1", "set": {"day": "2023-01-06"}, "sources": ["s2-f1"]},
                        {"op": "cite", "id": "trip-1", "sources": "s2-f2"},
                    ]
                }
            )
            + "\n```\nLet me know if anything is off.",
            json.dumps(
                {
                    "operations": [
                        {
                            "op": "correct",
                            "id": "trip-1",
                            "set": {"start_date": "2023-01-06"},
                            "sources": ["s2-f1"],
                            "note": "6 January, not 5",
                        }
                    ]
                }
            ),
        ]
    )

    def scripted_ops(request, reply):
        return {"content": next(replies)} if domain_of_prompt(prompt_of(request)) else reply

    scripted.handler = handler_for(lambda _i: "travel", wrap=scripted_ops)
    scripted.requests.clear()
    report = memory.compile()
    entry = report.domain("travel")
    assert entry.to_json()["facts"] == {"recorded": 3, "considered": 0, "pending": 0} and entry.repair_rounds == 1
    repair = scripted.requests[-1].messages[-1].content
    assert "operation 1 (correct trip-1): correct names no field 'day' of trip-1" in repair
    assert "fields destination, start_date, traveller" in repair
    assert "s2-f2" not in repair.split("(Operation numbers")[0]  # the cite was applied: its fact is addressed
    assert '{"id": "trip-1", "class": "Trip"' in repair.split("## The domain now")[1]  # the cited record, as it is now
    (trip,) = records(memory, "travel")
    assert trip.id == "trip-1" and trip.start_date == dt.date(2023, 1, 6) and trip.destination == "Oslo"
    assert trip.sources == ["s1-f1", "s2-f2", "s2-f1"]  # both statements of the day kept, the citation too
    assert "corrected by s2-f1: start_date was 2023-01-05" in trip.notes and "6 January, not 5" in trip.notes
