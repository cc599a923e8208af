"""The OpenAI-compatible provider (OpenAI, vLLM, Ollama, llama.cpp server, ...).

Uses the ``openai`` package's chat completions API.  Retries are done by
:class:`uac.llm.client.LLMClient`, so the SDK's own retries are turned off.

Capability negotiation (:mod:`.capabilities`): a structured request starts at
the configured ``json_mode`` (``schema`` by default) and, when the endpoint
refuses the ``response_format``, is re-sent one rung lower -- ``json_schema``
-> ``json_object`` -> no response_format (the prompt asks for JSON and the
tolerant reader finds it).  A request with ``tools`` that the endpoint
refuses raises :class:`~uac.errors.CapabilityUnsupported` (``feature="tools"``):
the caller re-asks with fenced code.  What worked is remembered per endpoint;
until it is known, the first structured request of a provider goes alone and
the others (sessions extracted side by side) wait for what it learns.
A refusal that says the prompt is too long becomes
:class:`~uac.errors.ContextOverflow`.
"""

from __future__ import annotations

import datetime as _dt
import email.utils
import json
import re
import threading
from typing import Any

from ..errors import CapabilityUnsupported, ModelError, RateLimitHit, TransientModelError
from .capabilities import JSON_MODES, CapabilityStore, EndpointCapabilities
from .guard import check_endpoint
from .limits import context_overflow_from_refusal
from .settings import LLMSettings
from .types import ChatRequest, ChatResponse, ToolCall, Usage

DEFAULT_BASE_URL = "https://api.openai.com/v1"

#: words in a refusal that point at the tools feature
_TOOL_WORDS = ("tool", "function", "jinja", "auto-tool-choice", "tool-call-parser")


def fitting_max_tokens(message: str, sent: int | None) -> int | None:
    """A smaller ``max_tokens`` when a refusal says only the completion limit does not fit.

    vLLM: "maximum context length is 8192 tokens ... (3500 in the messages, 8192 in
    the completion)" or "... your request has 3500 input tokens"; OpenAI: "supports at
    most 16384 completion tokens".  ``None`` when the prompt itself is too long.
    """
    if not sent:
        return None
    cap = re.search(r"supports at most (\d+) completion tokens", message)
    if cap:
        return int(cap.group(1)) if int(cap.group(1)) < sent else None
    limit = re.search(r"maximum context length is (\d+)", message)
    prompt = re.search(r"(\d+) in the messages", message) or re.search(r"has (\d+) input tokens", message)
    if not (limit and prompt):
        return None
    room = int(limit.group(1)) - int(prompt.group(1)) - 16
    return room if 256 <= room < sent else None


def retry_after_seconds(exc: Exception) -> float | None:
    """The wait an error response asked for: ``retry-after-ms``, or ``Retry-After`` in
    seconds or as an HTTP date (``None``: it asked for none)."""
    response = getattr(exc, "response", None)
    headers = getattr(response, "headers", None)
    if headers is None:
        return None
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return max(0.0, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=_dt.timezone.utc)
    return max(0.0, (when - _dt.datetime.now(_dt.timezone.utc)).total_seconds())


class _Refused(Exception):
    """The endpoint refused the request as malformed or unsupported (internal)."""

    def __init__(self, status: int, message: str, original: Exception) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.original = original


def _error_text(exc: Exception) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return str(inner["message"])
        if isinstance(inner, str):
            return inner
    return str(getattr(exc, "message", "") or exc)


