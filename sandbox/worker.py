"""The worker process: runs agent code under the policy and limits.

Started by :mod:`sandbox.process` as
``python -I -S -B -c <boot> <sys.path JSON> [--unrestricted-for-tests] [--drop-uid N] --limits <JSON>``
with an empty environment, optionally inside the bubblewrap jail.  It first
imports every module agent code may use (and what they load lazily); with
``--drop-uid`` (the host runs as root without the jail) it then switches to
that uid and gid (no supplementary groups) before it reads any input.  Once
the state is loaded it installs the audit hook of :mod:`sandbox.audit`, before
any agent code runs.  It speaks
length-prefixed JSON frames (:mod:`sandbox.framing`): frames in on fd 0,
frames out on a private duplicate of fd 1 (fd 1 itself is pointed at fd 2 so
nothing else can corrupt the channel).

Messages::

    host -> worker  {"op": "init", "state": <payload or null>}
    worker -> host  {"op": "ready", "pid": ..., "uid": ..., "seccomp": ..., "audit": ...}
                    (or {"op": "fatal", "error": {...}} if the state cannot load)
    host -> worker  {"op": "run", "code": "..."}
    worker -> host  {"ok": bool, "result": ..., "stdout": "...", "error": null | {...}}
                    (plus "exiting": true when the worker ends itself after
                    replying, e.g. agent code that swallowed the CPU stop)
    host -> worker  {"op": "exit"}

``--unrestricted-for-tests`` additionally accepts ``{"op": "unrestricted",
"code": ...}``, which runs plain Python with no policy and no audit hook, and
``{"op": "unrestricted-audited", ...}``, which first installs the audit hook
(for the rest of the worker's life).  They exist only so the test suite can
show that the other layers hold on their own; the host reaches them only
through ``sandbox.session``'s private test helper.
"""

from __future__ import annotations

import json
import math
import os
import resource
import signal
import sys
from typing import Any

from . import audit, framing
from .builtins import ALTERNATIVES, FORBIDDEN_BUILTINS, HELPERS, make_builtins
from .codec import DecodedState, StateFormatError, decode_state
from .convert import ResultTooLarge, to_json_value
from .guards import (
    AgentClassMeta,
    CPUTimeExceeded,
    OutputLimitExceeded,
    PrintCollector,
    guarded_apply,
    guarded_getattr,
    guarded_getitem,
    guarded_getiter,
    guarded_inplacevar,
    guarded_iter_unpack_sequence,
    guarded_unpack_sequence,
    guarded_write,
)
from .modules import ALLOWED_MODULES, ModuleProxy
from .policy import FILENAME, CompileFailure, compile_agent_code
from .pyparse import compile_code
from .records import DomainCollection, DomainNamespace, Record, missing_field_message

UNRESTRICTED_FLAG = "--unrestricted-for-tests"
DROP_UID_FLAG = "--drop-uid"


# Codecs that str.encode/bytes.decode load on first use, beyond the built-in
# utf-8, utf-16, utf-32, latin-1 and ascii (other codecs are not available).
EAGER_CODECS = tuple(
    f"encodings.{name}"
    for name in (
        "utf_8_sig",
        "utf_16_le",
        "utf_16_be",
        "utf_32_le",
        "utf_32_be",
        "cp1252",
        "iso8859_15",
        "unicode_escape",
        "raw_unicode_escape",
    )
)


def preload_modules() -> None:
    """Import the modules agent code may import, and what they or the C code they call
    load lazily, first: after a uid drop the interpreter's own files may be unreadable,
    and once the audit hook is installed no module may be loaded."""
    import importlib

    from .modules import ALLOWED_MODULES

    # time and _strptime: date.strftime, datetime.strptime; heapq and copy: imported
    # inside collections' methods; unicodedata: the parser's NFKC normalisation of
    # non-ASCII identifiers; linecache: printing a warning
    lazy = (
        "time",
        "_strptime",
        "heapq",
        "copy",
        "unicodedata",
        "linecache",
        "ctypes",
        "platform",
        f"{__package__}.seccomp",
        *EAGER_CODECS,
    )
    for name in (*ALLOWED_MODULES, *lazy):
        importlib.import_module(name)


