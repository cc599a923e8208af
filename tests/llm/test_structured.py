"""The tolerant reader of structured replies, and tool calls written as text."""

from __future__ import annotations

import json

import pytest

from uac.errors import InvalidReply, ReplyCutOff
from uac.llm import ChatResponse, clean_id, parse_structured, strip_reasoning
from uac.llm.structured import MAX_REPLY_CHARS, conform
from uac.llm.toolcalls import text_tool_calls

ROUTES = {
    "type": "object",
    "properties": {
        "routes": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"id": {"type": "string"}, "domain": {"type": "string"}},
                "required": ["id", "domain"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["routes"],
    "additionalProperties": False,
}
DECISION = {
    "type": "object",
    "properties": {
        "selected": {"type": "array", "items": {"type": "string"}},
        "count": {"type": "integer"},
        "sufficient": {"type": "boolean"},
        "note": {"type": ["string", "null"]},
    },
    "required": ["selected", "count", "sufficient", "note"],
}
VALUE = {"routes": [{"id": "f1", "domain": "travel"}]}
TEXT = json.dumps(VALUE)


@pytest.mark.parametrize(
    "reply",
    [
        TEXT,
        f"Sure! Here is the JSON:\n{TEXT}\nHope this helps.",
        f"Here you go:\n```json\n{TEXT}\n```\nAnything else?",
        f"```\n{TEXT}\n```",
        f'<think>\nMaybe {{"routes": []}} would do? No.\n</think>\n{TEXT}',
        f"<THINK>x</THINK>```json\n{TEXT}\n```",
        f"The user wants routes.</think>{TEXT}",
        f'Two tries: {{"a": 1}} and then the answer {TEXT}',
        TEXT.replace("}]}", "},]}"),  # a trailing comma
    ],
)
def test_json_is_found_wherever_the_model_put_it(reply):
    assert parse_structured(reply, ROUTES).value == VALUE


def test_unclosed_reasoning_is_dropped():
    assert strip_reasoning("Answer: 4 <think>and then I kept thinking") == "Answer: 4"
    with pytest.raises(InvalidReply, match="empty after its reasoning"):
        parse_structured('<think>I will answer {"routes": []} soon', ROUTES)


def test_safe_coercions_are_applied_and_listed():
    reply = json.dumps({"Selected": "F12", "count": "3", "sufficient": "true", "extra": 1})
    read = conform(json.loads(reply), {**DECISION, "additionalProperties": False})
    assert not read.problems
    assert read.value == {"selected": ["F12"], "count": 3, "sufficient": True, "note": None}
    assert read.coercions == [
        "$.Selected: key read as 'selected'",
        "$.selected: string read as array",
        "$.count: string read as integer",
        "$.sufficient: string read as boolean",
        "$.note: missing, read as null",
        "$.extra: unexpected key dropped",
    ]
    numbers = conform({"selected": [3, 4.0], "count": 2.0, "sufficient": 1, "note": "n/a"}, DECISION)
    assert numbers.value == {"selected": ["3", "4.0"], "count": 2, "sufficient": True, "note": "n/a"}


def test_a_bare_list_becomes_the_object_around_it():
    assert parse_structured(json.dumps(VALUE["routes"]), ROUTES).value == VALUE


@pytest.mark.parametrize(
    "value, problem",
    [
        ({"routes": [{"id": "f1"}]}, "$.routes[0].domain: missing"),
        ({"routes": "travel"}, "$.routes[0]: expected object, got string"),
        ({"routes": [{"id": "f1", "domain": ["a"]}]}, "$.routes[0].domain: expected string, got array"),
        ({"other": 1}, "$.routes: missing"),
    ],
)
def test_what_cannot_be_coerced_is_a_problem_with_its_path(value, problem):
    with pytest.raises(InvalidReply) as info:
        parse_structured(json.dumps(value), ROUTES)
    assert problem in info.value.problems
    assert "does not match the expected shape" in info.value.message


@pytest.mark.parametrize(
    "reply, words",
    [
        ("", "empty"),
        ("I'd rather not.", "no JSON value found"),
        ("\x00\x01\x02binary" * 10, "binary"),
        ("[" * 100_000, "no JSON value found"),
        ("x" * (MAX_REPLY_CHARS + 1), "characters long"),
    ],
)
def test_bad_replies_are_invalid_replies_with_a_message(reply, words):
    with pytest.raises(InvalidReply, match=words):
        parse_structured(reply, ROUTES)


def test_a_megabyte_of_prose_is_read_quickly_and_refused():
    import time

    started = time.perf_counter()
    with pytest.raises(InvalidReply):
        parse_structured(("{not json} " * 100_000), ROUTES)
    assert time.perf_counter() - started < 5


def test_response_json_uses_the_request_schema_and_reports_cut_replies():
    response = ChatResponse(content='{"routes": [{"id": "f1", "dom', finish_reason="length", max_tokens=50)
    response.schema = ROUTES
    with pytest.raises(ReplyCutOff) as info:
        response.json()
    assert info.value.finish_reason == "length" and info.value.max_tokens == 50
    assert "token limit of 50 tokens" in info.value.message
    whole = ChatResponse(content=TEXT, finish_reason="length")
    assert whole.json(ROUTES) == VALUE  # complete JSON at the limit is fine


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("[F12]", "F12"),
        (" 'F12' ", "F12"),
        ("id: conv-1_s1-f3", "conv-1_s1-f3"),
        ("(D1:3)", "D1:3"),
        ("`x`", "x"),
        (7, "7"),
    ],
)
def test_clean_id(raw, expected):
    assert clean_id(raw) == expected


