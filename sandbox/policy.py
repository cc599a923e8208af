"""Compile-time policy: RestrictedPython plus the sandbox's own rules.

Agent code is parsed, checked and rewritten by :class:`SandboxPolicy` (a
``RestrictingNodeTransformer``) and compiled to a code object.  This runs in
the worker only, so parser or compiler bombs hit the worker's limits, never
the host.

Attribute reads: since agent code has no ``getattr``/``vars``/``dir``/
``type`` and ``operator.attrgetter``/``methodcaller`` are removed, every
attribute name it reads is a literal in the source.  The policy checks each
one here, once:

* names starting with ``_`` and frame/code/traceback names
  (:data:`FORBIDDEN_ATTRIBUTES`) are compile errors;
* names that are dangerous on some objects but can be record fields
  (``format``, ``format_map``, ``mro``, ...) are rewritten to
  ``_getattr_(obj, name)``, a runtime guard that allows them on records only;
* every other name is compiled to a plain attribute read, so ``t.city`` runs
  at native speed (a typo still raises ``AttributeError``).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from types import CodeType

from RestrictedPython import compile_restricted_exec
from RestrictedPython.transformer import RestrictingNodeTransformer

from .builtins import ATTRIBUTE_ALTERNATIVES
from .guards import SENSITIVE_ATTRIBUTES
from .pyparse import locked, parse

try:  # RestrictedPython >= 8.1
    from RestrictedPython.transformer import INSPECT_ATTRIBUTES as _RP_INSPECT
except ImportError:  # pragma: no cover - older RestrictedPython
    _RP_INSPECT = frozenset()

FILENAME = "<agent>"

FORBIDDEN_ATTRIBUTES = frozenset(_RP_INSPECT) | frozenset(
    {
        # frames
        "f_back",
        "f_builtins",
        "f_code",
        "f_generator",
        "f_globals",
        "f_locals",
        "f_trace",
        "f_trace_lines",
        "f_trace_opcodes",
        "f_lasti",
        # tracebacks
        "tb_frame",
        "tb_next",
        "tb_lasti",
        # code objects
        "co_code",
        "co_consts",
        "co_names",
        "co_varnames",
        "co_filename",
        "co_lnotab",
        "co_linetable",
        "co_exceptiontable",
        "co_freevars",
        "co_cellvars",
        "co_positions",
        "co_lines",
        # generators, coroutines, async generators
        "gi_frame",
        "gi_code",
        "gi_yieldfrom",
        "gi_running",
        "gi_suspended",
        "cr_frame",
        "cr_code",
        "cr_await",
        "cr_origin",
        "cr_running",
        "cr_suspended",
        "ag_frame",
        "ag_code",
        "ag_await",
        "ag_running",
        # functions and methods (non-dunder aliases kept by some types)
        "func_globals",
        "func_code",
        "im_func",
        "im_self",
        "im_class",
    }
)


def attribute_read(name: str) -> str:
    """How compiled agent code reads ``obj.<name>``: ``"refused"`` (a compile
    error), ``"guarded"`` (through :func:`sandbox.guards.guarded_getattr`) or
    ``"native"`` (a plain attribute read)."""
    if name in FORBIDDEN_ATTRIBUTES or name.startswith("_") or name.endswith("__roles__"):
        return "refused"
    if name in SENSITIVE_ATTRIBUTES:
        return "guarded"
    return "native"


class SandboxPolicy(RestrictingNodeTransformer):
    """RestrictedPython's transformer with static attribute checks."""

    def visit_Attribute(self, node: ast.Attribute) -> ast.AST | Iterable[ast.AST] | None:
        name = node.attr
        if name in FORBIDDEN_ATTRIBUTES:
            self.error(node, f'"{name}" is a forbidden attribute name in the sandbox.')
            return node
        if isinstance(node.ctx, ast.Load) and attribute_read(name) == "native":
            # Checked here once; compiled to a native attribute read.
            return self.node_contents_visit(node)
        return super().visit_Attribute(node)

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST | Iterable[ast.AST] | None:
        """Also allow ``counts[k] += 1`` and ``self.total += v``.

        RestrictedPython forbids augmented assignment to items and attributes;
        here the target's object goes through ``_write_`` like any other store
        (only the agent's own objects are writable), and the attribute name is
        checked as for reads.
        """
        target = node.target
        if isinstance(target, (ast.Attribute, ast.Subscript)):
            if isinstance(target, ast.Attribute) and target.attr in SENSITIVE_ATTRIBUTES:
                self.error(node, f'Augmented assignment of "{target.attr}" is not allowed.')
                return node
            node.target = self.visit(target)
            node.value = self.visit(node.value)
            return node
        return super().visit_AugAssign(node)

    def visit_Match(self, node: ast.AST) -> ast.AST:
        self.not_allowed(node)
        return node


@dataclass
class CompileFailure:
    type: str
    message: str


UNDERSCORE_HINT = (
    "names starting with '_' are refused in the sandbox; use a name without it "
    "(record_fields(r), record_dict(r), type_name(x) and repl_names() replace the usual introspection)"
)


def _with_alternative(text: str) -> str:
    """A policy message with what to write instead."""
    for name, alternative in ATTRIBUTE_ALTERNATIVES.items():
        if f'"{name}"' in text:
            return f"{text.rstrip('.')}; use {alternative}"
    if 'starts with "_"' in text:
        return f"{text.rstrip('.')}; {UNDERSCORE_HINT}"
    return text


def _first_line(errors: Sequence[str]) -> str:
    out = []
    for err in errors:
        text = str(err)
        if text.startswith("Line "):
            head, _, rest = text.partition(":")
            text = f"line {head[5:]}:{rest}"
        out.append(_with_alternative(text))
    return "; ".join(out)


def compile_agent_code(source: str) -> CodeType | CompileFailure:
    """Parse, check and compile agent code; never raises for bad code."""
    if "\x00" in source:
        return CompileFailure("SyntaxError", "line 1: source code cannot contain null bytes")
    try:
        tree = parse(source, FILENAME, "exec")
    except SyntaxError as exc:
        return CompileFailure("SyntaxError", f"line {exc.lineno}: {exc.msg}")
    except (RecursionError, MemoryError) as exc:
        return CompileFailure(
            "SyntaxError", f"line 1: code is too deeply nested or too large to parse ({type(exc).__name__})"
        )
    try:
        result = locked(compile_restricted_exec, tree, filename=FILENAME, policy=SandboxPolicy)
    except SyntaxError as exc:
        return CompileFailure("SyntaxError", f"line {exc.lineno}: {exc.msg}")
    except (RecursionError, MemoryError) as exc:
        return CompileFailure(
            "SyntaxError", f"line 1: code is too deeply nested or too large to compile ({type(exc).__name__})"
        )
    if result.errors:
        return CompileFailure("PolicyError", _first_line(result.errors))
    if result.code is None:  # pragma: no cover - defensive
        return CompileFailure("SyntaxError", "line 1: code could not be compiled")
    return result.code
