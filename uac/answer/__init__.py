"""Answering: pack the STATE, FACTS and ARCHIVE channels, let a reader answer,
and let it compute over the typed state in the sandbox for aggregate questions.

Entry point: :func:`uac.answer.reader.answer_question` (``UserMemory.ask``).
"""

from .model import Answer, ToolRun
from .options import AskOptions

__all__ = ["Answer", "AskOptions", "ToolRun"]
