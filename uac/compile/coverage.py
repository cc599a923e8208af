"""Where every fact stands in the compiled view.

Two ways of counting, per domain:

* what the compile did with the facts it routed there -- recorded (cited by a
  record of the domain, timeline entries included), considered (left out by the
  model with a reason: the domain's ledger), pending (its batch failed or the
  model did not address it);
* what the view says of them -- represented (cited by a record that is not a
  timeline entry: a trip, a job), timeline (only on the domain's dated timeline,
  or routed there and cited by no record) and left out with the reason (the
  ledger's ``considered``, and the facts the offline kinds' rules saw but made no
  record of: "a place the gazetteer does not know").  The share represented is
  what a question over the records can count on; the rest is in FACTS only.
  A fact a domain left out or kept on its timeline that a record of ANOTHER domain
  holds is counted apart (``elsewhere``): it is in the view, so it is neither left
  out nor only on a timeline, and the domain's share is taken over the others.

Facts valid now that no compile has routed yet are counted apart (not compiled).
The offline compile keeps its left-out facts, with their reasons, beside the
ledger (``.uac/compile/<domain>/offline_left_out.json``) for the exact files it
wrote; a view rewritten since lends none of them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable

from ..dialect.loader import LoadedDomain
from ..fsutil import atomic_write_text, read_json_object
from ..project import Project
from .ledger import EMPTY_STATE_HASH, ledger_dir, ledger_domains, load_ledger

if TYPE_CHECKING:
    from .report import CompileReport

#: the offline compile's left-out facts of one domain (fact id -> why), for one file state
OFFLINE_LEFT_OUT = "offline_left_out.json"
#: the reason given for a fact the model considered and left out (its own words are in the ledger)
CONSIDERED = "left out by the model"
#: counted per domain by :func:`fact_coverage`
COUNTS = ("recorded", "considered", "pending", "represented", "timeline", "left_out", "elsewhere")


@dataclass
class Coverage:
    #: domain -> the counts of :data:`COUNTS` and ``left_out_why`` (reason -> facts)
    domains: dict[str, dict[str, Any]] = field(default_factory=dict)
    not_compiled: int = 0
    #: over every domain, each fact counted once: represented anywhere, else left out, else timeline
    totals: dict[str, int] = field(default_factory=dict)
    #: the facts a compile placed in some domain that no record represents (timeline or left out)
    unrepresented: set[str] = field(default_factory=set)
    #: domain -> the facts of :attr:`unrepresented` it was given (no record of any domain holds them)
    unrepresented_in: dict[str, set[str]] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"domains": self.domains, "not_compiled": self.not_compiled, "totals": self.totals}


def timeline_collections(loaded: LoadedDomain) -> set[str]:
    """The names of the domain's dated timelines: collections of the offline compile's ``Event``."""
    from .offline import written_offline

    out = set()
    for name, spec in loaded.types.items():
        if spec.kind == "list" and spec.args and spec.args[0].kind == "class":
            cls = loaded.schema.get(spec.args[0].name)
            if cls is not None and cls.name == "Event" and written_offline(cls):
                out.add(name)
    return out


def _cited(records: Iterable[Any]) -> set[str]:
    cited: set[str] = set()
    for record in records:
        for attr in ("sources", "notes"):
            items = getattr(record, attr, None)
            if isinstance(items, (list, tuple)):
                cited.update(i for i in items if isinstance(i, str))
    return cited


def represented_ids(loaded: LoadedDomain) -> tuple[set[str], set[str]]:
    """(facts cited by a record that is not a timeline entry, facts cited by a timeline entry)."""
    timelines = timeline_collections(loaded)
    on_timeline = _cited(r for name in timelines for r in loaded.values.get(name) or ())
    rest = LoadedDomain(
        loaded.name,
        loaded.schema,
        loaded.classes,
        {k: v for k, v in loaded.values.items() if k not in timelines},
        loaded.types,
        loaded.source_hash,
    )
    return _cited(rest.records()), on_timeline


def save_offline_left_out(project: Project, domain: str, source_hash: str, reasons: dict[str, str]) -> None:
    """Keep the offline compile's left-out facts of ``domain`` for its files with ``source_hash``."""
    data = {"source_hash": source_hash, "facts": dict(sorted(reasons.items()))}
    atomic_write_text(
        ledger_dir(project.paths.internal, domain) / OFFLINE_LEFT_OUT,
        json.dumps(data, ensure_ascii=False, indent=1) + "\n",
    )


def load_offline_left_out(project: Project, domain: str, source_hash: str | None) -> dict[str, str]:
    """The offline left-out facts of ``domain`` (fact id -> why), if they belong to its files now."""
    path = ledger_dir(project.paths.internal, domain) / OFFLINE_LEFT_OUT
    data = read_json_object(path)
    if data is None or data.get("source_hash") != source_hash or not isinstance(data.get("facts"), dict):
        return {}
    return {str(k): str(v) for k, v in data["facts"].items()}


