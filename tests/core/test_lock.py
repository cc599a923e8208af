"""The project lock: two writers cannot interleave."""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time

from uac.errors import ProjectLocked
from uac.lock import lock_is_held
from uac.project import Project


def test_lock_is_reentrant_in_one_thread(tmp_path):
    project = Project.create(tmp_path / "p")
    with project.lock("outer"):
        with project.lock("inner"):
            assert lock_is_held(project.paths.lock).startswith("this process")
    assert lock_is_held(project.paths.lock) is None


def test_other_process_cannot_take_a_held_lock(tmp_path):
    project = Project.create(tmp_path / "p")
    script = textwrap.dedent(
        f"""
        import sys
        from uac.project import Project
        from uac.errors import ProjectLocked
        p = Project.open({str(project.root)!r})
        try:
            with p.lock("second writer", timeout=0.2):
                print("acquired")
        except ProjectLocked as exc:
            print("locked:", exc)
        """
    )
    with project.lock("first writer"):
        out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.startswith("locked:")
    assert "first writer" in out and "process" in out
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "acquired"


def test_lock_released_when_holder_is_killed(tmp_path):
    project = Project.create(tmp_path / "p")
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            f"from uac.project import Project\nimport time\n"
            f"with Project.open({str(project.root)!r}).lock('sleeper'):\n"
            f"    print('in', flush=True)\n    time.sleep(60)\n",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout.readline().strip() == "in"
    assert "sleeper" in (lock_is_held(project.paths.lock) or "")
    holder.kill()
    holder.wait()
    with project.lock("after crash", timeout=2):
        pass


def test_threads_serialise(tmp_path):
    project = Project.create(tmp_path / "p")
    log: list[tuple[str, int]] = []

    def writer(name: str) -> None:
        with project.lock(name):
            for i in range(5):
                log.append((name, i))
                time.sleep(0.002)

    threads = [threading.Thread(target=writer, args=(f"w{i}",)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # each writer's five entries are contiguous: no interleaving
    names = [name for name, _ in log]
    runs = [names[i : i + 5] for i in range(0, len(names), 5)]
    assert all(len(set(run)) == 1 for run in runs)
    assert len(set(names)) == 4


def test_timeout_zero_fails_at_once(tmp_path):
    project = Project.create(tmp_path / "p")
    outcome = []

    def contender():
        try:
            with project.lock("contender", timeout=0):
                outcome.append("acquired")
        except ProjectLocked:
            outcome.append("locked")

    with project.lock("holder"):
        t = threading.Thread(target=contender)
        t.start()
        t.join()
    assert outcome == ["locked"]
