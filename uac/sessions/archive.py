"""The raw archive: ``memory/sessions/<session_id>.json``, one file per session."""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import InputError, StoreError
from ..fsutil import atomic_write_text, make_private_dirs, read_regular, resolve_inside
from ..names import SESSION_ID, TURN_ID
from .model import Session


def check_session_id(session_id: str) -> str:
    return SESSION_ID.check(session_id)


def check_turn_ids(session: Session) -> None:
    """Refuse a session with a turn id the archive does not keep (:data:`~uac.names.TURN_ID`)."""
    for number, turn in enumerate(session.turns, 1):
        if not TURN_ID.ok(turn.turn_id):
            raise InputError(
                f"session {session.session_id!r} turn {number} has an id of {len(turn.turn_id):,} characters; "
                "uac keeps turn ids of 1-200 characters, so that every turn can be linked to.",
                hint="Shorten the turn's id (a LoCoMo dia_id looks like 'D1:3'); a LoCoMo turn without a "
                "dia_id is named D<session>:<turn>.",
            )


class Archive:
    def __init__(self, directory: Path, root: Path | None = None) -> None:
        self.dir = Path(directory)
        #: the project root the archive must stay inside (``memory/sessions`` -> its root)
        self.root = Path(root) if root is not None else self.dir.parent.parent

    def path(self, session_id: str) -> Path:
        return self.dir / f"{check_session_id(session_id)}.json"

    def write(self, session: Session) -> Path:
        path = self.path(session.session_id)
        make_private_dirs(self.dir)
        resolve_inside(self.root, self.dir)
        atomic_write_text(path, json.dumps(session.to_json(), ensure_ascii=False, indent=1) + "\n")
        return path

    def has(self, session_id: str) -> bool:
        return self.path(session_id).is_file()

    def read(self, session_id: str) -> Session:
        path = self.path(session_id)
        try:
            return Session.from_json(json.loads(read_regular(self.root, path).decode("utf-8")))
        except FileNotFoundError:
            raise StoreError(f"session {session_id} is not in the archive ({path}).") from None
        except (ValueError, KeyError, TypeError) as exc:  # UnicodeDecodeError is a ValueError
            raise StoreError(f"archived session {path} is damaged ({exc}).") from None

    def ids(self) -> list[str]:
        if not self.dir.is_dir():
            return []
        return sorted(p.stem for p in self.dir.glob("*.json") if not p.name.startswith("."))

    def delete(self, session_id: str) -> bool:
        path = self.path(session_id)
        if path.exists() or path.is_symlink():
            path.unlink()
            return True
        return False
