"""Value types shared by every model provider."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from typing import Any

from ..errors import ModelError


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
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0
    cached_calls: int = 0

    def add(self, other: "Usage") -> None:
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.calls += other.calls
        self.cached_calls += other.cached_calls

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def to_json(self) -> dict[str, int]:
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens}


@dataclass(frozen=True)
class ChatRequest:
    messages: tuple[Message, ...]
    json_schema: dict[str, Any] | None = None
    schema_name: str = "response"
    tools: tuple[dict[str, Any], ...] = ()
    temperature: float = 0.0
    max_tokens: int | None = None

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

    def message(self) -> Message:
        """The assistant message to append to a conversation."""
        return Message("assistant", self.content, tool_calls=self.tool_calls)

    def json(self) -> Any:
        """The content parsed as JSON (code fences tolerated)."""
        text = (self.content or "").strip()
        if text.startswith("```"):
            text = text.split("\n", 1)[1] if "\n" in text else ""
            text = text.rsplit("```", 1)[0]
        try:
            return json.loads(text)
        except json.JSONDecodeError as exc:
            snippet = (self.content or "")[:200]
            raise ModelError(
                f"the model's reply is not valid JSON ({exc}): {snippet!r}.",
                hint="Use a model that supports JSON output, or set json_mode in [llm].",
            ) from None

    def to_cache(self) -> str:
        data = asdict(self)
        data.pop("cached")
        return json.dumps(data, ensure_ascii=False)

    @classmethod
    def from_cache(cls, text: str) -> "ChatResponse":
        data = json.loads(text)
        return cls(
            content=data["content"],
            tool_calls=tuple(ToolCall(**c) for c in data.get("tool_calls", ())),
            usage=Usage(**data.get("usage", {})),
            model=data.get("model", ""),
            finish_reason=data.get("finish_reason"),
            cached=True,
        )


def estimate_tokens(text: str | None) -> int:
    """Rough token count (about 4 characters a token) for providers that report none."""
    if not text:
        return 0
    return max(1, (len(text) + 3) // 4)
