"""The LLM layer: one client abstraction for every model call in uac.

* :func:`build_client` turns :class:`LLMSettings` into an :class:`LLMClient`
  (or ``None`` when no model is configured);
* providers: ``openai`` (any OpenAI-compatible endpoint) and ``scripted`` (the
  test double, also usable from the CLI via ``UAC_LLM_SCRIPT``);
* :func:`require` raises :class:`~uac.errors.ModelNotConfigured` with the
  message that says how to configure a model.
"""

from __future__ import annotations

from ..errors import NO_MODEL_HINT, ModelNotConfigured
from .cache import ResponseCache
from .client import LLMClient, Provider
from .scripted import ScriptedProvider
from .settings import LLMSettings, resolve_settings
from .types import ChatRequest, ChatResponse, Message, ToolCall, Usage, system, user

__all__ = [
    "LLMClient",
    "LLMSettings",
    "Provider",
    "ResponseCache",
    "ScriptedProvider",
    "ChatRequest",
    "ChatResponse",
    "Message",
    "ToolCall",
    "Usage",
    "build_client",
    "require",
    "resolve_settings",
    "system",
    "user",
]


def build_client(settings: LLMSettings) -> LLMClient | None:
    """The client for ``settings``; ``None`` if the provider is ``none``."""
    if settings.provider == "none":
        return None
    if settings.provider == "scripted":
        provider: Provider = (
            ScriptedProvider.from_file(settings.script) if settings.script else ScriptedProvider()
        )
        cache = None  # replaying a script must consume it, not hit a cache
    else:
        from .openai_provider import OpenAIProvider

        provider = OpenAIProvider(settings)
        cache = ResponseCache(settings.cache_path) if settings.cache_path else None
    return LLMClient(
        provider,
        cache=cache,
        max_retries=settings.max_retries,
        temperature=settings.temperature,
    )


def require(client: LLMClient | None, what: str) -> LLMClient:
    """Return ``client`` or raise the one error that says how to configure a model."""
    if client is None:
        raise ModelNotConfigured(f"{what} needs a language model, and none is configured.", hint=NO_MODEL_HINT)
    return client
