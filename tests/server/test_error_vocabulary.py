"""One error vocabulary across the CLI, HTTP and MCP: the documented codes are the codes the
server returns, every one is reachable, messages carry no CLI wording and no server path, and
bad input is a clear 4xx."""

from __future__ import annotations

import ast
import json
import re
import time

import pytest

from uac import errors as e
from uac.server.admission import ServerLimits
from uac.server.errors import CODES, HTTP, MCP, code_for, envelope

from .conftest import REPO

pytestmark = pytest.mark.embeddings

CLI_WORDING = re.compile(r"(?<![\w-])--[a-z][a-z-]*|'uac [a-z]|\buac (init|ingest|search|doctor|token|repl|forget)\b")
#: flags of the model servers uac talks to (vLLM, llama.cpp), which a hint may name
FOREIGN_FLAGS = re.compile(r"(?<![\w-])--(max-model-len|ctx-size)\b")


def cli_wording(text: str) -> bool:
    return bool(CLI_WORDING.search(FOREIGN_FLAGS.sub("", text)))


def documented_codes() -> dict[str, int]:
    """code -> status from the table under "### Errors" in docs/serving.md."""
    text = (REPO / "docs" / "serving.md").read_text("utf-8")
    section = text.split("### Errors", 1)[1].split("\n### ", 1)[0]
    table: dict[str, int] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].isdigit():
            for code in re.findall(r"`([a-z_]+)`", cells[2]):
                assert code not in table, f"{code} is documented twice"
                table[code] = int(cells[0])
    return table


def test_the_documented_table_is_the_servers_table():
    assert documented_codes() == CODES


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def test_every_error_class_has_a_documented_code():
    import uac.dialect.problems  # noqa: F401  (subclasses living outside uac.errors)

    for cls in _subclasses(e.UacError):
        exc = cls.__new__(cls)
        e.UacError.__init__(exc, "x")
        assert code_for(exc) in CODES, cls


def test_the_server_source_names_only_documented_codes():
    named = set()
    for path in (REPO / "uac" / "server").rglob("*.py"):
        tree = ast.parse(path.read_text("utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", getattr(node.func, "attr", ""))
                args = node.args[1:2] if name == "ApiError" else node.args[:1] if name == "envelope" else []
                named |= {a.value for a in args if isinstance(a, ast.Constant) and isinstance(a.value, str)}
            if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "_FRAMEWORK_CODES" for t in node.targets):
                named |= {v.value for v in node.value.values}
    assert named and named <= set(CODES), named - set(CODES)
    with pytest.raises(ValueError, match="undocumented error code"):
        envelope("http_error", "x")


def test_hints_name_inputs_and_operations_in_each_adapters_words():
    from uac.cli.vocabulary import CLI

    exc = e.InputError("'x' is not a date.", hint="Give {opt:as_of} as YYYY-MM-DD; {do:find_facts}.")
    assert exc.hint_for(CLI) == "Give --as-of as YYYY-MM-DD; find fact ids with 'uac search PROJECT QUERY --json'."
    assert exc.hint_for(HTTP).startswith('Give "as_of" as YYYY-MM-DD; find fact ids with GET /v1/projects/')
    assert exc.hint_for(MCP) == "Give as_of as YYYY-MM-DD; find facts and their ids with the search_memory tool."
    assert exc.hint == "Give as_of as YYYY-MM-DD; find fact ids with UserMemory.facts() or UserMemory.search()."
    assert str(exc) == f"{exc.message} {exc.hint}"
    assert e.FactNotFound("x", hint="{do:find_facts}.").hint_for(CLI).startswith("Find fact ids")


def test_the_vocabularies_of_tools_share_their_words_for_arguments_and_search():
    from uac.integrations._tools import TOOLS_VOCABULARY
    from uac.server.errors import tool_vocabulary

    hint = "Give {opt:as_of} as YYYY-MM-DD; {do:find_sessions}; {do:doctor}."
    for vocabulary in (MCP, TOOLS_VOCABULARY):
        assert vocabulary.render(hint).startswith(
            "Give as_of as YYYY-MM-DD; find session ids with the search_memory tool (each hit names its session_id); "
        )
        assert set(vocabulary.actions) == set(e.ACTIONS)
    assert MCP.render("{do:doctor}.") == "Ask the server's operator to check the project."
    assert TOOLS_VOCABULARY.render("{do:ingest}") == "Add conversations with the remember tool"
    own = tool_vocabulary("test", {"find_facts": "look it up"})
    assert (own.name, own.render("{do:find_facts} by {opt:as_of}")) == ("test", "Look it up by as_of")


