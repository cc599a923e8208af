"""The view follows the log: after an ingest the typed view is brought up to date by itself,
and every reader can say how far the view lags the log.

The lag is what ``uac doctor`` warns about (:func:`~uac.compile.coverage.fact_coverage`):
facts valid now that no compile has taken in yet -- in no record, no ledger, no timeline.
``ask``, ``repl`` and the servers' tools answer from the view, so they carry it.

:func:`catch_up_view` runs after an ingest: what ``uac compile`` does by default for the
project (``[compile] mode`` with a model, else ``offline``), unless ``[compile] auto = false``
or the caller turned it off for this ingest.  A compile that fails leaves the ingest as it
was -- durable -- and the report says the view lags and why.  The servers run it in the
background (:mod:`uac.server.follow`) and mark the project as catching up meanwhile
(:func:`catching_up`), which the readers of the same process report.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from ..context import MemoryContext
from ..errors import ProjectLocked, StoreError, UacError, UnsafePath
from ..project import Project
from .coverage import fact_coverage

log = logging.getLogger(__name__)

_lock = threading.Lock()
#: project roots with a catch-up running or queued in this process, and how many
_running: dict[str, int] = {}


@contextmanager
def catching_up_at(root: Path) -> Iterator[None]:
    """Mark the project at ``root`` as catching up while the block runs (readers say so)."""
    key = str(Path(root).resolve())
    with _lock:
        _running[key] = _running.get(key, 0) + 1
    try:
        yield
    finally:
        with _lock:
            left = _running.get(key, 1) - 1
            if left:
                _running[key] = left
            else:
                _running.pop(key, None)


def catching_up(project: Project) -> bool:
    """True while a catch-up of ``project`` runs or waits in this process."""
    with _lock:
        return str(Path(project.root).resolve()) in _running


@dataclass(frozen=True)
class ViewLag:
    """How far the view lags the log: facts valid now that it does not include yet (not
    compiled yet, or pending: routed to a domain whose batch failed)."""

    facts: int
    #: a background catch-up of this process runs or waits for the project
    catching_up: bool = False

    @property
    def lags(self) -> bool:
        return self.facts > 0 or self.catching_up

    def to_json(self) -> dict[str, Any]:
        return {"facts_not_included": self.facts, "catching_up": self.catching_up}

    def line(self, fix: str = "run 'uac compile'") -> str | None:
        """One sentence for a reader's output, ``None`` when the view is up to date."""
        if not self.lags:
            return None
        if self.catching_up:
            return f"The view does not include {self.facts} fact(s) yet: it is catching up in the background."
        return f"The view does not include {self.facts} fact(s) yet: {fix}."


def current_fact_ids(ctx: MemoryContext, *, deep: bool = True) -> list[str] | None:
    """The ids of the facts valid now (``None`` when the log cannot be read: doctor's
    fact_log check says why).  ``deep=False`` reads the log's saved table of validity
    instead of folding the log."""
    try:
        if deep:
            return [f.id for f in ctx.read_log().facts.values() if f.invalid_at is None]
        from ..facts.table import OPEN

        table = ctx.fact_table()
        ends = table.end.tolist() if hasattr(table.end, "tolist") else table.end
        return [i for i, end in zip(table.ids, ends) if end == OPEN]
    except (StoreError, UnsafePath):
        return None


def view_lag(ctx: MemoryContext) -> ViewLag:
    """The facts valid now that the view does not include yet (doctor's ``not compiled yet``)."""
    busy = catching_up(ctx.project)
    current = current_fact_ids(ctx, deep=False)
    if not current:
        return ViewLag(0, busy)
    try:
        view = ctx.load_view()
    except UacError:
        view = _loadable(ctx)
    coverage = fact_coverage(ctx.project, current, view)
    # not compiled yet, or routed to a domain whose batch failed: in no record, no ledger, no timeline
    pending = sum(counts["pending"] for counts in coverage.domains.values())
    return ViewLag(coverage.not_compiled + pending, busy)


def _loadable(ctx: MemoryContext) -> dict[str, Any]:
    """The domains that load, when one of them does not (doctor names the broken one)."""
    from ..view.store import domain_names, load_domain

    view = {}
    for name in domain_names(ctx.project):
        try:
            view[name] = load_domain(ctx.project, name)
        except UacError:
            continue
    return view


@dataclass
class CatchUp:
    """What the catch-up after an ingest did (the ingest report's ``view``).

    ``status``: ``compiled``; ``current`` (nothing new to compile); ``off`` (turned off by
    ``[compile] auto = false`` or for this ingest); ``background`` (a server compiles it
    after answering); ``failed`` (the ingest stands, the view lags: ``reason`` says why)."""

    status: str
    mode: str | None = None
    domains_changed: list[str] = field(default_factory=list)
    seconds: float = 0.0
    reason: str | None = None
    #: facts valid now that the view does not include after the catch-up
    lag: int = 0
    #: it failed because another writer held the project lock (a server tries again)
    locked: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "mode": self.mode,
            "domains_changed": list(self.domains_changed),
            "seconds": round(self.seconds, 4),
            "reason": self.reason,
            "facts_not_included": self.lag,
        }

    def line(self) -> str:
        """The ingest report's sentence about the view."""
        if self.status == "compiled":
            changed = ", ".join(self.domains_changed) or "none"
            text = f"View: caught up ({self.mode} compile, {self.seconds:.1f} s); domains changed: {changed}."
            if self.lag:
                text += f" It still does not include {self.lag} fact(s): run 'uac compile'."
            return text
        if self.status == "failed" and self.domains_changed:
            changed = ", ".join(self.domains_changed)
            return (
                f"View: partly caught up ({self.mode} compile, {self.seconds:.1f} s; domains changed: {changed}); "
                f"{self.reason}; it does not include {self.lag} fact(s) yet: run 'uac compile' to retry."
            )
        if self.status == "current":
            return "View: up to date (nothing new to compile)."
        if self.status == "background":
            return "View: catching up in the background."
        lagging = f"it does not include {self.lag} fact(s) yet" if self.lag else "it may lag the log"
        return f"View: not brought up to date ({self.reason}); {lagging}: run 'uac compile'."


