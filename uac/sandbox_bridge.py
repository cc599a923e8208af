"""The bridge from a user project to the sandbox.

The typed state (:meth:`MemoryContext.sandbox_state`: domain -> name -> loaded
values) is encoded with :func:`sandbox.codec.encode_state` and rebuilt inside
the worker as read-only objects.  Every collection is a global under its own
name and under its domain (``trips`` and ``travel.trips``); with
``include_facts`` the fact list is the global ``facts``.
"""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING, Any

from .answer.state_view import filter_state_as_of
from .context import MemoryContext
from .errors import SandboxError
from .recall import list_facts
from .safejson import check_text

if TYPE_CHECKING:
    import sandbox as _sandbox


def sandbox_limits(ctx: MemoryContext) -> "_sandbox.Limits":
    import sandbox

    config = ctx.project.config.sandbox
    return sandbox.Limits(cpu_seconds=config.cpu_seconds, wall_seconds=config.wall_seconds, memory_mb=config.memory_mb)


def state_for_sandbox(ctx: MemoryContext, as_of: _dt.date | None = None) -> dict[str, dict[str, Any]]:
    state = ctx.sandbox_state()
    if as_of is not None:
        state, _ = filter_state_as_of(state, as_of, ctx.fact_table().said)
    return state


def facts_for_sandbox(ctx: MemoryContext, as_of: _dt.date | None = None) -> list[dict[str, Any]]:
    """The facts as the sandbox's ``facts``: every fact of the log (superseded ones
    too, with ``invalid_at``/``superseded_by`` set), or with ``as_of`` those said by
    that day and still in force on it.  ``event_date`` is a ``Period``."""
    from sandbox.period import Period

    out = []
    for fact in list_facts(ctx, as_of=as_of, include_superseded=as_of is None):
        data = fact.to_json()
        data.pop("meta", None)
        for key in ("session_date", "valid_from", "invalid_at"):
            if data[key] is not None:
                data[key] = _dt.date.fromisoformat(data[key])
        event = fact.event_date
        data["event_date"] = None if event is None else Period(event.start, event.end)
        out.append(data)
    return out


def encoded_state(ctx: MemoryContext, *, as_of: _dt.date | None = None, include_facts: bool = False) -> dict[str, Any]:
    import sandbox.codec

    facts = facts_for_sandbox(ctx, as_of) if include_facts else None
    return sandbox.codec.encode_state(state_for_sandbox(ctx, as_of), facts=facts)


def open_session(
    ctx: MemoryContext,
    *,
    as_of: _dt.date | None = None,
    include_facts: bool = False,
    payload: dict[str, Any] | None = None,
) -> "_sandbox.Session":
    """A warm sandbox session over the project's state (close it when done);
    ``payload``: an :func:`encoded_state` already made for the same arguments."""
    import sandbox

    if payload is None:
        payload = encoded_state(ctx, as_of=as_of, include_facts=include_facts)
    try:
        return sandbox.Session(
            payload,
            limits=sandbox_limits(ctx),
            require_jail=ctx.project.config.sandbox.require_jail or None,
        )
    except sandbox.SandboxError as exc:
        raise SandboxError(
            f"the sandbox cannot start: {exc}.", hint="{do:doctor} (it shows the sandbox level)."
        ) from exc


def run_code(
    ctx: MemoryContext, code: str, *, as_of: _dt.date | None = None, include_facts: bool = False
) -> "_sandbox.RunResult":
    """Run ``code`` once over the state (``.to_json()`` is ``{"ok", "result", "stdout", "error"}``)."""
    check_text(code, "the code")
    with ctx.sandbox_slot(), open_session(ctx, as_of=as_of, include_facts=include_facts) as session:
        return session.run(code)
