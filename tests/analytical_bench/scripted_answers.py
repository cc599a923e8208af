"""A scripted model for the benchmark tests: a ``handler`` that answers a case
the way a competent model would -- by writing Python for the REPL systems,
by reading the records in the prompt for Full Context.  It knows the case
(found by its question in the prompt); that is legitimate for a test double.
"""

from __future__ import annotations

import json
import re

from uac.llm import ChatRequest

SCHEMA = {  # record type -> (date field, category, measure)
    "trips": ("start_date", "region", "cost"),
    "meals": ("date", "cuisine", "cost"),
    "transactions": ("date", "category", "amount"),
    "sleep": ("date", "quality", "hours"),
    "workouts": ("date", "activity", "duration_min"),
    "books": ("finished_date", "genre", "pages"),
    "contacts": ("met_date", "relationship", "age"),
    "medical_visits": ("date", "specialty", "cost"),
    "meetings": ("date", "topic", "duration_min"),
    "purchases": ("date", "category", "price"),
}


def analysis_code(case, typed: bool) -> str:
    """Python for the sandbox that computes the case's answer over the whole collection."""
    date_f, cat, measure = SCHEMA[case.record_type]
    coll = case.record_type

    def get(field: str) -> str:
        return f"r.{field}" if typed else f'r["{field}"]'

    day = f"{get(date_f)}.isoformat()" if typed else get(date_f)
    if case.pattern == "count":
        value = re.search(r'"([^"]+)"\?$', case.question).group(1)
        return f"result = len([r for r in {coll} if {get(cat)} == {value!r}])"
    if case.pattern == "sum":
        year = re.search(r"in (\d{4})\?$", case.question).group(1)
        return f"result = round(sum({get(measure)} for r in {coll} if {day}[:4] == {year!r}), 2)"
    if case.pattern == "trend":
        q1, q2, year = re.search(r"from Q(\d) to Q(\d) of (\d{4})", case.question).groups()
        return (
            f"days = [{day} for r in {coll}]\n"
            f"def quarter(d):\n    return (int(d[5:7]) - 1) // 3 + 1\n"
            f"a = len([d for d in days if d[:4] == {year!r} and quarter(d) == {q1}])\n"
            f"b = len([d for d in days if d[:4] == {year!r} and quarter(d) == {q2}])\n"
            f"result = 'increase' if b > a else 'decrease'"
        )
    raise AssertionError(f"no scripted code for pattern {case.pattern}")


def _prompt(request: ChatRequest) -> str:
    return "\n".join(m.content or "" for m in request.messages)


def make_handler(cases):
    by_question = {case.question: case for case in cases}

    def find(request: ChatRequest):
        text = _prompt(request)
        for question, case in by_question.items():
            if question in text:
                return case
        raise AssertionError("the prompt names no known case")

    def handler(request: ChatRequest):
        case = find(request)
        last = request.messages[-1]
        if last.role == "tool":
            output = json.loads(last.content)
            assert output["ok"], output
            return {"content": str(output["result"]), "usage": {"prompt_tokens": 100, "completion_tokens": 5}}
        if request.tools:
            typed = "typed User-as-Code state" in request.messages[1].content
            code = analysis_code(case, typed)
            return {
                "tool_calls": [{"id": "call_1", "name": "python", "arguments": {"code": code}}],
                "content": None,
                "usage": {"prompt_tokens": 200, "completion_tokens": 40},
            }
        user = request.messages[1].content
        if user.startswith("Here are all of my records") and case.pattern == "count":
            value = re.search(r'"([^"]+)"\?$', case.question).group(1)
            _, cat, _ = SCHEMA[case.record_type]
            records = [json.loads(line) for line in user.splitlines() if line.startswith("{")]
            return {"content": str(sum(1 for r in records if r[cat] == value))}
        return {"content": "I do not know", "usage": {"prompt_tokens": 50, "completion_tokens": 4}}

    return handler
