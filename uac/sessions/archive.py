"""The raw archive: ``memory/sessions/<session_id>.json``, one file per session."""

from __future__ import annotations

import json
import re
from pathlib import Path

from ..errors import InputError, StoreError
from ..fsutil import atomic_write_text
from .model import Session

_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def check_session_id(session_id: str) -> str:
    if not _SAFE_ID.match(session_id):
        raise InputError(
            f"session id {session_id!r} cannot name an archive file.",
            hint="Use letters, digits, '.', '_' and '-' only (at most 128 characters).",
        )
    return session_id


class Archive:
    def __init__(self, directory: Path) -> None:
        self.dir = Path(directory)

    def path(self, session_id: str) -> Path:
        return self.dir / f"{check_session_id(session_id)}.json"

    def write(self, session: Session) -> Path:
        path = self.path(session.session_id)
        atomic_write_text(path, json.dumps(session.to_json(), ensure_ascii=False, indent=1) + "\n")
        return path

    def has(self, session_id: str) -> bool:
        return self.path(session_id).is_file()

    def read(self, session_id: str) -> Session:
        path = self.path(session_id)
        try:
            return Session.from_json(json.loads(path.read_text("utf-8")))
        except FileNotFoundError:
            raise StoreError(f"session {session_id} is not in the archive ({path}).") from None
        except (ValueError, KeyError, TypeError) as exc:
            raise StoreError(f"archived session {path} is damaged ({exc}).") from None

    def ids(self) -> list[str]:
        if not self.dir.is_dir():
            return []
        return sorted(p.stem for p in self.dir.glob("*.json") if not p.name.startswith("."))

    def delete(self, session_id: str) -> bool:
        path = self.path(session_id)
        if path.exists():
            path.unlink()
            return True
        return False
