"""What a responder of the rule model returns."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Reply:
    """The content of an answer, before any server gives it a form.

    Structured kinds set ``data`` (the JSON value); answers set ``text`` or
    ``tool_calls`` (``(name, arguments)`` pairs).
    """

    kind: str | None
    data: Any = None
    text: str | None = None
    tool_calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def content(self) -> str | None:
        if self.data is not None:
            return json.dumps(self.data, ensure_ascii=False)
        return self.text

    def entry(self) -> dict[str, Any]:
        """This reply as a :class:`~uac.llm.ScriptedProvider` entry."""
        if self.data is not None:
            return {"json": self.data}
        if self.tool_calls:
            return {
                "content": None,
                "tool_calls": [{"name": name, "arguments": args} for name, args in self.tool_calls],
            }
        return {"content": self.text}


__all__ = ["Reply"]
