"""What an endpoint (base URL + model) supports, learnt from its answers and remembered.

The OpenAI-compatible provider starts with what the settings ask for
(``json_mode = "schema"``, native tool calls) and steps down when the endpoint
refuses a feature: ``json_schema`` -> ``json_object`` -> plain text read by the
tolerant reader, and tool calls -> fenced code in replies.  What it learnt is
kept here, in memory for the process and in ``.uac/llm-endpoints.json`` of the
project, so the next call (and the next run) goes straight to what works.
``uac doctor --model`` probes an endpoint and rewrites its entry.
"""

from __future__ import annotations

import datetime as _dt
import json
import logging
import threading
from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from ..caches import BoundedCache
from ..fsutil import atomic_write_text

log = logging.getLogger(__name__)

#: response_format rungs, best first
JSON_MODES = ("schema", "object", "none")


@dataclass(frozen=True)
class EndpointCapabilities:
    """What is known about one endpoint; ``None`` means not known yet."""

    #: the best response_format the endpoint accepts: schema | object | none
    json_mode: str | None = None
    #: does the endpoint accept ``tools`` (native function calling)?
    tools: bool | None = None
    #: the prompt size (tokens) the endpoint was seen to read in full, or cut at
    context_tokens: int | None = None
    #: did the context probe see the prompt cut?
    context_cut: bool | None = None
    #: when the entry was last changed (ISO, UTC)
    updated: str | None = None

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def endpoint_key(base_url: str, model: str) -> str:
    return f"{(base_url or '').rstrip('/')}|{model}"


class CapabilityStore:
    """Endpoint capabilities shared by every client of the process, persisted to ``path``."""

    #: what the process learned, by endpoint and model (process-wide, bounded: see uac.caches)
    _memory: "BoundedCache[str, EndpointCapabilities]" = BoundedCache("endpoint capabilities", 256)
    _lock = threading.Lock()

    def __init__(self, path: Path | None = None) -> None:
        self.path = Path(path) if path is not None else None
        self._loaded = False

    def _load(self) -> None:
        if self._loaded or self.path is None:
            return
        self._loaded = True
        try:
            data = json.loads(self.path.read_text("utf-8"))
        except FileNotFoundError:
            return
        except (json.JSONDecodeError, UnicodeDecodeError, OSError) as exc:
            log.warning("ignoring unreadable %s (%s); it is rebuilt from the endpoint's answers", self.path, exc)
            return
        known = {f.name for f in fields(EndpointCapabilities)}
        for key, entry in (data.get("endpoints") or {}).items() if isinstance(data, dict) else ():
            if isinstance(entry, dict) and key not in self._memory:
                self._memory[key] = EndpointCapabilities(**{k: v for k, v in entry.items() if k in known})

    def get(self, base_url: str, model: str) -> EndpointCapabilities:
        with self._lock:
            self._load()
            return self._memory.get(endpoint_key(base_url, model), EndpointCapabilities())

    def update(self, base_url: str, model: str, **changes: Any) -> EndpointCapabilities:
        """Record what was learnt (and persist it when it changed anything)."""
        key = endpoint_key(base_url, model)
        with self._lock:
            self._load()
            current = self._memory.get(key, EndpointCapabilities())
            if all(getattr(current, k) == v for k, v in changes.items()):
                return current
            stamp = _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")
            updated = replace(current, **changes, updated=stamp)
            self._memory[key] = updated
            self._save()
            return updated

    def _save(self) -> None:
        if self.path is None:
            return
        entries: dict[str, Any] = {}
        try:
            existing = json.loads(self.path.read_text("utf-8"))
            entries = dict(existing.get("endpoints") or {}) if isinstance(existing, dict) else {}
        except (FileNotFoundError, json.JSONDecodeError, UnicodeDecodeError):
            entries = {}
        entries.update({k: v.to_json() for k, v in self._memory.items()})
        text = json.dumps({"format": 1, "endpoints": entries}, indent=2, sort_keys=True) + "\n"
        atomic_write_text(self.path, text)

    @classmethod
    def forget_all(cls) -> None:
        """Drop what the process remembers (tests; the files stay)."""
        with cls._lock:
            cls._memory.clear()


__all__ = ["JSON_MODES", "CapabilityStore", "EndpointCapabilities", "endpoint_key"]
