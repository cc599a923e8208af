"""The LLM extractor with the scripted model: prompt, validation, repair, windows."""

from __future__ import annotations

import datetime as dt

import pytest

from uac.extract.llm import LLMExtractor, make_windows
from uac.facts.model import Fact
from uac.sessions import load_sessions
from uac.sessions.model import Session, Turn


@pytest.fixture
def session(locomo_file) -> Session:
    return load_sessions(locomo_file, sample_id="conv-t1")[0]


def good_answer():
    return {
        "facts": [
            {
                "text": "Caroline went to an LGBTQ support group on 7 May 2023.",
                "evidence": ["D1:3"],
                "event_date": "2023-05-07",
                "supersedes": None,
                "speaker": "Caroline",
            },
            {
                "text": "Melanie painted a lake sunrise in 2022.",
                "evidence": ["D1:4"],
                "event_date": None,
                "supersedes": None,
                "speaker": "Melanie",
            },
        ]
    }


def test_prompt_and_parsed_facts(scripted, scripted_llm, session):
    scripted.enqueue({"json": good_answer()})
    facts = LLMExtractor(scripted_llm).extract(session)
    assert [f.evidence for f in facts] == [("D1:3",), ("D1:4",)]
    assert facts[0].event_date == dt.date(2023, 5, 7)
    prompt = scripted.requests[0].messages[-1].content
    assert '"date": "2023-05-08", "date_as_written": "1:56 pm on 8 May, 2023"' in prompt
    assert "[D1:4] Melanie: Wow! I painted that lake sunrise last year. [image: a photo of a painting" in prompt
    assert scripted.requests[0].json_schema is not None


def test_invalid_evidence_gets_one_repair_round(scripted, scripted_llm, session):
    bad = good_answer()
    bad["facts"][0]["evidence"] = ["D9:9"]
    scripted.enqueue({"json": bad}, {"json": good_answer()})
    facts = LLMExtractor(scripted_llm).extract(session)
    assert len(facts) == 2
    repair = scripted.requests[1].messages[-1].content
    assert "D9:9" in repair and "not turns of this excerpt" in repair


def test_twice_unusable_falls_back_to_the_rules_for_that_window(scripted, scripted_llm, session):
    scripted.enqueue("not json at all", {"json": {"facts": [{"text": "", "evidence": []}]}})
    extractor = LLMExtractor(scripted_llm)
    facts = extractor.extract(session)
    assert facts and all(f.meta["extractor"] == "rules" for f in facts)
    assert all("unusable" in f.meta["fallback"] for f in facts)
    assert {e for f in facts for e in f.evidence} <= {"D1:1", "D1:2", "D1:3", "D1:4", "D1:5"}
    stats = extractor.stats.to_json()
    assert stats["windows_fallback"] == 1 and stats["fallback_facts"] == len(facts) and stats["kept"] == 0
    assert any("conv-t1_s1 window 1 (turns D1:1..D1:5)" in p for p in stats["problems"])


def test_supersedes_by_id_or_text(scripted, scripted_llm, session):
    known = [
        Fact("old-f1", "Melanie lives in Denver.", "old", dt.date(2023, 1, 1), ("D0:1",)),
        Fact("old-f2", "Melanie works as a nurse.", "old", dt.date(2023, 1, 1), ("D0:2",)),
    ]
    answer = {
        "facts": [
            {
                "text": "Melanie lives in Boston.",
                "evidence": ["D1:2"],
                "event_date": None,
                "supersedes": "old-f1",
                "speaker": "Melanie",
            },
            {
                "text": "Melanie works as a teacher.",
                "evidence": ["D1:2"],
                "event_date": None,
                "supersedes": "melanie works as a nurse.",
                "speaker": "Melanie",
            },
        ]
    }
    scripted.enqueue({"json": answer})
    facts = LLMExtractor(scripted_llm).extract(session, known)
    assert [f.supersedes for f in facts] == ["old-f1", "old-f2"]
    assert "[old-f1] Melanie lives in Denver." in scripted.requests[0].messages[-1].content


def test_unknown_supersedes_is_repaired_once_then_cleared(scripted, scripted_llm, session):
    answer = good_answer()
    answer["facts"][0]["supersedes"] = "f-missing"
    scripted.enqueue({"json": answer}, {"json": answer})
    extractor = LLMExtractor(scripted_llm)
    facts = extractor.extract(session)
    assert "neither the id nor the text of a known fact" in scripted.requests[1].messages[-1].content
    assert [f.text for f in facts] == [a["text"] for a in good_answer()["facts"]]
    assert facts[0].supersedes is None and "cleared" not in facts[0].meta
    assert extractor.stats.repaired == 1 and extractor.stats.dropped == 0


