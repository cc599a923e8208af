"""One fact may supersede several: extraction reads ``supersedes`` as models write it
(a list, one id, several ids in one string, texts), ingest writes one supersede line per
pair, and every reader of the links (the fold, the fact page, search, compile's revisit)
sees all of them.  ``uac correct`` writes its links with the relation ``corrects``."""

from __future__ import annotations

import datetime as dt
import json

from tests.compile.helpers import session_of
from uac.extract.base import ExtractedFact
from uac.extract.coerce import KnownFacts, TurnIds, read_item, read_supersedes
from uac.facts.log import FactLog
from uac.facts.model import Fact
from uac.llm.rule_model import respond_entry
from uac.llm.rule_model.request import block, turn_lines

KNOWN = KnownFacts(
    [
        Fact("s1-f1", "Sam works at Acme Corp as an engineer.", "s1", dt.date(2024, 1, 10)),
        Fact("s1-f2", "Sam earns 80,000 a year at Acme.", "s1", dt.date(2024, 1, 10)),
        Fact("s1-f3", "Sam hopes for a promotion to team lead at Acme.", "s1", dt.date(2024, 1, 10)),
    ]
)
TURNS = TurnIds(("s2:1",), ())


def item(supersedes):
    return {
        "text": "Sam left Acme Corp.",
        "evidence": ["s2:1"],
        "event_date": None,
        "supersedes": supersedes,
        "speaker": "Sam",
    }


def test_supersedes_is_read_in_the_forms_models_write():
    assert read_supersedes(["s1-f1", "[s1-f2]", "s1-f3"], KNOWN) == (["s1-f1", "s1-f2", "s1-f3"], [], True)
    assert read_supersedes("s1-f2", KNOWN) == (["s1-f2"], [], False)  # a string where a list is expected
    assert read_supersedes("s1-f1, s1-f3", KNOWN) == (["s1-f1", "s1-f3"], [], True)
    assert read_supersedes(["Sam earns 80,000 a year at Acme.", None, "null"], KNOWN) == (["s1-f2"], [], True)
    for nothing in (None, "null", "", [], "none"):
        assert read_supersedes(nothing, KNOWN) == ([], [], False)
    assert read_supersedes({"id": "s1-f1"}, KNOWN)[1] == ["{'id': 's1-f1'}"]
    several = read_item(item(["s1-f1", "s1-f2", "s1-f3"]), "facts[0]", TURNS, KNOWN, dt.date(2024, 3, 5))
    assert several.fact.supersedes == ("s1-f1", "s1-f2", "s1-f3") and several.fact.superseded_ids == (
        "s1-f1",
        "s1-f2",
        "s1-f3",
    )
    one = read_item(item(["s1-f2"]), "facts[0]", TURNS, KNOWN, dt.date(2024, 3, 5))
    assert one.fact.supersedes == "s1-f2" and one.fact.superseded_ids == ("s1-f2",)
    assert ExtractedFact("x", ("t",)).superseded_ids == ()


def test_an_unknown_id_in_the_list_goes_to_the_repair_and_is_dropped_at_the_end():
    first = read_item(item(["s1-f1", "s9-f9"]), "facts[0]", TURNS, KNOWN, dt.date(2024, 3, 5))
    assert (
        first.fact is None
        and "facts[0].supersedes 's9-f9' is neither the id nor the text of a known fact" in first.problem
    )
    final = read_item(item(["s1-f1", "s9-f9"]), "facts[0]", TURNS, KNOWN, dt.date(2024, 3, 5), final=True)
    assert final.fact.superseded_ids == ("s1-f1",) and "supersedes" in final.coerced


SESSIONS = [
    {
        "session_id": "s1",
        "date": "2024-01-10",
        "messages": [
            {
                "role": "user",
                "content": "I work at Acme Corp as an engineer. I earn 80,000 a year at Acme. I hope for a promotion to team lead at Acme.",
            }
        ],
    },
    {
        "session_id": "s2",
        "date": "2024-03-05",
        "messages": [{"role": "user", "content": "I left Acme Corp last week."}],
    },
]