#: overrides ``[compile] auto`` for every project a process opens (a bulk-load script, a test suite)
AUTO_ENV = "UAC_COMPILE_AUTO"
_SWITCH = {"1": True, "true": True, "yes": True, "on": True, "0": False, "false": False, "no": False, "off": False}


def wanted(project: Project, compile: bool | None) -> tuple[bool, str | None]:
    """Whether to catch up after an ingest, and why not: the call's ``compile``, else
    ``UAC_COMPILE_AUTO``, else ``[compile] auto``."""
    if compile is False:
        return False, "turned off for this ingest"
    if compile is True:
        return True, None
    value = os.environ.get(AUTO_ENV, "").strip().lower()
    if value:
        if value not in _SWITCH:
            return False, f"{AUTO_ENV}={value!r} is not one of 1, 0, true, false"
        return (True, None) if _SWITCH[value] else (False, f"{AUTO_ENV}={value} in the environment")
    if not project.config.compile.auto:
        return False, "[compile] auto = false in uac.toml"
    return True, None


def not_needed(ctx: MemoryContext, *, compile: bool | None, added: bool) -> CatchUp | None:
    """The catch-up's result when it need not run (turned off, nothing new), else ``None``."""
    run, reason = wanted(ctx.project, compile)
    if not run:
        return CatchUp("off", reason=reason, lag=view_lag(ctx).facts)
    if not added and not view_lag(ctx).facts:
        return CatchUp("current")
    return None


def domain_hashes(project: Project) -> dict[str, str]:
    """domain -> digest of its generated files (to tell which ones a compile changed)."""
    from ..view.store import domain_names

    out = {}
    for name in domain_names(project):
        digest = hashlib.sha256()
        for file in ("schema.py", "state.py"):
            path = project.paths.domains / name / file
            digest.update(path.read_bytes() if path.is_file() else b"")
        out[name] = digest.hexdigest()
    return out


def _failed(ctx: MemoryContext, mode: str | None, started: float, why: str, *, locked: bool = False) -> CatchUp:
    """The catch-up of a compile that failed for ``why`` (the view lags by what it missed)."""
    return CatchUp(
        "failed",
        mode=mode,
        seconds=time.perf_counter() - started,
        reason=f"the {mode or 'default'} compile failed: {why}",
        lag=view_lag(ctx).facts,
        locked=locked,
    )


def catch_up_view(ctx: MemoryContext, *, compile: bool | None = None, added: bool = True) -> CatchUp:
    """After an ingest: compile what the view lacks, as ``uac compile`` would by default.

    ``compile``: ``False`` skips it, ``True`` runs it even with ``[compile] auto = false``,
    ``None`` follows the project's setting.  ``added``: the ingest added sessions (with
    nothing added, it runs only if the view lags from before).  Never raises for a compile
    that fails: the ingest before it succeeded, and the result says why the view lags."""
    from ..recall import list_facts
    from .dispatch import compile_project

    project = ctx.project
    skipped = not_needed(ctx, compile=compile, added=added)
    if skipped is not None:
        return skipped
    started = time.perf_counter()
    mode: str | None = None
    try:
        client = ctx.llm
        mode = project.config.compile.mode if client is not None else "offline"
        before = domain_hashes(project)
        report = compile_project(project, list_facts(ctx), client, mode=mode)
        after = domain_hashes(project)
    except UacError as exc:
        text = exc.message + (f" {exc.hint}" if exc.hint else "")
        return _failed(ctx, mode, started, text, locked=isinstance(exc, ProjectLocked))
    except Exception as exc:  # the ingest is durable whatever the compile did
        log.exception("the compile after an ingest failed")
        return _failed(ctx, mode, started, f"{type(exc).__name__}: {exc}")
    changed = sorted(n for n in set(before) | set(after) if before.get(n) != after.get(n))
    result = CatchUp("compiled", mode=mode, domains_changed=changed, seconds=time.perf_counter() - started)
    failed = [d for d in report.domains if d.status == "failed"]
    if failed:
        # the ingest stands; the view lags where the compile failed
        result.status = "failed"
        result.reason = "the compile failed for " + "; ".join(
            f"{d.domain}" + (f" ({d.rejection})" if d.rejection else "") for d in failed
        )
    result.lag = view_lag(ctx).facts
    return result


__all__ = [
    "CatchUp",
    "ViewLag",
    "catch_up_view",
    "catching_up",
    "catching_up_at",
    "current_fact_ids",
    "not_needed",
    "view_lag",
    "wanted",
]