def test_library_errors_carry_no_cli_wording():
    """Every uac error built outside uac/cli names inputs and operations with markers."""
    import uac.dialect.problems  # noqa: F401

    classes = {cls.__name__ for cls in _subclasses(e.UacError)} | {"UacError"}
    offenders = []
    for path in (REPO / "uac").rglob("*.py"):
        if "cli" in path.relative_to(REPO / "uac").parts[:1]:
            continue
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", "")) in classes:
                for sub in ast.walk(node):
                    if isinstance(sub, ast.Constant) and isinstance(sub.value, str) and cli_wording(sub.value):
                        offenders.append(f"{path.relative_to(REPO)}:{sub.lineno}: {sub.value!r}")
    assert not offenders, "\n".join(offenders)


# --- over HTTP -------------------------------------------------------------------------------


def _app(root, **kwargs):
    from fastapi.testclient import TestClient

    from uac.server.http import create_app

    return TestClient(create_app(root, **kwargs), raise_server_exceptions=False)


def _error(response) -> tuple[int, str]:
    body = response.json()
    assert set(body) == {"error"}, body
    return response.status_code, body["error"]["code"]


def test_every_documented_code_is_reachable(fresh_root, monkeypatch, tmp_path):
    import sandbox.jail
    from uac.llm import LLMClient, ScriptedProvider
    from uac.lock import project_lock
    from uac.memory import UserMemory
    from uac.server.workspace import ServedWorkspace

    root = fresh_root.root
    alice, bob = fresh_root.auth("alice"), fresh_root.auth("bob")
    admin = {"Authorization": f"Bearer {fresh_root.admin}"}
    seen: dict[str, int] = {}

    def saw(response):
        status, code = _error(response)
        seen[code] = status
        message = json.dumps(response.json())
        assert str(root) not in message and "/tmp/" not in message, message
        assert not cli_wording(message), message
        return code

    def failing_model(project):
        if project.root.name == "bob":
            return LLMClient(ScriptedProvider([{"error": "fatal", "message": "the endpoint said no"}]))
        return None

    limits = ServerLimits(
        lock_wait_seconds=0.3, busy_wait_seconds=0.2, queued_per_project=1, sandbox_workers_per_project=1
    )
    client = _app(root, llm_factory=failing_model, limits=limits)
    with client:
        P = "/v1/projects/alice"
        assert (
            saw(client.post(f"{P}/search", content=b"{not json", headers={**alice, "Content-Type": "application/json"}))
            == "input_error"
        )
        assert (
            saw(
                client.post(
                    f"{P}/records", json={"domain": "Bad Name", "collection": "c", "records": [{"a": 1}]}, headers=alice
                )
            )
            == "invalid_name"
        )
        assert (
            saw(client.post("/v1/projects", json={"name": "dave", "timezone": "Mars/Olympus"}, headers=admin))
            == "config_error"
        )
        trips = [{"city": "Rome", "cost": 3}]
        assert (
            client.post(
                f"{P}/records", json={"domain": "travel", "collection": "trips", "records": trips}, headers=alice
            ).status_code
            == 200
        )
        assert (
            saw(
                client.post(
                    f"{P}/records",
                    json={"domain": "travel", "collection": "trips", "record_type": "Visit", "records": trips},
                    headers=alice,
                )
            )
            == "user_error"
        )
        assert saw(client.get(f"{P}/manifest")) == "unauthenticated"
        assert saw(client.get(f"{P}/manifest", headers=bob)) == "forbidden"
        assert saw(client.get("/v1/nowhere")) == "not_found"
        assert saw(client.delete(f"{P}/facts/nope", headers=alice)) == "fact_not_found"
        assert saw(client.delete(f"{P}/sessions/nope", headers=alice)) == "session_not_found"
        assert saw(client.get(f"{P}/domains/health", headers=alice)) == "domain_not_found"
        assert saw(client.get("/v1/jobs/0123456789abcdef0123456789abcdef", headers=alice)) == "job_not_found"
        assert saw(client.put(f"{P}/search", headers=alice)) == "method_not_allowed"
        assert saw(client.post("/v1/projects", json={"name": "alice"}, headers=admin)) == "project_exists"
        assert saw(client.post(f"{P}/search", json={"query": "x", "k": "many"}, headers=alice)) == "validation_error"
        assert (
            saw(
                client.post(
                    f"{P}/sessions",
                    json={
                        "session": {"date": "2023-01-01", "messages": [{"role": "user", "content": "I like tea."}]},
                        "extractor": "llm",
                    },
                    headers=alice,
                )
            )
            == "model_not_configured"
        )
        assert (
            saw(
                client.post(
                    "/v1/projects/bob/ask", json={"question": "What do I play?", "use_state": False}, headers=bob
                )
            )
            == "model_error"
        )
        with project_lock(root / "alice" / ".uac" / "lock", purpose="elsewhere", timeout=1):
            locked = client.delete(f"{P}/facts/nope", headers=alice)
        assert saw(locked) == "project_locked" and locked.headers["Retry-After"]

        from concurrent.futures import ThreadPoolExecutor

        slow = {"code": "result = sum(i * i for i in range(4000000))"}
        with ThreadPoolExecutor(4) as pool:
            runs = list(pool.map(lambda _: client.post(f"{P}/repl", json=slow, headers=alice), range(4)))
        busy = [r for r in runs if r.status_code != 200]
        assert busy and {saw(r) for r in busy} == {"server_busy"} and busy[0].headers["Retry-After"]

        # a session id stored again with other content; a domain file behind a link out of the project
        first = {"session_id": "chat-1", "date": "2023-01-01", "messages": [{"role": "user", "content": "I like tea."}]}
        assert client.post(f"{P}/sessions", json={"session": first}, headers=alice).status_code == 200
        changed = {**first, "messages": [{"role": "user", "content": "I like coffee."}]}
        assert saw(client.post(f"{P}/sessions", json={"session": changed}, headers=alice)) == "session_conflict"
        secret = tmp_path / "secret.py"
        secret.write_text("password = 'hunter2'\n")
        linked = root / "alice" / "domains" / "travel" / "state.py"
        kept = linked.read_bytes()
        linked.unlink()
        linked.symlink_to(secret)
        assert saw(client.get(f"{P}/domains/travel", headers=alice)) == "unsafe_path"
        linked.unlink()
        linked.write_bytes(kept)

        # a domain on disk that does not validate (edited by hand)
        bad = root / "bob" / "domains" / "notes"
        bad.mkdir(parents=True)
        (bad / "schema.py").write_text("import os\n")
        (bad / "state.py").write_text("x = os.system('true')\n")
        assert saw(client.post("/v1/projects/bob/repl", json={"code": "result = 1"}, headers=bob)) == "compile_error"

        # the sandbox cannot start: the jail is required and missing
        monkeypatch.setenv("UAC_SANDBOX_DISABLE_JAIL", "1")
        monkeypatch.setenv("UAC_SANDBOX_REQUIRE_JAIL", "1")
        sandbox.jail.reset_detection()
        try:
            assert saw(client.post(f"{P}/repl", json={"code": "result = 1"}, headers=alice)) == "sandbox_error"
        finally:
            monkeypatch.delenv("UAC_SANDBOX_DISABLE_JAIL")
            monkeypatch.delenv("UAC_SANDBOX_REQUIRE_JAIL")
            sandbox.jail.reset_detection()

        # a bug in the server
        monkeypatch.setattr(UserMemory, "facts", lambda self, **kw: 1 / 0)
        assert saw(client.get(f"{P}/facts", headers=alice)) == "internal_error"
        monkeypatch.undo()

        # a job its server did not finish
        jobs = root / "alice" / ".uac" / "jobs"
        jobs.mkdir(parents=True, exist_ok=True)
        job_id = "f" * 32
        (jobs / f"{job_id}.json").write_text(
            json.dumps(
                {
                    "id": job_id,
                    "project": "alice",
                    "kind": "compile",
                    "status": "running",
                    "created": "2026-01-01T00:00:00+00:00",
                    "started": "2026-01-01T00:00:01+00:00",
                    "runner": "gone",
                }
            )
        )
        job = client.get(f"{P}/compile/{job_id}", headers=alice).json()
        assert job["status"] == "failed" and job["error"]["code"] == "job_interrupted"
        seen["job_interrupted"] = CODES["job_interrupted"]

    with _app(root, max_body_bytes=100) as small:
        assert (
            saw(small.post("/v1/projects/alice/search", json={"query": "x" * 500}, headers=alice))
            == "request_too_large"
        )

    # a process whose search stack broke: its health says so
    from uac.errors import StoreError
    from uac.server.readiness import Readiness

    def broken() -> None:
        raise StoreError("a module of the search stack is half-imported")

    with _app(root, readiness=Readiness(broken)) as sick:
        assert saw(sick.get("/v1/health")) == "server_broken"

    # the vector store is unreachable
    with socket_closed() as port:
        monkeypatch.setenv("UAC_INDEX_BACKEND", "http")
        monkeypatch.setenv("UAC_CHROMA_HOST", "127.0.0.1")
        monkeypatch.setenv("UAC_CHROMA_PORT", str(port))
        with _app(root) as remote:
            assert saw(remote.post("/v1/projects/alice/search", json={"query": "x"}, headers=alice)) == "store_error"
        monkeypatch.delenv("UAC_INDEX_BACKEND")

    # a project newer than this uac, and one that vanished after its token was checked
    config = root / "bob" / "uac.toml"
    config.write_text(re.sub(r"format_version = \d+", "format_version = 99", config.read_text()))
    monkeypatch.setattr(ServedWorkspace, "token_grants", lambda self, name, token: True)
    with _app(root) as client:
        assert saw(client.get("/v1/projects/bob", headers=bob)) == "format_version_error"
        assert saw(client.get("/v1/projects/ghost", headers=bob)) == "project_not_found"

    assert seen == CODES