def fact_coverage(project: Project, fact_ids: Iterable[str], view: dict[str, LoadedDomain]) -> Coverage:
    """The counts per domain for the facts ``fact_ids`` (the facts valid now)."""
    wanted = set(fact_ids)
    coverage = Coverage()
    settled: set[str] = set()
    represented_all: set[str] = set()
    left_out_all: set[str] = set()
    timeline_all: set[str] = set()
    #: domain -> (its left-out facts, the offline reasons)
    left_out_of: dict[str, tuple[set[str], dict[str, str]]] = {}
    for name in sorted(set(view) | set(ledger_domains(project.paths.internal))):
        loaded = view.get(name)
        ledger = load_ledger(
            project.paths.internal, name, loaded.source_hash if loaded is not None else EMPTY_STATE_HASH
        )
        recorded = (loaded.cited_ids() if loaded is not None else set()) & wanted
        considered = (set(ledger.considered) & wanted) - recorded
        pending = (set(ledger.pending) & wanted) - recorded - considered
        if loaded is not None:
            in_records, on_timeline = (ids & wanted for ids in represented_ids(loaded))
            unclear = load_offline_left_out(project, name, loaded.source_hash)
        else:
            in_records, on_timeline, unclear = set(), set(), {}
        why: dict[str, int] = {}
        left_out: set[str] = set()
        for fact_id in sorted(((set(ledger.considered) | set(unclear)) & wanted) - in_records):
            reason = unclear.get(fact_id) or CONSIDERED
            why[reason] = why.get(reason, 0) + 1
            left_out.add(fact_id)
        timeline = ((on_timeline | pending | recorded) - in_records) - left_out
        coverage.domains[name] = {
            "recorded": len(recorded),
            "considered": len(considered),
            "pending": len(pending),
            "represented": len(in_records),
            "timeline": len(timeline),
            "left_out": len(left_out),
            "elsewhere": 0,
            "left_out_why": why,
        }
        settled |= recorded | considered | pending
        coverage.unrepresented_in[name] = timeline | left_out
        left_out_of[name] = (left_out, unclear)
        represented_all |= in_records
        left_out_all |= left_out
        timeline_all |= timeline
    coverage.not_compiled = len(wanted - settled)
    left_out_all -= represented_all
    coverage.unrepresented = (timeline_all | left_out_all) - represented_all
    for name, ids in coverage.unrepresented_in.items():
        _count_held_elsewhere(coverage.domains[name], ids & represented_all, *left_out_of[name])
        ids -= represented_all
    coverage.totals = {
        "represented": len(represented_all),
        "timeline": len(timeline_all - represented_all - left_out_all),
        "left_out": len(left_out_all),
        "not_compiled": coverage.not_compiled,
    }
    return coverage


def _count_held_elsewhere(counts: dict[str, Any], held: set[str], left_out: set[str], unclear: dict[str, str]) -> None:
    """Move the facts of a domain's timeline and left-out counts that another domain's
    record holds (``held``) to its ``elsewhere`` count, their reasons with them."""
    why = counts["left_out_why"]
    for fact_id in held:
        if fact_id not in left_out:
            counts["timeline"] -= 1
            continue
        reason = unclear.get(fact_id) or CONSIDERED
        counts["left_out"] -= 1
        why[reason] -= 1
        if not why[reason]:
            del why[reason]
    counts["elsewhere"] = len(held)


def share(represented: int, timeline: int, left_out: int) -> float:
    """The share of a domain's facts that its records represent (1.0 for a domain without facts)."""
    total = represented + timeline + left_out
    return represented / total if total else 1.0


def add_view_coverage(project: Project, report: "CompileReport", facts: Iterable[Any]) -> None:
    """Fill the report's represented / timeline / left-out counts from the view as it is now."""
    from ..errors import UacError
    from ..view.store import domain_names, load_domain

    view = {}
    for name in domain_names(project):
        try:
            view[name] = load_domain(project, name)
        except UacError:
            continue  # a domain that does not load represents nothing; doctor names it
    coverage = fact_coverage(project, [f.id for f in facts], view)
    for entry in report.domains:
        counts = coverage.domains.get(entry.domain)
        if counts is not None:
            entry.facts_represented = counts["represented"]
            entry.facts_timeline = counts["timeline"]
            entry.facts_left_out = counts["left_out"]
            entry.facts_elsewhere = counts["elsewhere"]
            entry.left_out_why = dict(counts["left_out_why"])
    report.view_totals = dict(coverage.totals)


__all__ = [
    "Coverage",
    "add_view_coverage",
    "fact_coverage",
    "load_offline_left_out",
    "represented_ids",
    "save_offline_left_out",
    "share",
    "timeline_collections",
]
