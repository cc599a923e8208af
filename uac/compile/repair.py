"""The one repair loop: every compile mode that asks the model for a structured reply
calls :func:`call_with_repair`.

The loop calls the model, reads the reply, has it judged, and sends the judge's
problems back with the judge's repair request, at most ``rounds`` times.  Every
call is one line of the compile history and counts its tokens; a reply judged
valid enters the response cache, a rejected one never does.  What differs between
the modes is said once per mode:

* a :class:`RepairPolicy` -- the reply's schema, the purpose, the rounds, how the
  reply is read (strictly against its schema, or leniently so that a judge checking
  the parts of a reply one by one keeps the valid ones) and whether a first reply
  cut off at the token limit is handed back for the caller to split the work;
* a :class:`ReplyJudge` -- what a reply must satisfy and what the repair request
  shows.  :class:`FilesJudge` judges whole files (the bounded mode); the
  incremental mode's judge applies operations one by one and shows the domain as
  they left it.

The loop mutates none of its arguments: it returns an :class:`Exchange` (the last
verdict, the history lines, the tokens spent, a cut-off or an endpoint error) for
the caller to fold into its report.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Mapping, Protocol

from ..dialect.problems import CodeRejected
from ..errors import ModelError
from ..llm import Message, system, user
from ..llm.structured import parse_structured
from ..templating import render_prompt

if TYPE_CHECKING:
    from ..llm import ChatResponse, LLMClient

#: the most problems one repair request shows
MAX_PROBLEMS_SHOWN = 30
#: the longest outcome a history line keeps
MAX_OUTCOME_CHARS = 500


@dataclass(frozen=True)
class RepairPolicy:
    """What a compile mode's repaired call asks for and how its replies are taken."""

    purpose: str
    schema_name: str
    json_schema: dict[str, Any]
    #: repair requests after the first call (so at most ``rounds + 1`` calls)
    rounds: int
    #: read the reply leniently (the first JSON value found, no schema check), so that a
    #: judge that checks each part of the reply on its own keeps the valid parts; otherwise
    #: the reply is read against ``json_schema`` and any mismatch is a problem to repair
    lenient: bool = False
    #: a first reply cut off at the token limit is handed back unjudged (``Exchange.cut_off``)
    #: for the caller to split its work; otherwise it is judged and repaired like any reply
    split_cut_off: bool = False


@dataclass(frozen=True)
class Verdict:
    """A judge's word on one reply: no problems means accepted."""

    problems: tuple[str, ...] = ()
    #: what the judge made of an accepted reply
    value: Any = None
    #: how the compile history says it
    outcome: str = "ok"
    #: more fields for the history line (e.g. the operations applied)
    details: Mapping[str, Any] = field(default_factory=dict)

    @property
    def accepted(self) -> bool:
        return not self.problems


class ReplyJudge(Protocol):
    """What a mode checks in a reply and what it sends back when the reply falls short."""

    def judge(self, data: Any, error: ModelError | None) -> Verdict:
        """The verdict on a reply read as ``data`` (or that could not be read: ``error``)."""

    def repair_request(self, problems: list[str]) -> str:
        """The user message that asks for a repair of the last reply."""


