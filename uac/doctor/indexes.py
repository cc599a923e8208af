"""``doctor`` check of the indexes: do they cover exactly the log and the archive?

Fast (the default): the manifest's settings and the log position it records
(is it the log as it is?), the fact ids of the corpus against the log's,
every derived file against
the checksum recorded when it was written (:mod:`uac.index.digests`), and
the saved tables' own zip checksums.  Chroma is not opened.  Deep (and
repair): every entry of both corpora against the log and the archive (fact
content checksums, chunk counts per session) and the vector collections'
counts (:func:`uac.index.maintain.index_problems`).
"""

from __future__ import annotations

import zipfile
from pathlib import Path

from ..context import MemoryContext
from ..errors import StoreError, UnsafePath
from ..facts.log import LogState
from ..sessions.archive import Archive
from .result import FAIL, OK, CheckResult

#: saved tables of earlier versions (numpy zip files, each member with its CRC-32);
#: the packed tables (``*.pack``) keep a CRC-32 per array
SAVED_TABLES = ("facts.corpus.npz", "archive.corpus.npz", "facts.bm25.npz", "archive.bm25.npz", "log-table.npz")


def check_indexes(ctx: MemoryContext, repair: bool, *, deep: bool = True) -> CheckResult:
    project = ctx.project
    index = ctx.index
    log = ctx.fact_log()
    try:
        state = log.read() if deep else log.head()
    except (StoreError, UnsafePath) as exc:
        return CheckResult("indexes", FAIL, f"cannot check the indexes: {exc.message}")
    try:
        if isinstance(state, LogState):  # deep
            from ..index.maintain import index_problems

            problems = index_problems(index, state, Archive(project.paths.sessions)) + _file_problems(index.dir)
        else:
            problems = _fast_problems(ctx)
    except (StoreError, UnsafePath) as exc:
        problems = [exc.message]
    if not problems:
        facts = len(index.channel("facts")) if index.read_manifest() else 0
        chunks = len(index.channel("archive")) if index.read_manifest() else 0
        how = "" if deep else " (fast check: positions, ids and checksums; the deep check compares every entry)"
        return CheckResult("indexes", OK, f"in step with the log: {facts} facts, {chunks} archive chunks{how}")
    if repair:
        from ..index.maintain import rebuild

        with project.lock("rebuild indexes"):
            state = log.read()
            facts, chunks = rebuild(index, state, Archive(project.paths.sessions))
        return CheckResult(
            "indexes",
            OK,
            f"rebuilt from the log and the archive: {facts} facts, {chunks} archive chunks",
            repaired="; ".join(problems),
        )
    return CheckResult(
        "indexes",
        FAIL,
        "; ".join(problems[:5]) + " (run 'uac doctor --repair' to rebuild)",
        data={"problems": problems},
    )


def _fast_problems(ctx: MemoryContext) -> list[str]:
    from ..index.catchup import coverage

    index = ctx.index
    log = ctx.fact_log()
    head = log.head()
    problems: list[str] = []
    manifest = index.read_manifest()
    if manifest is None:
        if head.fact_ids or head.sessions:
            problems.append("the index manifest is missing")
        return problems
    status = coverage(index, head, log)
    if status == "settings":
        problems.append(f"the indexes were built with other settings ({manifest})")
    elif status == "grown":
        problems.append("the indexes lack sessions committed to the log since they were last brought up to date")
    elif status == "unknown":
        problems.append("the log position the indexes record is not the log's (the log was changed or replaced)")
    facts = index.channel("facts")
    indexed = set(facts.rows.order)
    missing = [i for i in head.fact_ids if i not in indexed]
    extra = [i for i in facts.rows.order if i not in head.fact_ids]
    if missing:
        problems.append(f"{len(missing)} fact(s) of the log are not indexed (e.g. {sorted(missing)[0]})")
    if extra:
        problems.append(f"{len(extra)} indexed fact(s) are not in the log (e.g. {extra[0]})")
    chunks = index.channel("archive")
    stray = {s for s in chunks.rows.table.sessions if s not in head.sessions}
    if stray:
        problems.append(f"{len(stray)} indexed session(s) are not in the log (e.g. {sorted(stray)[0]})")
    if index.backend == "http":
        # with a Chroma server, Chroma is what searches read: a server that lost its data
        # (or was replaced) is a fault even in the fast check, and a count is one request
        for name in ("facts", "archive"):
            channel = index.channel(name)
            held, expected = channel.vector_count(), len(channel.rows.order)
            if held != expected:
                problems.append(f"the Chroma server holds {held} {name} vector(s) for {expected} indexed entries")
    if not index.uses_chroma:
        # without Chroma the flat copies are the only store of the vectors
        for name in ("facts", "archive"):
            channel = index.channel(name)
            if len(channel) and not channel.vectors.covered():
                problems.append(
                    f"the {name} vectors are not in step with their {len(channel)} indexed entries "
                    "and there is no Chroma store to rebuild them from"
                )
    # with Chroma, a flat vector copy out of step with its corpus is no fault: a search
    # then asks Chroma and rebuilds the copy; one in step is checked against its checksum below
    problems += _file_problems(index.dir)
    return problems


def _file_problems(directory: Path) -> list[str]:
    """Derived files against their recorded checksums; saved tables against their own."""
    from ..index.digests import check_digests

    problems, _checked = check_digests(directory)
    from ..packed import pack_problem

    for path in sorted(Path(directory).glob("*.pack")):
        problem = pack_problem(path)
        if problem is not None:
            problems.append(f".uac/index/{path.name} is damaged ({problem})")
    for name in SAVED_TABLES:
        path = Path(directory) / name
        if not path.exists():
            continue
        try:
            with zipfile.ZipFile(path) as saved:
                bad = saved.testzip()
        except (OSError, zipfile.BadZipFile, EOFError) as exc:
            problems.append(f".uac/index/{name} is damaged ({exc})")
            continue
        if bad is not None:
            problems.append(f".uac/index/{name} is damaged (member {bad})")
    return problems
