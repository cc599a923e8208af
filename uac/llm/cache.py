"""SQLite response cache keyed by provider + model + request fingerprint.

Repeated benchmark runs and re-compiles with the same prompts cost nothing.
Safe across threads and processes (WAL mode, short transactions).  Each row
keeps the prompt's text beside the reply, so forgetting can find and drop
every entry that held forgotten words (:meth:`ResponseCache.purge`).
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from pathlib import Path

from ..errors import StoreError
from ..fsutil import make_private_dirs, open_private
from .types import ChatResponse

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    response TEXT NOT NULL,
    created REAL NOT NULL,
    prompt TEXT
)
"""


class ResponseCache:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._local = threading.local()
        try:
            make_private_dirs(self.path.parent)
            os.close(
                open_private(self.path, os.O_RDWR | os.O_CREAT)
            )  # sqlite keeps the mode, and gives it to its journals
            with self._connect() as conn:
                conn.execute(_SCHEMA)
                columns = {row[1] for row in conn.execute("PRAGMA table_info(responses)")}
                if "prompt" not in columns:  # caches written before prompts were kept
                    conn.execute("ALTER TABLE responses ADD COLUMN prompt TEXT")
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(
                f"cannot open the LLM response cache {self.path}: {exc}.",
                hint="Delete the file (it is only a cache) or set UAC_LLM_CACHE=0.",
            ) from exc

    def _connect(self) -> sqlite3.Connection:
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            self._local.conn = conn
        return conn

    def get(self, key: str) -> ChatResponse | None:
        try:
            row = self._connect().execute("SELECT response FROM responses WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error as exc:
            raise StoreError(f"LLM response cache {self.path} is unreadable: {exc}.") from exc
        return ChatResponse.from_cache(row[0]) if row else None

    def put(self, key: str, model: str, response: ChatResponse, prompt: str = "") -> None:
        try:
            self._connect().execute(
                "INSERT OR REPLACE INTO responses (key, model, response, created, prompt) VALUES (?, ?, ?, ?, ?)",
                (key, model, response.to_cache(), time.time(), prompt),
            )
        except sqlite3.Error as exc:
            raise StoreError(f"cannot write the LLM response cache {self.path}: {exc}.") from exc

    def purge(self, words: "set[str]") -> int:
        """Drop every entry whose prompt or reply contains one of ``words`` (case-insensitive),
        and entries written without their prompt; then compact the file so nothing of them
        stays on disk.  Returns how many entries were dropped."""
        conn = self._connect()
        try:
            doomed = [key for (key,) in conn.execute("SELECT key FROM responses WHERE prompt IS NULL")]
            lowered = [w.lower() for w in words if w]
            if lowered:
                for key, prompt, response in conn.execute(
                    "SELECT key, prompt, response FROM responses WHERE prompt IS NOT NULL"
                ):
                    text = (prompt + "\n" + response).lower()
                    if any(w in text for w in lowered):
                        doomed.append(key)
            for start in range(0, len(doomed), 500):
                chunk = doomed[start : start + 500]
                conn.execute(f"DELETE FROM responses WHERE key IN ({','.join('?' * len(chunk))})", chunk)
            conn.execute("VACUUM")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlite3.Error as exc:
            raise StoreError(
                f"cannot purge the LLM response cache {self.path}: {exc}.", hint="Delete the file: it is only a cache."
            ) from exc
        return len(doomed)

    def delete(self, key: str) -> None:
        """Forget one reply (it failed validation)."""
        try:
            self._connect().execute("DELETE FROM responses WHERE key = ?", (key,))
        except sqlite3.Error as exc:
            raise StoreError(f"cannot write the LLM response cache {self.path}: {exc}.") from exc

    def __len__(self) -> int:
        return self._connect().execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None
