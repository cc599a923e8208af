"""The zoo's fixture conversation (LoCoMo-shaped, written here, deterministic).

Four sessions between Alice and Bob.  Alice flies to Kyoto in 2022 and to
Lisbon, Berlin and Reykjavik in 2023, so "How many trips did Alice take in
2023?" has the answer 3 -- computed over the compiled state.  The last session
is long (about 12,500 characters): its first extraction window does not fit
a 2,048-token context, as an Ollama server with its default ``num_ctx`` would
have it.
"""

from __future__ import annotations

import json
from pathlib import Path

SAMPLE_ID = "zoo-1"
QUESTION = "How many trips did Alice take in 2023?"
ANSWER = 3

_SHORT_SESSIONS = [
    (
        "9:00 am on 20 November, 2022",
        [
            ("Alice", "Hi Bob! I flew to Kyoto yesterday for a conference on urban gardens."),
            ("Bob", "Welcome back! I started a new job at a design studio this month."),
            ("Alice", "My sister Ana is learning to play the cello. She practises every evening."),
            ("Bob", "That is lovely. How was the conference?"),
            ("Alice", "The talks about rooftop farms were the best part. I took many notes for my own garden."),
        ],
    ),
    (
        "6:30 pm on 10 March, 2023",
        [
            ("Alice", "I flew to Lisbon on 2 March 2023 and stayed for a whole week."),
            ("Bob", "Sounds wonderful. I adopted a dog named Rex last week."),
            ("Alice", "I had dinner at a great sushi restaurant today. The salmon was perfect."),
            ("Bob", "Rex already knows how to sit and wait for his food."),
        ],
    ),
    (
        "8:15 am on 15 June, 2023",
        [
            ("Alice", "Guess what: I flew to Berlin yesterday for my friend Clara's wedding."),
            ("Bob", "Congratulations to Clara! My manager asked me to lead the new branding project."),
            ("Alice", "I bought a second-hand guitar and I practise scales every morning."),
        ],
    ),
]

_TOPICS = [
    "I cooked a lentil soup with smoked paprika, cumin and a little lemon for dinner on day {n} of the month, and it was even better the next day.",
    "My colleague Priya showed me how she plans the milestones of her project for week {n}, with a short review meeting every Friday afternoon.",
    "I read chapter {n} of a long novel about a lighthouse keeper on a remote island who writes letters to a sister she has never met.",
    "I walked my neighbour's dog along the river for {n} kilometres before breakfast, and we stopped at the old stone bridge on the way back.",
    "I repotted {n} tomato seedlings in the garden, labelled each pot by hand and moved the trays closer to the south window for more light.",
    "My yoga teacher added {n} new balance poses to the Thursday evening class, and most of us wobbled through every single one of them.",
    "I baked {n} loaves of sourdough bread over the weekend and gave two of them to the neighbours who lent us their ladder in spring.",
    "The office printer jammed {n} times while we were printing the quarterly report, so the whole team ended up working late that evening.",
]


def _long_session() -> list[tuple[str, str]]:
    turns = []
    for number in range(1, 46):
        speaker = "Alice" if number % 2 else "Bob"
        first, second = (_TOPICS[(number + k) % len(_TOPICS)].format(n=number * 3 + k) for k in range(2))
        text = f"{first[:-1]}; also, {second[0].lower()}{second[1:]}"  # one long sentence: one fact
        if number == 11:
            text = "I flew to Reykjavik on 20 August 2023 to see the northern lights with my cousin, and we were lucky with the weather."
        turns.append((speaker, text))
    return turns


def build_conversation() -> dict:
    sessions = [*_SHORT_SESSIONS, ("7:45 pm on 2 September, 2023", _long_session())]
    conversation: dict = {"speaker_a": "Alice", "speaker_b": "Bob"}
    for number, (when, turns) in enumerate(sessions, 1):
        conversation[f"session_{number}_date_time"] = when
        conversation[f"session_{number}"] = [
            {"speaker": speaker, "dia_id": f"D{number}:{index}", "text": text}
            for index, (speaker, text) in enumerate(turns, 1)
        ]
    return {"sample_id": SAMPLE_ID, "conversation": conversation, "qa": [{"question": QUESTION, "answer": str(ANSWER)}]}


def write_conversation(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([build_conversation()], indent=1), "utf-8")
    return path
