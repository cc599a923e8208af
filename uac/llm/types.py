"""Value types shared by every model provider."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any, Callable

from ..errors import InvalidReply, ModelError, ReplyCutOff


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: str  # JSON text, as the model produced it

    def parsed_arguments(self) -> dict[str, Any]:
        try:
            value = json.loads(self.arguments or "{}")
        except json.JSONDecodeError as exc:
            raise ModelError(f"tool call {self.name!r} has arguments that are not JSON: {exc}.") from None
        if not isinstance(value, dict):
            raise ModelError(f"tool call {self.name!r} arguments must be a JSON object.")
        return value


@dataclass(frozen=True)
class Message:
    role: str  # system | user | assistant | tool
    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    name: str | None = None

    def to_openai(self) -> dict[str, Any]:
        out: dict[str, Any] = {"role": self.role, "content": self.content}
        if self.tool_calls:
            out["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in self.tool_calls
            ]
        if self.tool_call_id is not None:
            out["tool_call_id"] = self.tool_call_id
        if self.name is not None:
            out["name"] = self.name
        return out


def system(text: str) -> Message:
    return Message("system", text)


def user(text: str) -> Message:
    return Message("user", text)


@dataclass
class Usage:
    """Tokens and calls.  ``prompt_tokens``/``completion_tokens`` are what was spent;
    replies served from the response cache count apart (``cached_*``)."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    #: every call answered, from the model or from the cache
    calls: int = 0
    cached_calls: int = 0
    cached_prompt_tokens: int = 0
    cached_completion_tokens: int = 0
    #: transient failures retried (timeouts, 5xx, 429)
    retries: int = 0
    #: requests re-sent without a feature the endpoint refused (response_format, tools)
    fallbacks: int = 0

    def add(self, other: "Usage") -> None:
        for name in _USAGE_FIELDS:
            setattr(self, name, getattr(self, name) + getattr(other, name))

    def copy(self) -> "Usage":
        return Usage(**{name: getattr(self, name) for name in _USAGE_FIELDS})

    def minus(self, other: "Usage") -> "Usage":
        return Usage(**{name: getattr(self, name) - getattr(other, name) for name in _USAGE_FIELDS})

    def as_cached(self) -> "Usage":
        """This usage as a cache hit: nothing spent, the original tokens counted apart."""
        return Usage(
            calls=1,
            cached_calls=1,
            cached_prompt_tokens=self.prompt_tokens + self.cached_prompt_tokens,
            cached_completion_tokens=self.completion_tokens + self.cached_completion_tokens,
        )

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    @property
    def footprint(self) -> tuple[int, int]:
        """(prompt, completion) tokens the calls take, spent now or served from the cache:
        what a benchmark compares between systems (a warm cache does not change it)."""
        return (self.prompt_tokens + self.cached_prompt_tokens, self.completion_tokens + self.cached_completion_tokens)

    def to_json(self) -> dict[str, int]:
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens}

    def report(self) -> dict[str, Any]:
        """The full accounting, as command reports show it."""
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "calls": self.calls - self.cached_calls,
            "retries": self.retries,
            "fallbacks": self.fallbacks,
            "cached": {
                "calls": self.cached_calls,
                "prompt_tokens": self.cached_prompt_tokens,
                "completion_tokens": self.cached_completion_tokens,
            },
        }


_USAGE_FIELDS = (
    "prompt_tokens",
    "completion_tokens",
    "calls",
    "cached_calls",
    "cached_prompt_tokens",
    "cached_completion_tokens",
    "retries",
    "fallbacks",
)


