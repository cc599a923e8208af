"""A reader lists the domains without the project lock: it must not clear the directory of
a swap another writer has in progress (it did, and a compile running beside a read -- the
servers' catch-up after an ingest beside an ask -- failed with a missing file)."""

from __future__ import annotations

import threading

from uac.memory import UserMemory
from uac.view import store


def test_listing_the_domains_leaves_a_swap_in_progress_alone(tmp_path):
    memory = UserMemory.create(tmp_path / "maya", user_name="Maya")
    memory.add_session(
        {"date": "2024-06-03", "messages": [{"role": "user", "content": "I flew to Oslo on Friday."}]}, compile=False
    )
    memory.compile(mode="offline")
    swapping = memory.project.paths.domains / ".new-travel-k2x9"
    swapping.mkdir()
    (swapping / "schema.py").write_text("")
    held, release = threading.Event(), threading.Event()

    def writer() -> None:
        with memory.project.lock("compile"):
            held.set()
            release.wait(30)

    thread = threading.Thread(target=writer)
    thread.start()
    held.wait(10)
    try:
        assert store.domain_names(memory.project) == ["travel"]
        assert swapping.is_dir()  # the writer's swap is left alone
    finally:
        release.set()
        thread.join()
    # with no writer at work it is the leftover of a crash: cleared as before
    assert store.domain_names(memory.project) == ["travel"] and not swapping.exists()
    memory.close()
