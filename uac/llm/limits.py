"""Per-purpose limits of model calls, and the check that a prompt was not cut.

Every call names its *purpose* (``"extract session s1 window 1"``,
``"structure.domain:travel"``, ``"answer"`` ...).  :func:`purpose_kind` folds it
to one of :data:`PURPOSES`; ``[llm.max_tokens]`` and ``[llm.timeouts]`` in
``uac.toml`` set the completion limit and the request timeout per kind.

:func:`check_prompt_tokens` compares the prompt tokens an endpoint reports
with a conservative count of what was sent; a server that silently cut the
prompt to fit a small context window (Ollama's default ``num_ctx``) reports
far fewer, and uac stops with :class:`~uac.errors.ContextOverflow` naming the
setting to change instead of working on a mutilated prompt.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Iterable, Mapping

from ..config import DEFAULT_MAX_TOKENS, PURPOSES
from ..errors import ContextOverflow

#: the uac settings that make the prompts of each kind smaller
PROMPT_SETTINGS: dict[str, str] = {
    "extract": "[extract] window_chars",
    "route": "[compile] domain_prompt_chars",
    "compile": "[compile] domain_prompt_chars (bounded mode: [compile] bounded_chars)",
    "answer": "[answer] state_chars, top_facts and top_archive",
    "decide": "[answer] top_facts and top_archive",
}

#: a prompt must count at least this many tokens before a cut is suspected
MIN_CHECKED_TOKENS = 1000
#: reported prompt tokens below this share of the conservative count mean the prompt was cut
CUT_RATIO = 0.75

_PIECES = re.compile(r"\w+|[^\w\s]+")


def purpose_kind(purpose: str) -> str:
    """The kind (one of :data:`PURPOSES`, or ``"other"``) of a call's purpose text."""
    text = (purpose or "").strip().lower()
    if text.startswith("extract"):
        return "extract"
    if "route" in text:
        return "route"
    if text.startswith(("structure", "compile")):
        return "compile"
    if text.startswith("decide"):
        return "decide"
    if text.startswith("answer"):
        return "answer"
    if "judge" in text:
        return "judge"
    if text.startswith("check"):
        return "check"
    return "other"


@dataclass(frozen=True)
class Limits:
    """Completion limits and timeouts per purpose kind."""

    max_tokens: Mapping[str, int] = field(default_factory=lambda: dict(DEFAULT_MAX_TOKENS))
    timeouts: Mapping[str, float] = field(default_factory=dict)
    default_timeout: float = 60.0
    check_context: bool = True

    def max_tokens_for(self, purpose: str) -> int | None:
        value = self.max_tokens.get(purpose_kind(purpose))
        return int(value) if value else None

    def timeout_for(self, purpose: str) -> float:
        value = self.timeouts.get(purpose_kind(purpose))
        return float(value) if value else self.default_timeout


def count_prompt_pieces(texts: Iterable[str | None]) -> int:
    """A conservative token count: words and runs of punctuation.

    Real tokenizers split at least this finely for English text and code (a
    word is rarely shared by two tokens), so a server that reports far fewer
    prompt tokens than this did not read the whole prompt.
    """
    return sum(len(_PIECES.findall(text)) for text in texts if text)


def check_prompt_tokens(texts: Iterable[str | None], reported: int, *, purpose: str, where: str) -> None:
    """Raise :class:`ContextOverflow` when ``reported`` is far below what was sent."""
    if reported <= 0:
        return
    sent = count_prompt_pieces(texts)
    if sent < MIN_CHECKED_TOKENS or reported >= CUT_RATIO * sent:
        return
    kind = purpose_kind(purpose)
    smaller = PROMPT_SETTINGS.get(kind)
    raise ContextOverflow(
        f"{where} reported {reported:,} prompt tokens for a prompt of at least {sent:,} tokens ({purpose or kind}): "
        "the server cut the prompt to fit its context window, so the model did not see all of it.",
        hint=(
            "Raise the server's context window -- Ollama: set OLLAMA_CONTEXT_LENGTH (e.g. 16384) before "
            "'ollama serve', or 'PARAMETER num_ctx 16384' in a Modelfile; llama.cpp: --ctx-size; vLLM: "
            "--max-model-len"
            + (f" -- or make uac's prompts smaller with {smaller} in uac.toml" if smaller else "")
            + ". (Set check_context = false under [llm] to skip this check.)"
        ),
    )


def context_overflow_from_refusal(message: str, *, purpose: str, where: str) -> ContextOverflow | None:
    """The error for an endpoint that refused a prompt as too long (vLLM, OpenAI), else ``None``."""
    lowered = message.lower()
    markers = (
        "maximum context length",
        "context length",
        "context window",
        "too many tokens",
        "max_model_len",
        "exceeds the",
    )
    if not any(m in lowered for m in markers):
        return None
    kind = purpose_kind(purpose)
    smaller = PROMPT_SETTINGS.get(kind)
    return ContextOverflow(
        f"{where} refused the request as too long for the model's context ({purpose or kind}): {message[:300]}",
        hint=(
            "Raise the server's context window (vLLM: --max-model-len; llama.cpp: --ctx-size; Ollama: "
            "OLLAMA_CONTEXT_LENGTH), lower the completion limit under [llm.max_tokens]"
            + (f", or make the prompts smaller with {smaller}" if smaller else "")
            + " in uac.toml."
        ),
    )


__all__ = [
    "DEFAULT_MAX_TOKENS",
    "Limits",
    "PURPOSES",
    "check_prompt_tokens",
    "context_overflow_from_refusal",
    "count_prompt_pieces",
    "purpose_kind",
]
