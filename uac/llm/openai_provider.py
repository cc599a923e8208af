"""The OpenAI-compatible provider (OpenAI, vLLM, Ollama, llama.cpp server, ...).

Uses the ``openai`` package's chat completions API.  Retries are done by
:class:`uac.llm.client.LLMClient`, so the SDK's own retries are turned off.
"""

from __future__ import annotations

from typing import Any

from ..errors import ModelError, TransientModelError
from .guard import check_endpoint
from .settings import LLMSettings
from .types import ChatRequest, ChatResponse, ToolCall, Usage

DEFAULT_BASE_URL = "https://api.openai.com/v1"


class OpenAIProvider:
    name = "openai"

    def __init__(self, settings: LLMSettings) -> None:
        import openai

        if not settings.model:
            raise ModelError(
                "no model name configured for the openai provider.",
                hint="Set UAC_LLM_MODEL (e.g. gpt-4o-mini, or the model your server serves).",
            )
        self._openai = openai
        self.model = settings.model
        self.base_url = settings.base_url or DEFAULT_BASE_URL
        self.json_mode = settings.json_mode
        # Local servers (Ollama, llama.cpp, vLLM) accept any key; the SDK insists on one.
        api_key = settings.api_key or ("not-needed" if settings.base_url else "")
        if not api_key:
            raise ModelError(
                "no API key for the OpenAI endpoint.",
                hint="Set OPENAI_API_KEY (or UAC_LLM_API_KEY), or UAC_LLM_BASE_URL for a local server.",
            )
        self._client = openai.OpenAI(
            api_key=api_key,
            base_url=self.base_url,
            timeout=settings.timeout_seconds,
            max_retries=0,
        )

    def _response_format(self, request: ChatRequest) -> dict[str, Any] | None:
        if request.json_schema is None or self.json_mode == "none":
            return None
        if self.json_mode == "object":
            return {"type": "json_object"}
        return {
            "type": "json_schema",
            "json_schema": {"name": request.schema_name, "schema": request.json_schema, "strict": False},
        }

    def complete(self, request: ChatRequest) -> ChatResponse:
        check_endpoint(self.base_url)
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": [m.to_openai() for m in request.messages],
            "temperature": request.temperature,
        }
        if request.max_tokens is not None:
            kwargs["max_tokens"] = request.max_tokens
        if request.tools:
            kwargs["tools"] = list(request.tools)
        response_format = self._response_format(request)
        if response_format is not None:
            kwargs["response_format"] = response_format
        oa = self._openai
        try:
            completion = self._client.chat.completions.create(**kwargs)
        except (oa.APITimeoutError, oa.APIConnectionError, oa.RateLimitError, oa.InternalServerError) as exc:
            raise TransientModelError(f"transient error from {self.base_url}: {exc}") from exc
        except oa.AuthenticationError as exc:
            raise ModelError(
                f"the endpoint {self.base_url} rejected the API key: {exc}.",
                hint="Check OPENAI_API_KEY / UAC_LLM_API_KEY.",
            ) from exc
        except oa.NotFoundError as exc:
            raise ModelError(
                f"model {self.model!r} or route not found at {self.base_url}: {exc}.",
                hint="Check UAC_LLM_MODEL and that UAC_LLM_BASE_URL ends with /v1.",
            ) from exc
        except oa.APIStatusError as exc:
            if exc.status_code in (408, 409, 425, 429) or exc.status_code >= 500:
                raise TransientModelError(f"HTTP {exc.status_code} from {self.base_url}: {exc}") from exc
            raise ModelError(f"the endpoint {self.base_url} refused the request: {exc}.") from exc
        except oa.OpenAIError as exc:
            raise ModelError(f"model call to {self.base_url} failed: {exc}.") from exc
        if not completion.choices:
            raise TransientModelError(f"the endpoint {self.base_url} returned no choices")
        choice = completion.choices[0]
        message = choice.message
        calls = tuple(
            ToolCall(id=c.id, name=c.function.name, arguments=c.function.arguments or "{}")
            for c in (message.tool_calls or ())
            if getattr(c, "function", None) is not None
        )
        usage = Usage(calls=1)
        if completion.usage is not None:
            usage.prompt_tokens = completion.usage.prompt_tokens or 0
            usage.completion_tokens = completion.usage.completion_tokens or 0
        return ChatResponse(
            content=message.content,
            tool_calls=calls,
            usage=usage,
            model=completion.model or self.model,
            finish_reason=choice.finish_reason,
        )
