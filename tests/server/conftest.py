"""Fixtures for the server tests: a served root with two users, their tokens,
sessions written here, and helpers to run real servers on loopback."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from uac.memory import UserMemory
from uac.server.tokens import TokenStore

REPO = Path(__file__).resolve().parents[2]

ALICE_SESSION = {
    "date": "2023-05-08",
    "messages": [
        {"role": "user", "content": "I adopted a golden retriever named Rex yesterday."},
        {"role": "assistant", "content": "Congratulations on Rex!"},
        {"role": "user", "content": "I also booked a trip to Lisbon for June."},
    ],
}
BOB_SESSION = {
    "date": "2023-06-01",
    "messages": [
        {"role": "user", "content": "My sister Carla moved to Toronto last week."},
        {"role": "user", "content": "I started learning the cello in March."},
    ],
}


@dataclass
class Served:
    root: Path
    tokens: dict[str, str]
    admin: str

    def auth(self, user: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[user]}"}


def make_root(root: Path, sessions: dict[str, dict]) -> Served:
    root.mkdir(parents=True, exist_ok=True)
    tokens = {}
    for user, session in sessions.items():
        memory = UserMemory.create(root / user, user_name=user.capitalize())
        path = root.parent / f"{user}-session.json"
        path.write_text(json.dumps(session), "utf-8")
        memory.ingest(path)
        memory.close()  # release the index's files: many tests build roots in one process
        tokens[user], _ = TokenStore.for_project(memory.root).create("test")
    admin, _ = TokenStore.for_admin(root).create("test admin")
    return Served(root, tokens, admin)


@pytest.fixture(scope="session")
def shared_root(tmp_path_factory) -> Served:
    """alice and bob, one session each; tests must not write to it."""
    return make_root(tmp_path_factory.mktemp("served") / "root", {"alice": ALICE_SESSION, "bob": BOB_SESSION})


@pytest.fixture
def fresh_root(tmp_path) -> Served:
    """alice and bob in a root of this test's own (tests may write)."""
    return make_root(tmp_path / "root", {"alice": ALICE_SESSION, "bob": BOB_SESSION})


@pytest.fixture(scope="session")
def shared_client(shared_root):
    from fastapi.testclient import TestClient

    from uac.server.http import create_app

    with TestClient(create_app(shared_root.root)) as client:
        yield client


@pytest.fixture
def fresh_client(fresh_root):
    from fastapi.testclient import TestClient

    from uac.server.http import create_app

    with TestClient(create_app(fresh_root.root)) as client:
        yield client


# --- real processes on loopback ------------------------------------------------------


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def child_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("UAC_") or k == "UAC_COMPILE_AUTO"}
    env.update(
        {
            "UAC_BLOCK_NETWORK": "1",
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "ANONYMIZED_TELEMETRY": "False",
            "TYPER_USE_RICH": "0",
        }
    )
    env.update(extra)
    return env


def wait_http(url: str, proc: subprocess.Popen, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"the server exited with {proc.returncode}: {proc.stderr.read() if proc.stderr else ''}")
        try:
            if httpx.get(url, timeout=1.0).status_code < 500:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{url} did not answer within {timeout}s")


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture
def uvicorn_server(fresh_root):
    """``uac serve http`` in a subprocess on a free loopback port; yields (base_url, served)."""
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uac",
            "serve",
            "http",
            "--root",
            str(fresh_root.root),
            "--port",
            str(port),
            "--max-body-mb",
            "0.01",
            "--log-level",
            "warning",
        ],
        cwd=REPO,
        env=child_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_http(base + "/v1/health", proc)
        yield base, fresh_root
    finally:
        stop(proc)


def snapshot_tree(root: Path) -> dict[str, bytes]:
    """Every file of a project but the derived data and the lock: what a refused request must not change."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".uac" not in p.relative_to(root).parts
    }