# --- tool calls in text ---------------------------------------------------------------


def test_hermes_tool_call_blocks():
    text = '<think>compute</think>\n<tool_call>\n{"name": "python", "arguments": {"code": "result = 1"}}\n</tool_call>'
    calls = text_tool_calls(text)
    assert [(c.name, json.loads(c.arguments)) for c in calls] == [("python", {"code": "result = 1"})]


def test_function_tags_bare_json_and_fenced_code():
    assert text_tool_calls('<function=python>{"code": "x = 1"}</function>')[0].name == "python"
    bare = text_tool_calls('{"name": "python", "parameters": {"code": "result = 2"}}')
    assert json.loads(bare[0].arguments) == {"code": "result = 2"}
    fenced = text_tool_calls("Let me count.\n```python\nresult = len(trips)\n```\n")
    assert json.loads(fenced[0].arguments) == {"code": "result = len(trips)\n"}


def test_broken_tool_call_text_is_kept_for_the_error_message():
    calls = text_tool_calls("<tool_call>{not json</tool_call>")
    assert calls[0].name == "" and calls[0].arguments == "{not json"


def test_plain_answers_have_no_tool_calls():
    assert text_tool_calls("There were 3 trips in 2023.") == []
    assert text_tool_calls('{"answer": 3}') == []
    assert text_tool_calls(None) == []


def test_a_list_reply_schema_holds_strict_items_under_one_key():
    from uac.llm.structured import list_reply_outline, list_reply_schema

    schema = list_reply_schema("routes", {"id": {"type": "string"}, "domain": {"type": "string"}}, required=["id"])
    item = schema["properties"]["routes"]["items"]
    assert schema["required"] == ["routes"] and schema["additionalProperties"] is False
    assert item["required"] == ["id"] and item["additionalProperties"] is False
    assert list_reply_schema("facts", {"text": {"type": "string"}})["properties"]["facts"]["items"]["required"] == [
        "text"
    ]
    read = parse_structured('{"routes": [{"id": "f1", "domain": "travel", "extra": 1}]}', schema).value
    assert read == {"routes": [{"id": "f1", "domain": "travel"}]}  # a key the schema forbids is dropped
    with pytest.raises(InvalidReply):
        parse_structured('{"routes": [{"domain": "travel"}]}', schema)  # the required id is missing
    outline = list_reply_outline("routes")
    assert parse_structured('{"routes": [{"domain": "travel"}, 3]}', outline).value == {
        "routes": [{"domain": "travel"}, 3]
    }  # the outline leaves the items to their reader
