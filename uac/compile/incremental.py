"""The incremental LLM mode (the default): the model writes operations, uac writes the code.

For every compile:

1. Facts neither recorded (cited by a record) nor considered (left out with a
   reason, in the domain's :mod:`ledger <.ledger>`) are routed to domains
   (:mod:`.routing`).  Records citing facts that were superseded since are
   queued for a revisit in their domain.
2. Each domain with routed facts or revisits is compiled batch by batch.  A
   batch holds at most ``[compile] batch_facts`` facts within ``[compile]
   domain_prompt_chars``; the model sees the domain's classes, the existing
   records that share words with the batch (:mod:`.related`, at most
   ``[compile] related_chars``), the records to revisit and the new facts, and
   answers with operations (:mod:`.ops`).  No reply grows with the size of the
   domain.
3. uac checks each operation, applies the valid ones and sends every problem
   of the reply back at once for at most ``[compile] repair_rounds`` rounds,
   with the domain as the applied operations left it (:func:`repair_prompt`).
   Facts still unaddressed stay *pending* and are sent again next time.
4. After each batch, the ledger of the new state and then the domain's files
   (rendered by uac, validated and swapped in atomically) are written: a
   crash leaves a domain as before or as after a whole batch.  A batch costs
   what it changed: records keep their rendered lines, and the files are shown
   to pass the full validator from the changed records
   (:func:`~uac.dialect.partial.check_files`; the full validator runs when
   that cannot be shown).  A batch is rendered, checked and written on a
   thread of the domain's own while the model answers the next one
   (:class:`_Writer`; the writes stay in order; a batch that cannot be written
   puts the domain back to the batch before, and the batch answered meanwhile
   is planned again), and the load cache is filled once, after the domain's
   last batch.
   A reply cut off at the token limit splits the batch in two; an endpoint
   error stops that domain only; the manifest is always written.

Domains are independent: they are compiled side by side, up to the client's
``[llm] concurrency`` (:func:`uac.llm.parallel.map_ordered`); within a domain
the batches stay one after another (each builds on the records of the one
before).  Each domain writes only its own ledger and directory (a swap
recovers only its own domain's leftovers), and the report lists the domains
in name order whatever order they finished in.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Sequence

from ..dialect.loader import LoadedDomain, source_hash
from ..dialect.partial import check_files, preload
from ..dialect.problems import CodeRejected
from ..dialect.validate import validate_schema
from ..errors import ModelError, UacError
from ..facts.log import FactLog, LogState
from ..failpoints import crash_point
from ..llm.parallel import map_ordered
from ..llm.progress import ProgressCallback, Tracker
from ..templating import render_prompt
from ..view import store
from ..view.changes import offer
from ..view.manifest import write_manifest
from .duplicates import find_duplicates
from .ended import ended_facts
from .ledger import EMPTY_STATE_HASH as EMPTY_HASH
from .ledger import Ledger, ledger_domains, load_ledger, prune_ledgers, save_ledger
from .llm_shared import batch_facts, fact_line
from .ops import OP_KINDS, BatchOutcome, apply_operations
from .order import main_first, pulls
from .related import CrossIndex, RecordIndex, select_related
from .repair import Exchange, RepairPolicy, Verdict, call_with_repair
from .report import CompileReport, DomainReport, append_history
from .routing import Routing, route_with_model
from .shown import class_lines, record_line, revisit_line
from .working_copy import DomainWork

if TYPE_CHECKING:
    from ..config import CompileConfig
    from ..facts.model import Fact
    from ..llm import LLMClient
    from ..project import Project

#: the shape of a reply; "op" is a plain string so that an operation uac does not know (or
#: refuses, such as remove_field) is rejected alone, with its own problem, by
#: :func:`~.ops.apply_operations` -- an enum here would make the reader refuse the whole reply
OPS_SCHEMA = {
    "type": "object",
    "properties": {
        "operations": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "op": {"type": "string", "description": "one of " + ", ".join(OP_KINDS)},
                    "name": {"type": "string"},
                    "doc": {"type": "string"},
                    "fields": {"type": "array", "items": {"type": "object"}},
                    "members": {"type": "array", "items": {"type": "string"}},
                    "class": {"type": "string"},
                    "type": {"type": "string"},
                    "default": {},
                    "collection": {"type": "string"},
                    "values": {"type": "object"},
                    "id": {"type": "string"},
                    "set": {"type": "object"},
                    "note": {"type": "string"},
                    "reason": {"type": "string"},
                    "sources": {"type": "array", "items": {"type": "string"}},
                    "facts": {"type": "array", "items": {"type": "string"}},
                },
                "required": ["op"],
            },
        }
    },
    "required": ["operations"],
}
#: the fact budget of one batch never drops below this many characters
MIN_FACT_CHARS = 1_000


@dataclass(frozen=True)
class BatchResult:
    """What a batch did: the sum of its operations, the facts none addressed, and its
    repaired call (history lines, tokens, a cut-off, an endpoint error)."""

    outcome: BatchOutcome
    #: facts of the batch that no operation addressed
    unaddressed: list[str]
    exchange: Exchange

    @property
    def cut_off(self) -> bool:
        return self.exchange.cut_off


@dataclass
class DomainJob:
    """One domain's compile: its working copy, ledger and report entry."""

    name: str
    work: DomainWork
    ledger: Ledger
    entry: DomainReport
    facts: list["Fact"] = field(default_factory=list)
    revisit: list[str] = field(default_factory=list)
    #: superseded fact -> the fact that replaced it (shown as context)
    superseding: dict[str, str] = field(default_factory=dict)
    #: superseded fact -> how the fact that replaced it changed it (the log's relation)
    relations: dict[str, str] = field(default_factory=dict)
    #: the source hash of the files the working copy was loaded from
    loaded_hash: str | None = None
    #: (source hash, schema.py) of files swapped in without filling the load cache
    uncached: tuple[str, str] | None = None
    #: the other domains' records as the compile began (shown read-only, referred to by id)
    cross: CrossIndex | None = None
    #: fact id -> every domain it was routed to, its main one first (facts of several domains)
    routed: dict[str, list[str]] = field(default_factory=dict)
    #: facts no longer in force compiled for the record of their time -> ``cancelled by s6-f2``
    ended: dict[str, str] = field(default_factory=dict)


