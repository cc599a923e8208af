"""Shared fixtures.  No test reaches a network: real model endpoints are blocked
(``UAC_BLOCK_NETWORK=1``), projects live in temp dirs, and the environment's
LLM settings are cleared so a developer's variables cannot leak in."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from tests.fixtures.conversations import (  # noqa: F401 - fixtures for every test directory
    embedder,
    locomo_file,
    messages_file,
    transcript_file,
)
from uac.llm import LLMClient, ScriptedProvider
from uac.memory import UserMemory

_LLM_ENV = [name for name in os.environ if name.startswith("UAC_")] + ["OPENAI_API_KEY", "OPENAI_BASE_URL"]


@pytest.fixture(autouse=True, scope="session")
def _offline_environment():
    saved = {name: os.environ.pop(name) for name in _LLM_ENV if name in os.environ}
    os.environ["UAC_BLOCK_NETWORK"] = "1"
    os.environ["UAC_COMPILE_AUTO"] = "0"  # see _catch_up_only_where_tested
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ["ANONYMIZED_TELEMETRY"] = "False"
    yield
    os.environ.pop("UAC_BLOCK_NETWORK", None)
    os.environ.pop("UAC_COMPILE_AUTO", None)
    os.environ.update(saved)


@pytest.fixture(autouse=True)
def _catch_up_only_where_tested(request, monkeypatch):
    """The view's catch-up after an ingest is off (``UAC_COMPILE_AUTO=0``, set for the whole
    session and inherited by the commands tests start) except in the tests marked
    ``follows_log``: most tests ingest to check the log, the indexes or a compile of their
    own, and an offline compile after each ingest would cost the suite minutes."""
    if request.node.get_closest_marker("follows_log") is not None:
        monkeypatch.delenv("UAC_COMPILE_AUTO", raising=False)


@pytest.fixture(autouse=True, scope="session")
def _no_outbound_sockets():
    """Any connection to a non-loopback address fails the test loudly."""
    real_connect = socket.socket.connect

    def guarded(self, address):
        host = address[0] if isinstance(address, tuple) else address
        if isinstance(host, str) and self.family in (socket.AF_INET, socket.AF_INET6):
            if host not in ("localhost",) and not host.startswith("127.") and host != "::1":
                raise OSError(f"network access to {host} blocked in tests")
        return real_connect(self, address)

    socket.socket.connect = guarded
    yield
    socket.socket.connect = real_connect


@pytest.fixture
def workspace(tmp_path, monkeypatch) -> Path:
    """A temporary $UAC_HOME; bare project names resolve under it."""
    home = tmp_path / "user_projects"
    home.mkdir()
    monkeypatch.setenv("UAC_HOME", str(home))
    return home


@pytest.fixture
def scripted() -> ScriptedProvider:
    """An empty scripted model; ``enqueue()`` responses in the test."""
    return ScriptedProvider()


@pytest.fixture
def scripted_llm(scripted) -> LLMClient:
    return LLMClient(scripted, sleep=lambda _s: None)


@pytest.fixture
def project_dir(tmp_path) -> Path:
    return tmp_path / "alice"


@pytest.fixture
def memory(project_dir):
    """A fresh project with no model configured (its index clients closed afterwards)."""
    opened = UserMemory.create(project_dir, user_name="Alice")
    yield opened
    opened.close()


@pytest.fixture
def scripted_memory(project_dir, scripted_llm):
    """A fresh project whose model is the scripted double (see ``scripted``)."""
    opened = UserMemory.create(project_dir, user_name="Alice", llm=scripted_llm)
    yield opened
    opened.close()


@pytest.fixture(autouse=True)
def _fresh_endpoint_memory():
    """What the process learnt about endpoints does not leak from one test to the next
    (local fake servers reuse ports)."""
    from uac.llm.capabilities import CapabilityStore

    CapabilityStore.forget_all()
    yield
    CapabilityStore.forget_all()
