"""Tell a simulated life as chat sessions in uac's messages format, with its ledger.

Each session (``{"session_id", "date", "messages"}``) holds the user's turns --
one to three sentences each, so one message often carries several facts, in a
shuffled order, with small talk and distractors among them -- and the
assistant's replies, some of which suggest things that must not count.  The
ledger (:class:`~.ledger.Ledger`) lists every event with the sessions that
mention it, and every distractor with its session and reason.
"""

from __future__ import annotations

import random
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

from .ledger import FORMAT, Ledger, parse_ledger
from .phrases import assistant_reply, say
from .simulate import Life

GREETINGS = ("", "", "Hi! ", "Hey, quick update. ", "Morning! ", "Evening. ", "So, ")
#: the event kind of each mention (distractors and small talk are their own kinds)
MENTION_KINDS = {
    "trip_done": "trip",
    "trip_taken": "trip",
    "trip_plan": "trip",
    "trip_cancel": "trip",
    "trip_correct": "trip",
    "meal": "meal",
    "purchase": "purchase",
    "purchase_return": "purchase",
    "workout": "workout",
    "book": "book",
    "job_intro": "job",
    "job_change": "job",
    "home_intro": "home",
    "move": "home",
}


@dataclass
class Told:
    """A told history: the sessions, the ledger, and the shape of every sentence by kind."""

    sessions: list[dict[str, Any]]
    ledger: Ledger
    shapes: dict[str, list[str]]

    def diversity(self) -> dict[str, dict[str, Any]]:
        """Per kind: sentences, distinct shapes, and the share of the most common shape."""
        out = {}
        for kind, shapes in sorted(self.shapes.items()):
            counts = Counter(shapes)
            out[kind] = {
                "sentences": len(shapes),
                "shapes": len(counts),
                "top_share": round(counts.most_common(1)[0][1] / len(shapes), 3),
            }
        return out


def tell(life: Life) -> Told:
    """The sessions and ledger of ``life`` (deterministic: its own seeded random stream)."""
    rng = random.Random(f"uac-conv-tell:{life.seed}:{len(life.days)}")
    by_session: dict[int, list[Any]] = defaultdict(list)
    for mention in life.mentions:
        by_session[mention.session].append(mention)
    told_in: dict[str, list[str]] = defaultdict(list)
    shapes: dict[str, list[str]] = defaultdict(list)
    distractors: list[dict[str, str]] = []
    sessions = []
    for index, today in enumerate(life.days):
        session_id = life.session_id(index)
        mentions = by_session.get(index, [])
        first = [m for m in mentions if m.what.endswith("_intro")]
        rest = [m for m in mentions if not m.what.endswith("_intro")]
        rng.shuffle(rest)
        sentences = []
        for mention in first + rest:
            event = life.events.get(mention.event) if mention.event else None
            text, shape = say(mention.what, event, mention.data, today, rng)
            sentences.append(text)
            shapes[MENTION_KINDS.get(mention.what, mention.what)].append(shape)
            if mention.event:
                if session_id not in told_in[mention.event]:
                    told_in[mention.event].append(session_id)
            elif mention.what != "small_talk":
                distractors.append({"session": session_id, "text": text, "why": mention.what})
        if not sentences:
            sentences.append(say("small_talk", None, {}, today, rng)[0])
        messages = []
        while sentences:
            take = rng.choice((1, 1, 2, 2, 3))
            chunk, sentences = sentences[:take], sentences[take:]
            opener = rng.choice(GREETINGS) if not messages else ""
            messages.append({"role": "user", "content": opener + " ".join(chunk)})
            reply, why = assistant_reply(rng, today)
            if why:
                distractors.append({"session": session_id, "text": reply, "why": why})
            messages.append({"role": "assistant", "content": reply})
        sessions.append({"session_id": session_id, "date": today.isoformat(), "messages": messages})
    events = []
    for event_id, fields in life.events.items():
        if not told_in.get(event_id):
            continue
        body = {k: v for k, v in fields.items() if k != "kind"}
        events.append({"id": event_id, "kind": fields["kind"], **body, "sessions": told_in[event_id]})
    raw = {
        "format": FORMAT,
        "user": life.user,
        "currency": life.currency,
        "rates": life.rates,
        "events": events,
        "distractors": distractors,
        "today": life.days[-1].isoformat(),
    }
    return Told(
        sessions, parse_ledger(raw, f"the generated ledger (seed {life.seed}, {len(life.days)} sessions)"), dict(shapes)
    )
