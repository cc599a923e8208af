"""Worker command lines, the bubblewrap jail, and detection of the level in force."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sys
import sysconfig
import threading
from dataclasses import asdict, dataclass

from .errors import SandboxUnavailable

JAIL_LIB = "/opt/uac-sandbox"
NOBODY = 65534
BOOT = "import sys,json;sys.path[:0]=json.loads(sys.argv[1]);from sandbox.worker import main;main(sys.argv[2:])"
INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: apt-get install -y bubblewrap)"


@dataclass(frozen=True)
class SandboxLevel:
    """The isolation level the sandbox runs at on this machine.

    ``level`` is ``"jail"`` (bubblewrap works: separate namespaces, no network,
    read-only file system view) or ``"process"`` (separate process with rlimits
    and the seccomp filter only).  ``reason`` says why.
    """

    level: str
    bubblewrap: str | None
    reason: str
    uid: int | None = None
    """Uid the worker runs as (65534 = nobody: in the jail's user namespace, or dropped to
    at the process level when the host runs as root)."""
    seccomp: bool = False
    """Whether the worker's seccomp filter is installed."""
    user_namespace: bool = False

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in {"1", "true", "yes", "on"}


def jail_required(require_jail: bool | None) -> bool:
    """The effective ``require_jail`` setting (argument, else ``UAC_SANDBOX_REQUIRE_JAIL``)."""
    if require_jail is not None:
        return bool(require_jail)
    return _truthy(os.environ.get("UAC_SANDBOX_REQUIRE_JAIL"))


def _package_dirs() -> tuple[str, str]:
    sandbox_dir = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.find_spec("RestrictedPython")
    if spec is None or not spec.submodule_search_locations:
        raise SandboxUnavailable("RestrictedPython is not installed (pip install 'RestrictedPython>=8.0')")
    return sandbox_dir, os.path.abspath(list(spec.submodule_search_locations)[0])


def python_executable() -> str:
    return os.path.realpath(sys.executable)


def worker_argv(sys_path: list[str], limits_json: str, unrestricted: bool, drop_uid: int | None = None) -> list[str]:
    argv = [python_executable(), "-I", "-S", "-B", "-c", BOOT, json.dumps(sys_path)]
    if unrestricted:
        argv.append("--unrestricted-for-tests")
    if drop_uid is not None:
        argv += ["--drop-uid", str(drop_uid)]
    return argv + ["--limits", limits_json]


def process_command(limits_json: str, unrestricted: bool = False, drop_uid: int | None = None) -> list[str]:
    sandbox_dir, rp_dir = _package_dirs()
    paths = [os.path.dirname(sandbox_dir), os.path.dirname(rp_dir)]
    return worker_argv(list(dict.fromkeys(paths)), limits_json, unrestricted, drop_uid)


def _python_binds() -> list[str]:
    exe = python_executable()
    candidates = [exe]
    for key in ("stdlib", "platstdlib"):
        candidates.append(sysconfig.get_paths()[key])
    libdir = sysconfig.get_config_var("LIBDIR")
    if libdir:
        candidates.append(libdir)
    candidates.append(os.path.join(sys.base_prefix, "lib"))
    for lib in ("/usr/lib", "/usr/lib64"):
        candidates.append(lib)
    out: list[str] = []
    for path in candidates:
        real = os.path.realpath(path)
        if os.path.exists(real) and real not in out:
            out.append(real)
    # Parents first; drop paths already covered by a bound parent.
    out.sort(key=len)
    kept: list[str] = []
    for path in out:
        if not any(path == k or path.startswith(k.rstrip("/") + "/") for k in kept):
            kept.append(path)
    return kept