def _schema_lines(work: DomainWork) -> list[str]:
    """The domain's classes as the prompt shows them (one JSON line each)."""
    return class_lines(work.class_specs)


def _ledger_for(project: "Project", loaded: LoadedDomain | None, name: str) -> Ledger:
    return load_ledger(project.paths.internal, name, loaded.source_hash if loaded is not None else EMPTY_HASH)


def _commit(
    project: "Project",
    job: DomainJob,
    files: dict[str, str] | None,
    *,
    checked: bool = False,
    values: dict[str, Any] | None = None,
) -> None:
    """Ledger first (keyed by the new files' hash), then the files, then old ledgers out.

    ``checked``: the files were shown to pass the full validator from the records that
    changed (:func:`~uac.dialect.partial.check_files`) and are swapped in without a load;
    otherwise the full validator runs (:func:`~uac.view.store.write_domain`), as it always
    does on a fresh load.  ``files=None``: the files stay, only the ledger changes."""
    if files is None:
        current = project.paths.domains / job.name
        if (current / "schema.py").exists():
            digest = source_hash((current / "schema.py").read_bytes(), (current / "state.py").read_bytes())
        else:
            digest = EMPTY_HASH
        save_ledger(project.paths.internal, job.ledger, digest)
        prune_ledgers(project.paths.internal, job.name, digest)
        return
    digest = store.files_digest(files)
    save_ledger(project.paths.internal, job.ledger, digest)
    crash_point("compile:ledger")
    if checked:
        if values is not None:
            offer(project, job.name, digest, values)
        store.swap_domain(project, job.name, files)
    else:
        store.write_domain(project, job.name, files)
    crash_point("compile:swapped")
    prune_ledgers(project.paths.internal, job.name, digest)


class _Writer:
    """Writes a domain's batches on a thread of its own, one after another, so that
    a batch's files reach the disk while the model answers the next batch.  The next
    batch is committed only after this one is on disk (:meth:`wait`), so the order of
    the writes -- and what a crash leaves -- is that of writing in line."""

    def __init__(self, uncached: tuple[str, str] | None = None) -> None:
        self._thread: threading.Thread | None = None
        self._error: Exception | None = None
        self._result: tuple[str, str] | None = None
        #: (source hash, schema.py) of the last files written without filling the load cache
        self.uncached = uncached
        #: (batch number, the domain's state before it) of the write under way
        self.under_way: tuple[int, tuple[Any, ...]] | None = None

    def start(self, write: Any, number: int, before: tuple[Any, ...]) -> None:
        def run() -> None:
            try:
                self._result = write()
            except Exception as exc:  # handed to the domain's thread by wait()
                self._error = exc

        self.under_way = (number, before)
        self._thread = threading.Thread(target=run, name="uac-compile-write", daemon=True)
        self._thread.start()

    def join(self) -> None:
        if self._thread is not None:
            self._thread.join()

    def wait(self) -> tuple[int, tuple[Any, ...], Exception] | None:
        """Wait for the write under way; ``(batch, state before it, error)`` if it failed."""
        if self._thread is None:
            return None
        self._thread.join()
        self._thread = None
        error, self._error = self._error, None
        under_way, self.under_way = self.under_way, None
        if error is None or under_way is None:
            self.uncached = self._result
            return None
        if not isinstance(error, (UacError, CodeRejected, OSError)):
            raise error
        return under_way[0], under_way[1], error


def _remember(project: "Project", job: DomainJob) -> None:
    """Fill the load cache with the domain's last files swapped in without a load."""
    if job.uncached is None:
        return
    digest, schema_text = job.uncached
    store.remember_domain(project, job.work.output.as_loaded(validate_schema(schema_text.encode("utf-8")), digest))
    job.uncached = None