def drop_privileges(uid: int) -> None:
    """Become ``uid`` (real, effective and saved; gid the same, no supplementary groups)."""
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)
    if os.getresuid() != (uid, uid, uid) or os.getresgid() != (uid, uid, uid) or os.getgroups():
        raise OSError(f"the worker is still {os.getresuid()}/{os.getresgid()} after dropping to {uid}")


def apply_rlimits(limits: dict[str, Any]) -> None:
    """Limits of the worker process (set before any untrusted input is read)."""
    mem = int(limits["memory_mb"]) * 1024 * 1024
    hard_cpu = int(math.ceil(limits["session_cpu_seconds"]))
    nofile = int(limits["max_open_files"])
    settings = [
        (resource.RLIMIT_AS, (mem, mem)),
        (resource.RLIMIT_FSIZE, (0, 0)),
        (resource.RLIMIT_CORE, (0, 0)),
        (resource.RLIMIT_NOFILE, (nofile, nofile)),
        (resource.RLIMIT_NPROC, (0, 0)),
        (resource.RLIMIT_CPU, (hard_cpu, hard_cpu + 1)),
    ]
    for which, value in settings:
        resource.setrlimit(which, value)


def _cpu_used() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _error(kind: str, message: str) -> dict[str, str]:
    return {"type": kind, "message": message}


def _value_summary(value: Any) -> str:
    if isinstance(value, tuple):
        kinds = sorted({type(item).__name__ for item in value})
        if kinds and all(isinstance(item, Record) for item in value):
            return f"{len(value)} {'/'.join(kinds)} records"
        return f"{len(value)} items" + (f" ({'/'.join(kinds)})" if kinds else "")
    if isinstance(value, DomainNamespace):
        return "domain"
    return type(value).__name__


def _agent_line(exc: BaseException) -> int | None:
    line = None
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == FILENAME:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _describe(exc: BaseException, shared: dict[str, list[str]] | None = None) -> dict[str, str]:
    kind = type(exc).__name__
    text = str(exc)
    if isinstance(exc, NameError):
        name = getattr(exc, "name", None)
        if name in FORBIDDEN_BUILTINS:
            text = f"name '{name}' is not available in the sandbox"
            if name in ALTERNATIVES:
                text += f"; use {ALTERNATIVES[name]}"
        elif shared and name in shared:
            text = f"name '{name}' is a collection of several domains; use {' or '.join(shared[name])}"
        else:
            text += "; repl_names() lists what is defined"
    record = getattr(exc, "obj", None) if isinstance(exc, AttributeError) else None
    if isinstance(exc, AttributeError) and isinstance(record, Record):
        text = missing_field_message(record, str(exc.name))
    if isinstance(exc, KeyError) and not text:
        text = "KeyError"
    line = _agent_line(exc)
    return _error(kind, f"line {line}: {text}" if line else text)


