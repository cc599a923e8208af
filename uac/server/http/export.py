"""``GET .../export``: the project as a .tar.gz, without derived data and tokens."""

from __future__ import annotations

import tarfile
import tempfile
from pathlib import Path
from typing import IO, TYPE_CHECKING

from ...fsutil import PRIVATE_DIR, PRIVATE_FILE
from ..tokens import TOKEN_FILE

if TYPE_CHECKING:
    from ...memory import UserMemory

#: top-level entries never exported: derived data (rebuildable) and the hashed tokens
EXCLUDED = {".uac", TOKEN_FILE.parts[0]}


def _no_bytecode(member: tarfile.TarInfo) -> tarfile.TarInfo | None:
    """Leave out bytecode, and links and special files (never followed or exported);
    what is kept is private to its owner in the archive too (0700, 0600)."""
    if not (member.isreg() or member.isdir()):
        return None
    member.mode = PRIVATE_DIR if member.isdir() else PRIVATE_FILE
    return None if "__pycache__" in Path(member.name).parts else member


def export_archive(memory: "UserMemory") -> IO[bytes]:
    """Write the archive to a spooled temporary file (taken under the project lock,
    so no writer changes the files meanwhile) and return it rewound."""
    project = memory.project
    root: Path = project.root
    spool = tempfile.SpooledTemporaryFile(max_size=8 << 20)
    with project.lock("export"):
        with tarfile.open(fileobj=spool, mode="w:gz") as tar:
            for child in sorted(root.iterdir()):
                if child.name in EXCLUDED:
                    continue
                tar.add(child, arcname=f"{root.name}/{child.name}", recursive=True, filter=_no_bytecode)
    spool.seek(0)
    return spool