@dataclass(frozen=True)
class Batch:
    """What one batch reads: the working copy its operations apply to (a copy of the
    domain, changed in place), the prompt, the facts it must address, the fact ids a
    record may cite, and the policy of its repaired call."""

    work: DomainWork
    prompt: str
    fact_ids: tuple[str, ...]
    citable: frozenset[str]
    policy: RepairPolicy
    #: the repair request shows the records the operations touched within this budget
    related_chars: int


def batch_policy(domain: str, config: "CompileConfig", facts: int) -> RepairPolicy:
    """Operations are read leniently (each is checked on its own, so one bad operation
    does not sink the valid ones beside it); a first reply cut off at the token limit
    splits a batch of more than one fact."""
    return RepairPolicy(
        purpose=f"structure.ops:{domain}",
        schema_name="operations",
        json_schema=OPS_SCHEMA,
        rounds=config.repair_rounds,
        lenient=True,
        split_cut_off=facts > 1,
    )


class OpsJudge:
    """Judges a reply of operations: applies the valid ones to the batch's working copy,
    keeps the sum of what every reply of the batch did, and asks for the rest (the
    problems, and the facts no operation addressed yet)."""

    def __init__(self, batch: Batch) -> None:
        self.batch = batch
        self.total = BatchOutcome()
        self.unaddressed: list[str] = []
        self._applied = 0

    def judge(self, data: Any, error: ModelError | None) -> Verdict:
        if error is not None:
            outcome = BatchOutcome(problems=[error.message])
        else:
            operations = data.get("operations") if isinstance(data, dict) else data
            outcome = apply_operations(self.batch.work, operations, set(self.batch.citable))
        _merge(self.total, outcome)
        total = self.total
        addressed = total.cited | set(total.skipped) | {s for r in total.retired for s in r["sources"]}
        self.unaddressed = [f for f in self.batch.fact_ids if f not in addressed]
        self._applied = len(outcome.applied)
        problems = list(outcome.problems)
        if self.unaddressed:
            problems.append(
                f"facts {', '.join(self.unaddressed[:20])} are not addressed yet: cite each in an add, update or "
                "retire, or skip it with a reason"
            )
        said = "ok" if not problems else f"{len(outcome.applied)} applied; problems: " + "; ".join(problems)[:500]
        return Verdict(tuple(problems), outcome=said, details={"applied": len(outcome.applied)})

    def repair_request(self, problems: list[str]) -> str:
        return repair_prompt(self.batch.work, self.total, self._applied, problems, self.batch.related_chars)


def run_batch(client: "LLMClient", batch: Batch) -> BatchResult:
    """One batch: call, apply the valid operations, send all problems back (bounded rounds)."""
    judge = OpsJudge(batch)
    exchange = call_with_repair(client, batch.prompt, batch.policy, judge)
    return BatchResult(judge.total, list(judge.unaddressed), exchange)


def repair_prompt(work: DomainWork, total: BatchOutcome, applied: int, problems: list[str], budget: int) -> str:
    """The repair request: the problems, then the domain as the operations applied so far
    left it (its classes, collections and the records they touched, within ``budget``
    characters) and the same operations and rules as the first prompt."""
    touched: list[str] = []
    used = 0
    records = [record for _, _, record in work.iter_records() if record.id in total.touched]  # in the domain's order
    for record in records:
        line = record_line(record)
        if touched and used + len(line) > budget:
            break
        touched.append(line)
        used += len(line) + 1
    return render_prompt(
        "structure_ops_repair.j2",
        applied=applied,
        total_applied=len(total.applied),
        problems=problems,
        schema_lines=_schema_lines(work),
        collections=work.collections(),
        touched=touched,
        touched_more=len(records) - len(touched),
        retired=[r["id"] for r in total.retired][:30],
    )


def _merge(total: BatchOutcome, outcome: BatchOutcome) -> None:
    total.applied.extend(outcome.applied)
    total.problems.extend(outcome.problems)
    total.skipped.update(outcome.skipped)
    total.retired.extend(outcome.retired)
    total.touched |= outcome.touched
    total.cited |= outcome.cited


def compile_domain_ops(
    project: "Project",
    client: "LLMClient",
    job: DomainJob,
    facts_by_id: dict[str, "Fact"],
    config: "CompileConfig",
    user_name: str,
) -> None:
    """Compile one domain's routed facts and revisits, batch by batch (see the module docstring)."""
    run = _DomainRun(project, client, job, facts_by_id, config, user_name)
    try:
        run.batches()
    finally:
        run.join()  # never leave a thread running past the domain (an error is on its way up)
    run.finish()


@dataclass(frozen=True)
class _Planned:
    """One batch as the model is shown it."""

    prompt: str
    fact_ids: list[str]
    #: the records to revisit shown in this batch
    revisit: list[str]
    #: the records the prompt shows (revisits and related records)
    shown: set[str]
    #: the fact ids a record may cite in this batch
    citable: set[str]


