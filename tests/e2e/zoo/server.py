"""The zoo's server: the shared fake OpenAI-compatible server behaving like the servers people run.

``ZooServer(profile)`` is a :class:`tests.fixtures.fake_openai_server.FakeOpenAIServer`
whose quirks are the :class:`~tests.e2e.zoo.profiles.Profile`'s (tools or response
formats refused, failures every k-th request) and whose handler turns the
request body into a :class:`uac.llm.ChatRequest`, asks the rule model
(:func:`uac.llm.rule_model.respond`) for the content, and gives the reply the
form and the limits of the profile (a cut context, a completion limit, sloppy
forms).  Every request is recorded with the status it got and the kind of call
it was.
"""

from __future__ import annotations

import json
from typing import Any

from tests.fixtures.fake_openai_server import Answer, FakeOpenAIServer, Quirks, Received, completion, to_request
from uac.llm.rule_model import respond
from uac.llm.types import ChatRequest, Message

from .profiles import Profile, dress_json, dress_text, sloppy_data, tokens, tool_call_text


def cut_to_context(request: ChatRequest, limit_tokens: int) -> ChatRequest:
    """The request as a server with a small context window reads it: the start is gone."""
    budget = limit_tokens * 4
    kept: list[Message] = []
    for message in reversed(request.messages):
        text = message.content or ""
        if len(text) <= budget:
            kept.append(message)
            budget -= len(text)
            continue
        if budget > 0:
            kept.append(
                Message(
                    message.role, text[len(text) - budget :], message.tool_calls, message.tool_call_id, message.name
                )
            )
        break
    return ChatRequest(
        tuple(reversed(kept)),
        request.json_schema,
        request.schema_name,
        request.tools,
        request.temperature,
        request.max_tokens,
    )


class ZooServer(FakeOpenAIServer):
    def __init__(self, profile: Profile) -> None:
        quirks = Quirks(
            tools=profile.tools,
            json_schema=profile.json_schema,
            json_object=profile.json_object,
            fail_every=profile.fail_every,
            fail_delay=profile.fail_delay,
        )
        super().__init__(self._complete, quirks=quirks)
        self.profile = profile

    @property
    def model(self) -> str:
        return f"zoo-{self.profile.name}"

    @property
    def served(self) -> list[Received]:
        """Every request received, failed ones included."""
        return list(self.received)

    def _complete(self, received: Received) -> Answer:
        profile, body, number = self.profile, received.body, received.number
        note = ""
        request = to_request(body)
        prompt_text = "".join((m.content or "") + "".join(c.arguments for c in m.tool_calls) for m in request.messages)
        prompt_tokens = tokens(prompt_text)
        if profile.context_tokens and prompt_tokens > profile.context_tokens:
            request = cut_to_context(request, profile.context_tokens)
            prompt_tokens = profile.context_tokens
            note = "prompt cut to the context window"
        reply = respond(request)
        content: str | None = reply.content()
        extra: dict[str, Any] = {}
        tool_calls: list[tuple[str, dict[str, Any]]] = []
        first_prompt = next((m.content or "" for m in request.messages if m.role == "user"), "")
        if reply.tool_calls:
            if profile.sloppy:
                content = tool_call_text(*reply.tool_calls[0])
            else:
                content, tool_calls = None, list(reply.tool_calls)
        elif profile.sloppy and reply.data is not None:
            content, reasoning = dress_json(sloppy_data(reply.kind, reply.data, first_prompt), number)
            if reasoning:
                extra["reasoning_content"] = reasoning
        elif profile.sloppy and content:
            content = dress_text(content)
        finish = "tool_calls" if tool_calls else "stop"
        limits = [x for x in (profile.completion_limit, body.get("max_tokens")) if x]
        if content and limits and tokens(content) > min(limits):
            content = content[: min(limits) * 4]
            finish = "length"
            note = "; ".join(n for n in (note, "completion cut at the limit") if n)
        completion_tokens = tokens((content or "") + "".join(json.dumps(args) for _, args in tool_calls))
        payload = completion(
            content,
            tool_calls=tool_calls,
            prompt_tokens=prompt_tokens,
            completion_tokens=completion_tokens,
            model=self.model,
            number=number,
            finish_reason=finish,
            extra=extra,
        )
        return Answer(200, payload, kind=reply.kind, note=note)
