"""A seccomp filter the worker installs on itself before reading any input.

It makes the syscalls a sandboxed analysis never needs fail with ``EPERM``:
creating processes (``fork``/``vfork``/``clone``/``clone3``), ``execve``,
sockets, sending signals, ``ptrace``, namespace and mount operations, kernel
module and keyring calls.  This holds even at the ``process`` level and even
when the worker runs as root (where ``RLIMIT_NPROC`` is not enforced).

The filter is plain classic BPF built here with :mod:`struct` and loaded with
``prctl`` through :mod:`ctypes` (no extra package).  Supported on x86_64 and
aarch64; elsewhere :func:`install_filter` returns ``False`` and the other
layers remain.
"""

from __future__ import annotations

import platform
import struct

_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}

_BLOCKED = {
    "x86_64": {
        "socket": 41, "connect": 42, "accept": 43, "bind": 49, "listen": 50, "socketpair": 53,
        "clone": 56, "fork": 57, "vfork": 58, "execve": 59, "kill": 62, "ptrace": 101,
        "pivot_root": 155, "chroot": 161, "mount": 165, "umount2": 166, "swapon": 167,
        "swapoff": 168, "reboot": 169, "init_module": 175, "delete_module": 176, "tkill": 200,
        "tgkill": 234, "kexec_load": 246, "add_key": 248, "request_key": 249, "keyctl": 250,
        "unshare": 272, "perf_event_open": 298, "open_by_handle_at": 304, "setns": 308,
        "process_vm_readv": 310, "process_vm_writev": 311, "finit_module": 313, "bpf": 321,
        "execveat": 322, "userfaultfd": 323, "io_uring_setup": 425, "clone3": 435,
    },
    "aarch64": {
        "socket": 198, "socketpair": 199, "bind": 200, "listen": 201, "accept": 202, "connect": 203,
        "clone": 220, "execve": 221, "kill": 129, "tkill": 130, "tgkill": 131, "ptrace": 117,
        "umount2": 39, "mount": 40, "pivot_root": 41, "chroot": 51, "unshare": 97, "kexec_load": 104,
        "init_module": 105, "delete_module": 106, "reboot": 142, "add_key": 217, "request_key": 218,
        "keyctl": 219, "swapon": 224, "swapoff": 225, "perf_event_open": 241, "open_by_handle_at": 265,
        "setns": 268, "process_vm_readv": 270, "process_vm_writev": 271, "finit_module": 273,
        "bpf": 280, "execveat": 281, "userfaultfd": 282, "io_uring_setup": 425, "clone3": 435,
    },
}

_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_RET_K = 0x06
_RET_KILL_PROCESS = 0x80000000
_RET_ERRNO = 0x00050000
_RET_ALLOW = 0x7FFF0000
_EPERM = 1
_X32_SYSCALL_BIT = 0x40000000


def _insn(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("HBBI", code, jt, jf, k)


def build_program(machine: str | None = None) -> bytes | None:
    """The BPF program for this machine, or ``None`` if unsupported."""
    machine = machine or platform.machine()
    arch = _AUDIT_ARCH.get(machine)
    if arch is None:
        return None
    numbers = sorted(set(_BLOCKED[machine].values()))
    body = [_insn(_LD_W_ABS, 0, 0, 4), _insn(_JEQ_K, 1, 0, arch), _insn(_RET_K, 0, 0, _RET_KILL_PROCESS)]
    body.append(_insn(_LD_W_ABS, 0, 0, 0))
    checks: list[tuple[int, int]] = []
    if machine == "x86_64":
        checks.append((_JGE_K, _X32_SYSCALL_BIT))
    checks.extend((_JEQ_K, nr) for nr in numbers)
    count = len(checks)
    for index, (code, k) in enumerate(checks):
        # Remaining checks after this one, then RET ALLOW, then RET ERRNO.
        to_deny = count - index - 1 + 1
        body.append(_insn(code, to_deny, 0, k))
    body.append(_insn(_RET_K, 0, 0, _RET_ALLOW))
    body.append(_insn(_RET_K, 0, 0, _RET_ERRNO | _EPERM))
    return b"".join(body)


def install_filter() -> bool:
    """Install the filter on the current process; ``False`` if it cannot."""
    program = build_program()
    if program is None:
        return False
    try:
        import ctypes
    except ImportError:
        return False

    class SockFprog(ctypes.Structure):
        _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]

    buffer = ctypes.create_string_buffer(program, len(program))
    prog = SockFprog(len(program) // 8, ctypes.cast(buffer, ctypes.c_void_p))
    libc = ctypes.CDLL(None, use_errno=True)
    pr_set_no_new_privs, pr_set_seccomp, seccomp_mode_filter = 38, 22, 2
    if libc.prctl(pr_set_no_new_privs, 1, 0, 0, 0) != 0:
        return False
    if libc.prctl(pr_set_seccomp, seccomp_mode_filter, ctypes.byref(prog), 0, 0) != 0:
        return False
    return True