class OpenAIProvider:
    name = "openai"
    #: usage comes from the endpoint, so the client checks it for cut prompts
    reports_usage = True

    def __init__(self, settings: LLMSettings, *, store: CapabilityStore | None = None) -> None:
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
        self.store = store if store is not None else CapabilityStore(settings.capabilities_path)
        #: whether a first structured request has been answered (see :meth:`complete`)
        self._probed = False
        self._probe_lock = threading.Lock()
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

    # -- capabilities ------------------------------------------------------------------

    def capabilities(self) -> EndpointCapabilities:
        return self.store.get(self.base_url, self.model)

    def _json_rungs(self, request: ChatRequest) -> list[str]:
        if request.json_schema is None:
            return ["none"]
        start = JSON_MODES.index(self.json_mode) if self.json_mode in JSON_MODES else 0
        known = self.capabilities().json_mode
        if known in JSON_MODES:
            start = max(start, JSON_MODES.index(known))
        return list(JSON_MODES[start:])

    def _response_format(self, request: ChatRequest, rung: str) -> dict[str, Any] | None:
        if request.json_schema is None or rung == "none":
            return None
        if rung == "object":
            return {"type": "json_object"}
        return {
            "type": "json_schema",
            "json_schema": {"name": request.schema_name, "schema": request.json_schema, "strict": False},
        }

    # -- the call --------------------------------------------------------------------------

    def complete(self, request: ChatRequest) -> ChatResponse:
        if request.json_schema is None or self._probed or self.capabilities().json_mode is not None:
            return self._complete(request)
        # the endpoint's JSON mode is not known yet: the first structured request goes
        # alone and the others wait for what it learns (calls side by side would each be
        # refused once by a server that does not take a JSON schema)
        with self._probe_lock:
            if not self._probed:
                try:
                    return self._complete(request)
                finally:
                    self._probed = True
        return self._complete(request)

    def _complete(self, request: ChatRequest) -> ChatResponse:
        check_endpoint(self.base_url)
        if request.tools and self.capabilities().tools is False:
            raise CapabilityUnsupported(
                f"the endpoint {self.base_url} (model {self.model}) does not take native tool calls.",
                feature="tools",
            )
        rungs = self._json_rungs(request)
        first_refusal: _Refused | None = None
        lowered_limit = 0
        for index, rung in enumerate(rungs):
            kwargs = self._kwargs(request, rung)
            try:
                try:
                    completion = self._send(kwargs)
                except _Refused as refusal:
                    smaller = fitting_max_tokens(refusal.message, request.max_tokens)
                    if smaller is None:
                        raise
                    kwargs["max_tokens"] = smaller  # the prompt fits, the completion limit did not
                    lowered_limit = 1
                    completion = self._send(kwargs)
            except _Refused as refusal:
                overflow = context_overflow_from_refusal(
                    refusal.message, purpose=request.purpose, where=f"the endpoint {self.base_url}"
                )
                if overflow is not None:
                    raise overflow from refusal.original
                lowered = refusal.message.lower()
                if request.tools and any(w in lowered for w in _TOOL_WORDS):
                    self.store.update(self.base_url, self.model, tools=False)
                    raise CapabilityUnsupported(
                        f"the endpoint {self.base_url} (model {self.model}) refused native tool calls "
                        f"(HTTP {refusal.status}: {refusal.message[:200]}).",
                        feature="tools",
                        hint='uac falls back to fenced code blocks by itself; [answer] tool_mode = "codeblock" '
                        "skips the first attempt.",
                    ) from refusal.original
                first_refusal = first_refusal or refusal
                if "response_format" in kwargs and index + 1 < len(rungs):
                    continue
                raise ModelError(
                    f"the endpoint {self.base_url} refused the request (HTTP {first_refusal.status}): "
                    f"{first_refusal.message[:500]}.",
                    hint="Check UAC_LLM_MODEL and the server's options; {do:probe_model}.",
                ) from first_refusal.original
            response = self._response(completion, fallbacks=index + lowered_limit)
            response.max_tokens = kwargs.get("max_tokens")
            self._learn(request, rung, index)
            return response
        raise AssertionError("unreachable")  # pragma: no cover

    def _learn(self, request: ChatRequest, rung: str, degraded: int) -> None:
        changes: dict[str, Any] = {}
        if request.json_schema is not None and (degraded or rung == "schema"):
            changes["json_mode"] = rung
        if request.tools:
            changes["tools"] = True
        if changes:
            self.store.update(self.base_url, self.model, **changes)

    def _kwargs(self, request: ChatRequest, rung: str) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": [m.to_openai() for m in request.messages],
            "temperature": request.temperature,
        }
        if request.max_tokens is not None:
            kwargs["max_tokens"] = request.max_tokens
        if request.tools:
            kwargs["tools"] = list(request.tools)
        response_format = self._response_format(request, rung)
        if response_format is not None:
            kwargs["response_format"] = response_format
        if request.timeout is not None:
            kwargs["timeout"] = request.timeout
        return kwargs

    def _send(self, kwargs: dict[str, Any]) -> Any:
        oa = self._openai
        where = self.base_url
        try:
            return self._client.chat.completions.create(**kwargs)
        except oa.RateLimitError as exc:
            raise RateLimitHit(
                f"HTTP 429 from {where}: {_error_text(exc)[:300]}", retry_after=retry_after_seconds(exc)
            ) from exc
        except (oa.APITimeoutError, oa.APIConnectionError) as exc:
            raise TransientModelError(f"transient error from {where}: {exc}") from exc
        except oa.AuthenticationError as exc:
            raise ModelError(
                f"the endpoint {where} rejected the API key: {exc}.",
                hint="Check OPENAI_API_KEY / UAC_LLM_API_KEY.",
            ) from exc
        except oa.NotFoundError as exc:
            raise ModelError(
                f"model {self.model!r} or route not found at {where}: {exc}.",
                hint="Check UAC_LLM_MODEL and that UAC_LLM_BASE_URL ends with /v1.",
            ) from exc
        except (oa.BadRequestError, oa.UnprocessableEntityError) as exc:
            raise _Refused(exc.status_code, _error_text(exc), exc) from exc
        except oa.APIStatusError as exc:
            text = _error_text(exc)
            lowered = text.lower()
            # Some servers answer an unsupported feature with a 500 that names it (llama.cpp without --jinja).
            if exc.status_code == 500 and any(
                w in lowered for w in ("--jinja", "response_format", "json_schema", "not supported", "unsupported")
            ):
                raise _Refused(exc.status_code, text, exc) from exc
            if exc.status_code == 429:
                raise RateLimitHit(
                    f"HTTP 429 from {where}: {text[:300]}", retry_after=retry_after_seconds(exc)
                ) from exc
            if exc.status_code in (408, 409, 425) or exc.status_code >= 500:
                raise TransientModelError(
                    f"HTTP {exc.status_code} from {where}: {text[:300]}", retry_after=retry_after_seconds(exc)
                ) from exc
            raise ModelError(
                f"the endpoint {where} refused the request (HTTP {exc.status_code}): {text[:500]}."
            ) from exc
        except oa.OpenAIError as exc:
            raise ModelError(f"model call to {where} failed: {exc}.") from exc

    def _response(self, completion: Any, *, fallbacks: int) -> ChatResponse:
        where = self.base_url
        choices = getattr(completion, "choices", None)
        if choices is None:
            raise ModelError(
                f"the endpoint {where} answered with something that is not a chat completion: {str(completion)[:200]!r}.",
                hint="Check that UAC_LLM_BASE_URL points at an OpenAI-compatible API (it usually ends with /v1).",
            )
        if not choices:
            raise TransientModelError(f"the endpoint {where} returned no choices")
        choice = choices[0]
        message = choice.message
        calls = []
        for number, call in enumerate(getattr(message, "tool_calls", None) or (), 1):
            function = getattr(call, "function", None)
            if function is None:
                continue
            arguments = getattr(function, "arguments", None)
            if arguments is None:
                arguments = "{}"
            elif not isinstance(arguments, str):
                arguments = json.dumps(arguments, ensure_ascii=False)  # some servers send an object
            calls.append(
                ToolCall(
                    id=getattr(call, "id", None) or f"call_{number}",
                    name=str(getattr(function, "name", "") or ""),
                    arguments=arguments,
                )
            )
        extra = getattr(message, "model_extra", None) or {}
        reasoning = extra.get("reasoning_content") or extra.get("reasoning")
        content = message.content
        if content is not None and not isinstance(content, str):
            content = json.dumps(content, ensure_ascii=False)
        usage = Usage(calls=1, fallbacks=fallbacks)
        reported = getattr(completion, "usage", None)
        if reported is not None:
            usage.prompt_tokens = int(getattr(reported, "prompt_tokens", 0) or 0)
            usage.completion_tokens = int(getattr(reported, "completion_tokens", 0) or 0)
        return ChatResponse(
            content=content,
            tool_calls=tuple(calls),
            usage=usage,
            model=getattr(completion, "model", None) or self.model,
            finish_reason=getattr(choice, "finish_reason", None),
            reasoning=str(reasoning) if reasoning else None,
        )