def jail_command(bwrap: str, limits_json: str, *, map_uid: bool, unrestricted: bool = False) -> list[str]:
    sandbox_dir, rp_dir = _package_dirs()
    cmd = [bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--clearenv", "--cap-drop", "ALL"]
    if map_uid:
        cmd += ["--unshare-user", "--uid", str(NOBODY), "--gid", str(NOBODY)]
    for path in _python_binds():
        cmd += ["--ro-bind", path, path]
    for link, _target in (("/lib", "usr/lib"), ("/lib64", "usr/lib64"), ("/bin", "usr/bin")):
        if os.path.islink(link):
            cmd += ["--symlink", os.readlink(link), link]
        elif os.path.isdir(link) and link != "/bin":
            cmd += ["--ro-bind", link, link]
    cmd += [
        "--ro-bind",
        sandbox_dir,
        f"{JAIL_LIB}/sandbox",
        "--ro-bind",
        rp_dir,
        f"{JAIL_LIB}/RestrictedPython",
        "--dev",
        "/dev",
        "--tmpfs",
        "/tmp",
        "--chdir",
        "/tmp",
        "--hostname",
        "sandbox",
        "--remount-ro",
        "/",
        "--",
    ]
    return cmd + worker_argv([JAIL_LIB], limits_json, unrestricted)


@dataclass(frozen=True)
class LaunchPlan:
    """How to start a worker at the detected level."""

    level: SandboxLevel
    bwrap: str | None = None
    map_uid: bool = False
    drop_uid: int | None = None
    """At the process level: the uid the worker switches to (the host runs as root)."""

    def command(self, limits_json: str, unrestricted: bool = False) -> list[str]:
        if self.level.level == "jail" and self.bwrap:
            return jail_command(self.bwrap, limits_json, map_uid=self.map_uid, unrestricted=unrestricted)
        return process_command(limits_json, unrestricted, self.drop_uid)


_LOCK = threading.Lock()
_CACHE: dict[str, LaunchPlan] = {}


def _self_test(plan: LaunchPlan) -> tuple[bool, str, dict]:
    from .limits import Limits
    from .process import WorkerFailure, WorkerProcess

    limits = Limits(wall_seconds=20, startup_seconds=20)
    try:
        worker = WorkerProcess.start(plan, limits, {"op": "init", "state": None})
    except (WorkerFailure, SandboxUnavailable) as exc:
        return False, str(exc), {}
    try:
        reply = worker.request({"op": "run", "code": "result = 6 * 7"}, limits.wall_seconds)
    except WorkerFailure as exc:
        return False, str(exc), {}
    finally:
        worker.kill()
    if reply.get("ok") and reply.get("result") == 42:
        return True, "ok", worker.ready
    return False, f"unexpected self-test reply: {reply!r}"[:300], {}


def launch_plan() -> LaunchPlan:
    """The launch plan for this process (detected once, then cached)."""
    with _LOCK:
        plan = _CACHE.get("plan")
        if plan is None:
            plan = _CACHE["plan"] = _detect()
        return plan


def _detect() -> LaunchPlan:
    reasons = []
    bwrap = os.environ.get("UAC_SANDBOX_BWRAP") or shutil.which("bwrap")
    if _truthy(os.environ.get("UAC_SANDBOX_DISABLE_JAIL")):
        reasons.append("jail disabled by UAC_SANDBOX_DISABLE_JAIL")
    elif not bwrap:
        reasons.append(f"bubblewrap not found; {INSTALL_HINT}")
    else:
        for map_uid in (True, False):
            trial = LaunchPlan(SandboxLevel("jail", bwrap, "self-test"), bwrap, map_uid)
            ok, why, ready = _self_test(trial)
            if ok:
                uid = ready.get("uid")
                how = f"as uid {uid} in a user namespace" if map_uid else "without uid mapping"
                level = SandboxLevel(
                    "jail",
                    bwrap,
                    f"bubblewrap jail works ({how}): no network, read-only file system, empty environment",
                    uid=uid,
                    seccomp=bool(ready.get("seccomp")),
                    user_namespace=map_uid,
                )
                return LaunchPlan(level, bwrap, map_uid)
            reasons.append(f"bubblewrap {'with' if map_uid else 'without'} uid mapping failed: {why}")
    drop_uid = NOBODY if os.geteuid() == 0 else None
    process_plan = LaunchPlan(SandboxLevel("process", bwrap, "; ".join(reasons)), drop_uid=drop_uid)
    ok, why, ready = _self_test(process_plan)
    if not ok and drop_uid is not None:
        # keep the sandbox working, and say loudly that the worker stays root
        reasons.append(f"the worker could not drop from root to uid {drop_uid} ({why}), so it runs as root")
        drop_uid = None
        process_plan = LaunchPlan(SandboxLevel("process", bwrap, "; ".join(reasons)))
        ok, why, ready = _self_test(process_plan)
    if not ok:
        raise SandboxUnavailable(f"the sandbox worker cannot start: {why}")
    uid = ready.get("uid")
    dropped = f" (dropped from root to uid {uid})" if drop_uid is not None else ""
    level = SandboxLevel(
        "process",
        bwrap,
        f"separate process with rlimits and seccomp only{dropped}: " + "; ".join(reasons),
        uid=uid,
        seccomp=bool(ready.get("seccomp")),
    )
    return LaunchPlan(level, drop_uid=drop_uid)


def detect_level() -> SandboxLevel:
    """Detect (once per process) and return the sandbox level in force."""
    return launch_plan().level


def reset_detection() -> None:
    """Forget the cached detection (tests, or after installing bubblewrap)."""
    with _LOCK:
        _CACHE.clear()


def plan_for(require_jail: bool | None) -> LaunchPlan:
    """The launch plan, failing closed if the jail is required but unavailable."""
    plan = launch_plan()
    if jail_required(require_jail) and plan.level.level != "jail":
        raise SandboxUnavailable(
            f"the sandbox jail is required (require_jail / UAC_SANDBOX_REQUIRE_JAIL) but unavailable: "
            f"{plan.level.reason}; {INSTALL_HINT}"
        )
    return plan
