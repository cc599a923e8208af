"""What the client and the OpenAI-compatible provider do with real-world endpoints:
no caching of invalid replies, limits per purpose, the cut-prompt check, metering,
and capability negotiation (json_schema -> json_object -> text; tools refused)."""

from __future__ import annotations

import json

import pytest

from tests.fixtures.fake_openai_server import FakeOpenAIServer, completion
from uac.cli.vocabulary import CLI
from uac.config import LLMConfig
from uac.errors import CapabilityUnsupported, ContextOverflow, InvalidReply, ModelError, ReplyCutOff
from uac.llm import (
    CapabilityStore,
    Limits,
    LLMClient,
    ResponseCache,
    purpose_kind,
    resolve_settings,
    user,
)
from uac.llm.limits import check_prompt_tokens, count_prompt_pieces
from uac.llm.openai_provider import OpenAIProvider

SCHEMA = {"type": "object", "properties": {"x": {"type": "integer"}}, "required": ["x"]}
TOOL = {"type": "function", "function": {"name": "python", "parameters": {"type": "object"}}}
NO_SLEEP = {"sleep": lambda _s: None}


def openai_client(url, tmp_path=None, **settings):
    config = LLMConfig(provider="openai", model="fake-model", base_url=url, **settings)
    s = resolve_settings(config, project_root=tmp_path, env={"UAC_LLM_CACHE": "0"})
    return LLMClient(OpenAIProvider(s), max_retries=s.max_retries, limits=s.limits, **NO_SLEEP)


# --- the cache never keeps an invalid reply ----------------------------------------------


def test_a_structured_reply_is_cached_only_once_it_was_read(tmp_path, scripted):
    cache = ResponseCache(tmp_path / "c.sqlite")
    client = LLMClient(scripted, cache=cache, **NO_SLEEP)
    scripted.enqueue('{"x": "not a number"}', '{"x": 4}')
    with pytest.raises(InvalidReply):
        client.chat_json([user("q")], json_schema=SCHEMA)
    assert len(cache) == 0
    value, response = client.chat_json([user("q")], json_schema=SCHEMA)  # the retry reaches the model
    assert value == {"x": 4} and not response.cached and len(cache) == 1
    again, hit = client.chat_json([user("q")], json_schema=SCHEMA)
    assert again == {"x": 4} and hit.cached and len(scripted.requests) == 2


def test_a_cached_reply_that_fails_is_evicted(tmp_path, scripted):
    cache = ResponseCache(tmp_path / "c.sqlite")
    client = LLMClient(scripted, cache=cache, **NO_SLEEP)
    scripted.enqueue('{"x": 1}')
    client.chat([user("q")], json_schema=SCHEMA).accept()
    hit = client.chat([user("q")], json_schema=SCHEMA)
    assert hit.cached
    hit.reject()  # e.g. the compile validator refused what it held
    assert len(cache) == 0


def test_cut_off_and_empty_replies_are_not_cached(tmp_path, scripted):
    cache = ResponseCache(tmp_path / "c.sqlite")
    client = LLMClient(scripted, cache=cache, **NO_SLEEP)
    scripted.enqueue({"content": "The answer is", "finish_reason": "length"}, "", "fine")
    assert client.chat([user("a")]).cut_off
    client.chat([user("b")])
    client.chat([user("c")])
    assert len(cache) == 1


# --- limits per purpose -----------------------------------------------------------------


def test_purpose_kinds():
    assert [
        purpose_kind(p)
        for p in (
            "extract session s1 window 2",
            "structure.route",
            "structure.domain:travel",
            "structure.bounded",
            "answer",
            "decide",
            "locomo-judge",
            "analytical_bench:x",
        )
    ] == ["extract", "route", "compile", "compile", "answer", "decide", "judge", "other"]


def test_max_tokens_and_timeouts_per_purpose_reach_the_endpoint(tmp_path):
    with FakeOpenAIServer() as fake:
        fake.reply(completion("late"), delay=1.2)
        fake.reply(completion("on time"))
        fake.reply(completion("slow but allowed"), delay=1.2)
        client = openai_client(
            fake.base_url, tmp_path, timeout_seconds=5.0, max_tokens={"answer": 300}, timeouts={"answer": 0.5}
        )
        assert client.chat([user("q")], purpose="answer").content == "on time"
        assert client.chat([user("q")], purpose="extract window 1").content == "slow but allowed"
    bodies = [r.body for r in fake.received]
    assert [b["max_tokens"] for b in bodies] == [300, 300, 8192]
    assert client.usage.retries == 1