class Worker:
    def __init__(self, limits: dict[str, Any], out_fd: int, unrestricted: bool) -> None:
        self.limits = limits
        self.out_fd = out_fd
        self.unrestricted = unrestricted
        self.running = False
        self.cpu_exceeded = False
        self.state_names: dict[str, Any] = {}
        self.decoded = DecodedState({}, {}, None, {})
        self.builtins: dict[str, Any] = {}
        self.globals: dict[str, Any] = {}
        self.collector: PrintCollector | None = None

    # -- setup -----------------------------------------------------------
    def on_sigxcpu(self, signum: int, frame: Any) -> None:
        if not self.running:
            return
        if self.cpu_exceeded:
            # The agent caught the first stop (a bare ``except:``) and kept
            # going: answer for it and end the worker.
            error = self.timeout_error()
            error["message"] += (
                "; the code ignored the stop, so the worker was stopped: variables from earlier runs are lost"
            )
            stdout = self.collector.text() if self.collector is not None else ""
            framing.write_frame(
                self.out_fd, {"ok": False, "result": None, "stdout": stdout, "error": error, "exiting": True}
            )
            os._exit(3)
        self.cpu_exceeded = True
        raise CPUTimeExceeded()

    def load_state(self, payload: Any) -> None:
        self.builtins = make_builtins(None, AgentClassMeta, self.repl_names)
        reserved = set(self.builtins) | set(FORBIDDEN_BUILTINS)
        self.decoded = decode_state(payload, reserved=reserved)
        self.state_names = self.decoded.globals()
        self.globals = {"__name__": "agent", "__builtins__": self.builtins}

    def repl_names(self) -> dict[str, Any]:
        """``repl_names()`` in agent code: what the session defines, by kind."""
        state = self.decoded
        collections: dict[str, str] = {}
        bare_ids = {id(value): name for name, value in state.bare.items()}
        for dname, namespace in state.domains.items():
            items = object.__getattribute__(
                namespace._domain if isinstance(namespace, DomainCollection) else namespace, "_items"
            )
            for cname, value in items.items():
                text = _value_summary(value)
                also = bare_ids.get(id(value))
                if isinstance(namespace, DomainCollection) and cname == dname:
                    also = dname
                if also:
                    text += f"; also the global {also}"
                collections[f"{dname}.{cname}"] = text
        out: dict[str, Any] = {"collections": collections}
        if state.shared:
            out["shared_names"] = {name: list(where) for name, where in state.shared.items()}
        if state.facts is not None:
            out["facts"] = _value_summary(state.facts)
        if state.enums:
            out["enums"] = {name: [m.name for m in cls] for name, cls in state.enums.items()}
        variables: dict[str, str] = {}
        skip = set(self.state_names) | {"result"}
        for name, value in self.globals.items():
            if name.startswith("_") or name in skip:
                continue
            variables[name] = "module" if isinstance(value, ModuleProxy) else type(value).__name__
        out["variables"] = variables
        out["modules"] = list(ALLOWED_MODULES)
        out["helpers"] = sorted(HELPERS)
        return out

    # -- runs --------------------------------------------------------------
    def start_cpu_window(self) -> None:
        soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
        target = int(math.ceil(_cpu_used() + float(self.limits["cpu_seconds"])))
        if hard != resource.RLIM_INFINITY:
            target = min(target, hard)
        resource.setrlimit(resource.RLIMIT_CPU, (target, hard))
        self.cpu_exceeded = False

    def run_globals(self, collector: PrintCollector) -> dict[str, Any]:
        """The agent's global namespace for one run: its own variables, the state
        names restored, ``result`` cleared, and the guards the policy compiles in."""
        glb = self.globals
        glb.update(self.state_names)
        glb.pop("result", None)
        glb.update(
            {
                "_print_": collector.factory,
                "_getattr_": guarded_getattr,
                "_write_": guarded_write,
                "_getitem_": guarded_getitem,
                "_getiter_": guarded_getiter,
                "_iter_unpack_sequence_": guarded_iter_unpack_sequence,
                "_unpack_sequence_": guarded_unpack_sequence,
                "_inplacevar_": guarded_inplacevar,
                "_apply_": guarded_apply,
                "__metaclass__": AgentClassMeta,
                "__name__": "agent",
            }
        )
        return glb

    def run(self, code: Any) -> dict[str, Any]:
        if not isinstance(code, str):
            return {
                "ok": False,
                "result": None,
                "stdout": "",
                "error": _error("InvalidRequest", "code must be a string"),
            }
        collector = self.collector = PrintCollector(int(self.limits["max_output_chars"]))
        glb = self.run_globals(collector)
        error: dict[str, str] | None = None
        result: Any = None
        self.start_cpu_window()
        self.running = True
        try:
            compiled = compile_agent_code(code)
            if isinstance(compiled, CompileFailure):
                error = _error(compiled.type, compiled.message)
            else:
                exec(compiled, glb)
                if "result" in glb:
                    result = to_json_value(glb["result"], int(self.limits["max_result_chars"]))
        except CPUTimeExceeded:
            error = self.timeout_error()
        except OutputLimitExceeded:
            error = self.output_error()
        except MemoryError:
            # Whatever filled the memory may still be referenced by a global:
            # start the agent's namespace afresh so the session stays usable.
            self.globals = {"__name__": "agent", "__builtins__": self.builtins}
            error = self.memory_error()
            error["message"] += "; variables from earlier runs were cleared to free memory"
        except ResultTooLarge:
            error = self.result_error()
        except BaseException as exc:  # reported to the caller, never swallowed
            error = _describe(exc, self.decoded.shared)
        finally:
            self.running = False
        # The output limit, once hit, wins: code that catches it and goes on
        # until the CPU limit still failed because of its output first.
        if collector.exceeded:
            error = self.output_error()
        elif self.cpu_exceeded:
            error = self.timeout_error()
        if error is None and result is not None:
            size = len(json.dumps(result, ensure_ascii=False))
            if size > int(self.limits["max_result_chars"]):
                error = self.result_error()
        return {
            "ok": error is None,
            "result": result if error is None else None,
            "stdout": collector.text(),
            "error": error,
        }

    def timeout_error(self) -> dict[str, str]:
        return _error("Timeout", f"CPU time limit of {self.limits['cpu_seconds']:g} s exceeded")

    def output_error(self) -> dict[str, str]:
        return _error("OutputLimit", f"printed output exceeded {self.limits['max_output_chars']} characters")

    def memory_error(self) -> dict[str, str]:
        return _error("MemoryLimit", f"memory limit of {self.limits['memory_mb']} MB exceeded")

    def result_error(self) -> dict[str, str]:
        return _error(
            "ResultLimit",
            f"result is larger than {self.limits['max_result_chars']} characters of JSON; return a summary",
        )

    def run_unrestricted(self, code: str) -> dict[str, Any]:
        namespace: dict[str, Any] = {"__name__": "unrestricted"}
        self.start_cpu_window()
        self.running = True
        try:
            exec(compile_code(code, "<unrestricted>", "exec"), namespace)
            result = to_json_value(namespace.get("result"), int(self.limits["max_result_chars"]))
            return {"ok": True, "result": result, "stdout": "", "error": None}
        except BaseException as exc:  # reported to the caller
            return {"ok": False, "result": None, "stdout": "", "error": _describe(exc)}
        finally:
            self.running = False

    # -- loop --------------------------------------------------------------
    def send(self, message: dict[str, Any]) -> None:
        try:
            framing.write_frame(self.out_fd, message)
        except (TypeError, ValueError) as exc:
            framing.write_frame(
                self.out_fd,
                {
                    "ok": False,
                    "result": None,
                    "stdout": "",
                    "error": _error("InternalError", f"cannot encode reply: {exc}"),
                },
            )

    def serve(self) -> None:
        while True:
            try:
                message = framing.read_frame(0)
            except framing.FrameError:
                return
            if not isinstance(message, dict):
                return
            op = message.get("op")
            if op == "run":
                try:
                    reply = self.run(message.get("code"))
                except MemoryError:
                    reply = {"ok": False, "result": None, "stdout": "", "error": self.memory_error()}
                self.send(reply)
            elif op in ("unrestricted", "unrestricted-audited") and self.unrestricted:
                if op == "unrestricted-audited":
                    # the production hook under plain Python: does it hold on its own?
                    audit.install()
                self.send(self.run_unrestricted(str(message.get("code"))))
            elif op == "exit":
                return
            else:
                self.send(
                    {"ok": False, "result": None, "stdout": "", "error": _error("InvalidRequest", f"unknown op {op!r}")}
                )


