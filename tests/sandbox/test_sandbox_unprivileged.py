"""Without bubblewrap (the ``process`` level), a host running as root still runs the worker
unprivileged: it drops to uid 65534 before it reads any input.  The jail is tested by the
other files of this suite (bubblewrap is installed here); these force the process level."""

import os

import pytest
from sandbox_support import SECURITY_LIMITS

import sandbox
import sandbox.jail

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the uid drop applies when the host runs as root")


@pytest.fixture
def process_level(monkeypatch):
    monkeypatch.setenv("UAC_SANDBOX_DISABLE_JAIL", "1")
    sandbox.jail.reset_detection()
    yield sandbox.detect_level()
    sandbox.jail.reset_detection()


def _unrestricted(session, code):
    res = session._run_unrestricted_for_tests(code)
    assert res.ok, res.error
    return res.result


def test_the_process_level_worker_runs_as_nobody(process_level, state, tmp_path):
    assert process_level.level == "process" and process_level.uid == 65534
    assert "dropped from root to uid 65534" in process_level.reason
    secret = tmp_path / "secret.txt"
    secret.write_text("root only")
    secret.chmod(0o600)
    with sandbox.Session(state, limits=SECURITY_LIMITS, _unrestricted_for_tests=True) as s:
        ids = _unrestricted(s, "import os\nresult = [os.getresuid(), os.getresgid(), os.getgroups()]")
        read = _unrestricted(
            s, "try:\n    result = open(%r).read()\nexcept OSError as e:\n    result = type(e).__name__" % str(secret)
        )
        again = _unrestricted(
            s,
            "import os\ntry:\n    os.setuid(0)\n    result = 'root again'\nexcept OSError as e:\n    result = e.errno",
        )
    assert ids == [[65534] * 3, [65534] * 3, []]
    assert read == "PermissionError"
    assert again == 1  # EPERM


def test_the_process_level_is_still_useful(process_level, state):
    # every module agent code may import was loaded before the drop
    code = (
        "import collections, datetime, decimal, fractions, functools, itertools, json, math, operator, re, statistics\n"
        "d = datetime.datetime.strptime('2024-05-01', '%Y-%m-%d')\n"
        "result = [len(trips), statistics.mean([1, 2, 3]), d.strftime('%b %d'), str(decimal.Decimal('1.10') * 2),"
        " json.dumps({'a': 1}), re.sub('a', 'b', 'aa')]"
    )
    res = sandbox.run(code, state, limits=SECURITY_LIMITS)
    assert res.ok, res.error
    assert res.result[1:] == [2, "May 01", "2.20", '{"a": 1}', "bb"] and res.result[0] > 0
    assert res.level == "process"


def test_a_worker_that_cannot_drop_still_works_and_says_it_runs_as_root(monkeypatch):
    monkeypatch.setenv("UAC_SANDBOX_DISABLE_JAIL", "1")
    monkeypatch.setattr(sandbox.jail, "NOBODY", 2**40)  # no such uid: the drop fails
    sandbox.jail.reset_detection()
    try:
        level = sandbox.detect_level()
        assert level.level == "process" and level.uid == 0
        assert "could not drop from root" in level.reason
        assert sandbox.run("result = 6 * 7").result == 42
    finally:
        sandbox.jail.reset_detection()


def test_doctor_says_which_uid_the_worker_runs_as(process_level, tmp_path, capsys):
    from uac.cli import main
    from uac.memory import UserMemory

    memory = UserMemory.create(tmp_path / "p")
    check = memory.doctor().check("sandbox")
    assert check.status == "warn" and "the worker runs as uid 65534" in check.detail
    assert check.data["uid"] == 65534
    assert main(["doctor", str(memory.root)]) in (0, 1)
    assert "the worker runs as uid 65534" in capsys.readouterr().out


def test_doctor_names_the_workers_uid_at_the_jail_level_too(level, tmp_path):
    from uac.memory import UserMemory

    if level.level != "jail":
        pytest.skip(f"needs the bubblewrap jail: {level.reason}")
    check = UserMemory.create(tmp_path / "p").doctor().check("sandbox")
    assert f"the worker runs as uid {level.uid}" in check.detail and check.status == "ok"