class socket_closed:
    """A loopback port nothing listens on."""

    def __enter__(self) -> int:
        import socket

        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            return sock.getsockname()[1]

    def __exit__(self, *exc: object) -> None:
        return None


def test_forget_unknown_ids_is_404_without_a_server_path(shared_client, shared_root):
    alice = shared_root.auth("alice")
    for path, code in (("facts/nope", "fact_not_found"), ("sessions/nope", "session_not_found")):
        response = shared_client.delete(f"/v1/projects/alice/{path}", headers=alice)
        assert response.status_code == 404 and response.json()["error"]["code"] == code
        error = response.json()["error"]
        assert str(shared_root.root) not in json.dumps(error)
        assert "/v1/projects/alice/facts" in error["hint"] and "uac search" not in error["hint"]


def test_the_same_bad_date_is_the_same_error_everywhere(shared_client, shared_root, capsys):
    from uac.cli import main

    alice = shared_root.auth("alice")
    search = shared_client.post("/v1/projects/alice/search", json={"query": "x", "as_of": "nope"}, headers=alice)
    repl = shared_client.post("/v1/projects/alice/repl", json={"code": "result = 1", "as_of": "nope"}, headers=alice)
    facts = shared_client.get("/v1/projects/alice/facts?as_of=nope", headers=alice)
    ask = shared_client.post("/v1/projects/alice/ask", json={"question": "x", "as_of": "nope"}, headers=alice)
    bodies = [r.json()["error"] for r in (search, repl, facts, ask)]
    assert {r.status_code for r in (search, repl, facts, ask)} == {400}
    assert {b["code"] for b in bodies} == {"input_error"}
    assert {b["message"] for b in bodies} == {"'nope' is not a date."}
    assert all('"as_of"' in b["hint"] and "--as-of" not in b["hint"] for b in bodies)
    assert main(["search", str(shared_root.root / "alice"), "x", "--as-of", "nope"]) == 2
    assert "'nope' is not a date. Give --as-of" in capsys.readouterr().err


