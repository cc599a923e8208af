"""The interface every benchmark system implements."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from uac import REASONING_MODES, InputError, LLMClient, Message, Usage, final_answer_line

from ..prompts import render

if TYPE_CHECKING:
    from ..cases import Case

COLLECTION_DESCRIPTIONS = {
    "trips": "trips",
    "contacts": "contacts",
    "meals": "meals",
    "transactions": "payment transactions",
    "sleep": "nightly sleep records",
    "workouts": "workouts",
    "books": "books read",
    "medical_visits": "medical visits",
    "meetings": "meetings",
    "purchases": "purchases",
}


@dataclass
class Prediction:
    """What a system answered for one case, and what it cost."""

    text: str
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    latency: float = 0.0
    #: record ids the system's context held (retrieval systems), for diagnostics
    retrieved: list[str] = field(default_factory=list)
    #: step by step: the whole final reply (``text`` is its answer line)
    reasoning_text: str | None = None


class System:
    """A way of giving the model access to a user's records.

    Subclasses set ``name``/``label`` and implement :meth:`messages` (single
    call systems) or override :meth:`respond` (tool-using systems).

    ``reasoning`` is how the model answers: ``direct``, or ``step_by_step``
    (reasoning, then the answer alone on the last line, which is what is
    scored; the whole reply is kept in ``Prediction.reasoning_text``).
    """

    name = ""
    label = ""
    uses_tools = False
    reasoning = "direct"

    def with_reasoning(self, mode: str) -> "System":
        if mode not in REASONING_MODES:
            raise InputError(f"unknown reasoning mode {mode!r}.", hint=f"Use one of {', '.join(REASONING_MODES)}.")
        self.reasoning = mode
        return self

    def answer(self, case: "Case", llm: LLMClient) -> Prediction:
        started = time.perf_counter()
        prediction = self.respond(case, llm)
        if self.reasoning == "step_by_step":
            prediction.reasoning_text = prediction.text
            prediction.text = final_answer_line(prediction.text)
        prediction.latency = time.perf_counter() - started
        return prediction

    def respond(self, case: "Case", llm: LLMClient) -> Prediction:
        messages = self.messages(case)
        response = llm.chat(messages, purpose=f"analytical_bench:{self.name}")
        usage = Usage()
        usage.add(response.usage)
        return Prediction(text=(response.content or "").strip(), usage=usage)

    def messages(self, case: "Case") -> list[Message]:
        raise NotImplementedError

    def system_message(self, case: "Case") -> Message:
        description = ", ".join(COLLECTION_DESCRIPTIONS.get(name, name) for name in case.collections)
        return Message(
            "system",
            render(
                "system",
                description=description,
                tools=self.uses_tools,
                answer_kind=case.answer_kind,
                step_by_step=self.reasoning == "step_by_step",
            ),
        )
