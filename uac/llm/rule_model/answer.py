"""The answering responders: the reader (with the python tool) and the iterative decider.

The reader answers "How many <things> ... [in <year>]?" by computing: it finds
the collection named like <things> in [STATE], the first ``date`` field of its
class, and writes the code -- as a native tool call when the request offers
the ``python`` tool, as a fenced block when the system prompt asks for one.
Given the result it answers with the number.  Any other question is answered
with the [FACTS] line sharing most words with it, or the refusal the system
prompt names ("Not mentioned in memory." by default).  Told to think step by
step, it writes one line of reasoning and then ``Answer: ...`` on the last line.

The decider selects the candidates sharing a word with the question, asks no
follow-up query and says the evidence suffices.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ...fsutil import split_lines
from ..types import ChatRequest
from .prompts import first_user, section, system_text
from .reply import Reply

_WORD = re.compile(r"[a-z0-9]{4,}")
_STOP = {"what", "when", "where", "which", "does", "with", "that", "this", "have", "from", "many", "much", "about", "there", "their", "take", "took"}
_RESULT_PREFIX = "Result of your code (JSON):"
_EVIDENCE_LINE = re.compile(r"^- \[(?P<id>[^\]|]+?)\s*\|[^\]]*\] (?P<text>.*)$")


def _words(text: str) -> set[str]:
    return {w.rstrip("s") for w in _WORD.findall(text.lower())} - _STOP


def question_of(context: str) -> str:
    found = re.findall(r"^Question: (.*)$", context, re.M)
    return found[-1].strip() if found else ""


def counting_code(question: str, state: str) -> str | None:
    """The code that answers a "how many" question over [STATE], or ``None``."""
    asked = re.search(r"\bhow many (\w+)", question, re.I)
    if not asked:
        return None
    noun = asked.group(1).lower().rstrip("s")
    for name, cls in re.findall(r"^(\w+): list\[(\w+)\]", state, re.M):
        if name.lower().rstrip("s") != noun:
            continue
        body = re.search(rf"^class {cls}\b.*?(?=^class |\Z)", state, re.M | re.S)
        field = re.search(r"^\s+(\w+): date\b", body.group(0), re.M) if body else None
        year = re.search(r"\b(19|20)\d{2}\b", question)
        if year and field:
            f = field.group(1)
            return f"result = len([r for r in {name} if r.{f} is not None and r.{f}.year == {year.group(0)}])"
        return f"result = len({name})"
    return None


def _tool_result(request: ChatRequest) -> dict[str, Any] | None:
    """The last code result in the conversation (a tool message or a result prompt)."""
    for message in reversed(request.messages):
        text = message.content or ""
        if message.role == "tool":
            try:
                return json.loads(text)
            except json.JSONDecodeError:
                return {"ok": False}
        if message.role == "user" and text.startswith(_RESULT_PREFIX):
            body = text[len(_RESULT_PREFIX) :].strip().split("\n", 1)[0]
            try:
                value = json.loads(body)
            except json.JSONDecodeError:
                return {"ok": False}
            return value[0] if isinstance(value, list) and value else value
        if message.role == "user" and not text.startswith("You have used all computation steps"):
            return None
    return None


_REFUSAL = re.compile(r"does not contain the answer, (?:reply exactly|the last line is exactly): (?:Answer: )?(.+)$", re.M)


def _refusal(system: str) -> str:
    found = _REFUSAL.search(system)
    return found.group(1).strip() if found else "Not mentioned in memory."


def _styled(request: ChatRequest, text: str) -> str:
    if "Think step by step" in system_text(request):
        return f"Reading the memory for the question.\nAnswer: {text}"
    return text


def _best_fact(question: str, context: str, refusal: str = "Not mentioned in memory.") -> str:
    asked = _words(question)
    best, best_score = None, 0
    for line in split_lines(section(context, "[FACTS]", stop=("\n\n[", "\nQuestion:"))):
        match = _EVIDENCE_LINE.match(line.strip())
        if not match:
            continue
        score = len(asked & _words(match["text"]))
        if score > best_score:
            best, best_score = f"{match['text']} [{match['id'].strip()}]", score
    return best or refusal


def respond_answer(request: ChatRequest) -> Reply:
    result = _tool_result(request)
    if result is not None:
        if isinstance(result, dict) and result.get("ok") and result.get("result") is not None:
            return Reply("answer", text=_styled(request, f"The answer is {result['result']}, computed over the typed state."))
        return Reply("answer", text=_styled(request, "I could not compute that from the memory."))
    context = first_user(request)
    question = question_of(context)
    native = any((t.get("function") or {}).get("name") == "python" for t in request.tools)
    codeblock = "fenced ```python code block" in system_text(request)
    code = counting_code(question, section(context, "[STATE]", stop=("\n[FACTS]", "\n[ARCHIVE]", "\nQuestion:")))
    if code and native:
        return Reply("answer", tool_calls=[("python", {"code": code})])
    if code and codeblock:
        return Reply("answer", text=f"```python\n{code}\n```")
    return Reply("answer", text=_styled(request, _best_fact(question, context, _refusal(system_text(request)))))


def respond_decide(request: ChatRequest) -> Reply:
    prompt = first_user(request)
    question = re.search(r"^Question: (.*)$", prompt, re.M)
    asked = _words(question.group(1) if question else "")
    selected = []
    for line in split_lines(section(prompt, "New candidates:", stop=("\n\nReply with JSON",))):
        match = _EVIDENCE_LINE.match(line.strip())
        if match and asked & _words(match["text"]):
            selected.append(match["id"].strip())
    return Reply("decide", {"selected": selected, "follow_up_queries": [], "sufficient": True})


__all__ = ["counting_code", "question_of", "respond_answer", "respond_decide"]
