"""Facts: the append-only, evidence-linked log of what was said."""

from .model import Fact

__all__ = ["Fact"]
