"""What a compile did: per domain and in total (``uac compile --json``), and
the compile history (``.uac/compile_history.jsonl``, one line per model call)."""

from __future__ import annotations

import datetime as _dt
import json
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..fsutil import make_private_dirs, open_private, read_utf8, split_lines
from ..lookup import find_named

if TYPE_CHECKING:
    from ..llm import Usage
    from ..project import Project
    from .repair import CallUsage


@dataclass
class DomainReport:
    domain: str
    #: compiled | unchanged | failed
    status: str = "unchanged"
    records: int = 0
    facts_routed: int = 0
    facts_new: int = 0
    facts_covered: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    calls: int = 0
    repair_rounds: int = 0
    rejection: str | None = None
    #: incremental mode: each routed fact is recorded (cited by a record), considered
    #: (left out with the model's reason) or pending (its batch failed or it was not addressed)
    facts_recorded: int = 0
    facts_considered: int = 0
    facts_pending: int = 0
    largest_completion: int = 0
    ops_applied: int = 0
    ops_rejected: int = 0
    batches: int = 0
    batches_partial: int = 0
    batches_failed: int = 0
    batches_split: int = 0
    #: what the view says of the domain's facts valid now (:mod:`.coverage`): cited by a record
    #: that is not a timeline entry, only on the timeline (or cited by nothing), left out with a reason
    facts_represented: int = 0
    facts_timeline: int = 0
    facts_left_out: int = 0
    #: facts the domain left out or kept on its timeline that a record of another domain holds
    facts_elsewhere: int = 0
    #: reason -> facts left out for it
    left_out_why: dict[str, int] = field(default_factory=dict)

    @property
    def coverage(self) -> float:
        return self.facts_covered / self.facts_routed if self.facts_routed else 1.0

    def count_calls(self, usage: "CallUsage") -> None:
        """Add what a repaired call cost (:class:`~.repair.CallUsage`)."""
        self.prompt_tokens += usage.prompt_tokens
        self.completion_tokens += usage.completion_tokens
        self.calls += usage.calls
        self.repair_rounds += usage.repair_rounds
        self.largest_completion = max(self.largest_completion, usage.largest_completion)

    @property
    def represented_share(self) -> float:
        from .coverage import share

        return share(self.facts_represented, self.facts_timeline, self.facts_left_out)

    def to_json(self) -> dict[str, Any]:
        return {
            "domain": self.domain,
            "status": self.status,
            "records": self.records,
            "facts_routed": self.facts_routed,
            "facts_new": self.facts_new,
            "facts_covered": self.facts_covered,
            "coverage": round(self.coverage, 4),
            "tokens": {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens},
            "calls": self.calls,
            "repair_rounds": self.repair_rounds,
            "rejection": self.rejection,
            "facts": {
                "recorded": self.facts_recorded,
                "considered": self.facts_considered,
                "pending": self.facts_pending,
            },
            # what the view says of the domain's facts (the keys above count what the compile did)
            "view": {
                "represented": self.facts_represented,
                "timeline": self.facts_timeline,
                "left_out": self.facts_left_out,
                "elsewhere": self.facts_elsewhere,
                "left_out_why": dict(self.left_out_why),
            },
            "represented_share": round(self.represented_share, 4),
            "operations": {"applied": self.ops_applied, "rejected": self.ops_rejected},
            "batches": {
                "committed": self.batches,
                "partial": self.batches_partial,
                "failed": self.batches_failed,
                "split": self.batches_split,
            },
            "largest_completion_tokens": self.largest_completion,
        }


