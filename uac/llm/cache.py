"""SQLite response cache keyed by provider + model + request fingerprint.

Repeated benchmark runs and re-compiles with the same prompts cost nothing.
Safe across threads and processes (WAL mode, short transactions).
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

from ..errors import StoreError
from .types import ChatResponse

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    response TEXT NOT NULL,
    created REAL NOT NULL
)
"""


class ResponseCache:
    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._local = threading.local()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self._connect() as conn:
                conn.execute(_SCHEMA)
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

    def put(self, key: str, model: str, response: ChatResponse) -> None:
        try:
            self._connect().execute(
                "INSERT OR REPLACE INTO responses (key, model, response, created) VALUES (?, ?, ?, ?)",
                (key, model, response.to_cache(), time.time()),
            )
        except sqlite3.Error as exc:
            raise StoreError(f"cannot write the LLM response cache {self.path}: {exc}.") from exc

    def __len__(self) -> int:
        return self._connect().execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            conn.close()
            self._local.conn = None
