"""Resolve which model to use: defaults < ``uac.toml`` [llm] < environment.

Environment variables (all optional):

==========================  ==================================================
``UAC_LLM_PROVIDER``        ``openai``, ``scripted``, ``rules`` or ``none`` (``protocol``, the
                            old name of ``rules``, is still accepted)
``UAC_LLM_MODEL``           model name (setting it alone implies ``openai``)
``UAC_LLM_BASE_URL``        OpenAI-compatible endpoint (vLLM, Ollama, llama.cpp)
``UAC_LLM_API_KEY``         API key (else the variable named by ``api_key_env``,
                            default ``OPENAI_API_KEY``)
``UAC_LLM_TIMEOUT``         seconds per request (``[llm.timeouts]`` sets them per purpose)
``UAC_LLM_MAX_RETRIES``     retries on transient errors
``UAC_LLM_JSON_MODE``       ``schema``, ``object`` or ``none``: the first response_format
                            tried (uac steps down by itself when the server refuses it)
``UAC_LLM_SCRIPT``          JSONL file of canned responses (scripted provider)
``UAC_LLM_CACHE``           ``0`` disables the response cache; a path moves it
``UAC_LLM_CONCURRENCY``     model calls in flight at once (``1``: one after another)
``UAC_LLM_REQUESTS_PER_MINUTE``  a budget of requests per rolling minute (``0``: none)
``UAC_LLM_TOKENS_PER_MINUTE``    a budget of tokens per rolling minute (``0``: none)
==========================  ==================================================
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from pathlib import Path

from ..config import DEFAULT_MAX_TOKENS, LLMConfig
from ..errors import ConfigError
from .limits import Limits

#: the names of the rule-based stand-in model (:mod:`uac.llm.rule_model`): ``rules``, and
#: ``protocol``, its name before it was renamed, which configurations may still use
RULE_MODEL_PROVIDERS = ("rules", "protocol")
PROVIDERS = ("none", "openai", "scripted", *RULE_MODEL_PROVIDERS)


#: the defaults of the project's [llm] table, which the settings share
_CONFIG = LLMConfig()


@dataclass(frozen=True)
class LLMSettings:
    """The model settings in force: the project's [llm] table with the environment over it."""

    provider: str = _CONFIG.provider
    model: str = _CONFIG.model
    base_url: str = _CONFIG.base_url
    api_key: str = ""
    timeout_seconds: float = _CONFIG.timeout_seconds
    max_retries: int = _CONFIG.max_retries
    temperature: float = _CONFIG.temperature
    json_mode: str = _CONFIG.json_mode
    cache_path: Path | None = None
    script: str = _CONFIG.script
    #: where what the endpoint supports is remembered (``None``: in memory only)
    capabilities_path: Path | None = None
    limits: Limits = field(default_factory=Limits)
    concurrency: int = _CONFIG.concurrency
    requests_per_minute: int = _CONFIG.requests_per_minute
    tokens_per_minute: int = _CONFIG.tokens_per_minute

    @property
    def configured(self) -> bool:
        return self.provider != "none"

    def describe(self) -> str:
        if self.provider == "none":
            return "none (LLM-free paths only)"
        if self.provider == "scripted":
            return f"scripted ({self.script or 'in-memory queue'})"
        if self.provider in RULE_MODEL_PROVIDERS:
            return f"{self.provider} (the rule-based stand-in model shipped with uac)"
        where = self.base_url or "api.openai.com"
        return f"openai-compatible: model {self.model or '?'} at {where}"


def _float(env: dict[str, str], key: str, default: float) -> float:
    value = env.get(key)
    if value is None or value == "":
        return default
    try:
        return float(value)
    except ValueError:
        raise ConfigError(f"{key}={value!r} is not a number.") from None


def _whole(env: dict[str, str], key: str, default: int, minimum: int) -> int:
    value = env.get(key, "").strip()
    if not value:
        return default
    try:
        number = int(value)
    except ValueError:
        raise ConfigError(f"{key}={value!r} is not a whole number.") from None
    if number < minimum:
        raise ConfigError(f"{key}={value!r} must be at least {minimum}.")
    return number


def resolve_settings(
    config: LLMConfig | None = None,
    *,
    project_root: Path | None = None,
    env: dict[str, str] | None = None,
) -> LLMSettings:
    """Combine the project's [llm] table with the environment."""
    env = dict(os.environ if env is None else env)
    config = config or LLMConfig()
    provider = env.get("UAC_LLM_PROVIDER", "").strip().lower()
    model = env.get("UAC_LLM_MODEL", "").strip() or config.model
    if not provider:
        provider = config.provider
        if provider == "none" and env.get("UAC_LLM_MODEL", "").strip():
            provider = "openai"
    if provider not in PROVIDERS:
        raise ConfigError(
            f"UAC_LLM_PROVIDER={provider!r} is not a provider.",
            hint="Use openai, scripted, rules or none.",
        )
    json_mode = env.get("UAC_LLM_JSON_MODE", "").strip() or config.json_mode
    if json_mode not in ("schema", "object", "none"):
        raise ConfigError(f"UAC_LLM_JSON_MODE={json_mode!r} must be schema, object or none.")
    api_key = env.get("UAC_LLM_API_KEY", "") or env.get(config.api_key_env or "OPENAI_API_KEY", "")
    cache_setting = env.get("UAC_LLM_CACHE", "").strip()
    cache_path: Path | None
    if cache_setting in ("0", "false", "off", "no"):
        cache_path = None
    elif cache_setting and cache_setting not in ("1", "true", "on", "yes"):
        cache_path = Path(cache_setting).expanduser()
    elif config.cache and project_root is not None:
        cache_path = project_root / ".uac" / "llm-cache.sqlite"
    else:
        cache_path = None
    retries = env.get("UAC_LLM_MAX_RETRIES", "").strip()
    try:
        max_retries = int(retries) if retries else config.max_retries
    except ValueError:
        raise ConfigError(f"UAC_LLM_MAX_RETRIES={retries!r} is not a whole number.") from None
    timeout = _float(env, "UAC_LLM_TIMEOUT", config.timeout_seconds)
    limits = Limits(
        max_tokens={**DEFAULT_MAX_TOKENS, **config.max_tokens},
        timeouts=dict(config.timeouts),
        default_timeout=timeout,
        check_context=config.check_context,
    )
    script = env.get("UAC_LLM_SCRIPT", "").strip() or config.script
    if script and project_root is not None and not os.path.isabs(script) and not env.get("UAC_LLM_SCRIPT"):
        script = str(project_root / script)
    return LLMSettings(
        provider=provider,
        model=model,
        base_url=env.get("UAC_LLM_BASE_URL", "").strip() or config.base_url,
        api_key=api_key,
        timeout_seconds=timeout,
        max_retries=max_retries,
        temperature=config.temperature,
        json_mode=json_mode,
        cache_path=cache_path,
        script=script,
        capabilities_path=project_root / ".uac" / "llm-endpoints.json" if project_root is not None else None,
        limits=limits,
        concurrency=_whole(env, "UAC_LLM_CONCURRENCY", config.concurrency, 1),
        requests_per_minute=_whole(env, "UAC_LLM_REQUESTS_PER_MINUTE", config.requests_per_minute, 0),
        tokens_per_minute=_whole(env, "UAC_LLM_TOKENS_PER_MINUTE", config.tokens_per_minute, 0),
    )


def with_overrides(settings: LLMSettings, **changes) -> LLMSettings:
    return replace(settings, **changes)
