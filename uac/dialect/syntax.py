"""Layer 2 of validation: parsing with ``ast`` and the syntax-tree limits.

The text has passed :mod:`.precheck` (so its bracket depth is bounded) before
it reaches :func:`parse_python`; parser overflow and recursion errors still
become rejections, never crashes.
"""

from __future__ import annotations

import ast

from sandbox.pyparse import parse

from .problems import reject


def parse_python(text: str, path: str) -> ast.Module:
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarnings of generated text are not ours to print
            return parse(text, path)
    except SyntaxError as exc:
        raise reject(path, exc.lineno or 0, f"syntax error: {exc.msg}") from None
    except (MemoryError, RecursionError):
        raise reject(path, 0, "source too deeply nested for the parser") from None


def check_tree_size(tree: ast.AST, path: str, *, max_depth: int, max_nodes: int) -> None:
    """Iterative depth and node-count check (no recursion on hostile trees)."""
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    count = 0
    while stack:
        node, depth = stack.pop()
        count += 1
        if count > max_nodes:
            raise reject(path, 0, f"more than {max_nodes:,} syntax nodes")
        if depth > max_depth:
            raise reject(path, getattr(node, "lineno", 0), f"syntax tree deeper than {max_depth} levels")
        for child in ast.iter_child_nodes(node):
            stack.append((child, depth + 1))


__all__ = ["check_tree_size", "parse_python"]