def test_http_hints_speak_http(fresh_client, fresh_root):
    alice = fresh_root.auth("alice")
    no_date = fresh_client.post(
        "/v1/projects/alice/sessions",
        json={"session": {"messages": [{"role": "user", "content": "hi"}]}},
        headers=alice,
    ).json()["error"]
    assert no_date["code"] == "input_error" and "--date" not in json.dumps(no_date)
    assert '"date"' in no_date["hint"]
    upload = fresh_client.post("/v1/projects/alice/sessions/upload", content=b"Ann: hi\n", headers=alice).json()[
        "error"
    ]
    assert "--date" not in json.dumps(upload) and '"date"' in upload["hint"]


# --- bad input ------------------------------------------------------------------------------

DEEP = b"[" * 100_000 + b"]" * 100_000
BIG_INT = b"9" * 100_000


def _nested(depth: int) -> dict:
    value: object = 1
    for _ in range(depth):
        value = {"x": value}
    return value  # type: ignore[return-value]


@pytest.mark.parametrize(
    "route, body",
    [
        ("sessions", b'{"text": "Ann: hi \\ud800 there", "date": "2023-01-01"}'),
        ("sessions", b'{"session": {"date": "2023-01-01", "messages": [{"role": "user", "content": "x\\udc00"}]}}'),
        ("records", b'{"domain": "t", "collection": "c", "records": [{"a": "x\\ud800"}]}'),
        ("search", b'{"query": "x\\ud800"}'),
        ("repl", b'{"code": "result = \'\\ud800\'"}'),
        ("sessions", b'{"session": ' + DEEP + b"}"),
        ("search", b'{"query": "x", "k": ' + BIG_INT + b"}"),
        ("records", json.dumps({"domain": "t", "collection": "c", "records": [{"v": _nested(900)}]}).encode()),
        ("search", b"\xff\xfe not utf-8"),
    ],
)
def test_bad_json_bodies_are_a_clear_400(fresh_client, fresh_root, route, body):
    alice = fresh_root.auth("alice")
    before = (fresh_root.root / "alice" / "memory" / "facts.jsonl").read_bytes()
    response = fresh_client.post(
        f"/v1/projects/alice/{route}", content=body, headers={**alice, "Content-Type": "application/json"}
    )
    assert response.status_code == 400, response.text
    error = response.json()["error"]
    assert error["code"] == "input_error" and error["message"].startswith("the request body")
    assert (fresh_root.root / "alice" / "memory" / "facts.jsonl").read_bytes() == before
    assert not (fresh_root.root / "alice" / "domains" / "t").exists()