@dataclass(frozen=True)
class ChatRequest:
    messages: tuple[Message, ...]
    json_schema: dict[str, Any] | None = None
    schema_name: str = "response"
    tools: tuple[dict[str, Any], ...] = ()
    temperature: float = 0.0
    max_tokens: int | None = None
    #: what the call is for (``"extract ..."``, ``"answer"`` ...); not part of the fingerprint
    purpose: str = field(default="", compare=False)
    #: seconds to wait for the endpoint; ``None``: the provider's default
    timeout: float | None = field(default=None, compare=False)

    def prompt_texts(self) -> list[str]:
        """The texts the model reads (for token estimates)."""
        out = [m.content or "" for m in self.messages]
        out.extend(c.arguments for m in self.messages for c in m.tool_calls)
        return out

    def fingerprint(self, model: str, provider: str) -> str:
        """Stable hash of everything that determines the response."""
        payload = {
            "provider": provider,
            "model": model,
            "messages": [m.to_openai() for m in self.messages],
            "json_schema": self.json_schema,
            "schema_name": self.schema_name,
            "tools": list(self.tools),
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
        }
        text = json.dumps(payload, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass
class ChatResponse:
    content: str | None
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = field(default_factory=Usage)
    model: str = ""
    finish_reason: str | None = None
    cached: bool = False
    #: reasoning the endpoint returned apart from the content (``reasoning_content``)
    reasoning: str | None = None
    #: the JSON schema the request asked for (set by the client; not cached)
    schema: dict[str, Any] | None = field(default=None, repr=False, compare=False)
    #: the max_tokens sent, for messages about cut-off replies (not cached)
    max_tokens: int | None = field(default=None, repr=False, compare=False)
    purpose: str = field(default="", repr=False, compare=False)
    _on_accept: Callable[[], None] | None = field(default=None, repr=False, compare=False)
    _on_reject: Callable[[], None] | None = field(default=None, repr=False, compare=False)

    @property
    def cut_off(self) -> bool:
        """Did the endpoint stop at the token limit?"""
        return self.finish_reason == "length"

    def message(self) -> Message:
        """The assistant message to append to a conversation."""
        return Message("assistant", self.content, tool_calls=self.tool_calls)

    def text(self) -> str:
        """The content without reasoning blocks (``<think>...</think>``)."""
        from .structured import strip_reasoning

        return strip_reasoning(self.content)

    def json(self, schema: dict[str, Any] | None = None) -> Any:
        """The structured value of the reply, read by the tolerant reader.

        ``schema`` defaults to the one the request asked for.  Raises
        :class:`~uac.errors.InvalidReply` (or :class:`~uac.errors.ReplyCutOff`
        when the reply stopped at the token limit); a reply that fails is never
        cached, one that passes is.
        """
        return read_json(self, schema)

    def accept(self) -> None:
        """The caller found the reply valid: structured replies enter the cache only now."""
        hook, self._on_accept, self._on_reject = self._on_accept, None, None
        if hook is not None:
            hook()

    def reject(self) -> None:
        """The caller found the reply invalid: never cache it (and evict it if it came from the cache)."""
        hook, self._on_accept, self._on_reject = self._on_reject, None, None
        if hook is not None:
            hook()

    def to_cache(self) -> str:
        data = {
            "content": self.content,
            "tool_calls": [asdict(c) for c in self.tool_calls],
            "usage": {
                "prompt_tokens": self.usage.prompt_tokens,
                "completion_tokens": self.usage.completion_tokens,
                "calls": 1,
            },
            "model": self.model,
            "finish_reason": self.finish_reason,
            "reasoning": self.reasoning,
        }
        return json.dumps(data, ensure_ascii=False)

    @classmethod
    def from_cache(cls, text: str) -> "ChatResponse":
        data = json.loads(text)
        usage = data.get("usage", {})
        original = Usage(
            prompt_tokens=int(usage.get("prompt_tokens", 0)), completion_tokens=int(usage.get("completion_tokens", 0))
        )
        return cls(
            content=data["content"],
            tool_calls=tuple(ToolCall(**c) for c in data.get("tool_calls", ())),
            usage=original.as_cached(),
            model=data.get("model", ""),
            finish_reason=data.get("finish_reason"),
            cached=True,
            reasoning=data.get("reasoning"),
        )


def read_json(response: ChatResponse, schema: dict[str, Any] | None = None) -> Any:
    """The structured value of ``response`` (see :meth:`ChatResponse.json`)."""
    from .structured import parse_structured

    schema = response.schema if schema is None else schema
    try:
        value = parse_structured(response.content, schema).value
    except InvalidReply as exc:
        response.reject()
        if response.cut_off:
            limit = f" of {response.max_tokens} tokens" if response.max_tokens else ""
            raise ReplyCutOff(
                f"the model's reply stopped at the token limit{limit} before its JSON was complete"
                + (f" ({response.purpose})" if response.purpose else "")
                + ".",
                max_tokens=response.max_tokens,
                purpose=response.purpose,
                hint="uac splits the work and retries where it can; otherwise raise the limit under [llm.max_tokens] in uac.toml.",
            ) from exc
        raise
    response.accept()
    return value


def estimate_tokens(text: str | None) -> int:
    """Rough token count (about 4 characters a token) for providers that report none."""
    if not text:
        return 0
    return max(1, (len(text) + 3) // 4)
