"""Attack class: code that got past the policy to the real interpreter (assume breach),
against the worker's audit hook.

The unrestricted test entry runs plain Python in a worker; ``audited=True``
first installs the hook every production worker runs under.  Each attempt is
something a policy escape leads to: reading another project's files, listing
directories, loading modules, ctypes, processes, frames, gc -- and switching
the hook off.  (Threads are stopped by the seccomp filter: ``clone`` fails.)
"""

from __future__ import annotations

from sandbox_support import SECURITY_LIMITS, run_ok

from sandbox.audit import ALLOWED_EVENTS

ATTEMPTS = {
    "open": "open(SECRET).read()",
    "open-bytes": "open(SECRET, 'rb').read()",
    "io.open": "io.open(SECRET).read()",
    "io.FileIO": "io.FileIO(SECRET).read()",
    "io.open_code": "io.open_code(SECRET).read()",
    "os.open": "os.read(os.open(SECRET, os.O_RDONLY), 100)",
    "os.listdir": "os.listdir('/')",
    "os.scandir": "list(os.scandir('/'))",
    "os.chdir": "os.chdir('/')",
    "os.system": "os.system('true')",
    "os.kill": "os.kill(os.getpid(), 0)",
    "os.putenv": "os.putenv('X', '1')",
    "import": "__import__('xml.dom.minidom')",
    "ctypes": "ctypes.CDLL(None).getpid()",
    "gc": "gc.get_objects()",
    "gc.get_referrers": "gc.get_referrers(sys)",
    "frame": "sys._getframe()",
    "settrace": "sys.settrace(None)",
    "code.replace": "(lambda: 1).__code__.replace(co_name='x')",
    "marshal": "marshal.loads(marshal.dumps(1))",
}

PROGRAM = """
import io, os, sys
SECRET = os.__file__   # readable by the worker at every level, without the hook
result = {{}}
modules = {{}}
for name in ('ctypes', 'gc', 'marshal'):
    try:
        modules[name] = __import__(name)   # refused if the worker had not loaded it
    except Exception as e:
        result['import ' + name] = type(e).__name__ + ': ' + str(e)
for name, attempt in ATTEMPTS.items():
    try:
        eval(attempt, {{**globals(), **modules}})
        result[name] = 'allowed'
    except NameError as e:
        result[name] = result['import ' + e.name]   # its module could not even be loaded
    except Exception as e:
        result[name] = type(e).__name__ + ': ' + str(e)
"""


def attempts_in(session, audited: bool) -> dict[str, str]:
    code = f"ATTEMPTS = {ATTEMPTS!r}\n" + PROGRAM.format()
    res = session._run_unrestricted_for_tests(code, audited=audited)
    assert res.ok, res.error
    return res.result


def test_production_workers_run_under_the_hook(session, breach_session):
    run_ok(session, "result = 1")
    breach_session._run_unrestricted_for_tests("result = 1")
    assert session._worker.ready["audit"] is True
    assert breach_session._worker.ready["audit"] is False  # until audited=True


def test_what_a_policy_escape_leads_to_is_refused(breach_session):
    results = attempts_in(breach_session, audited=True)
    by_the_hook = {
        name: text
        for name, text in results.items()
        if not (text.startswith("PermissionError") and "is not allowed in the sandbox" in text)
    }
    assert by_the_hook == {}
    assert results["open"] == "PermissionError: 'open' is not allowed in the sandbox"


def test_without_the_hook_the_same_worker_reads_and_lists(breach_session):
    # the baseline: the file is readable and the directory listable without the hook
    results = attempts_in(breach_session, audited=False)
    assert [results[name] for name in ("open", "os.open", "io.open_code", "os.listdir", "ctypes")] == ["allowed"] * 5


def test_the_hook_cannot_be_switched_off(breach_session):
    code = """
import builtins, sys
import sandbox.audit as audit
audit.ALLOWED_EVENTS = frozenset(['open'])   # the hook bound its own copy
audit._installed = False
builtins.PermissionError = None              # and its exception type
out = {}
seen = []
audit.install()                              # the interpreter drops the new hook...
sys.addaudithook(lambda *event: seen.append(event))
id(1)
out['new hooks ran'] = len(seen)             # ...as it drops this one
try:
    open(audit.__file__).read()
    out['open'] = 'allowed'
except BaseException as e:
    out['open'] = type(e).__name__
result = out
"""
    res = breach_session._run_unrestricted_for_tests(code, audited=True)
    assert res.ok, res.error
    assert res.result == {"new hooks ran": 0, "open": "PermissionError"}


def test_the_worker_s_own_work_goes_on_under_the_hook(breach_session):
    # after the hook: compile/exec (the policy's path), attribute audits, id(), rlimits
    code = (
        "import collections, resource\n"
        "P = collections.namedtuple('P', 'x y', module='agent')\n"
        "class K: pass\nK.x = 1\n"
        "ns = {}\nexec(compile('y = 6 * 7', '<agent>', 'exec'), ns)\n"
        "soft, hard = resource.getrlimit(resource.RLIMIT_CPU)\nresource.setrlimit(resource.RLIMIT_CPU, (soft, hard))\n"
        "result = [P(1, 2).y, K.x, ns['y'], id(K) > 0]"
    )
    res = breach_session._run_unrestricted_for_tests(code, audited=True)
    assert res.ok, res.error
    assert res.result == [2, 1, 42, True]
    assert "open" not in ALLOWED_EVENTS and "import" not in ALLOWED_EVENTS


def test_agent_code_under_the_hook_keeps_its_lazy_imports(session):
    # what the allowed modules, the parser and str.encode load on first use was loaded before the hook
    code = (
        "from collections import Counter\nimport datetime\n"
        "d = datetime.datetime.strptime('2024-05-01', '%Y-%m-%d')\n"
        "ｖａｌｕｅ = 1\n"
        "result = [Counter('aab').most_common(1), d.strftime('%b'), value,"
        " len('é'.encode('cp1252')), len('é'.encode('utf-8-sig')), len('é'.encode('utf-16-le'))]"
    )
    assert run_ok(session, code) == [[["a", 2]], "May", 1, 1, 5, 2]


def test_a_codec_not_loaded_at_start_is_refused_clearly(session):
    res = session.run("result = 'x'.encode('koi8_r')")
    assert not res.ok and res.error["type"] == "PermissionError"
    assert "'import' is not allowed in the sandbox" in res.error["message"]


def test_the_hook_holds_at_the_process_level_too(monkeypatch, state, other_tenant):
    import sandbox.jail

    monkeypatch.setenv("UAC_SANDBOX_DISABLE_JAIL", "1")
    sandbox.jail.reset_detection()
    try:
        with sandbox.Session(state, limits=SECURITY_LIMITS, _unrestricted_for_tests=True) as s:
            assert s.level == "process"
            read = f"result = open({str(other_tenant)!r}).read()"
            before = s._run_unrestricted_for_tests(read)
            after = s._run_unrestricted_for_tests(read, audited=True)
        assert before.ok and "bob-secret-7f3a" in before.result  # the worker's uid may read it
        assert not after.ok and after.error["message"] == "'open' is not allowed in the sandbox"
    finally:
        sandbox.jail.reset_detection()
