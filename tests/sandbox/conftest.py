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
