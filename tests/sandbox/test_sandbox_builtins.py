"""Attack class: eval/exec/compile and other dangerous builtins."""

import pytest
from sandbox_support import run_err, run_ok


@pytest.mark.parametrize(
    "name",
    [
        "getattr",
        "setattr",
        "type",
        "vars",
        "dir",
        "globals",
        "locals",
        "compile",
        "open",
        "breakpoint",
        "input",
        "memoryview",
        "object",
        "super",
        "id",
    ],
)
def test_dangerous_builtins_are_absent(session, name):
    msg = run_err(session, f"f = {name}", ("NameError", "PolicyError"))
    assert name in msg


@pytest.mark.parametrize(
    "code", ["eval('1')", "exec('x = 1')", "f = eval", "__import__('os')", "x = compile('1', 'f', 'eval')"]
)
def test_eval_exec_compile(session, code):
    run_err(session, code, ("PolicyError", "NameError"))


def test_eval_through_a_name_alias(session):
    run_err(session, "f = [e for e in [len]][0]\nx = f('ab')\ny = eval", "NameError")


def test_builtins_needed_for_analysis(session):
    code = (
        "result = [len([1]), sum([1, 2]), min(3, 4), max([5, 6]), sorted({2, 1}), list(frozenset([1])),"
        " dict(a=1), list(tuple([1])), list(enumerate('a')), list(zip('a', 'b')), any([0, 1]), all([]),"
        " round(2.567, 2), abs(-1), list(map(str, [1])), list(filter(None, [0, 2])), isinstance(1, int),"
        " list(range(2)), list(reversed([1, 2])), str(1), int('2'), float('1.5'), bool(0), divmod(7, 2),"
        " pow(2, 5), hash(1) == hash(1), next(iter([9]))]"
    )
    assert run_ok(session, code) == [
        1,
        3,
        3,
        6,
        [1, 2],
        [1],
        {"a": 1},
        [1],
        [[0, "a"]],
        [["a", "b"]],
        True,
        True,
        2.57,
        1,
        ["1"],
        [2],
        True,
        [0, 1],
        [2, 1],
        "1",
        2,
        1.5,
        False,
        [3, 1],
        32,
        True,
        9,
    ]


def test_print_goes_to_stdout(session):
    res = session.run("print('a', 1, sep='-')\nprint('b', end='')")
    assert res.ok and res.stdout == "a-1\nb"


def test_print_inside_functions(session):
    res = session.run("def show(x):\n    print('v', x)\nfor i in range(2):\n    show(i)")
    assert res.stdout == "v 0\nv 1\n"
