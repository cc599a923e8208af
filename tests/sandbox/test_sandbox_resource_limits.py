"""Attack classes: CPU, memory, recursion, output floods, result size, compile bombs."""

import pytest
from sandbox_support import run_err, run_ok

import sandbox
from sandbox.limits import Limits


@pytest.fixture
def cpu_session(state):
    # A generous wall clock so the CPU limit fires first even on a loaded machine.
    with sandbox.Session(state, limits=Limits(cpu_seconds=1, wall_seconds=30)) as s:
        yield s


class TestCPU:
    def test_infinite_loop_is_a_timeout_and_the_session_survives(self, cpu_session):
        cpu_session.run("kept = 7")
        msg = run_err(cpu_session, "while True:\n    pass", "Timeout")
        assert "CPU time limit" in msg
        assert run_ok(cpu_session, "result = kept") == 7

    def test_swallowing_the_timeout_does_not_help(self, cpu_session):
        code = "n = 0\nwhile True:\n    try:\n        while True:\n            n += 1\n    except:\n        pass"
        assert "variables from earlier runs are lost" in run_err(cpu_session, code, "Timeout")
        again = cpu_session.run("result = 1")
        assert again.ok and again.restarted

    @pytest.mark.slow
    def test_long_c_level_computation_hits_the_wall_clock(self, state):
        limits = Limits(cpu_seconds=1, wall_seconds=2.5)
        with sandbox.Session(state, limits=limits) as s:
            s.run("x = 1")
            # sum() over a range loops in C without checking for signals: the
            # CPU signal handler never gets control, so the host's wall-clock
            # timeout kills the worker.
            res = s.run("x = sum(range(10 ** 12))")
            assert res.error["type"] == "Timeout"
            assert "lost" in res.error["message"]
            again = s.run("result = 2")
            assert again.ok and again.result == 2 and again.restarted


class TestMemory:
    @pytest.mark.parametrize(
        "code",
        [
            "x = [0] * (10 ** 10)",
            "x = 'a' * (2 ** 34)",
            "x = bytes(2 ** 33)",
            "xs = []\nwhile True:\n    xs.append('x' * 10 ** 6)",
        ],
    )
    def test_huge_allocations(self, session, code):
        msg = run_err(session, code, "MemoryLimit")
        assert "MB" in msg

    def test_session_usable_after_memory_error(self, fresh_session):
        fresh_session.run("keep = 1")
        msg = run_err(fresh_session, "xs = []\nwhile True:\n    xs.append('x' * 10 ** 6)", "MemoryLimit")
        assert "cleared" in msg
        assert run_ok(fresh_session, "result = len(trips)") == 5
        run_err(fresh_session, "x = keep", "NameError")


class TestRecursion:
    def test_unbounded_recursion(self, session):
        msg = run_err(session, "def f(n):\n    return f(n + 1)\nf(0)", "RecursionError")
        assert msg.startswith("line 2:")

    def test_deeply_nested_result(self, session):
        code = "x = []\nfor i in range(100000):\n    x = [x]\nresult = x"
        run_err(session, code, ("RecursionError", "ResultLimit"))


class TestOutput:
    def test_print_flood(self, session):
        res = session.run("while True:\n    print('spam' * 100)")
        assert res.error["type"] == "OutputLimit"
        assert len(res.stdout) <= session.limits.max_output_chars

    def test_catching_the_output_limit_does_not_help(self, session):
        res = session.run(
            "for i in range(10 ** 4):\n    try:\n        print('x' * 1000)\n    except:\n        pass\nresult = 1"
        )
        assert res.error["type"] == "OutputLimit"

    def test_result_too_large(self, session):
        msg = run_err(session, "result = ['x' * 1000] * 5000", "ResultLimit")
        assert "summary" in msg

    def test_code_too_large_is_refused_on_the_host(self, session):
        res = session.run("x = 1\n" * 60_000)
        assert res.error["type"] == "CodeLimit"


@pytest.fixture(scope="module")
def big_code_session(state):
    with sandbox.Session(state, limits=Limits(cpu_seconds=3, wall_seconds=8, max_code_chars=3_000_000)) as s:
        yield s


class TestCompileBombs:
    @pytest.mark.parametrize(
        "code",
        [
            "(" * 10**6,
            "[" * 200000 + "]" * 200000,
            "x = " + "-" * 500000 + "1",
            "x = " + "+".join(["1"] * 200000),
            "x = " + "(" * 150 + "1" + ")" * 150,
        ],
    )
    def test_parser_and_compiler_bombs_stay_in_the_worker(self, big_code_session, code):
        res = big_code_session.run(code)
        if code.startswith("x = ((("):
            assert res.ok
            return
        assert not res.ok
        assert res.error["type"] in ("SyntaxError", "Timeout", "MemoryLimit", "RecursionError"), res.error

    @pytest.mark.parametrize("code", ["x = 2 ** 10 ** 10", "x = 'a' * 10 ** 10", "x = (1,) * 10 ** 10"])
    def test_huge_constant_expressions(self, big_code_session, code):
        res = big_code_session.run(code)
        assert res.error["type"] in ("MemoryLimit", "Timeout"), res.error