def test_long_sessions_are_windowed_without_truncation(scripted, scripted_llm):
    turns = tuple(Turn(f"D1:{i}", "Ann" if i % 2 else "Ben", f"Sentence number {i} " + "x" * 300) for i in range(1, 21))
    session = Session("long", dt.date(2024, 1, 1), "2024-01-01", turns)
    windows = make_windows(turns, max_chars=1500, context_turns=2)
    assert len(windows) > 1
    assert [t for w in windows for t in w.turns] == list(turns)  # every turn once, in order
    assert windows[1].context == windows[0].turns[-2:]

    def reply(request):
        prompt = request.messages[-1].content
        part = prompt.split("Turns to extract from:")[1]
        first = part.split("[")[1].split("]")[0]
        return {
            "json": {
                "facts": [
                    {
                        "text": f"Ann said something at {first}.",
                        "evidence": [first],
                        "event_date": None,
                        "supersedes": None,
                        "speaker": "Ann",
                    }
                ]
            }
        }

    scripted.handler = reply
    facts = LLMExtractor(scripted_llm, window_chars=1500, context_turns=2).extract(session)
    assert len(facts) == len(windows)
    assert [f.evidence[0] for f in facts] == [w.turns[0].turn_id for w in windows]
    second_prompt = scripted.requests[1].messages[-1].content
    assert "Earlier turns (context only, do not cite)" in second_prompt


def test_single_oversized_turn_gets_its_own_window():
    turns = (Turn("a", "Ann", "short"), Turn("b", "Ann", "y" * 5000), Turn("c", "Ann", "short"))
    windows = make_windows(turns, max_chars=1000, context_turns=1)
    assert [len(w.turns) for w in windows] == [1, 1, 1]
    assert windows[1].turns[0].text == "y" * 5000


#: a transcript (dated by ``date=``) and a real model's reply to its extraction prompt, verbatim
TRANSCRIPT = "Melanie: Hey Caroline! We finally went camping last weekend, up in the mountains with the kids. They loved roasting marshmallows.\nCaroline: That sounds amazing, Mel! I have news too: I submitted my adoption application to the agency on Monday.\nMelanie: Wow, congrats! Are you still planning to become a counselor?\nCaroline: Actually I changed my mind. I'm going to study social work instead, and I enrolled in a program at the community college last week.\nMelanie: That's a great fit for you. Good luck with both!\n"

REAL_REPLY = '{"facts": [\n{"text": "Melanie went camping in the mountains with her kids on the weekend of 17-18 June 2023.", "evidence": ["s-e77be550f5c4:1"], "event_date": "2023-06-17/2023-06-18", "supersedes": null, "speaker": "Melanie"},\n{"text": "Melanie\'s kids loved roasting marshmallows on the camping trip in June 2023.", "evidence": ["s-e77be550f5c4:1"], "event_date": "2023-06-17/2023-06-18", "supersedes": null, "speaker": "Melanie"},\n{"text": "Caroline submitted her adoption application to the adoption agency on 19 June 2023.", "evidence": ["s-e77be550f5c4:2"], "event_date": "2023-06-19", "supersedes": null, "speaker": "Caroline"},\n{"text": "Caroline changed her mind about becoming a counselor and decided to study social work instead.", "evidence": ["s-e77be550f5c4:3", "s-e77be550f5c4:4"], "event_date": null, "supersedes": "conv-26_s1-f8", "speaker": "Caroline"},\n{"text": "Caroline enrolled in a social work program at the community college during the week of 13 to 19 June 2023.", "evidence": ["s-e77be550f5c4:4"], "event_date": "2023-06-13/2023-06-19", "supersedes": null, "speaker": "Caroline"}\n]}\n'


def test_a_transcript_session_is_dated_once(scripted, scripted_llm, tmp_path):
    path = tmp_path / "chat.txt"
    path.write_text(TRANSCRIPT)
    (session,) = load_sessions(path, format="transcript", date="2023-06-20")
    assert session.session_id == "s-e77be550f5c4"  # the turn ids the reply cites
    known = [
        Fact(
            "conv-26_s1-f8", "Caroline is interested in a career in counseling.", "old", dt.date(2023, 5, 8), ("D1:11",)
        )
    ]
    scripted.enqueue(REAL_REPLY)
    extractor = LLMExtractor(scripted_llm)
    facts = extractor.extract(session, known)
    prompt = scripted.requests[0].messages[-1].content
    assert '{"id": "s-e77be550f5c4", "date": "2023-06-20", "speakers": ["Melanie", "Caroline"]}' in prompt
    assert "date_as_written" not in prompt  # the date as written is the session date: said once
    assert len(facts) == 5 and extractor.stats.repaired == 0 and len(scripted.requests) == 1
    assert facts[3].supersedes == "conv-26_s1-f8"
    assert str(facts[0].event_date) == "the weekend of 17 June 2023"
