"""The result of one sandboxed run."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass
class RunResult:
    """Outcome of running agent code.

    ``result`` is the JSON value of the global ``result`` if the code set it;
    ``error`` is ``None`` or ``{"type": ..., "message": ...}``.  ``level``,
    ``duration_s`` and ``restarted`` are informative and not part of
    :meth:`to_json`.
    """

    ok: bool
    result: Any = None
    stdout: str = ""
    error: dict[str, str] | None = None
    level: str | None = None
    duration_s: float = 0.0
    restarted: bool = False
    """True if this run started a new worker after the previous one was stopped."""

    def to_json(self) -> dict[str, Any]:
        """Exactly ``{"ok", "result", "stdout", "error"}`` (the ``repl --json`` shape)."""
        return {"ok": self.ok, "result": self.result, "stdout": self.stdout, "error": self.error}

    def to_json_text(self) -> str:
        return json.dumps(self.to_json(), ensure_ascii=False)

    @classmethod
    def failure(cls, kind: str, message: str, **extra: Any) -> "RunResult":
        return cls(ok=False, result=None, stdout="", error={"type": kind, "message": message}, **extra)
