"""Full Context: every record as JSON in the prompt, answered in the model's head."""

from __future__ import annotations

from uac import Message

from ..cases import Case
from ..prompts import render
from .base import System


class FullContext(System):
    name = "full_context"
    label = "Full Context"

    def messages(self, case: Case) -> list[Message]:
        prompt = render("full_context", collections=case.collections, question=case.question)
        return [self.system_message(case), Message("user", prompt)]