@dataclass(frozen=True)
class CallUsage:
    """What the calls of one exchange cost."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0
    repair_rounds: int = 0
    largest_completion: int = 0

    def plus(self, prompt_tokens: int, completion_tokens: int, repair: bool) -> "CallUsage":
        return CallUsage(
            self.prompt_tokens + prompt_tokens,
            self.completion_tokens + completion_tokens,
            self.calls + 1,
            self.repair_rounds + int(repair),
            max(self.largest_completion, completion_tokens),
        )


@dataclass(frozen=True)
class Exchange:
    """How a repaired call ended."""

    #: the verdict on the last reply judged (None: no reply was judged)
    verdict: Verdict | None
    #: one line of the compile history per call
    history: tuple[dict[str, Any], ...]
    usage: CallUsage
    #: the first reply stopped at the token limit and the policy hands it back
    cut_off: bool = False
    #: the endpoint failed (the calls before it are in ``history``)
    endpoint_error: ModelError | None = None

    @property
    def accepted(self) -> bool:
        return self.verdict is not None and self.verdict.accepted


def problems_of(exc: Exception) -> list[str]:
    """The problems an error names, at most :data:`MAX_PROBLEMS_SHOWN`."""
    if isinstance(exc, CodeRejected):
        return [str(p) for p in exc.problems[:MAX_PROBLEMS_SHOWN]]
    return [str(exc)]


@dataclass(frozen=True)
class FilesJudge:
    """Judges a reply that holds whole files: ``accept(data)`` returns what it made of
    them or raises :class:`CodeRejected`; the repair request names the problems and
    the shape expected."""

    accept: Callable[[Any], Any]
    shape: str

    def judge(self, data: Any, error: ModelError | None) -> Verdict:
        failure: Exception | None = error
        if failure is None:
            try:
                return Verdict(value=self.accept(data))
            except (CodeRejected, ModelError) as exc:
                failure = exc
        problems = problems_of(failure)
        return Verdict(tuple(problems), outcome="rejected: " + "; ".join(problems)[:MAX_OUTCOME_CHARS])

    def repair_request(self, problems: list[str]) -> str:
        return render_prompt("structure_repair.j2", problems=problems, shape=self.shape)


def _read(response: "ChatResponse", lenient: bool) -> tuple[Any, ModelError | None]:
    try:
        return (parse_structured(response.content).value if lenient else response.json()), None
    except ModelError as exc:
        return None, exc


def _history_line(policy: RepairPolicy, attempt: int, text: str, response: "ChatResponse") -> dict[str, Any]:
    return {
        "purpose": policy.purpose,
        "attempt": attempt,
        "prompt_sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
        "prompt_chars": len(text),
        "prompt_tokens": response.usage.prompt_tokens,
        "completion_tokens": response.usage.completion_tokens,
        "finish_reason": response.finish_reason,
    }


def call_with_repair(client: "LLMClient", prompt: str, policy: RepairPolicy, judge: ReplyJudge) -> Exchange:
    """Call, judge, send the problems back: at most ``policy.rounds`` repairs."""
    messages: list[Message] = [system(render_prompt("system_json.j2", schema_name=policy.schema_name)), user(prompt)]
    history: list[dict[str, Any]] = []
    usage = CallUsage()
    verdict: Verdict | None = None
    for attempt in range(policy.rounds + 1):
        text = "\n".join(m.content or "" for m in messages)
        try:
            response = client.chat(
                messages, json_schema=policy.json_schema, schema_name=policy.schema_name, purpose=policy.purpose
            )
        except ModelError as exc:
            history.append(
                {
                    "purpose": policy.purpose,
                    "attempt": attempt,
                    "outcome": f"endpoint error: {exc.message}"[:MAX_OUTCOME_CHARS],
                }
            )
            return Exchange(verdict, tuple(history), usage, endpoint_error=exc)
        usage = usage.plus(response.usage.prompt_tokens, response.usage.completion_tokens, repair=attempt > 0)
        line = _history_line(policy, attempt, text, response)
        history.append(line)
        if response.finish_reason == "length" and attempt == 0 and policy.split_cut_off:
            line["outcome"] = "cut off at the token limit"
            return Exchange(None, tuple(history), usage, cut_off=True)
        verdict = judge.judge(*_read(response, policy.lenient))
        line["outcome"] = verdict.outcome
        line.update(verdict.details)
        if verdict.accepted:
            response.accept()  # only a reply that needed no repair is worth a cache entry
            break
        response.reject()  # a rejected reply never stays in the response cache
        if attempt < policy.rounds:
            messages.append(response.message())
            messages.append(user(judge.repair_request(list(verdict.problems[:MAX_PROBLEMS_SHOWN]))))
    return Exchange(verdict, tuple(history), usage)


__all__ = [
    "CallUsage",
    "Exchange",
    "FilesJudge",
    "MAX_PROBLEMS_SHOWN",
    "RepairPolicy",
    "ReplyJudge",
    "Verdict",
    "call_with_repair",
    "problems_of",
]
