"""The LLM layer: scripted and OpenAI-compatible providers, retries, cache, guard."""

from __future__ import annotations

import pytest

from tests.fixtures.fake_openai_server import FakeOpenAIServer, completion
from uac import llm
from uac.config import LLMConfig
from uac.errors import ConfigError, ModelError, ModelNotConfigured, NetworkBlocked, ScriptExhausted
from uac.llm import LLMClient, ResponseCache, ScriptedProvider, resolve_settings, system, user
from uac.llm.openai_provider import OpenAIProvider
from uac.templating import render_prompt

NO_SLEEP = {"sleep": lambda _s: None}


# --- settings -------------------------------------------------------------


def test_settings_precedence_env_over_toml(tmp_path):
    config = LLMConfig(provider="openai", model="from-toml", base_url="http://toml/v1")
    s = resolve_settings(config, project_root=tmp_path, env={})
    assert (s.provider, s.model, s.base_url) == ("openai", "from-toml", "http://toml/v1")
    assert s.cache_path == tmp_path / ".uac" / "llm-cache.sqlite"
    s = resolve_settings(
        config, env={"UAC_LLM_MODEL": "env-model", "UAC_LLM_BASE_URL": "http://env/v1", "UAC_LLM_CACHE": "0"}
    )
    assert (s.model, s.base_url, s.cache_path) == ("env-model", "http://env/v1", None)


def test_model_env_alone_implies_openai_and_none_is_default():
    assert resolve_settings(LLMConfig(), env={}).provider == "none"
    assert resolve_settings(LLMConfig(), env={"UAC_LLM_MODEL": "m"}).provider == "openai"
    assert llm.build_client(resolve_settings(LLMConfig(), env={})) is None


@pytest.mark.parametrize("name", ["rules", "protocol"])
def test_the_rule_model_answers_to_its_name_and_to_its_old_name(name, tmp_path):
    from uac.llm.rule_model import RuleModel

    settings = resolve_settings(LLMConfig(), env={"UAC_LLM_PROVIDER": name})
    assert isinstance(llm.build_client(settings).provider, RuleModel)
    assert settings.describe().startswith(f"{name} (the rule-based stand-in model")
    (tmp_path / "uac.toml").write_text(f'format_version = 1\n[llm]\nprovider = "{name}"\n')
    from uac.config import load_config

    assert load_config(tmp_path / "uac.toml").llm.provider == name


def test_bad_env_settings_are_config_errors():
    with pytest.raises(ConfigError, match="provider"):
        resolve_settings(LLMConfig(), env={"UAC_LLM_PROVIDER": "gpt"})
    with pytest.raises(ConfigError, match="not a number"):
        resolve_settings(LLMConfig(), env={"UAC_LLM_TIMEOUT": "soon"})


def test_require_says_how_to_configure():
    with pytest.raises(ModelNotConfigured) as info:
        llm.require(None, "compile")
    text = str(info.value)
    assert "UAC_LLM_PROVIDER" in text and "UAC_LLM_MODEL" in text and "uac.toml" in text


# --- scripted provider ---------------------------------------------------


def test_scripted_replays_and_records(scripted_llm, scripted):
    scripted.enqueue(
        "plain", {"json": {"a": 1}}, {"tool_calls": [{"name": "python", "arguments": {"code": "result = 1"}}]}
    )
    assert scripted_llm.chat([user("hi")]).content == "plain"
    value, _ = scripted_llm.chat_json([user("give json")], json_schema={"type": "object"})
    assert value == {"a": 1}
    reply = scripted_llm.chat([user("use tool")], tools=[{"type": "function", "function": {"name": "python"}}])
    assert reply.tool_calls[0].name == "python"
    assert reply.tool_calls[0].parsed_arguments() == {"code": "result = 1"}
    assert [r.messages[-1].content for r in scripted.requests] == ["hi", "give json", "use tool"]
    assert scripted_llm.usage.calls == 3 and scripted_llm.usage.prompt_tokens > 0


def test_scripted_match_entries_are_order_independent(scripted_llm, scripted):
    scripted.enqueue({"match": "travel", "content": "T"}, {"match": "food", "content": "F"})
    assert scripted_llm.chat([user("about food")]).content == "F"
    assert scripted_llm.chat([user("about travel")]).content == "T"


def test_scripted_exhausted_is_a_clear_error(scripted_llm):
    with pytest.raises(ScriptExhausted, match="no response left"):
        scripted_llm.chat([user("anything")])


