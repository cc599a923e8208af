"""A seccomp filter the worker installs on itself before reading any input.

It makes the syscalls a sandboxed analysis never needs fail with ``EPERM``:
creating processes (``fork``/``vfork``/``clone``/``clone3``), ``execve``,
sockets, sending signals, ``ptrace``, namespace and mount operations, kernel
module and keyring calls, and every file-system change (``open`` for
writing/creating/truncating, ``unlink``, ``rename``, ``mkdir``, ``chmod`` ...).
This holds even at the ``process`` level and even when the worker runs as
root (where ``RLIMIT_NPROC`` is not enforced).

The filter is plain classic BPF assembled here with :mod:`struct` and loaded
with ``prctl`` through :mod:`ctypes` (no extra package).  Supported on x86_64
and aarch64; elsewhere :func:`install_filter` returns ``False`` and the other
layers remain.
"""

from __future__ import annotations

import platform
import struct

_AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}

_BLOCKED = {
    "x86_64": {
        "socket": 41,
        "connect": 42,
        "accept": 43,
        "bind": 49,
        "listen": 50,
        "socketpair": 53,
        "clone": 56,
        "fork": 57,
        "vfork": 58,
        "execve": 59,
        "kill": 62,
        "ptrace": 101,
        "pivot_root": 155,
        "chroot": 161,
        "mount": 165,
        "umount2": 166,
        "swapon": 167,
        "swapoff": 168,
        "reboot": 169,
        "init_module": 175,
        "delete_module": 176,
        "tkill": 200,
        "tgkill": 234,
        "kexec_load": 246,
        "add_key": 248,
        "request_key": 249,
        "keyctl": 250,
        "unshare": 272,
        "perf_event_open": 298,
        "open_by_handle_at": 304,
        "setns": 308,
        "process_vm_readv": 310,
        "process_vm_writev": 311,
        "finit_module": 313,
        "bpf": 321,
        "execveat": 322,
        "userfaultfd": 323,
        "io_uring_setup": 425,
        "clone3": 435,
        # file-system changes
        "truncate": 76,
        "rename": 82,
        "mkdir": 83,
        "rmdir": 84,
        "creat": 85,
        "link": 86,
        "unlink": 87,
        "symlink": 88,
        "chmod": 90,
        "fchmod": 91,
        "chown": 92,
        "fchown": 93,
        "lchown": 94,
        "mknod": 133,
        "mkdirat": 258,
        "mknodat": 259,
        "fchownat": 260,
        "unlinkat": 263,
        "renameat": 264,
        "linkat": 265,
        "symlinkat": 266,
        "fchmodat": 268,
        "renameat2": 316,
        "openat2": 437,
    },
    "aarch64": {
        "socket": 198,
        "socketpair": 199,
        "bind": 200,
        "listen": 201,
        "accept": 202,
        "connect": 203,
        "clone": 220,
        "execve": 221,
        "kill": 129,
        "tkill": 130,
        "tgkill": 131,
        "ptrace": 117,
        "umount2": 39,
        "mount": 40,
        "pivot_root": 41,
        "chroot": 51,
        "unshare": 97,
        "kexec_load": 104,
        "init_module": 105,
        "delete_module": 106,
        "reboot": 142,
        "add_key": 217,
        "request_key": 218,
        "keyctl": 219,
        "swapon": 224,
        "swapoff": 225,
        "perf_event_open": 241,
        "open_by_handle_at": 265,
        "setns": 268,
        "process_vm_readv": 270,
        "process_vm_writev": 271,
        "finit_module": 273,
        "bpf": 280,
        "execveat": 281,
        "userfaultfd": 282,
        "io_uring_setup": 425,
        "clone3": 435,
        # file-system changes
        "mknodat": 33,
        "mkdirat": 34,
        "unlinkat": 35,
        "symlinkat": 36,
        "linkat": 37,
        "renameat": 38,
        "truncate": 45,
        "fchmod": 52,
        "fchmodat": 53,
        "fchownat": 54,
        "fchown": 55,
        "renameat2": 276,
        "openat2": 437,
    },
}

# open-like syscalls: (number, index of the flags argument)
_OPENS = {"x86_64": {"open": (2, 1), "openat": (257, 2)}, "aarch64": {"openat": (56, 2)}}
# O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND
_WRITE_FLAGS = 0o1 | 0o2 | 0o100 | 0o1000 | 0o2000

_LD_W_ABS = 0x20
_JEQ_K = 0x15
_JGE_K = 0x35
_JSET_K = 0x45
_RET_K = 0x06
_RET_KILL_PROCESS = 0x80000000
_RET_ERRNO = 0x00050000
_RET_ALLOW = 0x7FFF0000
_EPERM = 1
_X32_SYSCALL_BIT = 0x40000000


def build_program(machine: str | None = None) -> bytes | None:
    """The BPF program for this machine, or ``None`` if unsupported."""
    machine = machine or platform.machine()
    arch = _AUDIT_ARCH.get(machine)
    if arch is None:
        return None
    # Instructions as (code, jt_label, jf_label, k); labels resolve to
    # forward offsets.  None means "next instruction".
    prog: list[tuple[int, object, object, int]] = []
    labels: dict[str, int] = {}

    def emit(code: int, k: int, jt: object = None, jf: object = None) -> None:
        prog.append((code, jt, jf, k))

    emit(_LD_W_ABS, 4)
    emit(_JEQ_K, arch, jt="arch_ok", jf="kill")
    labels["arch_ok"] = len(prog)
    emit(_LD_W_ABS, 0)
    if machine == "x86_64":
        emit(_JGE_K, _X32_SYSCALL_BIT, jt="deny")
    for name, (nr, _) in _OPENS[machine].items():
        emit(_JEQ_K, nr, jt=f"open_{name}")
    for nr in sorted(set(_BLOCKED[machine].values())):
        emit(_JEQ_K, nr, jt="deny")
    labels["allow"] = len(prog)
    emit(_RET_K, _RET_ALLOW)
    for name, (_, arg) in _OPENS[machine].items():
        labels[f"open_{name}"] = len(prog)
        emit(_LD_W_ABS, 16 + 8 * arg)  # low 32 bits of the flags argument
        emit(_JSET_K, _WRITE_FLAGS, jt="deny")
        emit(_RET_K, _RET_ALLOW)
    labels["deny"] = len(prog)
    emit(_RET_K, _RET_ERRNO | _EPERM)
    labels["kill"] = len(prog)
    emit(_RET_K, _RET_KILL_PROCESS)

    out = []
    for index, (code, jt, jf, k) in enumerate(prog):
        offsets = []
        for label in (jt, jf):
            if label is None:
                offsets.append(0)
                continue
            offset = labels[str(label)] - index - 1
            if not 0 <= offset <= 255:
                raise ValueError("seccomp jump out of range")
            offsets.append(offset)
        out.append(struct.pack("HBBI", code, offsets[0], offsets[1], k))
    return b"".join(out)


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
