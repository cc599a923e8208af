"""``uac.toml``: the project's settings, read with :mod:`tomllib` and validated.

The file is small and hand-editable.  Each section maps to a frozen dataclass;
unknown keys inside a known section are an error (a typo would otherwise be
silently ignored), unknown sections are kept as they are so newer uac versions
can add settings without breaking older readers of the same format version.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from .errors import ConfigError

#: completion limits per purpose when ``[llm.max_tokens]`` does not set them
DEFAULT_MAX_TOKENS: dict[str, int] = {
    "extract": 8192,
    "route": 4096,
    "compile": 8192,
    "answer": 2048,
    "decide": 1024,
    "check": 64,
}
#: the purposes ``[llm.max_tokens]`` and ``[llm.timeouts]`` may name
PURPOSES = ("extract", "route", "compile", "answer", "decide", "judge", "check")

FORMAT_VERSION = 1
CONFIG_NAME = "uac.toml"


@dataclass(frozen=True)
class UserSettings:
    name: str = "user"
    timezone: str = "UTC"
    created: str = ""
    #: ISO 4217 code of the user's own money ("AUD"): what a bare "$", "dollars" or "bucks"
    #: means to the offline rules; "" lets them take it from the country of the user's home
    currency: str = ""


@dataclass(frozen=True)
class LLMConfig:
    """Model settings stored in the project (environment variables override them)."""

    provider: str = "none"  # none | openai | scripted | rules (or protocol, its old name)
    model: str = ""
    base_url: str = ""
    api_key_env: str = "OPENAI_API_KEY"
    timeout_seconds: float = 60.0
    max_retries: int = 3
    temperature: float = 0.0
    json_mode: str = "schema"  # schema | object | none: the first response_format tried
    cache: bool = True
    script: str = ""
    #: stop when the endpoint reports far fewer prompt tokens than were sent (a cut prompt)
    check_context: bool = True
    #: completion limit per purpose (extract, route, compile, answer, decide, judge, check); 0: send none
    max_tokens: dict[str, int] = field(default_factory=lambda: dict(DEFAULT_MAX_TOKENS))
    #: request timeout (seconds) per purpose; purposes not listed use timeout_seconds
    timeouts: dict[str, float] = field(default_factory=dict)
    #: model calls in flight at once (extraction windows, sessions, compile domains); 1: one after another
    concurrency: int = 4
    #: budgets per rolling minute shared by all workers (0: none); set them to the provider's limits
    requests_per_minute: int = 0
    tokens_per_minute: int = 0


@dataclass(frozen=True)
class ExtractConfig:
    """How the LLM extractor cuts sessions into prompts."""

    window_chars: int = 12_000
    context_turns: int = 3
    known_facts: int = 30
    #: sessions of one input extracted side by side (their calls within [llm] concurrency):
    #: session n is shown the facts of the sessions up to n - parallel_sessions (and everything
    #: committed before the input), whatever the concurrency; what each new fact changes is
    #: settled at its commit against every fact committed before it (reconcile), so the log
    #: does not depend on it; 1: strictly sequential (each session waits for the one before)
    parallel_sessions: int = 16


@dataclass(frozen=True)
class CompileConfig:
    mode: str = "incremental"  # incremental | bounded
    bounded_chars: int = 30_000
    domain_prompt_chars: int = 24_000
    repair_rounds: int = 2
    #: incremental mode: most facts in one batch, and characters of related records shown with it
    batch_facts: int = 25
    related_chars: int = 4_000
    #: after an ingest, bring the view up to date by itself (uac.compile.follow)
    auto: bool = True


@dataclass(frozen=True)
class AnswerConfig:
    state_chars: int = 6_000
    top_facts: int = 20
    top_archive: int = 10
    loading: str = "modular"  # monolithic | modular | manifest
    max_tool_steps: int = 6
    tool_mode: str = "native"  # native (function calling) | codeblock (fenced code in replies)
    iterative_rounds: int = 3
    iterative_queries: int = 2
    #: answer style: the wording of "not in memory", the length, the reasoning mode
    refusal: str = "Not mentioned in memory."
    answer_length: str = "short"  # phrase | short | full
    reasoning: str = "direct"  # direct | step_by_step
    #: characters of each sandbox result sent back to the model
    tool_output_chars: int = 8_000


@dataclass(frozen=True)
class IndexConfig:
    backend: str = "embedded"  # embedded | http
    chroma_host: str = "127.0.0.1"
    chroma_port: int = 8000


@dataclass(frozen=True)
class SandboxConfig:
    require_jail: bool = False
    cpu_seconds: float = 10.0
    wall_seconds: float = 15.0
    memory_mb: int = 1024


_CHOICES: dict[tuple[str, str], tuple[str, ...]] = {
    ("llm", "provider"): ("none", "openai", "scripted", "rules", "protocol"),
    ("llm", "json_mode"): ("schema", "object", "none"),
    ("compile", "mode"): ("incremental", "bounded"),
    ("answer", "loading"): ("monolithic", "modular", "manifest"),
    ("answer", "tool_mode"): ("native", "codeblock"),
    ("answer", "answer_length"): ("phrase", "short", "full"),
    ("answer", "reasoning"): ("direct", "step_by_step"),
    ("index", "backend"): ("embedded", "http"),
}

#: settings with a lower bound above zero
_MINIMUM: dict[tuple[str, str], int] = {
    ("llm", "concurrency"): 1,
    ("extract", "parallel_sessions"): 1,
}

_SECTIONS: dict[str, type] = {
    "user": UserSettings,
    "llm": LLMConfig,
    "extract": ExtractConfig,
    "compile": CompileConfig,
    "answer": AnswerConfig,
    "index": IndexConfig,
    "sandbox": SandboxConfig,
}


@dataclass(frozen=True)
class ProjectConfig:
    """The parsed content of ``uac.toml``."""

    format_version: int = FORMAT_VERSION
    migrations: tuple[str, ...] = ()
    user: UserSettings = field(default_factory=UserSettings)
    llm: LLMConfig = field(default_factory=LLMConfig)
    extract: ExtractConfig = field(default_factory=ExtractConfig)
    compile: CompileConfig = field(default_factory=CompileConfig)
    answer: AnswerConfig = field(default_factory=AnswerConfig)
    index: IndexConfig = field(default_factory=IndexConfig)
    sandbox: SandboxConfig = field(default_factory=SandboxConfig)
    extra: dict[str, Any] = field(default_factory=dict)

    def replace(self, **changes: Any) -> "ProjectConfig":
        return dataclasses.replace(self, **changes)

    def with_section(self, section: str, **changes: Any) -> "ProjectConfig":
        current = getattr(self, section)
        return dataclasses.replace(self, **{section: dataclasses.replace(current, **changes)})


def _check_table(path: Path, section: str, key: str, value: Any, expected: dict[str, Any]) -> dict[str, Any]:
    """A per-purpose table such as ``[llm.max_tokens]``: known purposes, positive numbers, merged over the defaults."""
    where = f"{path}: [{section}.{key}]"
    if not isinstance(value, dict):
        raise ConfigError(f"{where} must be a table of purpose = number, got {value!r}.")
    unknown = sorted(set(value) - set(PURPOSES))
    if unknown:
        raise ConfigError(
            f"{where}: unknown purpose(s) {', '.join(unknown)}.", hint=f"Known purposes: {', '.join(PURPOSES)}."
        )
    whole = key == "max_tokens"
    out = dict(expected)
    for name, number in value.items():
        if isinstance(number, bool) or not isinstance(number, (int, float)) or (whole and not isinstance(number, int)):
            raise ConfigError(f"{where} {name} must be a {'whole ' if whole else ''}number, got {number!r}.")
        if number < 0 or (number == 0 and not whole):
            raise ConfigError(f"{where} {name} must be positive, got {number}.")
        out[name] = number if whole else float(number)
    return out


def _check_value(path: Path, section: str, key: str, value: Any, expected: Any) -> Any:
    where = f"{path}: [{section}] {key}"
    if isinstance(expected, dict):
        return _check_table(path, section, key, value, expected)
    if isinstance(expected, bool):
        if not isinstance(value, bool):
            raise ConfigError(f"{where} must be true or false, got {value!r}.")
    elif isinstance(expected, int):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ConfigError(f"{where} must be a whole number, got {value!r}.")
        if value < 0:
            raise ConfigError(f"{where} must not be negative, got {value}.")
    elif isinstance(expected, float):
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{where} must be a number, got {value!r}.")
        if value < 0:
            raise ConfigError(f"{where} must not be negative, got {value}.")
        value = float(value)
    elif isinstance(expected, str):
        if not isinstance(value, str):
            raise ConfigError(f"{where} must be a string, got {value!r}.")
    minimum = _MINIMUM.get((section, key))
    if minimum is not None and value < minimum:
        raise ConfigError(f"{where} must be at least {minimum}, got {value}.")
    choices = _CHOICES.get((section, key))
    if choices and value not in choices:
        raise ConfigError(f"{where} must be one of {', '.join(choices)}; got {value!r}.")
    return value


def _parse_section(path: Path, name: str, raw: Any) -> Any:
    cls = _SECTIONS[name]
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: [{name}] must be a table.")
    defaults = cls()
    known = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise ConfigError(
            f"{path}: unknown key(s) in [{name}]: {', '.join(unknown)}.",
            hint=f"Known keys: {', '.join(sorted(known))}.",
        )
    values = {key: _check_value(path, name, key, value, getattr(defaults, key)) for key, value in raw.items()}
    return cls(**values)


def parse_config(text: str, path: Path) -> ProjectConfig:
    """Parse and validate the text of a ``uac.toml`` (``path`` is for messages)."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"{path} is not valid TOML: {exc}.",
            hint="Fix the file by hand or restore it from a copy.",
        ) from None
    version = raw.pop("format_version", None)
    if version is None:
        raise ConfigError(f"{path} has no format_version.", hint="Add 'format_version = 1'.")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise ConfigError(f"{path}: format_version must be a positive whole number, got {version!r}.")
    migrations = raw.pop("migrations", [])
    if not isinstance(migrations, list) or not all(isinstance(m, str) for m in migrations):
        raise ConfigError(f"{path}: migrations must be a list of names.")
    sections = {name: _parse_section(path, name, raw.pop(name)) for name in list(raw) if name in _SECTIONS}
    user = sections.get("user", UserSettings())
    try:
        ZoneInfo(user.timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise ConfigError(
            f"{path}: [user] timezone {user.timezone!r} is not a known IANA time zone.",
            hint="Use a name such as 'UTC' or 'Europe/Berlin'.",
        ) from None
    if user.currency and not re.fullmatch(r"[A-Z]{3}", user.currency):
        raise ConfigError(
            f"{path}: [user] currency {user.currency!r} is not an ISO 4217 code.",
            hint="Use three capital letters such as 'AUD', 'USD' or 'EUR', or \"\" to leave it to the rules.",
        )
    return ProjectConfig(format_version=version, migrations=tuple(migrations), extra=raw, **sections)


def load_config(path: Path) -> ProjectConfig:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{path} is missing.") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path} is not UTF-8 (byte {exc.start}).") from None
    return parse_config(text, path)


