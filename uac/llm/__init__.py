"""The LLM layer: one client abstraction for every model call in uac.

* :func:`build_client` turns :class:`LLMSettings` into an :class:`LLMClient`
  (or ``None`` when no model is configured);
* providers: ``openai`` (any OpenAI-compatible endpoint, with capability
  negotiation), ``scripted`` (the test double, also usable from the CLI via
  ``UAC_LLM_SCRIPT``) and ``rules`` (:mod:`.rule_model`, the rule-based stand-in
  model that reads the structure of uac's requests and answers by rule; ``protocol``
  is its old name, still accepted);
* :mod:`.structured`: the tolerant reader every structured reply goes through
  (:meth:`ChatResponse.json`, :func:`read_json`); it raises
  :class:`~uac.errors.InvalidReply`, or :class:`~uac.errors.ReplyCutOff` when
  the reply stopped at the token limit (split the work and retry);
* :mod:`.limits`: ``max_tokens`` and timeouts per purpose, and the check that
  the endpoint read the whole prompt;
* :func:`require` raises :class:`~uac.errors.ModelNotConfigured` with the
  message that says how to configure a model.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ..errors import NO_MODEL_HINT, ModelNotConfigured

if TYPE_CHECKING:
    from .cache import ResponseCache
    from .capabilities import CapabilityStore, EndpointCapabilities
    from .client import LLMClient, Provider
    from .limits import Limits, purpose_kind
    from .scripted import ScriptedProvider
    from .settings import LLMSettings, resolve_settings
    from .structured import clean_id, parse_structured, strip_reasoning
    from .types import ChatRequest, ChatResponse, Message, ToolCall, Usage, read_json, system, user

# The names below are imported on first use (PEP 562): opening a project, or a
# command line that searches, must not pay for the HTTP client and its helpers.
# Each module is listed with the names it gives, as the imports for type checkers list them.
_LAZY_MODULES: dict[str, tuple[str, ...]] = {
    ".cache": ("ResponseCache",),
    ".capabilities": ("CapabilityStore", "EndpointCapabilities"),
    ".client": ("LLMClient", "Provider"),
    ".limits": ("Limits", "purpose_kind"),
    ".scripted": ("ScriptedProvider",),
    ".settings": ("LLMSettings", "resolve_settings"),
    ".structured": ("clean_id", "parse_structured", "strip_reasoning"),
    ".types": ("ChatRequest", "ChatResponse", "Message", "ToolCall", "Usage", "read_json", "system", "user"),
}
_LAZY: dict[str, str] = {name: module for module, names in _LAZY_MODULES.items() for name in names}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(module, __name__), name)
    globals()[name] = value
    return value


__all__ = [
    "CapabilityStore",
    "EndpointCapabilities",
    "Limits",
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
    "clean_id",
    "parse_structured",
    "purpose_kind",
    "read_json",
    "strip_reasoning",
    "require",
    "resolve_settings",
    "system",
    "user",
]


def build_client(settings: LLMSettings) -> LLMClient | None:
    """The client for ``settings``; ``None`` if the provider is ``none``."""
    from .cache import ResponseCache
    from .client import LLMClient
    from .scripted import ScriptedProvider
    from .settings import RULE_MODEL_PROVIDERS

    if settings.provider == "none":
        return None
    if settings.provider == "scripted":
        provider: Provider = ScriptedProvider.from_file(settings.script) if settings.script else ScriptedProvider()
        cache = None  # replaying a script must consume it, not hit a cache
    elif settings.provider in RULE_MODEL_PROVIDERS:
        from .rule_model import RuleModel

        provider = RuleModel()
        cache = None
    else:
        from .openai_provider import OpenAIProvider

        provider = OpenAIProvider(settings)
        cache = ResponseCache(settings.cache_path) if settings.cache_path else None
    return LLMClient(
        provider,
        cache=cache,
        max_retries=settings.max_retries,
        temperature=settings.temperature,
        limits=settings.limits,
        concurrency=settings.concurrency,
        requests_per_minute=settings.requests_per_minute,
        tokens_per_minute=settings.tokens_per_minute,
    )


def require(client: LLMClient | None, what: str) -> LLMClient:
    """Return ``client`` or raise the one error that says how to configure a model."""
    if client is None:
        raise ModelNotConfigured(f"{what} needs a language model, and none is configured.", hint=NO_MODEL_HINT)
    return client