def main(argv: list[str]) -> None:
    unrestricted = UNRESTRICTED_FLAG in argv
    limits = json.loads(argv[argv.index("--limits") + 1])
    out_fd = os.dup(1)
    os.dup2(2, 1)
    preload_modules()
    if DROP_UID_FLAG in argv:
        uid = int(argv[argv.index(DROP_UID_FLAG) + 1])
        try:
            drop_privileges(uid)
        except OSError as exc:
            framing.write_frame(
                out_fd, {"op": "fatal", "error": _error("SandboxUnavailable", f"cannot drop to uid {uid}: {exc}")}
            )
            return
    apply_rlimits(limits)
    from .seccomp import install_filter

    seccomp = install_filter()
    worker = Worker(limits, out_fd, unrestricted)
    signal.signal(signal.SIGXCPU, worker.on_sigxcpu)
    try:
        init = framing.read_frame(0)
    except framing.FrameError:
        return
    try:
        if not isinstance(init, dict) or init.get("op") != "init":
            raise StateFormatError("first message must be init")
        worker.load_state(init.get("state"))
    except MemoryError:
        worker.send({"op": "fatal", "error": worker.memory_error()})
        return
    except (StateFormatError, ValueError, TypeError, KeyError) as exc:
        worker.send({"op": "fatal", "error": _error("StateError", f"cannot load the state: {exc}")})
        return
    # from here on nothing may be opened or loaded (see sandbox.audit)
    audited = False if unrestricted else audit.install()
    worker.send({"op": "ready", "pid": os.getpid(), "uid": os.getuid(), "seccomp": seccomp, "audit": audited})
    worker.serve()


if __name__ == "__main__":  # pragma: no cover
    main(sys.argv[1:])
