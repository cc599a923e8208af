"""Two threads of one process opening the embedded Chroma store of one project at once
(a server's reader and writer do): neither may close the other's client."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from uac.index.store import MemoryIndex

pytestmark = pytest.mark.embeddings


def test_a_client_opened_while_another_thread_finds_no_store_stays_usable(tmp_path, monkeypatch):
    internal = tmp_path / "alice" / ".uac"
    internal.mkdir(parents=True)
    chroma = internal / "chroma"
    writer_index, reader_index = MemoryIndex(internal), MemoryIndex(internal)
    assert not chroma.exists()  # a fresh project: ingest has not made the store yet

    # hold the writer right after it saw that the store does not exist yet
    checked, go = threading.Event(), threading.Event()
    real_exists = Path.exists

    def exists(self, *args, **kwargs):
        found = real_exists(self, *args, **kwargs)
        if threading.current_thread().name == "writer" and self == chroma and not checked.is_set():
            checked.set()
            go.wait(30)
        return found

    monkeypatch.setattr(Path, "exists", exists)
    errors: list[BaseException] = []

    def run(index: MemoryIndex) -> None:
        try:
            index.client()
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)

    writer = threading.Thread(target=run, args=(writer_index,), name="writer")
    reader = threading.Thread(target=run, args=(reader_index,), name="reader")
    writer.start()
    assert checked.wait(30), "the writer never looked for the store"
    # the reader opens the store meanwhile (with the fix it waits for the writer instead)
    reader.start()
    reader.join(2)
    go.set()
    writer.join(60)
    reader.join(60)
    assert not writer.is_alive() and not reader.is_alive()
    assert errors == []
    try:
        # both clients work: the one opened first was not stopped under its owner
        for index in (reader_index, writer_index):
            collection = index.client().get_or_create_collection("probe")
            collection.upsert(ids=["a"], embeddings=[[0.0, 1.0]])
            assert collection.count() == 1
    finally:
        reader_index.close()
        writer_index.close()
