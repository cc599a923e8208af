"""Process-wide caches are bounded and listed in one place: a process that reads many
projects keeps only the most recent ones' folded fact logs."""

from __future__ import annotations

import threading

import pytest

import uac.facts.log as log_module
from uac.caches import BoundedCache, caches, clear_all
from uac.facts.log import FactLog


def _log_with_one_fact(root, n):
    from uac import UserMemory

    memory = UserMemory.create(root / f"p{n}", user_name="Maya")
    memory.add_session({"date": "2024-05-01", "messages": [{"role": "user", "content": f"I bought plant number {n}."}]})
    memory.close()
    return FactLog(root / f"p{n}" / "memory" / "facts.jsonl")


def test_reading_many_projects_keeps_only_the_recent_fact_logs(tmp_path):
    log_module._CACHE.clear()
    logs = [_log_with_one_fact(tmp_path, n) for n in range(20)]
    for log in logs:
        assert log.read().facts  # folded and cached
    assert len(log_module._CACHE) == log_module._CACHE.maxsize == 16
    assert str(logs[0].path) not in log_module._CACHE and str(logs[-1].path) in log_module._CACHE
    assert logs[0].read().facts  # an evicted log is read again, the same
    assert str(logs[0].path) in log_module._CACHE


def test_least_recently_used_goes_first_and_threads_are_safe():
    cache: BoundedCache[int, int] = BoundedCache("test lru", 3)
    for i in range(3):
        cache[i] = i
    assert cache.get(0) == 0  # 0 is now the most recent
    cache[3] = 3
    assert list(cache) == [2, 0, 3] and 1 not in cache

    def fill(start):
        for i in range(start, start + 500):
            cache[i] = i
            cache.get(i - 1)

    workers = [threading.Thread(target=fill, args=(k * 1000,)) for k in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert len(cache) == 3
    with pytest.raises(ValueError, match="at least one entry"):
        BoundedCache("empty", 0)


def test_every_process_wide_cache_is_listed_and_cleared():
    import uac.answer.domain_meaning  # noqa: F401
    import uac.compile.kinds.job_mentions  # noqa: F401  (registers its cache on import)
    import uac.llm.capabilities  # noqa: F401

    names = set(caches())
    assert {"fact logs", "fact log heads", "job rules by speaker", "endpoint capabilities", "domain vectors"} <= names
    log_module._HEADS["x"] = ((0, 0, 0), None)
    clear_all()
    assert all(len(cache) == 0 for cache in caches().values())