@dataclass
class _DomainRun:
    """One domain's batches: what they read (the project, the model, the job, the facts
    compiled, the settings), the queue of batches, the facts still pending, the records to
    revisit, the records index the prompts select from and the writer thread."""

    project: "Project"
    client: "LLMClient"
    job: DomainJob
    facts_by_id: dict[str, "Fact"]
    config: "CompileConfig"
    user_name: str
    failed: bool = False
    number: int = 0

    def __post_init__(self) -> None:
        job = self.job
        self.entry = job.entry
        self.trusting: threading.Thread | None = None
        if job.loaded_hash is not None:
            # rendering the loaded records (to know their lines need no check) overlaps the first
            # model call; it only fills the chunk cache, which nothing else touches before join()
            self.trusting = threading.Thread(
                target=job.work.output.trust, args=(job.loaded_hash,), name="uac-compile-trust", daemon=True
            )
            self.trusting.start()
        self.index = RecordIndex(job.work)
        self.queue: list[list["Fact"]] = batch_facts(job.facts, self._fact_budget(), self.config.batch_facts)
        self.revisit = [r for r in dict.fromkeys(job.revisit) if job.work.find(r) is not None]
        if not self.queue and self.revisit:
            self.queue = [[]]
        self.pending: set[str] = (set(job.ledger.pending) & set(self.facts_by_id)) | {f.id for f in job.facts}
        self.writer = _Writer(job.uncached)

    def _fact_budget(self) -> int:
        """The characters a batch's facts may take: the prompt's budget less the prompt
        without facts and the related records' share."""
        work = self.job.work
        empty_prompt = render_prompt(
            "structure_ops.j2",
            domain=self.job.name,
            user_name=self.user_name,
            schema_lines=_schema_lines(work),
            collections=work.collections(),
            related=[],
            elsewhere=[],
            revisit=[],
            context_facts=[],
            facts=[],
            shared=[],
            description=work.doc,
        )
        return max(MIN_FACT_CHARS, self.config.domain_prompt_chars - len(empty_prompt) - self.config.related_chars)

    def batches(self) -> None:
        job, entry = self.job, self.entry
        while self.queue:
            batch = self.queue.pop(0)
            self.number += 1
            planned = self._plan(batch)
            candidate = job.work.copy()
            policy = batch_policy(job.name, self.config, len(planned.fact_ids))
            result = run_batch(
                self.client,
                Batch(
                    candidate,
                    planned.prompt,
                    tuple(planned.fact_ids),
                    frozenset(planned.citable),
                    policy,
                    self.config.related_chars,
                ),
            )
            entry.count_calls(result.exchange.usage)
            _log(self.project, job, result.exchange.history)
            if result.exchange.endpoint_error is not None:
                self.failed = True
                entry.status = "failed"
                entry.rejection = (
                    f"the model endpoint failed in batch {self.number}: {result.exchange.endpoint_error.message}"
                )
                break
            entry.ops_applied += len(result.outcome.applied)
            entry.ops_rejected += len(result.outcome.problems)
            if result.cut_off:
                half = len(batch) // 2
                self.queue[:0] = [batch[:half], batch[half:]]
                entry.batches_split += 1
                continue
            ledger, pending_now = self._next_ledger(candidate, result, planned)
            if self._commit(batch, DomainJob(job.name, candidate, ledger, entry), result, pending_now):
                self._publish(candidate, result)

    def _context_ids(self, batch: list["Fact"], fact_ids: list[str], revisit_now: list[str]) -> list[str]:
        """The facts shown as context: what replaced the facts a revisited record cites, and
        what ended a fact of the batch (so the record can say how)."""
        job, facts_by_id = self.job, self.facts_by_id
        context_ids: list[str] = []
        for ident in revisit_now:
            found = job.work.find(ident)
            if found is None:
                continue
            for source in found[1].sources:
                newer = job.superseding.get(source)
                if newer and newer in facts_by_id and newer not in fact_ids:
                    context_ids.append(newer)
        for fact in batch:
            newer = fact.superseded_by if fact.id in job.ended else None
            if newer and newer in facts_by_id and newer not in fact_ids:
                context_ids.append(newer)
        return list(dict.fromkeys(context_ids))

    def _plan(self, batch: list["Fact"]) -> _Planned:
        job, work, facts_by_id, related_chars = self.job, self.job.work, self.facts_by_id, self.config.related_chars
        fact_ids = [f.id for f in batch]
        revisit_now = self.revisit[:20]
        context_ids = self._context_ids(batch, fact_ids, revisit_now)
        texts = [f.text for f in batch]
        # the other domains' records get at most a third of the budget, and only what they use
        # the user is named by nearly every fact and record: that says nothing of which one
        user = [self.user_name]
        elsewhere = (
            job.cross.select(texts, exclude=job.name, budget=related_chars // 3, ignore=user) if job.cross else []
        )
        own_budget = related_chars - sum(len(line) + 1 for _, line in elsewhere)
        related = select_related(work, self.index, texts, must=revisit_now, budget=own_budget, ignore=user)
        shown_ids = {i for i, _ in related}
        revisit_lines = [
            revisit_line(found[1], _revisit_reason(found[1].sources, job.superseding, facts_by_id, job.relations))
            for ident in revisit_now
            if ident in shown_ids and (found := work.find(ident)) is not None
        ]
        related = [(i, line) for i, line in related if i not in set(revisit_now)]
        cited_by_shown = {s for i in shown_ids if (found := work.find(i)) is not None for s in found[1].sources}
        prompt = render_prompt(
            "structure_ops.j2",
            domain=job.name,
            user_name=self.user_name,
            schema_lines=_schema_lines(work),
            collections=work.collections(),
            related=related,
            elsewhere=[line for _, line in elsewhere],
            example_ref=elsewhere[0][0] if elsewhere else None,
            description=work.doc,
            revisit=revisit_lines,
            context_facts=[fact_line(facts_by_id[i]) for i in context_ids],
            facts=[fact_line(f) for f in batch],
            shared=[_shared_line(f.id, job.name, job.routed[f.id]) for f in batch if len(job.routed.get(f.id, ())) > 1],
            ended=[f"{f.id}: {job.ended[f.id]}" for f in batch if f.id in job.ended],
        )
        citable = set(fact_ids) | set(context_ids) | (cited_by_shown & set(facts_by_id))
        return _Planned(prompt, fact_ids, revisit_now, shown_ids, citable)

    def _next_ledger(self, candidate: DomainWork, result: BatchResult, planned: _Planned) -> tuple[Ledger, set[str]]:
        """The domain's ledger after the batch, and the facts pending after it."""
        job, outcome, facts_by_id = self.job, result.outcome, self.facts_by_id
        ledger = Ledger(**{**job.ledger.__dict__})
        ledger.considered = {**job.ledger.considered, **outcome.skipped}
        for retired in outcome.retired:
            ledger.retired = [*ledger.retired, retired]
            still = candidate.cited_ids()
            for source in retired["cited"]:
                if source not in still and source in facts_by_id:
                    ledger.considered.setdefault(source, f"record {retired['id']} retired: {retired['reason']}"[:300])
        settled = set(outcome.cited) | set(outcome.skipped)
        pending_now = (self.pending - settled) | set(result.unaddressed)
        ledger.pending = sorted(pending_now & set(facts_by_id))
        handled = [
            r for r in planned.revisit if r in outcome.touched or candidate.find(r) is None or r in planned.shown
        ]
        ledger.revisit = [r for r in self.revisit if r not in handled]
        ledger.superseded_seen = sorted(
            set(job.ledger.superseded_seen)
            | {s for r in planned.revisit if r in handled for s in _cited_superseded(job, r)}
            | {i for i in planned.fact_ids if i in job.ended}
        )  # shown as ended: nothing to revisit
        ledger.next_ids = dict(candidate.ids.next)
        return ledger, pending_now

    def _commit(self, batch: list["Fact"], step: DomainJob, result: BatchResult, pending_now: set[str]) -> bool:
        """Hand the batch to the writer (or save its ledger alone when nothing changed) and
        make it the domain's state; False when it was not (it is planned again, or its
        facts stay pending)."""
        job, entry, outcome = self.job, self.entry, result.outcome
        if self.trusting is not None:
            self.trusting.join()
            self.trusting = None
        lost = self.writer.wait()
        if lost is not None:
            # the batch before could not be written: back to the state before it, and this
            # batch (planned on its records) is planned again
            self.pending, self.revisit = _lost_batch(job, entry, lost)
            self.index = RecordIndex(job.work)
            if job.cross is not None:
                job.cross.reset(job.name, job.work)
            self.queue.insert(0, batch)
            return False
        if outcome.changed:
            before = (
                job.work,
                job.ledger,
                set(self.pending),
                list(self.revisit),
                bool(result.unaddressed or outcome.problems),
            )
            self.writer.start(lambda: _write_batch(self.project, step), self.number, before)
        else:
            try:
                _commit(self.project, step, None)
            except UacError as exc:
                entry.rejection = f"batch {self.number} could not be written: {exc}"[:2000]
                entry.batches_failed += 1
                self.pending |= {f.id for f in batch}
                return False
        job.work, job.ledger, self.pending, self.revisit = step.work, step.ledger, pending_now, step.ledger.revisit
        return True

    def _publish(self, candidate: DomainWork, result: BatchResult) -> None:
        """The batch's records reach the other domains and the records index; the batch is counted."""
        job, outcome = self.job, result.outcome
        if job.cross is not None and outcome.changed:
            # the other domains see this batch's records from their next batch on
            job.cross.publish(job.name, candidate, outcome.touched, [r["id"] for r in outcome.retired])
        for ident in outcome.touched:
            found = candidate.find(ident)
            if found is not None:
                self.index.put(found[1])
        for retired in outcome.retired:
            self.index.drop(retired["id"])
        self.entry.batches += 1
        if result.unaddressed or outcome.problems:
            self.entry.batches_partial += 1

    def join(self) -> None:
        if self.trusting is not None:
            self.trusting.join()
        self.writer.join()

    def finish(self) -> None:
        """After the last batch: a last write that failed is undone, the facts left unsettled
        stay pending, the load cache is filled and the domain's status set."""
        job, entry = self.job, self.entry
        lost = self.writer.wait()
        if lost is not None:
            self.pending, self.revisit = _lost_batch(job, entry, lost)
            if job.cross is not None:
                job.cross.reset(job.name, job.work)
        job.uncached = self.writer.uncached
        unsettled = sorted(
            (self.pending | set(job.ledger.pending))
            & set(self.facts_by_id) - job.work.cited_ids() - set(job.ledger.considered)
        )
        if unsettled != sorted(set(job.ledger.pending)):
            # facts of failed batches (or never reached) are counted, never lost
            job.ledger.pending = unsettled
            _commit(self.project, job, None)
        _remember(self.project, job)
        if not self.failed and entry.batches:
            entry.status = "compiled"
        elif entry.batches_failed and not entry.batches:
            entry.status = "failed"


def _lost_batch(
    job: DomainJob, entry: DomainReport, lost: tuple[int, tuple[Any, ...], Exception]
) -> tuple[set[str], list[str]]:
    """A batch could not be written (its files were refused, or a disk error): the domain is
    as the batch before left it, the facts of that batch stay pending.  Returns the pending
    facts and the records to revisit from before the batch."""
    number, before, error = lost
    job.work, job.ledger = before[0], before[1]
    entry.batches -= 1
    if before[4]:
        entry.batches_partial -= 1
    entry.batches_failed += 1
    entry.rejection = f"batch {number} could not be written: {error}"[:2000]
    return set(before[2]), list(before[3])


def _write_batch(project: "Project", job: DomainJob) -> tuple[str, str] | None:
    """Render, check and commit one batch (on the domain's writer thread); returns the
    (source hash, schema.py) of files swapped in without filling the load cache."""
    files, source = job.work.output.render()
    # the records the files hold, as they are now (for the change log: no read-back)
    values = {k: list(v) if isinstance(v, list) else v for k, v in job.work.values.items()}
    checked = check_files(job.name, files, source, job.work.schema, job.work.classes)
    _commit(project, job, files, checked=checked, values=values)
    if not checked:
        return None  # the full load filled the cache
    return store.files_digest(files), files["schema.py"]


def _shared_line(fact_id: str, here: str, domains: list[str]) -> str:
    """``f12: also travel (its main domain)`` / ``f12: also relationships (this domain is its main one)``."""
    others = [d for d in domains if d != here]
    if domains[0] == here:
        return f"{fact_id}: also {', '.join(others)} (this domain is its main one)"
    return f"{fact_id}: also {', '.join(others)} ({domains[0]} is its main domain)"


#: how a revisit names the change, by the relation of the supersede line (none: replaced)
REVISIT_WORDS = {
    "supersedes": "replaced by",
    "corrects": "corrected by",
    "cancels": "cancelled by",
    "fulfils": "fulfilled by",
}


def _revisit_reason(
    sources: list[str],
    superseding: dict[str, str],
    facts_by_id: dict[str, "Fact"],
    relations: dict[str, str] | None = None,
) -> str:
    """Why a record is shown again: ``cites f3, replaced by f9`` / ``cites f3, corrected by
    f9`` (a misstated value: nothing ended) / ``cites f4, which was removed``."""
    parts = []
    for source in sources:
        if source in superseding:
            words = REVISIT_WORDS.get((relations or {}).get(source) or "supersedes", "replaced by")
            parts.append(f"cites {source}, {words} {superseding[source]}")
        elif source not in facts_by_id:
            parts.append(f"cites {source}, which was removed")
    return "; ".join(parts) or "a fact it came from was forgotten: check that it still holds"


def _cited_superseded(job: DomainJob, ident: str) -> list[str]:
    found = job.work.find(ident)
    sources = found[1].sources if found else ()
    return [s for s in sources if s in job.superseding]


def _log(project: "Project", job: DomainJob, history: Sequence[dict[str, Any]]) -> None:
    for record in history:
        append_history(project.paths.internal, {"mode": "incremental", "domain": job.name, **record})


def compile_incremental(
    project: "Project",
    facts: list["Fact"],
    client: "LLMClient",
    config: "CompileConfig",
    *,
    progress: ProgressCallback | None = None,
) -> CompileReport:
    started = time.perf_counter()
    report = CompileReport(mode="incremental", facts_total=len(facts))
    current = {f.id: f for f in facts}
    log_state = FactLog(project.paths.facts).read()
    relations = _relations(log_state)
    ended = ended_facts(log_state, current)
    # the facts compiled: those given and the ones that led to them (shown as ended)
    facts_by_id = {**current, **ended}
    with project.lock("compile"):
        view = _open_domains(project)
        jobs = view.jobs
        new_facts = _facts_to_route(view, facts_by_id, log_state)
        cross = CrossIndex({name: job.work for name, job in jobs.items() if job.work.record_count()})
        for job in jobs.values():
            job.cross = cross
            job.work.refs = cross
        _queue_revisits(jobs, log_state, relations)
        if new_facts or any(j.revisit for j in jobs.values()):
            # the imports a domain's first batch needs load while the routing call is in flight
            threading.Thread(target=preload, name="uac-compile-preload", daemon=True).start()
        routing = Routing()
        if new_facts:
            routing = route_with_model(client, new_facts, view.summaries, max_chars=config.domain_prompt_chars)
        report.routed_by_model, report.routed_by_keywords = routing.by_model, routing.by_keywords
        report.routing_tokens = {"prompt_tokens": routing.prompt_tokens, "completion_tokens": routing.completion_tokens}
        for call in routing.calls:
            append_history(project.paths.internal, {"mode": "incremental", "domain": None, **call})
        _assign_routes(project, view, routing, new_facts, cross, ended, relations)
        todo = _report_entries(report, view)
        user_name = project.config.user.name or "the user"
        todo, after = _main_first(todo)
        with Tracker(progress, client, stage="compile", unit="domains", total=len(todo)) as tracker:

            def compile_one(job: DomainJob) -> None:
                compile_domain_ops(project, client, job, facts_by_id, config, user_name)
                tracker.advance()

            map_ordered(client, compile_one, todo, name="uac-compile", after=after)
        for name in sorted(jobs):
            _count(jobs[name], current)
        report.duplicates = [d.to_json() for d in find_duplicates({n: j.work for n, j in jobs.items()})]
        write_manifest(project)
    _count_once(report, jobs, current)
    report.seconds = time.perf_counter() - started
    return report


@dataclass
class _OpenDomains:
    """The view as a compile begins: a job per domain, the domains that do not validate,
    what the router is shown of each, and the facts each left pending last time."""

    jobs: dict[str, DomainJob] = field(default_factory=dict)
    broken: dict[str, str] = field(default_factory=dict)
    summaries: dict[str, str] = field(default_factory=dict)
    #: domain -> facts it left pending last time (sent to it again even if settled elsewhere)
    carried: dict[str, list[str]] = field(default_factory=dict)


def _open_domains(project: "Project") -> _OpenDomains:
    view = _OpenDomains()
    for name in store.domain_names(project):
        try:
            loaded = store.load_domain(project, name)
        except CodeRejected as exc:
            view.broken[name] = exc.message
            continue
        view.summaries[name] = domain_brief(loaded)
        work = DomainWork.from_loaded(loaded)
        ledger = _ledger_for(project, loaded, name)
        view.carried[name] = list(ledger.pending)
        ledger.pending = []  # every unsettled fact is routed again
        for prefix, number in ledger.next_ids.items():
            work.ids.next[prefix] = max(work.ids.next.get(prefix, 1), number)
        view.jobs[name] = DomainJob(name, work, ledger, DomainReport(name), loaded_hash=loaded.source_hash)
    for name in ledger_domains(project.paths.internal):
        if name not in view.jobs and name not in view.broken:
            # a domain whose batches only left facts out: no files, a ledger
            ledger = load_ledger(project.paths.internal, name, EMPTY_HASH)
            if ledger.matched:
                view.carried[name] = list(ledger.pending)
                ledger.pending = []
                view.jobs[name] = DomainJob(name, DomainWork.empty(name), ledger, DomainReport(name))
    return view


def _facts_to_route(view: _OpenDomains, facts_by_id: dict[str, "Fact"], log_state: "LogState") -> list["Fact"]:
    """The facts neither recorded nor considered anywhere, in the log's order; a fact settled
    in one of its domains and still pending in another goes back to that one."""
    jobs = view.jobs
    recorded = set().union(*(j.work.cited_ids() for j in jobs.values())) if jobs else set()
    considered = set().union(*(j.ledger.considered for j in jobs.values())) if jobs else set()
    order = {ident: number for number, ident in enumerate(log_state.facts)}
    compiled = sorted(facts_by_id.values(), key=lambda f: order.get(f.id, len(order)))
    for name, pending_ids in view.carried.items():
        job = jobs[name]
        here = job.work.cited_ids() | set(job.ledger.considered)
        job.facts.extend(
            facts_by_id[i]
            for i in pending_ids
            if i in facts_by_id and i not in here and (i in recorded or i in considered)
        )
    return [f for f in compiled if f.id not in recorded and f.id not in considered]


def _queue_revisits(jobs: dict[str, DomainJob], log_state: "LogState", relations: dict[str, str]) -> None:
    """Records citing facts superseded since: revisit them where they live."""
    for job in jobs.values():
        seen = set(job.ledger.superseded_seen)
        for _, _, record in job.work.iter_records():
            for source in record.sources:
                old = log_state.facts.get(source)
                if old is not None and old.superseded_by and source not in seen:
                    job.superseding[source] = old.superseded_by
                    if source in relations:
                        job.relations[source] = relations[source]
                    job.revisit.append(record.id)
        job.revisit.extend(job.ledger.revisit)


def _assign_routes(
    project: "Project",
    view: _OpenDomains,
    routing: Routing,
    new_facts: list["Fact"],
    cross: CrossIndex,
    ended: dict[str, "Fact"],
    relations: dict[str, str],
) -> None:
    """Each new fact to the jobs of its domains (a domain new to the view gets a job)."""
    jobs = view.jobs
    for fact in new_facts:
        for name in routing.domains_of(fact.id):
            if name not in jobs and name not in view.broken:
                jobs[name] = DomainJob(
                    name, DomainWork.empty(name), _ledger_for(project, None, name), DomainReport(name), cross=cross
                )
                jobs[name].work.refs = cross
            if name in jobs:
                jobs[name].facts.append(fact)
                if fact.id in ended:
                    jobs[name].ended[fact.id] = (
                        f"{REVISIT_WORDS.get(relations.get(fact.id) or 'supersedes', 'replaced by')} {fact.superseded_by}"
                    )
                if len(routing.domains_of(fact.id)) > 1:
                    jobs[name].routed[fact.id] = routing.domains_of(fact.id)


def _report_entries(report: CompileReport, view: _OpenDomains) -> list[DomainJob]:
    """Every domain's entry in the report, in name order; returns the jobs with work to do."""
    todo: list[DomainJob] = []
    for name in sorted(set(view.jobs) | set(view.broken)):
        if name in view.broken:
            entry = DomainReport(
                name, status="failed", rejection=f"the current view does not validate: {view.broken[name]}"
            )
            report.domains.append(entry)
            continue
        job = view.jobs[name]
        report.domains.append(job.entry)
        job.entry.facts_new = len(job.facts)
        if job.facts or job.revisit:
            todo.append(job)
    return todo


def _main_first(todo: list[DomainJob]) -> tuple[list[DomainJob], dict[int, set[int]]]:
    """The jobs in the order they compile (:mod:`.order`: a thing's main domain before the
    domains that refer to its record), and for each the positions of those it waits for."""
    routes = {fact: domains for job in todo for fact, domains in job.routed.items()}
    order, waits = main_first([job.name for job in todo], pulls(routes.values()))
    by_name = {job.name: job for job in todo}
    position = {name: number for number, name in enumerate(order)}
    after = {position[name]: {position[main] for main in mains} for name, mains in waits.items() if mains}
    return [by_name[name] for name in order], after


def _count_once(report: CompileReport, jobs: dict[str, DomainJob], current: dict[str, "Fact"]) -> None:
    """A fact may live in several domains: counted once, recorded if any domain records it."""
    if not jobs:
        report.facts_covered = 0
        report.facts_once = {"recorded": 0, "considered": 0, "pending": 0}
        return
    recorded = set().union(*(j.work.cited_ids() for j in jobs.values())) & set(current)
    considered = (set().union(*(j.ledger.considered for j in jobs.values())) & set(current)) - recorded
    pending = (set().union(*(j.ledger.pending for j in jobs.values())) & set(current)) - recorded - considered
    report.facts_covered = len(recorded | considered)
    report.facts_once = {"recorded": len(recorded), "considered": len(considered), "pending": len(pending)}


def domain_brief(loaded: LoadedDomain) -> str:
    """What the router is shown of an existing domain: its description (the schema
    docstring the model wrote) and its collections with their record counts."""
    parts = []
    for name, value in loaded.values.items():
        spec = loaded.types[name]
        if spec.kind == "list" and spec.args and spec.args[0].kind == "class":
            parts.append(f"{name} ({len(value)} × {spec.args[0].name})")
        elif isinstance(value, (list, dict, tuple, set)):
            parts.append(f"{name} ({len(value)})")
        else:
            parts.append(f"{name}: {spec.source()}")
    doc = " ".join((loaded.schema.doc or "").split()).rstrip(".")
    held = ", ".join(parts[:8]) + (f", +{len(parts) - 8} more" if len(parts) > 8 else "")
    return f"{doc}. Holds {held or 'nothing yet'}" if doc else f"holds {held or 'nothing yet'}"


def _relations(log_state: "LogState") -> dict[str, str]:
    """Superseded fact -> the relation of the line that ended it (the last line naming a fact
    decides, as in the fold)."""
    relations: dict[str, str] = {}
    for sup in log_state.supersessions:
        if sup.relation:
            relations[sup.fact_id] = sup.relation
        else:
            relations.pop(sup.fact_id, None)
    return relations


def _count(job: DomainJob, facts_by_id: dict[str, "Fact"]) -> None:
    """recorded / considered / pending counts of the facts valid now (each fact in one of them)."""
    entry = job.entry
    cited = job.work.cited_ids() & set(facts_by_id)
    considered = (set(job.ledger.considered) & set(facts_by_id)) - cited
    entry.records = job.work.record_count()
    entry.facts_recorded = len(cited)
    entry.facts_considered = len(considered)
    entry.facts_pending = len((set(job.ledger.pending) & set(facts_by_id)) - cited - considered)
    entry.facts_routed = entry.facts_recorded + entry.facts_considered + entry.facts_pending
    entry.facts_covered = entry.facts_recorded + entry.facts_considered


__all__ = [
    "OPS_SCHEMA",
    "Batch",
    "OpsJudge",
    "batch_policy",
    "compile_domain_ops",
    "compile_incremental",
    "domain_brief",
    "repair_prompt",
    "run_batch",
]
