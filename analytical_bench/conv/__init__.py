"""The conversational analytical benchmark: chat histories told from a ledger of a
person's life, and scores of a memory's typed view against that ledger."""

from .ledger import FORMAT, Event, Ledger, LedgerError, load_ledger, parse_ledger
from .view_score import KindScore, score_view

__all__ = ["FORMAT", "Event", "KindScore", "Ledger", "LedgerError", "load_ledger", "parse_ledger", "score_view"]
