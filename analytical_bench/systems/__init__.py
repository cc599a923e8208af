"""The five benchmark systems behind one interface (:class:`System`)."""

from __future__ import annotations

from uac import InputError

from .base import Prediction, System
from .full_context import FullContext
from .repl import FullContextRepl, UacRepl
from .retrieval import FlatFacts, TopKRetrieval

#: every system, in report order
SYSTEM_CLASSES: dict[str, type[System]] = {
    cls.name: cls for cls in (FullContextRepl, UacRepl, FullContext, TopKRetrieval, FlatFacts)
}


def make_systems(
    names: list[str] | None = None, *, max_steps: int | None = None, reasoning: str = "direct"
) -> list[System]:
    """Instances of the named systems (all when ``names`` is empty), in report order,
    answering in the ``reasoning`` mode (direct | step_by_step)."""
    wanted = names or list(SYSTEM_CLASSES)
    unknown = [name for name in wanted if name not in SYSTEM_CLASSES]
    if unknown:
        raise InputError(f"unknown system(s): {', '.join(unknown)}.", hint=f"Choose from: {', '.join(SYSTEM_CLASSES)}.")
    out: list[System] = []
    for name in SYSTEM_CLASSES:
        if name in wanted:
            cls = SYSTEM_CLASSES[name]
            system = cls(max_steps=max_steps) if max_steps and cls.uses_tools else cls()
            out.append(system.with_reasoning(reasoning))
    return out


__all__ = [
    "FlatFacts",
    "FullContext",
    "FullContextRepl",
    "Prediction",
    "SYSTEM_CLASSES",
    "System",
    "TopKRetrieval",
    "UacRepl",
    "make_systems",
]
