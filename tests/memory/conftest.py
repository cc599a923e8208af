"""Fixtures of the memorize tests: small LoCoMo-shaped conversations written here
(never the real dataset), a project-hashing helper, and the shared embedder."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

#: a turn that holds U+2028, U+2029, U+0085, "\r", "\x0b", "\x0c" and "\x1c"-"\x1e"
SEPARATOR_TURN = "Ha!\u2028Lines\u2029and\x85more\rbreaks\x0bin\x0cone\x1cturn\x1dfor\x1esure."

CONVERSATION = {
    "sample_id": "conv-t1",
    "conversation": {
        "speaker_a": "Caroline",
        "speaker_b": "Melanie",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Caroline", "dia_id": "D1:1", "text": "Hey Mel! Good to see you! How have you been?"},
            {"speaker": "Melanie", "dia_id": "D1:2", "text": "Hey Caroline! I'm swamped with the kids & work. What's up with you?"},
            {"speaker": "Caroline", "dia_id": "D1:3", "text": "I went to a LGBTQ support group yesterday and it was so powerful."},
            {
                "speaker": "Melanie",
                "dia_id": "D1:4",
                "text": "Wow! I painted that lake sunrise last year.",
                "img_url": ["https://example.invalid/x.jpg"],
                "blip_caption": "a photo of a painting of a sunset over a lake",
            },
            {"speaker": "Caroline", "dia_id": "D1:5", "text": "Thanks!"},
        ],
        "session_2_date_time": "7:00 pm on 25 May, 2023",
        "session_2": [
            {"speaker": "Melanie", "dia_id": "D2:1", "text": "We went camping with the kids two days ago."},
            {"speaker": "Caroline", "dia_id": "D2:2", "text": "My dog Rex loves the beach. Do you have pets?"},
            {"speaker": "Melanie", "dia_id": "D2:3", "text": "Yes, I have a cat named Oliver. I'm moving to Boston next month."},
        ],
        "session_3_date_time": "10:15 am on 2 July, 2023",
        "session_3": [
            {"speaker": "Caroline", "dia_id": "D3:1", "text": "I started a new job as a counselor last week!"},
            {"speaker": "Melanie", "dia_id": "D3:2", "text": "Congrats! I signed up for a pottery class last Friday."},
            # every character str.splitlines() breaks at besides "\n": text inside one turn
            {"speaker": "Caroline", "dia_id": "D3:3", "text": SEPARATOR_TURN},
        ],
    },
    "qa": [{"question": "When did Caroline go to the support group?", "answer": "7 May 2023", "evidence": ["D1:3"], "category": 2}],
}

SECOND = {
    "sample_id": "conv-t2",
    "conversation": {
        "speaker_a": "Jon",
        "speaker_b": "Gina",
        "session_1_date_time": "4:04 pm on 20 January, 2023",
        "session_1": [
            {"speaker": "Jon", "dia_id": "D1:1", "text": "I lost my job as a banker yesterday."},
            {"speaker": "Gina", "dia_id": "D1:2", "text": "Sorry to hear that. I opened my own dance studio."},
        ],
    },
    "qa": [],
}


@pytest.fixture
def locomo_file(tmp_path) -> Path:
    path = tmp_path / "inputs" / "locomo_small.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps([CONVERSATION, SECOND]), "utf-8")
    return path


@pytest.fixture
def messages_file(tmp_path) -> Path:
    path = tmp_path / "inputs" / "chat.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {
        "date": "2024-03-01",
        "messages": [
            {"role": "system", "content": "You are helpful."},
            {"role": "user", "content": "I adopted a puppy called Biscuit yesterday."},
            {"role": "assistant", "content": "Congratulations! How is Biscuit settling in?"},
            {"role": "user", "content": "Great. My sister Ana visits next week."},
            {"role": "assistant", "content": SEPARATOR_TURN},
        ],
    }
    path.write_text(json.dumps(data), "utf-8")
    return path


@pytest.fixture
def transcript_file(tmp_path) -> Path:
    path = tmp_path / "inputs" / "talk.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "# date: 2024-03-01\n"
        "Alice: I ran a half marathon last Sunday.\n"
        "Bob: Impressive! What was your time?\n"
        "Alice: Two hours and five minutes.\n"
        "  It was my first race.\n"
        f"Bob: {SEPARATOR_TURN}\n",
        "utf-8",
    )
    return path


def tree_hash(root: Path) -> str:
    """sha256 over every file's relative path and bytes under ``root``, ignoring the lock file."""
    digest = hashlib.sha256()
    for path in sorted(Path(root).rglob("*")):
        if path.is_file() and path.name != "lock":
            digest.update(str(path.relative_to(root)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


@pytest.fixture(scope="session")
def embedder():
    from uac.index.embeddings import get_embedder

    return get_embedder()
