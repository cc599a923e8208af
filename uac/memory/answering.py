"""Answering through :class:`~uac.memory.UserMemory`: ``ask`` over the three channels,
and agent code run in the sandbox over the typed state."""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING, Any

from ..dates import parse_day
from .part import MemoryPart

if TYPE_CHECKING:
    import sandbox as _sandbox

    from ..answer.model import Answer
    from ..answer.options import AskOptions


class AnswerPart(MemoryPart):
    """Ask, run code in the sandbox, a warm sandbox session."""

    def ask(self, question: str, options: AskOptions | None = None, **overrides: Any) -> Answer:
        """Answer ``question`` from the STATE, FACTS and ARCHIVE channels.

        ``options`` is an :class:`~uac.answer.options.AskOptions`; keyword
        ``overrides`` set its fields (``as_of=``, ``loading=``, ``use_state=``,
        ``iterative=``, ``instructions=`` ...; ``None`` means "not given").
        Unset options come from ``[answer]`` in uac.toml.  Without a model,
        returns the ranked evidence (``answer.mode == "evidence"``).
        """
        from ..answer.options import AskOptions
        from ..answer.reader import answer_question

        return answer_question(self.context, question, (options or AskOptions()).updated(**overrides))

    def run(
        self, code: str, *, as_of: "_dt.date | str | None" = None, include_facts: bool = False
    ) -> "_sandbox.RunResult":
        """Run agent code in the sandbox over the typed state.

        ``.to_json()`` of the result is ``{"ok", "result", "stdout", "error"}``
        (``result`` is the JSON value of the variable ``result``).  For many
        calls keep a warm session with :meth:`sandbox_session`.
        """
        from ..sandbox_bridge import run_code

        return run_code(self.context, code, as_of=parse_day(as_of, what="as_of"), include_facts=include_facts)

    def sandbox_session(
        self, *, as_of: "_dt.date | str | None" = None, include_facts: bool = False
    ) -> "_sandbox.Session":
        """A warm sandbox session over the state; variables persist between ``run`` calls."""
        from ..sandbox_bridge import open_session

        return open_session(self.context, as_of=parse_day(as_of, what="as_of"), include_facts=include_facts)


__all__ = ["AnswerPart"]
