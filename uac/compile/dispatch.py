"""``uac compile``: pick the mode and run its pipeline.

``incremental`` (:mod:`.incremental`) and ``bounded`` (:mod:`.bounded`) need
a model; ``offline`` (:mod:`.offline`) builds a dated event timeline per
domain without one.  With no mode given: ``[compile] mode`` when a model is
configured, else ``offline``.  Every model call of a compile is metered into
the report's ``usage`` (cache hits apart).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..config import CompileConfig
    from ..facts.model import Fact
    from ..llm import LLMClient
    from ..llm.progress import ProgressCallback
    from ..project import Project
    from .report import CompileReport


def compile_project(
    project: "Project",
    facts: list["Fact"],
    client: "LLMClient | None",
    *,
    mode: str | None = None,
    progress: "ProgressCallback | None" = None,
) -> CompileReport:
    """Compile ``facts`` into the project's view; ``client=None`` builds the offline timeline.
    ``progress`` is told how many domains are done (incremental mode, see :mod:`uac.llm.progress`)."""
    from ..errors import InputError
    from ..view.changes import compile_scope

    config = project.config.compile
    mode = mode or (config.mode if client is not None else "offline")
    if mode not in ("incremental", "bounded", "offline"):
        raise InputError(f"unknown compile mode {mode!r}.", hint="Use incremental, bounded or offline.")
    corrections = [f.id for f in facts if f.meta.get("correction")]
    # every domain this compile writes is one compile of the change log
    with project.lock("compile"), compile_scope(project, mode, corrections=corrections):
        return _run(project, facts, client, mode, config, progress)


def _run(
    project: "Project",
    facts: list["Fact"],
    client: "LLMClient | None",
    mode: str,
    config: "CompileConfig",
    progress: "ProgressCallback | None",
) -> CompileReport:
    from ..progress import step
    from .coverage import add_view_coverage
    from .report import write_last_compile

    if mode == "offline":
        from .offline import compile_offline

        report = compile_offline(project, facts)
        add_view_coverage(project, report, facts)
        write_last_compile(project, report)
        return report
    from .. import llm as _llm

    client = _llm.require(client, f"the {mode} compile")
    with client.metered() as usage:
        if mode == "bounded":
            from .bounded import compile_bounded

            step(0, 1, "prompts")
            report = compile_bounded(project, facts, client, config)
            step(1, 1, "prompts")
        else:
            from .incremental import compile_incremental

            report = compile_incremental(project, facts, client, config, progress=progress)
    report.usage = usage
    add_view_coverage(project, report, facts)
    write_last_compile(project, report)
    return report


__all__ = ["compile_project"]
