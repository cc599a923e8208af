"""The answering responders: the reader (with the python tool) and the iterative decider.

The reader answers the ``question`` block's "How many <things> ... [in <year>]?"
by computing: it finds the collection named like <things> in the ``state``
block, the first ``date`` field of its class, and writes the code -- as a
native tool call when the request offers the ``python`` tool, as a fenced block
when the ``reader_settings`` block of the system message says ``"code":
"codeblock"``.  Given the result (a ``tool`` message, or a ``code_result``
block) it answers with the number.  Any other question is answered with the
line of the ``facts`` block sharing most words with it, or the block's
``refusal``.  With ``"step_by_step": true`` it writes one line of reasoning and
then ``Answer: ...`` on the last line.

The decider selects the lines of the ``candidates`` block sharing a word with
the ``question`` block, asks no follow-up query and says the evidence suffices.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..types import ChatRequest
from .reply import Reply
from .request import block, block_json, block_text, first_user, system_text

_WORD = re.compile(r"[a-z0-9]{4,}")
_STOP = {
    "what",
    "when",
    "where",
    "which",
    "does",
    "with",
    "that",
    "this",
    "have",
    "from",
    "many",
    "much",
    "about",
    "there",
    "their",
    "take",
    "took",
}
DEFAULT_REFUSAL = "Not mentioned in memory."
_EVIDENCE_LINE = re.compile(r"^- \[(?P<id>[^\]|]+?)\s*\|[^\]]*\] (?P<text>.*)$")


def _words(text: str) -> set[str]:
    return {w.rstrip("s") for w in _WORD.findall(text.lower())} - _STOP


def question_of(context: str) -> str:
    return block_text(context, "question").strip()


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
    """The last code result in the conversation (a ``tool`` message or a ``code_result`` block),
    looking back to the message that asked the question."""
    for message in reversed(request.messages):
        text = message.content or ""
        if message.role == "tool":
            try:
                return json.loads(text)
            except json.JSONDecodeError:
                return {"ok": False}
        if message.role != "user":
            continue
        result = block(text, "code_result")
        if result is not None:
            try:
                value = json.loads(result[0] if result else "")
            except json.JSONDecodeError:
                return {"ok": False}
            return value[0] if isinstance(value, list) and value else value
        if block(text, "question") is not None:
            return None
    return None


def reader_settings(request: ChatRequest) -> dict[str, Any]:
    """The reader's answer settings: the ``reader_settings`` block of the system message."""
    found = block_json(system_text(request), "reader_settings")
    return found if isinstance(found, dict) else {}


def _styled(request: ChatRequest, text: str) -> str:
    if reader_settings(request).get("step_by_step"):
        return f"Reading the memory for the question.\nAnswer: {text}"
    return text


def _best_fact(question: str, context: str, refusal: str = DEFAULT_REFUSAL) -> str:
    asked = _words(question)
    best, best_score = None, 0
    for line in block(context, "facts") or []:
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
            return Reply(
                "answer", text=_styled(request, f"The answer is {result['result']}, computed over the typed state.")
            )
        return Reply("answer", text=_styled(request, "I could not compute that from the memory."))
    context = first_user(request)
    question = question_of(context)
    settings = reader_settings(request)
    native = any((t.get("function") or {}).get("name") == "python" for t in request.tools)
    code = counting_code(question, block_text(context, "state"))
    if code and native:
        return Reply("answer", tool_calls=[("python", {"code": code})])
    if code and settings.get("code") == "codeblock":
        return Reply("answer", text=f"```python\n{code}\n```")
    refusal = settings.get("refusal") or DEFAULT_REFUSAL
    return Reply("answer", text=_styled(request, _best_fact(question, context, refusal)))


def respond_decide(request: ChatRequest) -> Reply:
    prompt = first_user(request)
    asked = _words(question_of(prompt))
    selected = []
    for line in block(prompt, "candidates") or []:
        match = _EVIDENCE_LINE.match(line.strip())
        if match and asked & _words(match["text"]):
            selected.append(match["id"].strip())
    return Reply("decide", {"selected": selected, "follow_up_queries": [], "sufficient": True})


__all__ = ["counting_code", "question_of", "respond_answer", "respond_decide"]
