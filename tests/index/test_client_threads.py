"""One project's embedded Chroma store opened from two threads, or two processes, at
once (a server's reader and writer; two servers on one root): neither may close the
other's client, and a new store's tables are created once."""

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
    reader.join(1)
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


def test_opening_a_store_waits_for_another_process_opening_it(tmp_path):
    """Chroma creates a new store's tables as it opens it: two processes opening one new
    store at once (two servers on one root) failed with "table collections already
    exists".  An opening holds a lock on the store's directory, and waits for another's."""
    import fcntl
    import os

    import chromadb  # noqa: F401 - imported before the clock below starts

    internal = tmp_path / "alice" / ".uac"
    (internal / "chroma").mkdir(parents=True)
    index = MemoryIndex(internal)
    # another process's opening, here: a lock on the same directory through another open file
    held = os.open(internal / "chroma", os.O_RDONLY)
    fcntl.flock(held, fcntl.LOCK_EX)
    opened: list[object] = []
    opener = threading.Thread(target=lambda: opened.append(index.client()), name="opener")
    try:
        opener.start()
        opener.join(1)
        assert opener.is_alive() and opened == [], "the store was opened while another opening held it"
    finally:
        os.close(held)
    opener.join(60)
    try:
        assert len(opened) == 1 and opened[0].get_or_create_collection("probe").count() == 0
    finally:
        index.close()
