"""Offline mode: what can be measured when no model is configured.

For every case:

* **import fidelity** -- the records are imported into a temporary user
  project (``UserMemory.import_records``) and the typed state must hold every
  record and field of the input with the right Python type;
* **answerability ceiling** -- the share of the case's support records (the
  records its gold is computed from) that each retrieval system puts in front
  of the model for the question (top-k with expansion; flat facts, a record
  counting when any of its facts is retrieved), against the share present in
  the typed state.  A model that only sees retrieved records cannot be
  expected to answer above this ceiling.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any, Callable

from .cases import Case, Dataset
from .systems.retrieval import FlatFacts, TopKRetrieval
from .typed_state import build_typed_state, check_fidelity, coverage

#: the offline "systems", in report order
OFFLINE_SYSTEMS = {
    "uac_state": "UaC typed state (enumerable)",
    "topk": TopKRetrieval.label,
    "facts": FlatFacts.label,
}


def _support_share(case: Case, ids: list[str]) -> float:
    if not case.support:
        return 1.0
    found = set(ids)
    return sum(1 for rid in case.support if rid in found) / len(case.support)


def offline_case(case: Case, retrievers: list[Any]) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="uac-bench-") as tmp:
        typed = build_typed_state(case, Path(tmp))
        fidelity = check_fidelity(case, typed)
        ceilings = {"uac_state": coverage(case, typed)}
    retrieved = {}
    for retriever in retrievers:
        result = retriever.retrieve(case)
        ceilings[retriever.name] = _support_share(case, result.record_ids)
        retrieved[retriever.name] = len(result.record_ids)
    return {
        "case_id": case.id,
        "suite": case.suite,
        "record_type": case.record_type,
        "pattern": case.pattern,
        "n": case.n,
        "support": len(case.support),
        "fidelity": fidelity.to_json(),
        "ceiling": {name: round(value, 6) for name, value in ceilings.items()},
        "retrieved_records": retrieved,
    }


def run_offline(dataset: Dataset, *, progress: Callable[[int], None] | None = None) -> list[dict[str, Any]]:
    """The offline measurements for every case, in dataset order."""
    retrievers = [TopKRetrieval(), FlatFacts()]
    rows = []
    for case in dataset.cases:
        rows.append(offline_case(case, retrievers))
        if progress is not None:
            progress(1)
    return rows
