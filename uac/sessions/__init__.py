"""Conversation sessions: the input formats and the archived form."""

from .detect import FORMATS, detect_format, load_sessions
from .model import Session, Turn

__all__ = ["FORMATS", "Session", "Turn", "detect_format", "load_sessions"]