# --- writing -----------------------------------------------------------------


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # JSON strings are valid TOML basic strings
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, (_dt.date, _dt.datetime)):
        return value.isoformat()
    raise TypeError(f"cannot write {value!r} to TOML")


def _toml_table(name: str, values: dict[str, Any]) -> list[str]:
    lines = [f"[{name}]"]
    nested = {}
    for key, value in values.items():
        if isinstance(value, dict):
            nested[key] = value
        else:
            lines.append(f"{key} = {_toml_value(value)}")
    for key, value in nested.items():
        lines.append("")
        lines.extend(_toml_table(f"{name}.{key}", value))
    return lines


def dump_config(config: ProjectConfig) -> str:
    """Render ``config`` as TOML text (stable order, comments for orientation)."""
    lines = [
        "# uac user project settings. Environment variables (UAC_LLM_*) override [llm].",
        f"format_version = {config.format_version}",
        f"migrations = {_toml_value(list(config.migrations))}",
    ]
    tables = {k: v for k, v in config.extra.items() if isinstance(v, dict)}
    lines.extend(f"{k} = {_toml_value(v)}" for k, v in config.extra.items() if k not in tables)
    for name in _SECTIONS:
        lines.append("")
        lines.extend(_toml_table(name, dataclasses.asdict(getattr(config, name))))
    for name, value in tables.items():
        lines.append("")
        lines.extend(_toml_table(name, value))
    return "\n".join(lines) + "\n"
