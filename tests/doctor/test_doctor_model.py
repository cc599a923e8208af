"""``uac doctor PROJECT --model`` against servers of the zoo: what each one supports."""

from __future__ import annotations

import json

import pytest

from tests.e2e.zoo.profiles import PROFILES
from tests.e2e.zoo.server import ZooServer
from uac.cli import main


def doctor_model(capsys, monkeypatch, tmp_path, name):
    project = tmp_path / "p"
    main(["init", str(project)])
    capsys.readouterr()
    with ZooServer(PROFILES[name]) as server:
        monkeypatch.setenv("UAC_LLM_PROVIDER", "openai")
        monkeypatch.setenv("UAC_LLM_MODEL", server.model)
        monkeypatch.setenv("UAC_LLM_BASE_URL", server.base_url)
        code = main(["doctor", str(project), "--model", "--json"])
        requests = len(server.served)
    report = json.loads(capsys.readouterr().out)
    check = next(c for c in report["checks"] if c["name"] == "model")
    endpoints = json.loads((project / ".uac" / "llm-endpoints.json").read_text())["endpoints"]
    return code, check, next(iter(endpoints.values())), requests


@pytest.mark.parametrize(
    "name, json_mode, tools, cut",
    [
        ("strict", "schema", "native", False),
        ("vllm", "schema", "none", False),
        ("llamacpp", "object", "native", False),
        ("sloppy", "schema", "text", False),
        ("ollama", "schema", "native", True),
    ],
)
def test_doctor_model_reports_and_remembers_what_the_endpoint_supports(
    capsys, monkeypatch, tmp_path, name, json_mode, tools, cut
):
    code, check, remembered, requests = doctor_model(capsys, monkeypatch, tmp_path, name)
    data = check["data"]
    assert (data["json_mode"], data["tools"], data["context"]["cut"]) == (json_mode, tools, cut)
    assert requests == 5, "five tiny calls: plain, json_schema, json_object, a tool call, one long prompt"
    assert remembered["json_mode"] == json_mode and remembered["tools"] == (tools != "none")
    if cut:
        assert code == 1 and check["status"] == "fail"
        assert "OLLAMA_CONTEXT_LENGTH" in check["detail"] and "2,048" in check["detail"]
    else:
        assert code == 0 and check["status"] == "ok"


def test_doctor_model_without_a_model_or_an_endpoint(capsys, tmp_path, monkeypatch):
    main(["init", str(tmp_path / "p")])
    capsys.readouterr()
    main(["doctor", str(tmp_path / "p"), "--model", "--json"])
    check = next(c for c in json.loads(capsys.readouterr().out)["checks"] if c["name"] == "model")
    assert check["status"] == "warn" and "no model configured" in check["detail"]
    monkeypatch.setenv("UAC_LLM_PROVIDER", "protocol")
    main(["doctor", str(tmp_path / "p"), "--model"])
    assert "not an HTTP endpoint" in capsys.readouterr().out


def test_doctor_model_names_an_endpoint_that_is_down(capsys, tmp_path, monkeypatch):
    main(["init", str(tmp_path / "p")])
    capsys.readouterr()
    monkeypatch.setenv("UAC_LLM_PROVIDER", "openai")
    monkeypatch.setenv("UAC_LLM_MODEL", "m")
    monkeypatch.setenv("UAC_LLM_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("UAC_LLM_TIMEOUT", "2")
    code = main(["doctor", str(tmp_path / "p"), "--model"])
    out = capsys.readouterr().out
    assert code == 1 and "[FAIL] model: http://127.0.0.1:9/v1" in out