def _extraction(prompt: str) -> dict:
    turns = [turn.turn_id for turn in turn_lines(block(prompt, "turns"))]
    if session_of(prompt) == "s1":
        texts = [
            "Sam works at Acme Corp as an engineer.",
            "Sam earns 80,000 a year at Acme.",
            "Sam hopes for a promotion to team lead at Acme.",
        ]
        return {
            "facts": [
                {"text": t, "evidence": [turns[0]], "event_date": None, "supersedes": None, "speaker": "Sam"}
                for t in texts
            ]
        }
    return {
        "facts": [
            {
                "text": "Sam left Acme Corp in the week of 26 February 2024.",
                "evidence": [turns[0]],
                "event_date": "2024-02-26",
                "supersedes": ["s1-f1", "s1-f2", "s1-f3"],
                "speaker": "Sam",
            }
        ]
    }


def test_one_fact_ends_three_and_every_reader_sees_the_three(scripted, scripted_memory, tmp_path):
    prompts = []

    def handler(request):
        prompt = "\n".join(m.content or "" for m in request.messages if m.role == "user")
        if prompt.startswith("Extract every individual fact"):
            prompts.append(prompt)
            # the way models answer: reasoning, then prose around a fenced reply
            return {
                "content": "<think>Sam left the job.</think>Here you go:\n```json\n"
                + json.dumps(_extraction(prompt))
                + "\n```"
            }
        if prompt.startswith("Decide what each new fact changes"):
            return {"json": {"changes": []}}
        return respond_entry(request)

    scripted.handler = handler
    memory = scripted_memory
    memory.project.save_config(memory.project.config.with_section("user", name="Sam"))
    for number, session in enumerate(SESSIONS):
        path = tmp_path / f"{number}.json"
        path.write_text(json.dumps(session), "utf-8")
        memory.ingest(path)
        if number == 0:
            memory.compile()
            assert len([r for d in memory.state for c in memory.state[d] for r in memory.state[d][c]]) == 3
    assert all(f"[s1-f{n}]" in prompts[1] for n in (1, 2, 3))  # shown to the second extraction
    state = FactLog(memory.project.paths.facts).read()
    links = [(s.fact_id, s.superseded_by) for s in state.supersessions]
    assert links == [("s1-f1", "s2-f1"), ("s1-f2", "s2-f1"), ("s1-f3", "s2-f1")]  # one line per pair
    assert [f.id for f in memory.facts()] == ["s2-f1"]
    history = {f.id: f for f in memory.facts(include_superseded=True)}
    assert all(history[f"s1-f{n}"].invalid_at == dt.date(2024, 3, 5) for n in (1, 2, 3))
    assert sorted(f.id for f in memory.fact("s2-f1").supersedes) == ["s1-f1", "s1-f2", "s1-f3"]
    hits = memory.search("Where does Sam work now?", channel="facts")
    assert hits[0].id == "s2-f1"  # the valid fact above the three it ended
    scripted.requests.clear()
    memory.compile()
    ops_prompts = ["\n".join(m.content or "" for m in r.messages) for r in scripted.requests]
    revisit = "".join(p.split("REVISIT")[1].split("## NEW facts")[0] for p in ops_prompts if "REVISIT" in p)
    assert all(f"cites s1-f{n}, replaced by s2-f1" in revisit for n in (1, 2, 3))


def test_uac_correct_writes_the_relation_corrects(memory, tmp_path):
    path = tmp_path / "s.json"
    path.write_text(
        json.dumps(
            {
                "date": "2023-05-08",
                "messages": [{"role": "user", "content": "I adopted a golden retriever named Rex yesterday."}],
            }
        ),
        "utf-8",
    )
    memory.ingest(path)
    rex = memory.facts()[0]
    memory.correct("Rex is a labrador, not a golden retriever.", supersedes=[rex.id])
    (link,) = FactLog(memory.project.paths.facts).read().supersessions
    assert link.fact_id == rex.id and link.relation == "corrects"
    line = [json.loads(x) for x in memory.project.paths.facts.read_text("utf-8").splitlines() if '"supersede"' in x][0]
    assert line["relation"] == "corrects"
