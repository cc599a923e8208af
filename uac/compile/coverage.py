"""Where every fact stands in the compiled view: recorded, considered, pending or not compiled yet.

* recorded -- cited by a record of a domain;
* considered -- left out by the model with a reason (the domain's ledger);
* pending -- routed to a domain whose batch failed or that did not address it;
* not compiled -- valid facts no compile has routed yet.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from ..dialect.loader import LoadedDomain
from ..project import Project
from .ledger import EMPTY_STATE_HASH, ledger_domains, load_ledger


@dataclass
class Coverage:
    domains: dict[str, dict[str, int]] = field(default_factory=dict)
    not_compiled: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"domains": self.domains, "not_compiled": self.not_compiled}


def fact_coverage(project: Project, fact_ids: Iterable[str], view: dict[str, LoadedDomain]) -> Coverage:
    """The three counts per domain for the facts ``fact_ids`` (the facts valid now)."""
    wanted = set(fact_ids)
    coverage = Coverage()
    settled: set[str] = set()
    for name in sorted(set(view) | set(ledger_domains(project.paths.internal))):
        loaded = view.get(name)
        ledger = load_ledger(project.paths.internal, name, loaded.source_hash if loaded is not None else EMPTY_STATE_HASH)
        recorded = (loaded.cited_ids() if loaded is not None else set()) & wanted
        considered = (set(ledger.considered) & wanted) - recorded
        pending = (set(ledger.pending) & wanted) - recorded - considered
        coverage.domains[name] = {"recorded": len(recorded), "considered": len(considered), "pending": len(pending)}
        settled |= recorded | considered | pending
    coverage.not_compiled = len(wanted - settled)
    return coverage


__all__ = ["Coverage", "fact_coverage"]
