"""``doctor`` check of the search index of imported records (``.uac/index/records.*``).

The index follows the view (:mod:`uac.records.search`): after a compile or
a hand edit it is behind until the next search brings it up to date, which is no
fault.  A fault is an index that cannot be read -- a line of ``records.jsonl``
that is not an entry, vectors that do not fit the entries -- or, in the deep
check, one that claims to be in step with the view yet holds other records than
the view's imported ones.  ``repair`` makes it again from the view.
"""

from __future__ import annotations

from ..context import MemoryContext
from ..errors import UacError
from ..records.search import imported_entries, in_step, record_index, sync_record_index, view_stamps
from .result import FAIL, OK, CheckResult

#: the index's files under ``.uac/index/``
FILES = ("records.json", "records.jsonl", "records.vectors")


def check_records_index(ctx: MemoryContext, repair: bool, *, deep: bool = True) -> CheckResult:
    project = ctx.project
    index = record_index(project)
    problem = index.problem()
    if problem is None and deep and in_step(project):
        problem = _differs_from_view(ctx)
    if problem is None:
        # behind: the view changed since the index was written (nothing to index is no lag)
        behind = not in_step(project) and (bool(view_stamps(project)) or len(index) > 0)
        if behind and repair:
            with project.lock("records index"):
                embedded = sync_record_index(project)
            return CheckResult(
                "records_index",
                OK,
                f"{len(index)} imported records indexed",
                repaired=f"brought in step with the view ({embedded} record(s) embedded)",
            )
        detail = f"{len(index)} imported records indexed"
        if behind:
            detail += "; behind the view (a compile or an edit since): the next search brings it up to date"
        return CheckResult("records_index", OK, detail)
    if repair:
        with project.lock("rebuild records index"):
            for name in FILES:
                (index.dir / name).unlink(missing_ok=True)
            sync_record_index(project)
        return CheckResult(
            "records_index", OK, f"rebuilt from the view: {len(index)} imported records", repaired=problem
        )
    return CheckResult(
        "records_index",
        FAIL,
        f"the search index of imported records is damaged: {problem} (run 'uac doctor --repair' to rebuild it)",
        data={"problem": problem},
    )


def _differs_from_view(ctx: MemoryContext) -> str | None:
    """How the entries differ from the view's imported records (``None``: they do not)."""
    from ..view.store import domain_names, load_domain

    held = {e.id: e.text for e in record_index(ctx.project).entries()}
    expected: dict[str, str] = {}
    for name in domain_names(ctx.project):
        try:
            loaded = load_domain(ctx.project, name)
        except UacError:
            continue  # the view check reports it; its records are not searchable until it validates
        expected.update({e.id: e.text for e in imported_entries(name, loaded.values)})
    if held == expected:
        return None
    extra = sorted(set(held) - set(expected))
    missing = sorted(set(expected) - set(held))
    changed = sorted(i for i in set(held) & set(expected) if held[i] != expected[i])
    parts = [f"{len(extra)} indexed record(s) not in the view (e.g. {extra[0]})"] if extra else []
    parts += [f"{len(missing)} record(s) of the view not indexed (e.g. {missing[0]})"] if missing else []
    parts += [f"{len(changed)} indexed record(s) whose text is not the view's (e.g. {changed[0]})"] if changed else []
    return "; ".join(parts)
