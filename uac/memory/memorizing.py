"""What :class:`~uac.memory.UserMemory` memorizes and forgets: session files and
conversations ingested (then the view's catch-up), corrections, forgetting."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from .part import MemoryPart

if TYPE_CHECKING:
    from ..llm.progress import ProgressCallback
    from ..memorize.correct import CorrectionReport
    from ..memorize.forget import ForgetReport
    from ..memorize.ingest import IngestReport
    from ..sessions import Session


class MemorizePart(MemoryPart):
    """Ingest, add a session, correct, forget."""

    def ingest(
        self,
        path: str | Path,
        *,
        format: str = "auto",
        sample_id: str | None = None,
        date: str | None = None,
        extractor: str | None = None,
        progress: "ProgressCallback | None" = None,
        compile: bool | None = None,
    ) -> IngestReport:
        """Read a session file, archive its sessions, append their facts, index them,
        then bring the view up to date (the report's ``view`` says what that did).

        ``extractor``: ``rules``, ``llm`` or ``None`` (the LLM when a model is
        configured, else rules).  ``progress`` is called with a
        :class:`uac.llm.progress.Progress` as sessions are committed (and while
        model calls run).  ``compile``: ``False`` leaves the view as it is (bulk
        loads: compile once at the end), ``None`` follows ``[compile] auto``.
        """
        from ..memorize.ingest import ingest_sessions
        from ..sessions import load_sessions

        user = self.project.config.user
        sessions = load_sessions(
            path, format=format, sample_id=sample_id, date=date, user_name=user.name, timezone=user.timezone
        )
        report = ingest_sessions(
            self.context, sessions, extractor=extractor, file=path, format=sessions[0].source, progress=progress
        )
        return self._catch_up(report, compile)

    def _catch_up(self, report: IngestReport, compile: bool | None) -> IngestReport:
        """The view's catch-up after an ingest (never turns the ingest into a failure)."""
        from ..compile.follow import catch_up_view

        report.view = catch_up_view(self.context, compile=compile, added=bool(report.sessions_added))
        return report

    def add_session(
        self,
        session: "Session | dict[str, Any] | list[Any] | str | Path",
        *,
        extractor: str | None = None,
        compile: bool | None = None,
        **read_options: Any,
    ) -> IngestReport:
        """Add one conversation: a :class:`~uac.Session`, a JSON value as a session file
        holds (``{"date": "2024-05-02", "messages": [{"role": "user", "content": "..."}]}``,
        a list of such messages, or a LoCoMo conversation), or a file path (as :meth:`ingest`).

        ``read_options`` are :meth:`ingest`'s (``format``, ``sample_id``, ``date``); ``compile``
        as for :meth:`ingest`."""
        from ..errors import InputError
        from ..memorize.ingest import ingest_sessions
        from ..sessions import Session
        from ..sessions.detect import ReadOptions, sessions_from_value

        if isinstance(session, Session):
            if read_options:
                raise InputError(
                    f"add_session: {', '.join(sorted(read_options))} apply to files and JSON values, not to a Session."
                )
            return self._catch_up(
                ingest_sessions(self.context, [session], extractor=extractor, format=session.source), compile
            )
        if isinstance(session, (dict, list)):
            unknown = set(read_options) - {"format", "sample_id", "date"}
            if unknown:
                raise InputError(
                    f"add_session got unknown options: {', '.join(sorted(unknown))}.",
                    hint="It takes format, sample_id and date.",
                )
            user = self.project.config.user
            options = ReadOptions(user_name=user.name, timezone=user.timezone, **read_options)
            sessions = sessions_from_value(session, options, label="the session given to add_session")
            return self._catch_up(
                ingest_sessions(self.context, sessions, extractor=extractor, format=sessions[0].source), compile
            )
        if isinstance(session, (str, Path)):
            return self.ingest(session, extractor=extractor, compile=compile, **read_options)
        raise InputError(
            f"add_session takes a Session, a dict or list of chat messages, or a file path; got {type(session).__name__}.",
            hint="Pass {'date': 'YYYY-MM-DD', 'messages': [{'role': 'user', 'content': '...'}]}.",
        )

    def forget(
        self,
        *,
        fact: str | None = None,
        session: str | None = None,
        domain: str | None = None,
        collection: str | None = None,
    ) -> ForgetReport:
        """Remove for real: a fact; a session with its facts and archive file; or a
        domain of the typed view (``collection``: only that collection), e.g. records
        imported with :meth:`import_records`."""
        from ..memorize.forget import forget

        return forget(self.context, fact=fact, session=session, domain=domain, collection=collection)

    def correct(self, text: str, *, supersedes: "list[str] | tuple[str, ...]" = ()) -> CorrectionReport:
        """Add a fact the user wrote (a correction) that supersedes the facts ``supersedes``.

        The correction is a fact like the others (its evidence is a one-turn
        session of source ``correction``, its ``meta`` says when it was made);
        the superseded facts stop being valid today, and the next compile
        revisits the records that cite them.
        """
        from ..memorize.correct import correct

        return correct(self.context, text, supersedes=supersedes)


__all__ = ["MemorizePart"]
