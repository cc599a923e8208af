"""Attack classes: files, network, environment secrets, processes — and an assume-breach check.

The assume-breach tests run *unrestricted* Python inside the worker (a
test-only entry point) to show that the process and OS layers hold on their
own, as if the policy layer had been bypassed.
"""

import os
import socket

import pytest
from sandbox_support import SECURITY_LIMITS, run_err

import sandbox


class TestPolicyLevel:
    @pytest.mark.parametrize(
        "code",
        [
            "open('/etc/passwd')",
            "import io",
            "import pathlib",
            "import socket",
            "import urllib.request",
            "import shutil",
            "import subprocess",
            "import pty",
            "import multiprocessing",
        ],
    )
    def test_files_network_and_processes_unreachable(self, session, code):
        run_err(session, code, ("NameError", "ImportError"))


def _unrestricted(session, code):
    res = session._run_unrestricted_for_tests(code)
    assert res.ok, res.error
    return res.result


class TestAssumeBreach:
    def test_environment_is_empty(self, state, monkeypatch):
        monkeypatch.setenv("UAC_TEST_SECRET", "hunter2")
        with sandbox.Session(state, limits=SECURITY_LIMITS, _unrestricted_for_tests=True) as s:
            env = _unrestricted(s, "import os\nresult = dict(os.environ)")
        assert "UAC_TEST_SECRET" not in env
        assert "hunter2" not in repr(env)
        # Python may set LC_CTYPE (C locale coercion); bubblewrap sets PWD.
        assert set(env) <= {"LC_CTYPE", "PWD"}

    def test_no_fork_no_exec(self, breach_session):
        # Holds at every level: the worker's seccomp filter refuses these syscalls.
        level = sandbox.detect_level()
        if not level.seccomp:
            pytest.skip("seccomp filter unavailable on this machine")
        code = (
            "import os\nout = {}\n"
            "for name, fn in [('fork', os.fork), ('exec', lambda: os.execv('/bin/sh', ['sh']))]:\n"
            "    try:\n        pid = fn()\n        if pid == 0:\n            os._exit(0)\n        out[name] = 'allowed'\n"
            "    except OSError as e:\n        out[name] = e.errno\n"
            "result = out"
        )
        assert _unrestricted(breach_session, code) == {"fork": 1, "exec": 1}

    def test_no_sockets(self, breach_session):
        listener = socket.socket()
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        try:
            code = (
                "import socket\ntry:\n    s = socket.create_connection(('127.0.0.1', %d), timeout=2)\n"
                "    result = 'connected'\nexcept OSError as e:\n    result = type(e).__name__\n" % port
            )
            assert _unrestricted(breach_session, code) != "connected"
        finally:
            listener.close()

    def test_no_file_changes(self, breach_session, tmp_path):
        # Holds at every level: seccomp refuses opening for writing and other
        # file-system changes, and RLIMIT_FSIZE is 0.
        victim = tmp_path / "victim.txt"
        victim.write_text("keep me")
        code = (
            "import os\nout = []\n"
            "def attempt(fn):\n    try:\n        fn()\n        out.append('done')\n    except OSError as e:\n"
            "        out.append(type(e).__name__)\n"
            "def write(p):\n    with open(p, 'w') as f:\n        f.write('data')\n"
            "for p in ['/tmp/x', '/work-file', %r]:\n    attempt(lambda: write(p))\n"
            "attempt(lambda: os.unlink(%r))\nattempt(lambda: os.mkdir('/tmp/d'))\nresult = out"
        ) % (str(victim), str(victim))
        assert "done" not in _unrestricted(breach_session, code)
        assert victim.read_text() == "keep me"

    def test_host_files_invisible(self, breach_session, requires_jail, tmp_path):
        secret = tmp_path / "secret.txt"
        secret.write_text("top secret")
        code = (
            "out = {}\nfor p in ['/etc/hostname', '/etc/passwd', %r, '/root', '/home']:\n    try:\n"
            "        out[p] = open(p).read()[:20]\n    except OSError as e:\n        out[p] = type(e).__name__\nresult = out"
            % str(secret)
        )
        out = _unrestricted(breach_session, code)
        assert all(v in ("FileNotFoundError", "PermissionError", "IsADirectoryError") for v in out.values()), out

    def test_network_namespace_is_empty(self, breach_session, requires_jail):
        code = "import os\nresult = sorted(os.listdir('/sys/class/net')) if os.path.exists('/sys/class/net') else []"
        assert _unrestricted(breach_session, code) in ([], ["lo"])

    def test_unprivileged_uid_in_jail(self, breach_session, requires_jail, level):
        uid = _unrestricted(breach_session, "import os\nresult = os.getuid()")
        if level.user_namespace:
            assert uid == 65534
        else:
            assert uid == level.uid

    def test_rlimits_in_force(self, breach_session):
        code = (
            "import resource\nresult = {n: resource.getrlimit(getattr(resource, n))[1] for n in "
            "['RLIMIT_AS', 'RLIMIT_FSIZE', 'RLIMIT_NOFILE', 'RLIMIT_NPROC', 'RLIMIT_CORE']}"
        )
        limits = _unrestricted(breach_session, code)
        assert limits["RLIMIT_FSIZE"] == 0 and limits["RLIMIT_CORE"] == 0 and limits["RLIMIT_NPROC"] == 0
        assert limits["RLIMIT_AS"] == SECURITY_LIMITS.memory_mb * 1024 * 1024
        assert limits["RLIMIT_NOFILE"] == SECURITY_LIMITS.max_open_files

    def test_unrestricted_mode_is_not_reachable_without_the_private_flag(self, session):
        with pytest.raises(sandbox.SandboxError):
            session._run_unrestricted_for_tests("result = 1")
        # The worker rejects the op unless started with the test flag.
        assert session._request("unrestricted", "result = 1").error["type"] == "InvalidRequest"

    def test_host_process_unaffected(self, session):
        before = os.getpid()
        session.run("while True:\n    pass")
        assert os.getpid() == before
