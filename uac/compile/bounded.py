"""The bounded LLM mode: the paper's Phase 2, reproduced faithfully.

One call over the first ``[compile] bounded_chars`` characters of the
serialized fact list, producing every domain at once; facts beyond the prefix
are not seen.  The reply's files are checked as the incremental mode checks
its candidates (:mod:`.llm_shared`) and repaired by the one repair loop
(:mod:`.repair`), judged whole (:class:`~.repair.FilesJudge`).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from ..dialect.problems import CodeRejected, Problem
from ..errors import InvalidName
from ..llm.structured import list_reply_schema
from .llm_shared import Candidate, check_candidate, fact_line
from .repair import FilesJudge, RepairPolicy, call_with_repair
from .report import CompileReport, DomainReport, append_history

if TYPE_CHECKING:
    from ..config import CompileConfig
    from ..facts.model import Fact
    from ..llm import LLMClient
    from ..project import Project

BOUNDED_SCHEMA = list_reply_schema(
    "domains", {"name": {"type": "string"}, "schema_py": {"type": "string"}, "state_py": {"type": "string"}}
)


def bounded_prefix(facts: list["Fact"], limit: int) -> list["Fact"]:
    """The facts whose serialized lines fit entirely in the first ``limit`` characters."""
    out = []
    size = 0
    for fact in facts:
        size += len(fact_line(fact)) + 1
        if size > limit:
            break
        out.append(fact)
    return out


def compile_bounded(
    project: "Project", facts: list["Fact"], client: "LLMClient", config: "CompileConfig"
) -> CompileReport:
    from ..templating import render_prompt
    from ..view import store
    from ..view.manifest import write_manifest

    started = time.perf_counter()
    report = CompileReport(mode="bounded", facts_total=len(facts))
    known_ids = {f.id for f in facts}
    prefix = bounded_prefix(facts, config.bounded_chars)
    report.facts_in_prompt = len(prefix)
    prompt = render_prompt("structure_bounded.j2", facts=[fact_line(f) for f in prefix])
    entry = DomainReport("*")
    accepted: dict[str, Candidate] = {}
    failures: dict[str, str] = {}

    def accept(data: Any) -> dict[str, Candidate]:
        items = data.get("domains") if isinstance(data, dict) else None
        if not isinstance(items, list) or not items:
            raise CodeRejected([Problem("reply", 0, 'expected {"domains": [...]} with at least one domain')])
        problems: list[Problem] = []
        failures.clear()
        for item in items:
            name = str(item.get("name", "")) if isinstance(item, dict) else ""
            try:
                store.check_domain_name(name)
                accepted[name] = check_candidate(name, item.get("schema_py"), item.get("state_py"), known_ids)
            except CodeRejected as exc:
                problems.extend(exc.problems)
                failures[name] = exc.message
            except InvalidName as exc:
                problems.append(Problem("reply", 0, exc.message))
                failures[name] = exc.message
        if problems:
            raise CodeRejected(problems)
        return accepted

    with project.lock("compile"):
        policy = RepairPolicy(
            purpose="structure.bounded", schema_name="domains", json_schema=BOUNDED_SCHEMA, rounds=config.repair_rounds
        )
        judge = FilesJudge(accept, shape='{"domains": [{"name": "...", "schema_py": "...", "state_py": "..."}]}')
        exchange = call_with_repair(client, prompt, policy, judge)
        entry.count_calls(exchange.usage)
        history = list(exchange.history)
        if exchange.endpoint_error is not None:
            _log(project, history, len(prefix))
            raise exchange.endpoint_error
        # a reply still rejected after the last round: the domains that validated in it are
        # still written; the failures are reported
        covered: set[str] = set()
        for name in sorted(set(accepted) | set(failures)):
            domain_entry = DomainReport(name)
            report.domains.append(domain_entry)
            if name in failures or name not in accepted:
                domain_entry.status, domain_entry.rejection = "failed", failures.get(name, "rejected")
                continue
            loaded = store.write_domain(project, name, accepted[name].files)
            cited = loaded.cited_ids() & known_ids
            domain_entry.status = "compiled"
            domain_entry.records = loaded.record_count()
            domain_entry.facts_routed = domain_entry.facts_new = domain_entry.facts_covered = len(cited)
            covered |= cited
        _carry_calls(report, entry)
        _log(project, history, len(prefix))
        write_manifest(project)
    report.facts_covered = len(covered)
    report.seconds = time.perf_counter() - started
    return report


def _carry_calls(report: CompileReport, entry: DomainReport) -> None:
    """The one call's tokens and rounds go to the first domain written, or to a failed "*"."""
    if report.domains:
        first = report.domains[0]
        first.prompt_tokens, first.completion_tokens = entry.prompt_tokens, entry.completion_tokens
        first.calls, first.repair_rounds = entry.calls, entry.repair_rounds
        return
    report.domains.append(
        DomainReport(
            "*",
            status="failed",
            rejection="no domain in the reply",
            prompt_tokens=entry.prompt_tokens,
            completion_tokens=entry.completion_tokens,
            calls=entry.calls,
            repair_rounds=entry.repair_rounds,
        )
    )


def _log(project: "Project", history: list[dict[str, Any]], facts_in_prompt: int) -> None:
    for record in history:
        append_history(
            project.paths.internal, {"mode": "bounded", "domain": None, "facts_in_prompt": facts_in_prompt, **record}
        )


__all__ = ["BOUNDED_SCHEMA", "bounded_prefix", "compile_bounded"]