def test_scripted_from_file_via_settings(tmp_path):
    script = tmp_path / "script.jsonl"
    script.write_text(
        '# comment\n"first"\n{"content": "second", "usage": {"prompt_tokens": 7, "completion_tokens": 3}}\n'
    )
    client = llm.build_client(
        resolve_settings(LLMConfig(), env={"UAC_LLM_PROVIDER": "scripted", "UAC_LLM_SCRIPT": str(script)})
    )
    assert client.chat([user("a")]).content == "first"
    second = client.chat([user("b")])
    assert (second.content, second.usage.prompt_tokens, second.usage.completion_tokens) == ("second", 7, 3)


def test_scripted_file_errors(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        ScriptedProvider.from_file(tmp_path / "missing.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('"ok"\n{broken\n')
    with pytest.raises(ConfigError, match=r"bad.jsonl:2"):
        ScriptedProvider.from_file(bad)


def test_transient_errors_are_retried_then_surface(scripted):
    client = LLMClient(scripted, max_retries=2, **NO_SLEEP)
    scripted.enqueue({"error": "transient"}, {"error": "transient"}, "finally")
    assert client.chat([user("x")]).content == "finally"
    scripted.enqueue({"error": "transient"}, {"error": "transient"}, {"error": "transient"})
    with pytest.raises(ModelError, match="after 3 attempt"):
        client.chat([user("y")])


def test_fatal_errors_are_not_retried(scripted):
    client = LLMClient(scripted, max_retries=5, **NO_SLEEP)
    scripted.enqueue({"error": "fatal", "message": "bad request"}, "unused")
    with pytest.raises(ModelError, match="bad request"):
        client.chat([user("x")])
    assert scripted.remaining == 1


def test_backoff_grows(scripted):
    delays = []
    client = LLMClient(scripted, max_retries=3, backoff_seconds=1.0, sleep=delays.append)
    scripted.enqueue({"error": "transient"}, {"error": "transient"}, {"error": "transient"}, "ok")
    client.chat([user("x")])
    assert len(delays) == 3
    assert delays[0] <= 1.0 < delays[2] <= 4.0


def test_invalid_json_reply_is_a_model_error(scripted_llm, scripted):
    scripted.enqueue("not json at all")
    with pytest.raises(ModelError, match="not valid JSON"):
        scripted_llm.chat_json([user("x")], json_schema={"type": "object"})


# --- cache ---------------------------------------------------------------


def test_cache_makes_repeats_free(tmp_path, scripted):
    cache = ResponseCache(tmp_path / "cache.sqlite")
    client = LLMClient(scripted, cache=cache, **NO_SLEEP)
    scripted.enqueue("answer one")
    first = client.chat([system("s"), user("q")])
    again = client.chat([system("s"), user("q")])
    assert (first.cached, again.cached, again.content) == (False, True, "answer one")
    assert len(scripted.requests) == 1 and len(cache) == 1
    # a different request is a miss
    scripted.enqueue("answer two")
    assert client.chat([system("s"), user("other")]).content == "answer two"
    # the cache persists across clients
    fresh = LLMClient(ScriptedProvider(), cache=ResponseCache(tmp_path / "cache.sqlite"))
    assert fresh.chat([system("s"), user("q")]).content == "answer one"
    assert fresh.usage.cached_calls == 1


def test_cache_key_covers_model_schema_and_tools(tmp_path):
    base = llm.ChatRequest(messages=(user("q"),))
    keys = {
        base.fingerprint("m1", "openai"),
        base.fingerprint("m2", "openai"),
        llm.ChatRequest(messages=(user("q"),), json_schema={"type": "object"}).fingerprint("m1", "openai"),
        llm.ChatRequest(messages=(user("q"),), tools=({"type": "function"},)).fingerprint("m1", "openai"),
    }
    assert len(keys) == 4


def test_corrupt_cache_file_is_a_store_error(tmp_path):
    path = tmp_path / "cache.sqlite"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(Exception) as info:
        ResponseCache(path)
    assert "cache" in str(info.value)


# --- openai-compatible provider against a local fake server ---------------


def _openai_client(url, **settings):
    s = resolve_settings(
        LLMConfig(provider="openai", model="fake-model", base_url=url, **settings), env={"UAC_BLOCK_NETWORK": "1"}
    )
    return LLMClient(OpenAIProvider(s), max_retries=s.max_retries, **NO_SLEEP)


def test_openai_provider_chat_usage_and_request_shape():
    with FakeOpenAIServer() as fake:
        fake.reply(completion("hi there", prompt_tokens=42, completion_tokens=7))
        client = _openai_client(fake.base_url)
        reply = client.chat([system("sys"), user("hello")], temperature=0.0, max_tokens=50)
    assert reply.content == "hi there"
    assert (client.usage.prompt_tokens, client.usage.completion_tokens) == (42, 7)
    body = fake.received[0].body
    assert fake.received[0].path == "/v1/chat/completions"
    assert body["model"] == "fake-model" and body["max_tokens"] == 50
    assert body["messages"] == [{"role": "system", "content": "sys"}, {"role": "user", "content": "hello"}]
    assert {k.lower(): v for k, v in fake.received[0].headers.items()}["authorization"] == "Bearer not-needed"


def test_openai_provider_json_schema_and_tools():
    schema = {"type": "object", "properties": {"x": {"type": "integer"}}}
    tool = {"type": "function", "function": {"name": "python", "parameters": {"type": "object"}}}
    with FakeOpenAIServer() as fake:
        fake.reply(completion('{"x": 3}'))
        fake.reply(completion(None, tool_calls=[("python", {"code": "result = 2"})]))
        client = _openai_client(fake.base_url)
        value, _ = client.chat_json([user("q")], json_schema=schema, schema_name="thing")
        reply = client.chat([user("q2")], tools=[tool])
    assert value == {"x": 3}
    assert fake.received[0].body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "thing", "schema": schema, "strict": False},
    }
    assert fake.received[1].body["tools"] == [tool]
    assert reply.tool_calls[0].parsed_arguments() == {"code": "result = 2"}