@pytest.mark.parametrize(
    "body, words",
    [
        (DEEP, "nested more than"),
        (b'{"date": "2023-01-01", "messages": [{"role": "user", "content": "x", "n": ' + BIG_INT + b"}]}", "digits"),
        (b'{"date": "2023-01-01", "messages": [{"role": "user", "content": "x\\ud800"}]}', "lone surrogate"),
    ],
)
def test_bad_uploads_are_a_clear_400(fresh_client, fresh_root, body, words):
    response = fresh_client.post("/v1/projects/alice/sessions/upload", content=body, headers=fresh_root.auth("alice"))
    assert response.status_code == 400 and words in response.json()["error"]["message"]


def test_over_limit_chunked_bodies_get_413(fresh_root):
    with _app(fresh_root.root, max_body_bytes=2_000) as client:

        def chunks():
            for _ in range(10):
                yield b'{"query": "' + b"y" * 500 + b'"}'

        for route in ("search", "sessions/upload"):
            response = client.post(f"/v1/projects/alice/{route}", content=chunks(), headers=fresh_root.auth("alice"))
            assert response.status_code == 413, (route, response.text)
            assert response.json()["error"]["code"] == "request_too_large"


def test_responses_name_no_server_path(fresh_client, fresh_root):
    alice = fresh_root.auth("alice")
    root = str(fresh_root.root)
    records = fresh_client.post(
        "/v1/projects/alice/records",
        json={"domain": "travel", "collection": "trips", "records": [{"city": "Rome", "cost": 3}]},
        headers=alice,
    )
    assert records.status_code == 200 and records.json()["file"] is None
    job = fresh_client.post("/v1/projects/alice/compile", json={"mode": "offline"}, headers=alice).json()
    deadline = time.monotonic() + 60
    while job["status"] not in ("succeeded", "failed") and time.monotonic() < deadline:
        time.sleep(0.05)
        job = fresh_client.get(f"/v1/projects/alice/compile/{job['id']}", headers=alice).json()
    responses = [
        records,
        fresh_client.post("/v1/projects/alice/doctor", headers=alice),
        fresh_client.post("/v1/projects/alice/doctor", json={"repair": True}, headers=alice),
        fresh_client.get(f"/v1/projects/alice/compile/{job['id']}", headers=alice),
        fresh_client.get("/v1/projects/alice", headers=alice),
        fresh_client.post("/v1/projects/alice/sessions", json={"text": "Ann: hi"}, headers=alice),
    ]
    for response in responses:
        assert root not in response.text and "/tmp/uac-body" not in response.text, response.text
    assert job["status"] == "succeeded"


# --- the command line -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "command, content, words",
    [
        ("ingest", DEEP, "nested more than"),
        (
            "ingest",
            b'{"date": "2023-01-01", "messages": [{"role": "user", "content": "x", "n": ' + BIG_INT + b"}]}",
            "digits",
        ),
        ("ingest", b'{"date": "2023-01-01", "messages": [{"role": "user", "content": "x\\ud800"}]}', "lone surrogate"),
        ("import-records", json.dumps([{"v": _nested(900)}]).encode(), "nested more than"),
        ("import-records", b'[{"v": ' + BIG_INT + b"}]", "digits"),
        ("import-records", b'[{"v": "\\udfff"}]', "lone surrogate"),
    ],
)
def test_bad_input_on_the_command_line_is_one_clear_line(fresh_root, tmp_path, capsys, command, content, words):
    from uac.cli import main

    path = tmp_path / "input.json"
    path.write_bytes(content)
    extra = ["--domain", "d", "--collection", "c"] if command == "import-records" else []
    assert main([command, str(fresh_root.root / "alice"), str(path), *extra]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err and err.count("\n") == 1
