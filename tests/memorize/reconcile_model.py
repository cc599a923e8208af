"""A scripted model for the reconcile tests: it answers uac's prompts the way a real model does.

It reads each request like a model reads its prompt: the turns to extract
from, the known facts shown for ``supersedes``, the new and earlier facts of a
reconcile call.  What it says is fixed by the conversation (which facts a turn
holds, which earlier fact a new one changes); how it says it varies by
session, the way real models vary: prose around the JSON, ``<think>`` blocks,
fences, an answer in the wrong format (then the repair round), a reply cut
off at the token limit.  The form depends on the prompt only, never on the
order the calls come in.
"""

from __future__ import annotations

import json
import random
import re
import threading
import time

from tests.compile.helpers import session_of
from uac.llm import ScriptedProvider
from uac.llm.rule_model.request import block, blocks

#: (session, speaker, what was said, the facts a model writes for it)
CONVERSATION = [
    (
        "2023-05-01",
        [
            (
                "Maya",
                "I work at Acme Corp as an engineer, it's been three years now.",
                ["Maya works at Acme Corp as an engineer."],
            ),
            ("Theo", "That sounds like a steady place to be.", []),
        ],
    ),
    (
        "2023-05-08",
        [
            (
                "Maya",
                "Big news: I just started at Initech as a designer!",
                ["Maya just started at Initech as a designer."],
            ),
            ("Theo", "Congrats on the new role, you earned it.", ["Theo congratulated Maya on her new role."]),
        ],
    ),
    (
        "2023-05-15",
        [
            ("Maya", "We live in Lisbon, right by the river.", ["Maya lives in Lisbon by the river."]),
            ("Theo", "Lisbon must be lovely in spring.", []),
        ],
    ),
    (
        "2023-05-22",
        [
            ("Maya", "We moved to Porto last week, the boxes are everywhere.", ["Maya moved to Porto in May 2023."]),
            ("Theo", "Hope the move went smoothly for you.", []),
            (
                "Maya",
                "I'm planning a trip to Kyoto in June to see the temples.",
                ["Maya is planning a trip to Kyoto in June 2023 to see the temples."],
            ),
            ("Theo", "Kyoto in June, bring an umbrella.", []),
        ],
    ),
    (
        "2023-06-29",
        [
            (
                "Maya",
                "I finally went to Kyoto, the temples were amazing.",
                ["Maya went to Kyoto in June 2023 and found the temples amazing."],
            ),
            (
                "Maya",
                "Next I plan to run the Berlin marathon in September.",
                ["Maya plans to run the Berlin marathon in September 2023."],
            ),
        ],
    ),
    (
        "2023-07-06",
        [
            (
                "Maya",
                "I cancelled the Berlin marathon, my knee still hurts.",
                ["Maya cancelled the Berlin marathon because her knee hurts."],
            ),
            ("Maya", "My sister Lena is a nurse in Porto.", ["Maya's sister Lena is a nurse in Porto."]),
        ],
    ),
    (
        "2023-07-13",
        [
            (
                "Maya",
                "Actually, Lena is a doctor, not a nurse. I mixed that up.",
                ["Maya's sister Lena is actually a doctor, not a nurse."],
            ),
            ("Theo", "Ha, good to know, say hi to her.", []),
        ],
    ),
]

#: what a new fact changes, as a model understands the two sentences: (new, old, relation)
CHANGES = [
    ("Maya just started at Initech as a designer.", "Maya works at Acme Corp as an engineer.", "supersedes"),
    ("Maya moved to Porto in May 2023.", "Maya lives in Lisbon by the river.", "supersedes"),
    (
        "Maya went to Kyoto in June 2023 and found the temples amazing.",
        "Maya is planning a trip to Kyoto in June 2023 to see the temples.",
        "fulfils",
    ),
    (
        "Maya cancelled the Berlin marathon because her knee hurts.",
        "Maya plans to run the Berlin marathon in September 2023.",
        "cancels",
    ),
    ("Maya's sister Lena is actually a doctor, not a nurse.", "Maya's sister Lena is a nurse in Porto.", "corrects"),
]
#: the extraction prompt asks for ``supersedes`` for a changed state, never for a plan that came true
SUPERSEDES = {new: old for new, old, relation in CHANGES if relation != "fulfils"}


def locomo(sample: str = "rec") -> dict:
    data: dict = {"speaker_a": "Maya", "speaker_b": "Theo"}
    for number, (day, turns) in enumerate(CONVERSATION, 1):
        year, month, dom = day.split("-")
        month_name = ["January", "February", "March", "April", "May", "June", "July"][int(month) - 1]
        data[f"session_{number}_date_time"] = f"10:00 am on {int(dom)} {month_name}, {year}"
        data[f"session_{number}"] = [
            {"speaker": speaker, "dia_id": f"D{number}:{t}", "text": text}
            for t, (speaker, text, _facts) in enumerate(turns, 1)
        ]
    return {"sample_id": sample, "conversation": data, "qa": []}