def test_openai_provider_json_object_mode():
    with FakeOpenAIServer() as fake:
        fake.reply(completion("{}"))
        _openai_client(fake.base_url, json_mode="object").chat_json([user("q")], json_schema={"type": "object"})
    assert fake.received[0].body["response_format"] == {"type": "json_object"}


def test_openai_provider_retries_5xx_and_429():
    with FakeOpenAIServer() as fake:
        fake.reply({"error": {"message": "boom"}}, status=500)
        fake.reply({"error": {"message": "slow down"}}, status=429)
        fake.reply(completion("recovered"))
        reply = _openai_client(fake.base_url).chat([user("q")])
    assert reply.content == "recovered" and len(fake.received) == 3


def test_openai_provider_gives_up_with_clear_error():
    with FakeOpenAIServer() as fake:
        for _ in range(3):
            fake.reply({"error": {"message": "down"}}, status=503)
        with pytest.raises(ModelError, match="after 3 attempt"):
            _openai_client(fake.base_url, max_retries=2).chat([user("q")])


def test_openai_provider_auth_and_bad_request_not_retried():
    with FakeOpenAIServer() as fake:
        fake.reply({"error": {"message": "bad key"}}, status=401)
        with pytest.raises(ModelError, match="API key"):
            _openai_client(fake.base_url).chat([user("q")])
        fake.reply({"error": {"message": "bad"}}, status=400)
        with pytest.raises(ModelError, match="refused"):
            _openai_client(fake.base_url).chat([user("q")])
    assert len(fake.received) == 2


def test_openai_provider_timeout_is_transient():
    with FakeOpenAIServer() as fake:
        fake.reply(completion("late"), delay=1.5)
        fake.reply(completion("on time"))
        reply = _openai_client(fake.base_url, timeout_seconds=0.5).chat([user("q")])
    assert reply.content == "on time"


def test_openai_provider_with_cache(tmp_path):
    with FakeOpenAIServer() as fake:
        fake.reply(completion("cached answer"))
        s = resolve_settings(
            LLMConfig(provider="openai", model="fake-model", base_url=fake.base_url),
            project_root=tmp_path,
            env={},
        )
        first = llm.build_client(s).chat([user("same")])
        second = llm.build_client(s).chat([user("same")])
    assert (first.cached, second.cached, second.content) == (False, True, "cached answer")
    assert len(fake.received) == 1


def test_guard_blocks_real_endpoints():
    s = resolve_settings(LLMConfig(provider="openai", model="gpt-x"), env={"OPENAI_API_KEY": "sk-test"})
    client = LLMClient(OpenAIProvider(s), **NO_SLEEP)
    with pytest.raises(NetworkBlocked, match="blocked"):
        client.chat([user("q")])


def test_openai_provider_needs_model_and_key():
    with pytest.raises(ModelError, match="UAC_LLM_MODEL"):
        OpenAIProvider(resolve_settings(LLMConfig(provider="openai"), env={}))
    with pytest.raises(ModelError, match="OPENAI_API_KEY"):
        OpenAIProvider(resolve_settings(LLMConfig(provider="openai", model="m"), env={}))


def test_prompts_are_templates():
    text = render_prompt("system_json.j2", schema_name="facts")
    assert '"facts"' in text and "JSON" in text


def test_every_lazy_name_of_the_llm_layer_is_its_modules_own():
    import importlib

    import uac.llm as layer

    assert sorted(layer._LAZY) == sorted(name for name in layer.__all__ if name in layer._LAZY)
    assert len(layer._LAZY) == sum(len(names) for names in layer._LAZY_MODULES.values()) == 21
    for name, module in layer._LAZY.items():
        assert getattr(layer, name) is getattr(importlib.import_module(module, "uac.llm"), name)