def test_a_cut_reply_raises_reply_cut_off(scripted):
    client = LLMClient(scripted, limits=Limits(), **NO_SLEEP)
    scripted.enqueue({"content": '{"x": 1', "finish_reason": "length"})
    with pytest.raises(ReplyCutOff) as info:
        client.chat_json([user("q")], json_schema=SCHEMA, purpose="structure.domain:travel")
    assert info.value.max_tokens == 8192 and info.value.purpose == "structure.domain:travel"
    assert scripted.requests[0].max_tokens == 8192


# --- the cut-prompt check ---------------------------------------------------------------------


def test_pieces_count_at_most_what_tokenizers_count():
    assert count_prompt_pieces(["Caroline went to a support group on 7 May 2023."]) == 11
    assert count_prompt_pieces([None, ""]) == 0


def test_far_fewer_prompt_tokens_than_sent_stops_with_the_setting_to_change():
    prompt = "word " * 4000
    check_prompt_tokens([prompt], 3900, purpose="extract x", where="here")  # about right: fine
    check_prompt_tokens([prompt], 0, purpose="extract x", where="here")  # no usage reported: nothing to check
    with pytest.raises(ContextOverflow) as info:
        check_prompt_tokens([prompt], 2048, purpose="extract session s1 window 1", where="the endpoint")
    text = str(info.value)
    assert "2,048 prompt tokens" in text and "4,000" in text
    assert "OLLAMA_CONTEXT_LENGTH" in text and "num_ctx" in text and "[extract] window_chars" in text
    with pytest.raises(ContextOverflow, match=r"\[answer\] state_chars"):
        check_prompt_tokens([prompt], 100, purpose="answer", where="the endpoint")


def test_the_client_checks_endpoint_usage_and_can_be_told_not_to(tmp_path):
    prompt = "word " * 4000
    with FakeOpenAIServer() as fake:
        fake.reply(completion("cut", prompt_tokens=2048))
        with pytest.raises(ContextOverflow):
            openai_client(fake.base_url, tmp_path).chat([user(prompt)], purpose="extract w1")
        fake.reply(completion("cut", prompt_tokens=2048))
        reply = openai_client(fake.base_url, tmp_path, check_context=False).chat([user(prompt)], purpose="extract w1")
    assert reply.content == "cut"


def test_a_refusal_for_length_is_a_context_overflow(tmp_path):
    message = "This model's maximum context length is 8192 tokens. However, you requested 12000 tokens."
    with FakeOpenAIServer() as fake:
        fake.reply({"error": {"message": message}}, status=400)
        with pytest.raises(ContextOverflow, match="--max-model-len"):
            openai_client(fake.base_url, tmp_path).chat([user("q")], purpose="structure.domain:x")
    assert len(fake.received) == 1


def test_a_completion_limit_too_large_for_the_context_is_lowered(tmp_path):
    old_vllm = (
        "This model's maximum context length is 8192 tokens. However, you requested 11692 tokens "
        "(3500 in the messages, 8192 in the completion)."
    )
    with FakeOpenAIServer() as fake:
        fake.reply({"error": {"message": old_vllm}}, status=400)
        fake.reply(completion("fits now"))
        client = openai_client(fake.base_url, tmp_path)
        reply = client.chat([user("q")], purpose="structure.domain:x")
    assert reply.content == "fits now" and reply.max_tokens == 4676
    assert [r.body["max_tokens"] for r in fake.received] == [8192, 4676]
    assert client.usage.fallbacks == 1
    new_vllm = (
        "'max_tokens' or 'max_completion_tokens' is too large: 8192. This model's maximum context length is "
        "8192 tokens and your request has 8000 input tokens (8192 > 8192 - 8000)."
    )
    from uac.llm.openai_provider import fitting_max_tokens

    assert fitting_max_tokens(new_vllm, 8192) is None  # the prompt itself leaves no room
    assert (
        fitting_max_tokens("This model supports at most 4096 completion tokens, whereas you provided 8192.", 8192)
        == 4096
    )


# --- metering -------------------------------------------------------------------------------


def test_meters_collect_the_calls_of_their_block_and_cache_hits_apart(tmp_path, scripted):
    client = LLMClient(scripted, cache=ResponseCache(tmp_path / "c.sqlite"), **NO_SLEEP)
    scripted.enqueue(
        {"content": "a", "usage": {"prompt_tokens": 10, "completion_tokens": 2}},
        {"error": "transient"},
        {"content": "b", "usage": {"prompt_tokens": 20, "completion_tokens": 3}},
    )
    with client.metered() as outer:
        client.chat([user("one")])
        with client.metered() as inner:
            client.chat([user("two")])
            client.chat([user("one")])  # a cache hit
    client.chat([user("one")])  # outside both blocks
    assert (inner.prompt_tokens, inner.completion_tokens, inner.retries) == (20, 3, 1)
    assert (inner.cached_calls, inner.cached_prompt_tokens, inner.cached_completion_tokens) == (1, 10, 2)
    assert (outer.prompt_tokens, outer.calls, outer.cached_calls) == (30, 3, 1)
    assert (client.usage.prompt_tokens, client.usage.cached_calls) == (30, 2)
    assert inner.report() == {
        "prompt_tokens": 20,
        "completion_tokens": 3,
        "calls": 1,
        "retries": 1,
        "fallbacks": 0,
        "cached": {"calls": 1, "prompt_tokens": 10, "completion_tokens": 2},
    }


