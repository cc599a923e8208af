"""The incremental LLM mode (the default): facts compiled domain by domain.

Facts not yet cited by any domain are routed (:mod:`.routing`); each domain
with new facts is compiled in one or more calls, each within ``[compile]
domain_prompt_chars`` characters and each merging its share of the new facts
into the code the previous call produced.  A reply is validated and loaded;
the validator's messages go back for at most ``[compile] repair_rounds``
repair rounds (:func:`.llm_shared.call_with_repair`).  A domain is written
only when all its calls succeeded (temp dir, validate, atomic swap), so a
failed domain keeps its previous view byte-identical.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from ..dialect.loader import LoadedDomain
from ..dialect.problems import CodeRejected
from .llm_shared import Candidate, DomainFailed, batch_facts, call_with_repair, check_candidate, fact_line
from .report import CompileReport, DomainReport, append_history
from .routing import Routing, route_with_model

if TYPE_CHECKING:
    from ..config import CompileConfig
    from ..facts.model import Fact
    from ..llm import LLMClient
    from ..project import Project

FILES_SCHEMA = {
    "type": "object",
    "properties": {"schema_py": {"type": "string"}, "state_py": {"type": "string"}},
    "required": ["schema_py", "state_py"],
    "additionalProperties": False,
}
#: the fact budget of one domain call never drops below this many characters
MIN_FACT_CHARS = 1_000


def compile_domain(
    client: "LLMClient",
    domain: str,
    files: dict[str, str] | None,
    new_facts: list["Fact"],
    known_ids: set[str],
    config: "CompileConfig",
    entry: DomainReport,
    history: list[dict[str, Any]],
) -> Candidate:
    """Merge ``new_facts`` into a domain's files, in budgeted calls."""
    from ..templating import render_prompt

    schema_py = (files or {}).get("schema.py", "")
    state_py = (files or {}).get("state.py", "")
    candidate: Candidate | None = None
    pending = list(new_facts)
    while pending:
        base = len(render_prompt("structure_domain.j2", domain=domain, schema_py=schema_py, state_py=state_py, facts=[]))
        budget = max(MIN_FACT_CHARS, config.domain_prompt_chars - base)
        batch = batch_facts(pending, budget)[0]
        pending = pending[len(batch) :]
        prompt = render_prompt(
            "structure_domain.j2",
            domain=domain,
            schema_py=schema_py,
            state_py=state_py,
            facts=[fact_line(f) for f in batch],
        )
        candidate = call_with_repair(
            client,
            prompt,
            json_schema=FILES_SCHEMA,
            schema_name="domain_files",
            shape='{"schema_py": "...", "state_py": "..."}',
            accept=lambda data: check_candidate(domain, (data or {}).get("schema_py") if isinstance(data, dict) else None, (data or {}).get("state_py") if isinstance(data, dict) else None, known_ids),
            rounds=config.repair_rounds,
            entry=entry,
            history=history,
            purpose=f"structure.domain:{domain}",
        )
        schema_py, state_py = candidate.files["schema.py"], candidate.files["state.py"]
    assert candidate is not None
    return candidate


def _read_files(project: "Project", domain: str) -> dict[str, str]:
    directory = project.paths.domains / domain
    return {name: (directory / name).read_text("utf-8") for name in ("__init__.py", "schema.py", "state.py") if (directory / name).exists()}


def compile_incremental(project: "Project", facts: list["Fact"], client: "LLMClient", config: "CompileConfig") -> CompileReport:
    from ..view import store
    from ..view.manifest import summarize, summary_line, write_manifest

    started = time.perf_counter()
    report = CompileReport(mode="incremental", facts_total=len(facts))
    known_ids = {f.id for f in facts}
    history: list[dict[str, Any]] = []
    with project.lock("compile"):
        view: dict[str, LoadedDomain] = {}
        broken: dict[str, str] = {}
        for name in store.domain_names(project):
            try:
                view[name] = store.load_domain(project, name)
            except CodeRejected as exc:
                broken[name] = exc.message
        cited = {name: loaded.cited_ids() & known_ids for name, loaded in view.items()}
        all_cited = set().union(*cited.values()) if cited else set()
        new_facts = [f for f in facts if f.id not in all_cited]
        routing = Routing()
        if new_facts:
            summaries = {name: summary_line(summarize(loaded)) for name, loaded in view.items()}
            routing = route_with_model(client, new_facts, summaries, max_chars=config.domain_prompt_chars)
        report.routed_by_model, report.routed_by_keywords = routing.by_model, routing.by_keywords
        report.routing_tokens = {"prompt_tokens": routing.prompt_tokens, "completion_tokens": routing.completion_tokens}
        for call in routing.calls:
            append_history(project.paths.internal, {"mode": "incremental", "domain": None, **call})
        grouped: dict[str, list["Fact"]] = {}
        for fact in new_facts:
            grouped.setdefault(routing.routes[fact.id], []).append(fact)
        covered = set(all_cited)
        for domain in sorted(set(grouped) | set(view) | set(broken)):
            routed = grouped.get(domain, [])
            previous = cited.get(domain, set())
            entry = DomainReport(domain, facts_new=len(routed), facts_routed=len(routed) + len(previous))
            report.domains.append(entry)
            if not routed:
                entry.status = "failed" if domain in broken else "unchanged"
                entry.rejection = broken.get(domain)
                if domain in view:
                    entry.records = view[domain].record_count()
                entry.facts_covered = len(previous)
                continue
            if domain in broken:
                entry.status, entry.rejection = "failed", f"the current view does not validate: {broken[domain]}"
                continue
            history.clear()
            try:
                candidate = compile_domain(
                    client,
                    domain,
                    _read_files(project, domain) if domain in view else None,
                    routed,
                    known_ids,
                    config,
                    entry,
                    history,
                )
                loaded = store.write_domain(project, domain, candidate.files)
            except DomainFailed as exc:
                entry.status, entry.rejection = "failed", str(exc)
                entry.facts_covered = len(previous)
                if domain in view:
                    entry.records = view[domain].record_count()
            else:
                now_cited = loaded.cited_ids() & known_ids
                entry.status = "compiled"
                entry.records = loaded.record_count()
                entry.facts_covered = len(now_cited & ({f.id for f in routed} | previous))
                covered |= now_cited
            for record in history:
                append_history(project.paths.internal, {"mode": "incremental", "domain": domain, "status": entry.status, **record})
        write_manifest(project)
    report.facts_covered = len(covered & known_ids)
    report.seconds = time.perf_counter() - started
    return report


__all__ = ["FILES_SCHEMA", "MIN_FACT_CHARS", "compile_domain", "compile_incremental"]
