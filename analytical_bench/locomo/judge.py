"""The lenient LLM judge for categories 1-4: CORRECT or WRONG with a one-sentence reason.

The prompt is ``prompts/judge.j2``; the model replies with a JSON object
``{"reason", "label"}``.  A reply that cannot be read as such a verdict counts
as WRONG (and says so in the reason).  Model failures that persist after the
client's retries are raised, not turned into verdicts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from uac import InvalidReply, LLMClient, Message, parse_structured

from .prompts import render

LABELS = ("CORRECT", "WRONG")

VERDICT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "reason": {"type": "string"},
        "label": {"type": "string", "enum": list(LABELS)},
    },
    "required": ["reason", "label"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class Verdict:
    correct: bool
    reason: str
    readable: bool = True
    prompt_tokens: int = 0
    completion_tokens: int = 0

    @property
    def label(self) -> str:
        return "CORRECT" if self.correct else "WRONG"

    def to_json(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "reason": self.reason,
            "readable": self.readable,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
        }


def judge_prompt(question: str, gold: str, prediction: str) -> str:
    return render("judge", question=question, gold=gold, prediction=prediction)


def parse_verdict(text: str | None) -> Verdict:
    """Read the model's reply; anything but a JSON object with label CORRECT/WRONG is WRONG."""
    raw = (text or "").strip()
    try:
        value: Any = parse_structured(raw).value  # JSON in prose or fences, reasoning skipped
    except InvalidReply:
        value = None
    if not isinstance(value, dict):
        return Verdict(False, f"unreadable verdict (no JSON object): {raw[:120]!r}", readable=False)
    label = str(value.get("label", "")).strip().upper()
    if label not in LABELS:
        return Verdict(False, f"unreadable verdict (label {value.get('label')!r})", readable=False)
    reason = " ".join(str(value.get("reason") or "").split())
    return Verdict(label == "CORRECT", reason)


class Judge:
    """Grades one answer with one model call."""

    def __init__(self, llm: LLMClient) -> None:
        self.llm = llm

    @property
    def model(self) -> str:
        return self.llm.describe()

    def grade(self, question: str, gold: str, prediction: str | None) -> Verdict:
        if not (prediction or "").strip():
            return Verdict(False, "empty answer")
        messages = [Message("user", judge_prompt(question, gold, prediction or ""))]
        response = self.llm.chat(messages, json_schema=VERDICT_SCHEMA, schema_name="verdict", purpose="locomo-judge")
        verdict = parse_verdict(response.content)
        if verdict.readable:
            response.accept()  # only a readable verdict is kept in the response cache
        else:
            response.reject()
        return Verdict(
            verdict.correct,
            verdict.reason,
            verdict.readable,
            *response.usage.footprint,
        )
