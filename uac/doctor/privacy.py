"""``doctor`` check: the project is private to its owner.

uac makes every directory of a project 0700 and every file 0600, whatever the
umask (:mod:`uac.fsutil`).  A project made by an earlier uac, or copied or
unpacked by other tools, may be open to other users of the machine: the check
names what they can reach (a path with any permission for its group or for
everyone, through directories they may enter), and ``repair`` makes the whole
project private again.  Fast (the default): the project directory and what it
holds directly, which is enough when the directory itself is closed; deep:
every path.
"""

from __future__ import annotations

from ..context import MemoryContext
from ..fsutil import exposed, make_private
from .result import OK, WARN, CheckResult


def check_privacy(ctx: MemoryContext, repair: bool, *, deep: bool = True) -> CheckResult:
    root = ctx.project.root
    found = exposed(root, deep=deep)
    if not found:
        return CheckResult("privacy", OK, "private to its owner (directories 0700, files 0600)")
    if repair:
        with ctx.project.lock("make private"):
            changed = make_private(root)
        return CheckResult(
            "privacy",
            OK,
            "private to its owner (directories 0700, files 0600)",
            repaired=f"{changed} mode(s) made private; other users could reach {', '.join(found[:5])}",
        )
    return CheckResult(
        "privacy",
        WARN,
        f"other users of this machine can reach {len(found)} path(s) of the project (e.g. {', '.join(found[:3])}) "
        "(run 'uac doctor --repair' to make it private to its owner)",
        data={"exposed": found[:100]},
    )
