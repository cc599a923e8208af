"""The zoo's server profiles: how real servers and models differ, in form only.

Content always comes from the rule model (:mod:`uac.llm.rule_model`); a
profile changes what the server accepts and how the reply is dressed:

* ``strict`` -- OpenAI: ``json_schema`` and tools, clean replies;
* ``ollama`` -- the prompt is cut to the context window (2,048 tokens, the
  old default ``num_ctx``) and usage reports the cut size; ``ollama-16k`` is the
  same server after ``OLLAMA_CONTEXT_LENGTH=16384``;
* ``vllm`` -- no tool parser: HTTP 400 for any request with ``tools``;
* ``llamacpp`` -- no ``json_schema`` (HTTP 400), ``json_object`` works;
* ``sloppy`` -- prose around JSON, ``<think>`` blocks, ``reasoning_content``,
  code fences, numbers and booleans as strings, dates in other forms,
  evidence as strings, ranges or bare numbers, bracketed ids, extra keys,
  tool calls written as ``<tool_call>`` text;
* ``truncating`` -- completions stop at 3,000 tokens with ``finish_reason: length``;
* ``flaky`` -- every 4th request fails: HTTP 503, or no answer before the timeout.
"""

from __future__ import annotations

import copy
import datetime as _dt
import json
import re
from dataclasses import dataclass
from typing import Any

from uac.llm.rule_model.request import block, turn_lines


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    tools: bool = True
    json_schema: bool = True
    json_object: bool = True
    #: the prompt is cut to this many tokens, and usage says so (Ollama's num_ctx)
    context_tokens: int | None = None
    #: completions stop here with finish_reason "length"
    completion_limit: int | None = None
    #: every k-th request fails (alternately HTTP 503 and a reply later than the client waits)
    fail_every: int = 0
    fail_delay: float = 0.0
    sloppy: bool = False
    #: client timeout the zoo uses with this profile (seconds)
    timeout: float = 30.0


PROFILES: dict[str, Profile] = {
    p.name: p
    for p in (
        Profile("strict", "OpenAI-like: json_schema and tools, clean replies"),
        Profile(
            "ollama", "Ollama-like: the prompt is cut at 2,048 tokens and usage reports the cut", context_tokens=2048
        ),
        Profile("vllm", "vLLM without a tool parser: HTTP 400 on tools", tools=False),
        Profile("llamacpp", "llama.cpp-like: no json_schema (HTTP 400), json_object works", json_schema=False),
        Profile(
            "sloppy", "a sloppy model: prose, <think>, fences, strings for numbers, odd dates and ids", sloppy=True
        ),
        Profile("truncating", "replies stop at 3,000 tokens (finish_reason length)", completion_limit=3000),
        Profile("flaky", "every 4th request fails: HTTP 503 or a timeout", fail_every=4, fail_delay=2.5, timeout=1.5),
    )
}
#: the Ollama server once the user followed the fix uac named
OLLAMA_FIXED = Profile("ollama-16k", "Ollama-like with OLLAMA_CONTEXT_LENGTH=16384", context_tokens=16384)


def tokens(text: str) -> int:
    """The fake tokenizer: four characters a token."""
    return (len(text) + 3) // 4


# --- sloppy forms ------------------------------------------------------------------


def _sloppy_date(value: str | None, index: int) -> Any:
    if value is None:
        return ("N/A", None, "unknown", "sometime")[index % 4] if index % 3 == 0 else None
    day = _dt.date.fromisoformat(value)
    forms = (
        lambda d: d.strftime("%B ") + f"{d.day}, {d.year}",
        lambda d: d.strftime("%Y/%m/%d"),
        lambda d: f"{d.day} " + d.strftime("%B %Y"),
        lambda d: d.isoformat() + "T00:00:00",
    )
    return forms[index % len(forms)](day)


def _context_ids(prompt: str) -> list[str]:
    return [turn.turn_id for turn in turn_lines(block(prompt, "context_turns"))]


def sloppy_extract(data: dict[str, Any], prompt: str) -> dict[str, Any]:
    out = copy.deepcopy(data)
    context = _context_ids(prompt)
    for index, item in enumerate(out["facts"]):
        evidence = item["evidence"]
        form = index % 6
        if form == 0:
            item["evidence"] = ", ".join(evidence)
        elif form == 1:
            item["evidence"] = [f"[{e}]" for e in evidence]
        elif form == 2:
            number = re.search(r"(\d+)$", evidence[0])
            item["evidence"] = [int(number.group(1))] if number else evidence
        elif form == 3 and context:
            item["evidence"] = evidence + [context[-1]]
        elif form == 4:
            item["confidence"] = "0.9"
        item["event_date"] = _sloppy_date(item["event_date"], index)
        if index % 29 == 28:
            # only a turn it may not cite: invalid, and the repair repeats it, so the item is dropped
            item["evidence"] = [context[0]] if context else ["D99:1"]
    return out


def sloppy_data(kind: str | None, data: Any, prompt: str) -> Any:
    if kind == "extract":
        return sloppy_extract(data, prompt)
    if kind == "route":
        routes = []
        for i, r in enumerate(data["routes"]):
            ident = f"[{r['id']}]" if i % 2 else r["id"]
            if "domains" in r:  # several domains: sometimes as one comma-separated string
                names = [d.title() if i % 3 == 0 else d for d in r["domains"]]
                routes.append({"id": ident, "domains": ", ".join(names) if i % 2 else names})
            else:
                routes.append({"id": ident, "domain": r["domain"].title() if i % 3 == 0 else r["domain"]})
        return {"routes": routes}
    if kind == "decide":
        return {"selected": [f"[{s}]" for s in data["selected"]], "follow_up_queries": [], "sufficient": "true"}
    return data


def dress_json(value: Any, number: int) -> tuple[str, str | None]:
    """(content, reasoning_content) of a structured reply in one of four sloppy forms."""
    text = json.dumps(value, ensure_ascii=False, indent=2 if number % 2 else None)
    form = number % 4
    if form == 0:
        return (
            f"Sure! Here is the JSON you asked for:\n```json\n{text}\n```\nLet me know if you need anything else.",
            None,
        )
    if form == 1:
        return f'<think>\nThe user wants JSON such as {{"facts": []}}. Let me be careful.\n</think>\n{text}', None
    if form == 2:
        return text, "Reasoning about the request before answering."
    return f"```\n{text}\n```", None


def dress_text(text: str) -> str:
    return f"<think>\nLet me look at the result.\n</think>\n{text}"


def tool_call_text(name: str, arguments: dict[str, Any]) -> str:
    payload = json.dumps({"name": name, "arguments": arguments})
    return f"<think>\nI should compute this with the tool.\n</think>\n<tool_call>\n{payload}\n</tool_call>"
