"""How the dialect reports code it refuses: :class:`Problem` and :class:`CodeRejected`.

Every check of generated code (the text checks, the syntax tree limits, the
schema allowlist, the literal interpreter, the compile-level rules) reports
its findings as ``path:line: message`` problems collected in one exception.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import CompileError


@dataclass(frozen=True)
class Problem:
    path: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}" if self.line else f"{self.path}: {self.message}"


class CodeRejected(CompileError):
    """Generated code failed validation; ``problems`` lists every finding."""

    def __init__(self, problems: list[Problem], *, hint: str | None = None) -> None:
        self.problems = problems
        shown = "; ".join(str(p) for p in problems[:8])
        more = f" (and {len(problems) - 8} more)" if len(problems) > 8 else ""
        super().__init__(f"generated code rejected: {shown}{more}.", hint=hint)


def reject(path: str, line: int, message: str) -> CodeRejected:
    return CodeRejected([Problem(path, line, message)])


__all__ = ["CodeRejected", "Problem", "reject"]
