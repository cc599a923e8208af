"""Parsing from several threads at once: CPython 3.11 shares the AST converter's recursion depth
across threads, so a thread switched out mid-parse (by a finalizer) made another thread's parse
fail with SystemError. Every parse in uac and the sandbox takes one lock."""

from __future__ import annotations

import sys
import threading
import time

import pytest

from sandbox.policy import compile_agent_code
from sandbox.pyparse import parse
from uac.dialect.syntax import parse_python

SOURCE = "\n".join(
    f"x{i} = [{', '.join(str(j) for j in range(30))}]\n"
    f"def f{i}(a, b=(1, (2, (3, 4)))):\n    return {{'k': [a, b, {{'z': (a, [b])}}]}}"
    for i in range(100)
)


class _Finalized:
    def __del__(self):
        time.sleep(0)  # Python code in a finalizer: the interpreter may switch threads here


def _hammer(parse_once, threads: int = 4, rounds: int = 60) -> list[BaseException]:
    errors: list[BaseException] = []

    def work():
        for _ in range(rounds):
            for _ in range(40):
                cycle = _Finalized()
                cycle.self = cycle  # collected by the garbage collector in the middle of a parse
            try:
                parse_once()
            except SystemError as exc:
                errors.append(exc)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        workers = [threading.Thread(target=work) for _ in range(threads)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
    finally:
        sys.setswitchinterval(interval)
    return errors


@pytest.mark.slow  # a few seconds of four threads parsing; without the lock it fails most runs
def test_parses_from_many_threads_never_fail():
    assert _hammer(lambda: parse(SOURCE)) == []
    assert _hammer(lambda: parse_python(SOURCE, "state.py"), rounds=20) == []


@pytest.mark.slow
def test_agent_code_compiles_from_many_threads():
    def once():
        result = compile_agent_code(SOURCE)
        assert not hasattr(result, "message"), result

    assert _hammer(once, threads=3, rounds=10) == []