_FACTS_OF = {text: facts for _day, turns in CONVERSATION for _speaker, text, facts in turns}
_TURN = re.compile(r"^\[(?P<id>D\d+:\d+)\] (?P<speaker>\w+): (?P<text>.*)$", re.M)
_KNOWN = re.compile(r"^\[(?P<id>[^\]]+)\] (?P<text>.*)$", re.M)
_NEW = re.compile(r"^\[(?P<id>[^\]]+)\] (?:\w+: )?(?P<text>.*)$")
_OLD = re.compile(r"^\[(?P<id>[^\]]+)\] \(said [^)]*\) (?:\w+: )?(?P<text>.*)$")


def _first_user(request) -> str:
    return next(m.content for m in request.messages if m.role == "user")


def _session_number(prompt: str) -> int:
    return int((session_of(prompt) or "")[len("rec_s") :])


def extraction(prompt: str) -> dict:
    """What the model finds in the turns, linking a changed state to a known fact it was shown."""
    known_block = "\n".join(block(prompt, "known_facts") or [])
    known = {m["text"].strip(): m["id"] for m in _KNOWN.finditer(known_block)}
    turns = "\n".join(block(prompt, "turns") or [])
    facts = []
    for turn in _TURN.finditer(turns):
        for text in _FACTS_OF.get(turn["text"].strip(), []):
            old = SUPERSEDES.get(text)
            facts.append(
                {
                    "text": text,
                    "evidence": [turn["id"]],
                    "event_date": None,
                    # a model writes the id as it was shown, brackets and all, now and then
                    "supersedes": (f"[{known[old]}]" if "Lena" in text else known[old]) if old in known else None,
                    "speaker": turn["speaker"],
                }
            )
    return {"facts": facts}


def reconcile(prompt: str) -> dict:
    """The pairs the model sees among the new and the earlier facts listed."""
    changes = []
    new = None
    for name, lines in blocks(prompt):
        for line in lines:
            line = line.strip()
            match = _NEW.match(line) if name == "new_fact" else None
            if match:
                new = (match["id"], match["text"])
            old = _OLD.match(line) if name == "earlier_facts" else None
            if old and new is not None:
                for a, b, relation in CHANGES:
                    if new[1] == a and old["text"] == b:
                        changes.append({"new": new[0], "old": old["id"], "relation": relation})
    return {"changes": changes}


def dressed(value: dict, form: str) -> dict:
    """``value`` as a scripted entry in one of the forms real models answer in."""
    text = json.dumps(value, indent=1)
    if form == "fence":
        return {
            "content": f"Here is what I found in the excerpt:\n\n```json\n{text}\n```\nLet me know if you need more."
        }
    if form == "think":
        return {"content": f"<think>Let me go through the turns one by one and check the dates.</think>\n{text}"}
    if form == "prose":
        return {"content": f"Sure. {json.dumps(value)} These are all the items."}
    return {"content": text}


class RealisticModel:
    """The handler of a scripted provider; see the module docstring."""

    def __init__(
        self, *, extraction_forms: dict[int, str] | None = None, reconcile_forms: dict[int, str] | None = None
    ) -> None:
        self.extraction_forms = (
            extraction_forms
            if extraction_forms is not None
            else {
                1: "fence",
                2: "think",
                3: "wrong",
                4: "cut",
                5: "prose",
                6: "plain",
                7: "think",
            }
        )
        self.reconcile_forms = reconcile_forms if reconcile_forms is not None else {5: "think", 6: "wrong", 7: "fence"}
        self.prompts: list[str] = []
        self.lock = threading.Lock()

    def __call__(self, request) -> dict:
        prompt = _first_user(request)
        with self.lock:
            self.prompts.append(prompt)
        number = _session_number(prompt)
        repairing = len(request.messages) > 2
        if prompt.startswith("Decide what each new fact changes"):
            form = self.reconcile_forms.get(number, "plain")
            if form == "wrong" and not repairing:
                return {"content": "The marathon was cancelled, so the plan no longer holds; the sister is a nurse."}
            return dressed(reconcile(prompt), "fence" if form == "wrong" else form)
        value = extraction(prompt)
        form = self.extraction_forms.get(number, "plain")
        whole = len(_TURN.findall(prompt.split("Turns to extract from:", 1)[1])) == len(CONVERSATION[number - 1][1])
        if form == "wrong" and not repairing:
            return {"content": "I found two facts: Maya lives in Lisbon, and Theo likes Lisbon in spring."}
        if form == "cut" and whole and not repairing:
            text = json.dumps(value, indent=1)
            return {"content": text[: len(text) // 2], "finish_reason": "length"}
        return dressed(value, "plain" if form in ("wrong", "cut") else form)


class Jittery(ScriptedProvider):
    """A scripted provider whose replies take a random few milliseconds (outside its lock),
    so calls in flight overlap and finish out of order."""

    def __init__(self, handler, seed: int = 0) -> None:
        super().__init__(handler=handler)
        self.random = random.Random(seed)
        self.jitter_lock = threading.Lock()
        self.in_flight = 0
        self.peak = 0

    def complete(self, request):
        with self.jitter_lock:
            delay = self.random.random() * 0.02
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
        try:
            time.sleep(delay)
            return super().complete(request)
        finally:
            with self.jitter_lock:
                self.in_flight -= 1
