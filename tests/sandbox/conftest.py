"""Fixtures of the sandbox test suite."""

from __future__ import annotations

import pytest
from sandbox_support import DOMAINS, FACTS, SECURITY_LIMITS

import sandbox
from sandbox.codec import encode_state


@pytest.fixture(scope="session")
def state() -> dict:
    return encode_state(DOMAINS, facts=FACTS)


@pytest.fixture(scope="session")
def level() -> sandbox.SandboxLevel:
    return sandbox.detect_level()


@pytest.fixture(scope="session")
def session(state):
    """A warm worker shared by tests that do not need a fresh one."""
    with sandbox.Session(state, limits=SECURITY_LIMITS) as s:
        yield s


@pytest.fixture
def fresh_session(state):
    with sandbox.Session(state, limits=SECURITY_LIMITS) as s:
        yield s


@pytest.fixture
def breach_session(state):
    """A worker that also accepts unrestricted code (assume-breach tests only)."""
    with sandbox.Session(state, limits=SECURITY_LIMITS, _unrestricted_for_tests=True) as s:
        yield s


@pytest.fixture
def requires_jail(level):
    if level.level != "jail":
        pytest.skip(f"needs the bubblewrap jail, level is {level.level!r}: {level.reason}")


@pytest.fixture
def other_tenant():
    """Another user's project whose fact log every local user may read (0755
    directories, a 0644 file: what a default umask gave a project made before
    projects were private, or one opened up by hand)."""
    import shutil
    import tempfile
    from pathlib import Path

    from uac.memory import UserMemory

    root = Path(tempfile.mkdtemp(prefix="uac-tenants-"))
    try:
        root.chmod(0o755)
        other = UserMemory.create(root / "bob")
        facts = other.project.paths.facts
        facts.write_text('{"id": "f1", "text": "bob-secret-7f3a"}\n')
        for folder in (other.root, facts.parent):  # made private (0700) by uac: opened up here
            folder.chmod(0o755)
        facts.chmod(0o644)
        other.close()
        yield facts
    finally:
        shutil.rmtree(root, ignore_errors=True)
