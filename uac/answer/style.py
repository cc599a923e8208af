"""How the reader answers: one set of answer-style settings, one set of instructions.

:class:`AnswerStyle` holds every setting that shapes the final answer --
citations on or off, the refusal wording, the length, and the reasoning mode
-- and :meth:`AnswerStyle.instructions` turns them into the reader's
instructions, each said once, so no two of them disagree:

* citations on: cite the ids shown at the start of each [FACTS] and
  [ARCHIVE] line, with an example taken from the ids actually in the prompt;
  off: do not cite, and no example appears;
* the refusal wording is the only refusal the prompt names;
* the length sentence is the only one (in step-by-step mode it governs the
  answer line, not the reasoning);
* ``step_by_step`` (the UaC paper's reasoning mode): think step by step, then
  the answer alone on the last line, prefixed ``Answer:``;
  :func:`final_answer_line` keeps that line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

from ..errors import InputError

LENGTHS = ("phrase", "short", "full")
REASONING_MODES = ("direct", "step_by_step")
DEFAULT_REFUSAL = "Not mentioned in memory."
#: the prefix of the answer line in step-by-step mode
ANSWER_PREFIX = "Answer:"

_LENGTH_TEXT = {
    "phrase": "a short phrase, a few words at most, without explanation",
    "short": "short: one or two sentences",
    "full": "as complete as the question needs",
}


@dataclass(frozen=True)
class AnswerStyle:
    citations: bool = True
    refusal: str = DEFAULT_REFUSAL
    length: str = "short"
    reasoning: str = "direct"

    def __post_init__(self) -> None:
        if self.length not in LENGTHS:
            raise InputError(f"unknown answer length {self.length!r}.", hint=f"Use one of {', '.join(LENGTHS)}.")
        if self.reasoning not in REASONING_MODES:
            raise InputError(
                f"unknown reasoning mode {self.reasoning!r}.", hint=f"Use one of {', '.join(REASONING_MODES)}."
            )
        refusal = " ".join(self.refusal.split())
        if not refusal:
            raise InputError(
                "the refusal wording is empty.", hint="Give a short sentence such as 'Not mentioned in memory.'."
            )
        if "\n" in self.refusal or len(refusal) > 200:
            raise InputError(
                "the refusal wording must be one short line.", hint="Give at most 200 characters on one line."
            )
        object.__setattr__(self, "refusal", refusal)

    @property
    def step_by_step(self) -> bool:
        return self.reasoning == "step_by_step"

    def citation_sentence(self, fact_ids: Sequence[str], archive_ids: Sequence[str]) -> str:
        if not self.citations:
            return "Do not cite ids or sources in the answer."
        examples = []
        if fact_ids:
            examples.append(f"[{fact_ids[0]}] for a fact")
        if archive_ids:
            examples.append(f"[{archive_ids[0]}] for a conversation excerpt")
        if not examples:
            return "Support the answer with the computed value or the STATE record it comes from."
        shown = " or ".join(examples)
        where = "On the answer line, after an answer" if self.step_by_step else "After an answer"
        return (
            f"{where} found in memory, cite what supports it by the id at the start of each line in brackets, "
            f"e.g. {shown} (several ids: [{', '.join([*fact_ids[:1], *archive_ids[:1]])}]); "
            "for a computed result, give the value."
        )

    def instructions(self, fact_ids: Sequence[str] = (), archive_ids: Sequence[str] = ()) -> list[str]:
        """The reader's answer-style instructions, one sentence per setting."""
        lines = []
        if self.step_by_step:
            lines.append(
                "Think step by step: first write your reasoning over the memory, then write the final answer "
                f"alone on the last line, starting with '{ANSWER_PREFIX}'. Only that last line is kept."
            )
            lines.append(f"The answer on that line is {_LENGTH_TEXT[self.length]}.")
            lines.append(
                f"If the memory does not contain the answer, the last line is exactly: {ANSWER_PREFIX} {self.refusal}"
            )
        else:
            lines.append(f"The answer is {_LENGTH_TEXT[self.length]}.")
            lines.append(f"If the memory does not contain the answer, reply exactly: {self.refusal}")
        lines.append(self.citation_sentence(fact_ids, archive_ids))
        return lines


_PREFIX = re.compile(r"^(?:final\s+answer|short\s+answer|answer)\s*[:\-]\s*", re.IGNORECASE)
_FENCE = re.compile(r"^\s*(```|~~~)")


def _plain(line: str) -> str:
    text = line.strip().strip("*_#> ").strip()
    text = re.sub(r"^\*\*(.+?)\*\*", r"\1", text)
    return text.replace("**", "").strip()


def final_answer_line(text: str) -> str:
    """The answer of a step-by-step reply: its last ``Answer:`` line, else its last line.

    Markdown emphasis, the ``Answer:``/``Final answer:`` prefix and lines of
    code fences are dropped; a reply with no such line gives its last
    non-empty line, and an empty reply gives ``""``.
    """
    lines = [line for line in (text or "").splitlines() if line.strip() and not _FENCE.match(line)]
    for i in range(len(lines) - 1, -1, -1):
        plain = _plain(lines[i])
        if _PREFIX.match(plain):
            answer = _PREFIX.sub("", plain, count=1).strip()
            if answer:
                return answer
            if i + 1 < len(lines):  # "Answer:" on a line of its own, the answer below it
                return _plain(lines[i + 1])
    return _PREFIX.sub("", _plain(lines[-1]), count=1).strip() if lines else ""


def has_answer_line(text: str) -> bool:
    """Does a reply end on an ``Answer:`` line (after any code it holds)?"""
    in_fence = False
    last = ""
    for line in (text or "").splitlines():
        if _FENCE.match(line):
            in_fence = not in_fence
            last = ""
            continue
        if not in_fence and line.strip():
            last = line
    plain = _plain(last)
    return bool(_PREFIX.match(plain)) and bool(_PREFIX.sub("", plain, count=1).strip())