@dataclass
class CompileReport:
    mode: str
    facts_total: int = 0
    #: bounded mode: facts whose serialization fit in the prompt prefix
    facts_in_prompt: int | None = None
    facts_covered: int = 0
    domains: list[DomainReport] = field(default_factory=list)
    routing_tokens: dict[str, int] = field(default_factory=lambda: {"prompt_tokens": 0, "completion_tokens": 0})
    routed_by_model: int = 0
    routed_by_keywords: int = 0
    #: offline mode: facts routed by the embedding model's similarity to the domains
    routed_by_meaning: int = 0
    seconds: float = 0.0
    #: every model call of the compile (routing, domains, repairs; cache hits apart)
    usage: "Usage | None" = None
    #: offline mode: kind name -> {"domain", "collection", "class", "status", "facts", "records", "reason"}
    kinds: dict[str, dict[str, Any]] | None = None
    #: over the whole view, each fact once (:func:`.coverage.fact_coverage`): represented, timeline,
    #: left_out, not_compiled
    view_totals: dict[str, int] = field(default_factory=dict)
    #: likely duplicates across domains: {"kind", "records": [a, b], "value", "fix"} (:mod:`.duplicates`)
    duplicates: list[dict[str, Any]] = field(default_factory=list)
    #: recorded / considered / pending over the whole compile, each fact once (a fact routed to
    #: several domains is recorded if any records it); empty: the sums of the domains
    facts_once: dict[str, int] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return all(d.status != "failed" for d in self.domains)

    @property
    def coverage(self) -> float:
        return self.facts_covered / self.facts_total if self.facts_total else 1.0

    @property
    def represented_share(self) -> float:
        """The share of the facts compiled that a record (not a timeline entry) represents."""
        from .coverage import share

        totals = self.view_totals
        return share(totals.get("represented", 0), totals.get("timeline", 0), totals.get("left_out", 0))

    def domain(self, name: str) -> DomainReport:
        return find_named(self.domains, name, key=lambda report: report.domain)

    def to_json(self) -> dict[str, Any]:
        prompt = sum(d.prompt_tokens for d in self.domains) + self.routing_tokens["prompt_tokens"]
        completion = sum(d.completion_tokens for d in self.domains) + self.routing_tokens["completion_tokens"]
        data = {
            "mode": self.mode,
            "ok": self.ok,
            "domains": [d.to_json() for d in self.domains],
            "routing": {
                "by_model": self.routed_by_model,
                "by_keywords": self.routed_by_keywords,
                "by_meaning": self.routed_by_meaning,
                "tokens": dict(self.routing_tokens),
            },
            "totals": {
                "facts": self.facts_total,
                "facts_in_prompt": self.facts_in_prompt,
                "facts_covered": self.facts_covered,
                "coverage": round(self.coverage, 4),
                "facts_recorded": self.facts_once.get("recorded", sum(d.facts_recorded for d in self.domains)),
                "facts_considered": self.facts_once.get("considered", sum(d.facts_considered for d in self.domains)),
                "facts_pending": self.facts_once.get("pending", sum(d.facts_pending for d in self.domains)),
                "facts_represented": self.view_totals.get("represented", 0),
                "facts_timeline": self.view_totals.get("timeline", 0),
                "facts_left_out": self.view_totals.get("left_out", 0),
                "represented_share": round(self.represented_share, 4),
                "largest_completion_tokens": max((d.largest_completion for d in self.domains), default=0),
                "records": sum(d.records for d in self.domains),
                "domains_compiled": sum(1 for d in self.domains if d.status == "compiled"),
                "domains_failed": sum(1 for d in self.domains if d.status == "failed"),
                "tokens": {"prompt_tokens": prompt, "completion_tokens": completion},
                "repair_rounds": sum(d.repair_rounds for d in self.domains),
            },
            "usage": None if self.usage is None else self.usage.report(),
            "seconds": round(self.seconds, 3),
        }
        if self.kinds is not None:
            data["kinds"] = self.kinds
        data["duplicates"] = list(self.duplicates)
        return data


#: one writer of the history file at a time
_HISTORY_LOCK = threading.Lock()


def append_history(internal: Path, entry: dict[str, Any]) -> None:
    """Append one line to ``.uac/compile_history.jsonl`` (domains compiled side by side
    append whole lines, one at a time)."""
    make_private_dirs(internal)
    entry = {"ts": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"), **entry}
    line = json.dumps(entry, ensure_ascii=False, sort_keys=True) + "\n"
    # a diagnostic log: appended without fsync (a crash may lose its last lines, never the view)
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT
    with _HISTORY_LOCK, os.fdopen(open_private(internal / "compile_history.jsonl", flags), "wb") as handle:
        handle.write(line.encode("utf-8"))


#: a summary of the last compile, for overviews (derived data under ``.uac/``)
LAST_COMPILE = "last_compile.json"


def write_last_compile(project: "Project", report: CompileReport) -> None:
    """Record ``report`` (with the time it finished) as the project's last compile."""
    from ..fsutil import atomic_write_text

    data = report.to_json()
    summary = {
        "finished_at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "mode": data["mode"],
        "ok": data["ok"],
        "seconds": data["seconds"],
        "totals": data["totals"],
        "domains": [
            {k: d[k] for k in ("domain", "status", "records", "coverage", "represented_share")} for d in data["domains"]
        ],
    }
    atomic_write_text(project.paths.internal / LAST_COMPILE, json.dumps(summary, ensure_ascii=False, indent=1) + "\n")


def read_history(project: "Project") -> list[dict[str, Any]]:
    path = project.paths.internal / "compile_history.jsonl"
    if not path.exists():
        return []
    out = []
    for line in split_lines(read_utf8(path)):
        if line.strip():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return out
