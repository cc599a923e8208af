"""Key-value items kept in user projects, framework-free: what a LangGraph store maps onto.

A namespace is ``(project, *scope)``: its first label names a project under the
store's root (a project name, never a path), the rest is a scope of the caller's
choosing (``("maya", "preferences")``).  An item -- a key and a JSON object in a
namespace -- is one archived session of that project: its id is ``kv-`` and a digest
of the namespace and key, its one turn is the item's text (the value's ``content``,
``text``, ``memory`` or ``note`` field, else the value written out), said by the user,
and the session's ``meta`` keeps the namespace, the key, the value and the times.  So an
item is in the fact log and the search indexes like anything the user said, and its
value comes back exactly as it was put.

* ``put`` adds the session; a changed value replaces it (the old session and its facts
  are forgotten for real, under the project lock); ``None`` deletes it.
* ``get`` reads it back; ``search`` with a query is uac's hybrid search over the facts
  and excerpts of the items under a namespace prefix, best first; without a query it
  lists them, newest first.  ``filter`` compares top-level value fields (``{"kind":
  "pref"}``, or operators ``$eq``, ``$ne``, ``$gt``, ``$gte``, ``$lt``, ``$lte``).
* Conversations ingested otherwise are not items: the memory tools search those.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import threading
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

from ..errors import InputError, InvalidName, SessionNotFound, UacError
from ..memory import UserMemory
from ..project import is_project
from ..sessions import Session, Turn
from ..workspace import validate_project_name

if TYPE_CHECKING:
    from ..llm import LLMClient

SOURCE = "store"
PREFIX = "kv-"
TEXT_FIELDS = ("content", "text", "memory", "note")
MAX_KEY_CHARS = 1_000
#: projects kept open at once by one store
MAX_OPEN = 32


@dataclass(frozen=True)
class StoredItem:
    namespace: tuple[str, ...]
    key: str
    value: dict[str, Any]
    created_at: _dt.datetime
    updated_at: _dt.datetime
    score: float | None = None


def session_id_of(namespace: tuple[str, ...], key: str) -> str:
    digest = hashlib.sha256(json.dumps([list(namespace), key], ensure_ascii=False).encode("utf-8")).hexdigest()
    return PREFIX + digest[:32]


def item_text(value: dict[str, Any]) -> str:
    """What the memory reads of a value: its text field, else every field written out."""
    for name in TEXT_FIELDS:
        if isinstance(value.get(name), str) and value[name].strip():
            return value[name].strip()
    return (
        "; ".join(
            f"{k}: {json.dumps(v, ensure_ascii=False) if not isinstance(v, str) else v}" for k, v in value.items()
        )
        or "{}"
    )


def _matches(value: dict[str, Any], conditions: dict[str, Any] | None) -> bool:
    for field, wanted in (conditions or {}).items():
        have = value.get(field)
        tests = (
            wanted.items()
            if isinstance(wanted, dict) and wanted and all(k.startswith("$") for k in wanted)
            else [("$eq", wanted)]
        )
        for op, operand in tests:
            try:
                ok = {
                    "$eq": lambda: have == operand,
                    "$ne": lambda: have != operand,
                    "$gt": lambda: have is not None and have > operand,
                    "$gte": lambda: have is not None and have >= operand,
                    "$lt": lambda: have is not None and have < operand,
                    "$lte": lambda: have is not None and have <= operand,
                }[op]()
            except KeyError:
                raise InputError(
                    f"unknown filter operator {op!r}.", hint="Use $eq, $ne, $gt, $gte, $lt or $lte."
                ) from None
            except TypeError:
                ok = False
            if not ok:
                return False
    return True


def _item(session: Session, score: float | None = None) -> StoredItem:
    data = session.meta["item"]
    return StoredItem(
        tuple(data["namespace"]),
        data["key"],
        data["value"],
        _dt.datetime.fromisoformat(data["created_at"]),
        _dt.datetime.fromisoformat(data["updated_at"]),
        score,
    )


class ItemStore:
    """Items in the projects under ``root`` (see the module docstring).  ``create`` makes a
    project on its first put; ``llm`` extracts the facts of items (default: the project's
    configured model, else the rule-based extractor)."""

    def __init__(
        self, root: str | Path, *, create: bool = True, llm: LLMClient | None = None, timezone: str = "UTC"
    ) -> None:
        self.root = Path(root)
        self.create = create
        self.llm = llm
        self.timezone = timezone
        self._open: OrderedDict[str, UserMemory] = OrderedDict()
        self._locks: dict[str, threading.RLock] = {}
        self._guard = threading.Lock()

    # -- projects ---------------------------------------------------------------------------

    @staticmethod
    def split(namespace: Iterable[str]) -> tuple[str, tuple[str, ...]]:
        labels = tuple(namespace)
        if not labels:
            raise InvalidName(
                "an empty namespace names no project.",
                hint="Start every namespace with the project's name, e.g. ('maya', 'memories').",
            )
        return validate_project_name(labels[0]), labels[1:]

    def _lock(self, name: str) -> threading.RLock:
        with self._guard:
            return self._locks.setdefault(name, threading.RLock())

    def memory(self, name: str, *, create: bool = False) -> UserMemory | None:
        """Project ``name`` (open, or made when ``create``), or ``None`` when there is none."""
        with self._guard:
            if name in self._open:
                self._open.move_to_end(name)
                return self._open[name]
        path = self.root / validate_project_name(name)
        if not is_project(path):
            if not create:
                return None
            memory = UserMemory.open_or_create(path, user_name=name, timezone=self.timezone, llm=self.llm)
        else:
            memory = UserMemory.open(path, llm=self.llm)
        with self._guard:
            self._open[name] = memory
            while len(self._open) > MAX_OPEN:
                _, evicted = self._open.popitem(last=False)
                evicted.close()  # reopened by its next use
        return memory

    def close(self) -> None:
        with self._guard:
            for memory in self._open.values():
                memory.close()
            self._open.clear()

    # -- operations ---------------------------------------------------------------------------

    def get(self, namespace: tuple[str, ...], key: str) -> StoredItem | None:
        name, _scope = self.split(namespace)
        memory = self.memory(name)
        if memory is None:
            return None
        with self._lock(name):
            try:
                return _item(memory.session(session_id_of(tuple(namespace), key)))
            except SessionNotFound:
                return None

    def put(self, namespace: tuple[str, ...], key: str, value: dict[str, Any] | None) -> None:
        namespace = tuple(namespace)
        name, _scope = self.split(namespace)
        if not isinstance(key, str) or not key or len(key) > MAX_KEY_CHARS:
            raise InputError(f"an item key is a non-empty string of at most {MAX_KEY_CHARS} characters, not {key!r}.")
        if value is not None:
            if not isinstance(value, dict):
                raise InputError(f"an item's value is a dict, not {type(value).__name__}.")
            try:
                value = json.loads(json.dumps(value, ensure_ascii=False, allow_nan=False))
            except (TypeError, ValueError) as exc:
                raise InputError(
                    f"the value of item {key!r} is not plain JSON data: {exc}.",
                    hint="Use str, numbers, booleans, None, lists and dicts only.",
                ) from None
        memory = self.memory(name, create=self.create and value is not None)
        if memory is None:
            if value is None:
                return
            from ..errors import ProjectNotFound

            raise ProjectNotFound(
                f"no user project {name!r} under the store's root.",
                hint="Create it first, or make the store with create=True.",
            )
        session_id = session_id_of(namespace, key)
        with self._lock(name), memory.project.lock("store put"):
            try:
                old = memory.session(session_id)
            except SessionNotFound:
                old = None
            if old is not None and value is not None and old.meta.get("item", {}).get("value") == value:
                return
            if old is not None:
                memory.forget(session=session_id)
            if value is None:
                return
            now = _dt.datetime.now(_dt.timezone.utc)
            created = old.meta["item"]["created_at"] if old is not None else now.isoformat()
            user = memory.project.config.user.name or "user"
            session = Session(
                session_id,
                now.date(),
                now.date().isoformat(),
                (Turn(f"{session_id}:1", user, item_text(value)),),
                source=SOURCE,
                meta={
                    "item": {
                        "namespace": list(namespace),
                        "key": key,
                        "value": value,
                        "created_at": created,
                        "updated_at": now.isoformat(),
                    }
                },
            )
            memory.add_session(session)

    def _items(self, memory: UserMemory) -> list[StoredItem]:
        from ..sessions.archive import Archive

        archive = Archive(memory.project.paths.sessions)
        items = []
        for session_id in archive.ids():
            if session_id.startswith(PREFIX):
                session = archive.read(session_id)
                if session.source == SOURCE and "item" in session.meta:
                    items.append(_item(session))
        return items

    def search(
        self,
        prefix: tuple[str, ...],
        *,
        query: str | None = None,
        filter: dict[str, Any] | None = None,
        limit: int = 10,
        offset: int = 0,
    ) -> list[StoredItem]:
        prefix = tuple(prefix)
        name, _scope = self.split(prefix)
        memory = self.memory(name)
        if memory is None:
            return []

        def under(item: StoredItem) -> bool:
            return item.namespace[: len(prefix)] == prefix and _matches(item.value, filter)

        with self._lock(name):
            if not query:
                items = sorted((i for i in self._items(memory) if under(i)), key=lambda i: i.updated_at, reverse=True)
                return items[offset : offset + limit]
            wanted = offset + limit
            found: dict[str, StoredItem] = {}
            k = max(20, 4 * wanted)
            while True:
                hits = memory.search(query, k=k, channel="all")
                for hit in hits:
                    if not (hit.session_id or "").startswith(PREFIX) or hit.session_id in found:
                        continue
                    try:
                        session = memory.session(hit.session_id)
                    except (SessionNotFound, UacError):
                        continue
                    if session.source == SOURCE and "item" in session.meta:
                        item = _item(session, score=hit.score)
                        if under(item):
                            found[hit.session_id] = item
                if len(found) >= wanted or len(hits) < k or k >= 400:
                    break
                k *= 2
            return list(found.values())[offset : offset + limit]

    def list_namespaces(
        self,
        *,
        prefix: tuple[str, ...] | None = None,
        suffix: tuple[str, ...] | None = None,
        max_depth: int | None = None,
        limit: int = 100,
        offset: int = 0,
    ) -> list[tuple[str, ...]]:
        def fits(labels: tuple[str, ...], pattern: tuple[str, ...] | None, at_end: bool) -> bool:
            if not pattern:
                return True
            if len(labels) < len(pattern):
                return False
            part = labels[-len(pattern) :] if at_end else labels[: len(pattern)]
            return all(p == "*" or p == label for p, label in zip(pattern, part))

        if prefix and prefix[0] != "*":
            names = [self.split(prefix)[0]]
        else:
            names = (
                sorted(p.name for p in self.root.iterdir() if p.is_dir() and is_project(p))
                if self.root.is_dir()
                else []
            )
        found: set[tuple[str, ...]] = set()
        for name in names:
            memory = self.memory(name)
            if memory is None:
                continue
            with self._lock(name):
                for item in self._items(memory):
                    labels = item.namespace
                    if fits(labels, prefix, False) and fits(labels, suffix, True):
                        found.add(labels[:max_depth] if max_depth is not None else labels)
        return sorted(found)[offset : offset + limit]
