"""Conversation sessions: the input formats and the archived form."""

from typing import TYPE_CHECKING, Any

from .model import Session, Turn

if TYPE_CHECKING:
    from .detect import FORMATS, detect_format, load_sessions


def __getattr__(name: str) -> Any:
    # the readers (LoCoMo, messages, transcripts) load only when a file is read:
    # a search that opens the archive does not pay for them
    if name in ("FORMATS", "detect_format", "load_sessions"):
        from . import detect

        return getattr(detect, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["FORMATS", "Session", "Turn", "detect_format", "load_sessions"]
