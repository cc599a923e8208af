"""Forgetting reaches the compiled view and the compile bookkeeping.

When facts are forgotten, every domain is checked at once (not at the next
compile): records citing only forgotten facts are removed, records citing some
lose those citations and are queued for a revisit, and the ledgers drop what
they kept of them (the reasons facts were left out, retired records that
cited them).  The compile history drops the lines that mention a forgotten
fact or a word only the forgotten text used, and the view's change log
(:mod:`uac.view.changes`) drops the changes only forgotten facts caused and
the forgotten ids and words from the others; these rewrites of the view are
not logged as changes.
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass, field
from typing import Any

from ..compile.ledger import EMPTY_STATE_HASH, ledger_dir, ledger_domains, load_ledger, prune_ledgers, save_ledger
from ..compile.working_copy import DomainWork
from ..dialect.problems import CodeRejected
from ..fieldjson import fields_json
from ..fsutil import atomic_write_text, read_utf8, split_lines
from ..project import Project
from ..view import store
from ..view.changes import compile_scope, purge
from ..view.manifest import write_manifest


@dataclass
class ViewForgetReport:
    #: changes of the view's change log dropped or rewritten
    changes_purged: int = 0
    records_removed: int = 0
    records_revisited: int = 0
    domains_rewritten: list[str] = field(default_factory=list)
    history_lines_dropped: int = 0

    def to_json(self) -> dict[str, Any]:
        return fields_json(self)


def _strip(work: DomainWork, doomed: set[str]) -> tuple[int, list[str]]:
    """Remove or trim the records citing ``doomed`` facts: (removed, ids of trimmed managed records)."""
    removed = 0
    trimmed: list[str] = []
    for name, value in list(work.values.items()):
        if not isinstance(value, list):
            continue
        kept = []
        for record in value:
            sources = getattr(record, "sources", None) if dataclasses.is_dataclass(record) else None
            if not isinstance(sources, list) or not doomed.intersection(sources):
                kept.append(record)
                continue
            left = [s for s in sources if s not in doomed]
            if not left:
                removed += 1
                continue
            kept.append(dataclasses.replace(record, sources=left))
            if isinstance(getattr(record, "id", None), str):
                trimmed.append(record.id)
        work.values[name] = kept
    work.ids.stale()
    return removed, trimmed


def forget_in_view(project: Project, doomed: set[str], words: set[str]) -> ViewForgetReport:
    """Apply a forget of the fact ids ``doomed`` to every domain (caller holds the lock)."""
    report = ViewForgetReport()
    with compile_scope(project, "forget", record=False):  # what a forget removes is logged nowhere
        _forget_domains(project, doomed, words, report)
    report.history_lines_dropped = _purge_history(project, mentions_id(doomed), words)
    report.changes_purged = purge(project, doomed, mentions_id(doomed), words)
    write_manifest(project)
    return report


def _forget_domains(project: Project, doomed: set[str], words: set[str], report: ViewForgetReport) -> None:
    internal = project.paths.internal
    names = set(store.domain_names(project)) | set(ledger_domains(internal))
    for name in sorted(names):
        loaded = None
        if name in store.domain_names(project):
            try:
                loaded = store.load_domain(project, name)
            except CodeRejected:
                continue  # doctor reports it; nothing of it can be read to forget
        ledger = load_ledger(internal, name, loaded.source_hash if loaded is not None else EMPTY_STATE_HASH)
        before = json.dumps(ledger.to_json(), sort_keys=True)
        ledger.considered = {k: v for k, v in ledger.considered.items() if k not in doomed and not _mentions(v, words)}
        ledger.pending = [p for p in ledger.pending if p not in doomed]
        ledger.retired = [
            r
            for r in ledger.retired
            if not doomed.intersection(r.get("cited", ()))
            and not doomed.intersection(r.get("sources", ()))
            and not _mentions(json.dumps(r, ensure_ascii=False), words)
        ]
        ledger.superseded_seen = [s for s in ledger.superseded_seen if s not in doomed]
        files = None
        if loaded is not None:
            work = DomainWork.from_loaded(loaded, adopt=False)
            removed, trimmed = _strip(work, doomed)
            if removed or trimmed:
                report.records_removed += removed
                report.records_revisited += len(trimmed)
                ledger.revisit = sorted(set(ledger.revisit) | set(trimmed))
                files = work.output.files()
        if files is not None:
            digest = store.files_digest(files)
            save_ledger(internal, ledger, digest)
            store.write_domain(project, name, files)
            prune_ledgers(internal, name, digest)
            report.domains_rewritten.append(name)
        elif json.dumps(ledger.to_json(), sort_keys=True) != before:
            digest = loaded.source_hash if loaded is not None else EMPTY_STATE_HASH
            save_ledger(internal, ledger, digest)
            prune_ledgers(internal, name, digest)
        pattern = mentions_id(doomed)
        for stale in ledger_dir(internal, name).glob("ledger-*.json"):
            text = stale.read_text("utf-8")
            if _mentions(text, words) or pattern.search(text):
                stale.unlink()  # a ledger that still kept forgotten words


def mentions_id(ids: set[str]) -> "re.Pattern[str]":
    """A pattern that finds any of ``ids`` as a whole id (``s1-f1`` but not ``s1-f10``)."""
    if not ids:
        return re.compile(r"(?!x)x")
    alternatives = "|".join(re.escape(i) for i in sorted(ids, key=len, reverse=True))
    return re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w-])")


def _mentions(text: str, words: set[str]) -> bool:
    lowered = text.lower()
    return any(w in lowered for w in words)


def _purge_history(project: Project, doomed: "re.Pattern[str]", words: set[str]) -> int:
    path = project.paths.internal / "compile_history.jsonl"
    if not path.exists():
        return 0
    kept = []
    dropped = 0
    for line in split_lines(read_utf8(path)):
        if doomed.search(line) or _mentions(line, words):
            dropped += 1
        else:
            kept.append(line)
    if dropped:
        atomic_write_text(path, "".join(line + "\n" for line in kept))
    return dropped


__all__ = ["ViewForgetReport", "forget_in_view"]
