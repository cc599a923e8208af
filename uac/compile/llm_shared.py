"""What the LLM compile modes share: prompt budgets and candidate checks.

Used by the model routing (:mod:`.routing`), the incremental mode
(:mod:`.incremental`) and the bounded mode (:mod:`.bounded`):

* prompt budgets -- :func:`fact_line`, the one-line form of a fact in every
  prompt, and :func:`batch_facts`, consecutive facts cut to a character budget;
* candidates -- :func:`check_candidate` validates and loads a model's
  ``schema.py``/``state.py`` with compile-level rules on top of the dialect,
  and :func:`canonical_files` re-renders what was accepted;
* the repair loop is :mod:`.repair`'s, one for every mode.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..dialect.loader import LoadedDomain, load_sources
from ..dialect.problems import CodeRejected, Problem

if TYPE_CHECKING:
    from ..facts.model import Fact


def fact_line(fact: "Fact") -> str:
    """The one-line serialization of a fact used in prompts:
    ``[id] (said 2024-05-02; happened 2024-05-01) speaker: text`` -- when it was said,
    and when it happened where the extractor resolved a different date, said with its
    precision (``happened the week before 2024-05-02``, ``happened May 2024``)."""
    dates = []
    if fact.session_date:
        dates.append(f"said {fact.session_date.isoformat()}")
    if fact.event_date and not (fact.event_date.is_day and fact.event_date.start == fact.session_date):
        dates.append(f"happened {fact.event_date.label()}")
    when = f" ({'; '.join(dates)})" if dates else ""
    who = f" {fact.speaker}:" if fact.speaker else ""
    return f"[{fact.id}]{when}{who} {fact.text}"


def batch_facts(facts: list["Fact"], max_chars: int, max_facts: int | None = None) -> list[list["Fact"]]:
    """Consecutive groups of facts whose serialized lines fit ``max_chars`` (at least one
    each), of at most ``max_facts`` facts."""
    batches: list[list["Fact"]] = []
    current: list["Fact"] = []
    size = 0
    for fact in facts:
        length = len(fact_line(fact)) + 1
        if current and (size + length > max_chars or (max_facts is not None and len(current) >= max_facts)):
            batches.append(current)
            current, size = [], 0
        current.append(fact)
        size += length
    if current:
        batches.append(current)
    return batches


@dataclass
class Candidate:
    loaded: LoadedDomain
    files: dict[str, str]


def canonical_files(domain: str, loaded: LoadedDomain) -> dict[str, str]:
    """Re-render a loaded domain deterministically (canonical formatting)."""
    from ..view import store

    entries = [(n, loaded.types[n], v) for n, v in loaded.values.items()]
    return store.render_domain(domain, loaded.schema, entries).files


def check_candidate(domain: str, schema_py: Any, state_py: Any, known_ids: set[str]) -> Candidate:
    """Validate and load a model's files; compile-level rules on top of the grammar."""
    label = f"domains/{domain}"
    if not isinstance(schema_py, str) or not isinstance(state_py, str):
        raise CodeRejected([Problem(label, 0, "schema_py and state_py must both be strings")])
    loaded = load_sources(domain, schema_py, state_py, label=label)
    problems = []
    for cls in loaded.schema.classes:
        if cls.kind != "dataclass":
            continue
        sources = cls.field("sources")
        if sources is None or sources.type.source() != "list[str]":
            problems.append(
                Problem(
                    f"{label}/schema.py",
                    0,
                    f"class {cls.name} needs a field `sources: list[str] = field(default_factory=list)`",
                )
            )
    unknown = sorted(
        i
        for r in loaded.records()
        for i in (getattr(r, "sources", None) or ())
        if isinstance(i, str) and i not in known_ids
    )
    if unknown:
        shown = ", ".join(unknown[:10])
        problems.append(
            Problem(
                f"{label}/state.py", 0, f"sources cite unknown fact ids: {shown}; cite only ids given in the prompt"
            )
        )
    if problems:
        raise CodeRejected(problems)
    return Candidate(loaded, canonical_files(domain, loaded))


__all__ = [
    "Candidate",
    "batch_facts",
    "canonical_files",
    "check_candidate",
    "fact_line",
]