# --- capability negotiation -----------------------------------------------------------------


def test_json_schema_refused_steps_down_and_is_remembered(tmp_path):
    with FakeOpenAIServer() as fake:
        fake.reply({"error": {"message": "response_format type json_schema is not supported"}}, status=400)
        fake.reply(completion('{"x": 1}'))
        fake.reply(completion('{"x": 2}'))
        client = openai_client(fake.base_url, tmp_path)
        assert client.chat_json([user("a")], json_schema=SCHEMA)[0] == {"x": 1}
        assert client.chat_json([user("b")], json_schema=SCHEMA)[0] == {"x": 2}
    formats = [r.body.get("response_format", {}).get("type") for r in fake.received]
    assert formats == ["json_schema", "json_object", "json_object"]
    assert client.usage.fallbacks == 1
    saved = json.loads((tmp_path / ".uac" / "llm-endpoints.json").read_text())
    assert [e["json_mode"] for e in saved["endpoints"].values()] == ["object"]
    CapabilityStore.forget_all()  # a new process reads what was learnt from the project
    with FakeOpenAIServer() as fake:
        fake.reply(completion('{"x": 3}'))
        store = CapabilityStore(tmp_path / ".uac" / "llm-endpoints.json")
        saved_url = next(iter(saved["endpoints"])).split("|")[0]
        assert store.get(saved_url, "fake-model").json_mode == "object"


def test_no_response_format_at_all_then_the_tolerant_reader(tmp_path):
    with FakeOpenAIServer() as fake:
        fake.reply({"error": {"message": "unknown field response_format"}}, status=400)
        fake.reply({"error": {"message": "unknown field response_format"}}, status=400)
        fake.reply(completion('Sure: ```json\n{"x": 5}\n```'))
        value, _ = openai_client(fake.base_url, tmp_path).chat_json([user("a")], json_schema=SCHEMA)
    assert value == {"x": 5}
    assert "response_format" not in fake.received[2].body


def test_a_refusal_that_is_not_about_the_format_surfaces(tmp_path):
    with FakeOpenAIServer() as fake:
        for _ in range(3):
            fake.reply({"error": {"message": "temperature must be at most 1"}}, status=400)
        with pytest.raises(ModelError, match="temperature must be at most 1") as info:
            openai_client(fake.base_url, tmp_path).chat_json([user("a")], json_schema=SCHEMA)
    # the hint names the probe in each adapter's words
    assert "UserMemory.doctor(model=True)" in str(info.value)
    assert "uac doctor PROJECT --model" in info.value.hint_for(CLI)
    assert not (tmp_path / ".uac" / "llm-endpoints.json").exists()


def test_tools_refused_is_capability_unsupported_and_remembered(tmp_path):
    refusal = '"auto" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set'
    with FakeOpenAIServer() as fake:
        fake.reply({"error": {"message": refusal}}, status=400)
        client = openai_client(fake.base_url, tmp_path)
        with pytest.raises(CapabilityUnsupported) as info:
            client.chat([user("q")], tools=[TOOL], purpose="answer")
        assert info.value.feature == "tools"
        assert client.capabilities.tools is False
        with pytest.raises(CapabilityUnsupported):  # known now: not sent again
            client.chat([user("q")], tools=[TOOL], purpose="answer")
    assert len(fake.received) == 1 and client.usage.fallbacks == 2


def test_reasoning_content_and_odd_tool_calls_from_servers(tmp_path):
    body = completion("4")
    body["choices"][0]["message"]["reasoning_content"] = "2 + 2 is 4"
    odd = completion(None)
    odd["choices"][0]["message"]["tool_calls"] = [
        {"type": "function", "function": {"name": "python", "arguments": {"code": "x = 1"}}}
    ]
    with FakeOpenAIServer() as fake:
        fake.reply(body)
        fake.reply(odd)
        fake.reply("<html>not an API</html>")
        client = openai_client(fake.base_url, tmp_path)
        first = client.chat([user("q")])
        second = client.chat([user("q2")])
        with pytest.raises(ModelError, match="not a chat completion"):
            client.chat([user("q3")])
    assert (first.content, first.reasoning) == ("4", "2 + 2 is 4")
    assert second.tool_calls[0].parsed_arguments() == {"code": "x = 1"} and second.tool_calls[0].id == "call_1"
