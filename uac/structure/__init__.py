"""Phase 2 -- structure: facts and records compiled into typed domain packages.

The generated code (``domains/<d>/schema.py`` and ``state.py``) is untrusted:
it is validated (:mod:`.validate`) and evaluated by a literal interpreter
(:mod:`.interpret`, :mod:`.loader`), never imported or executed.  Compiling:
:mod:`.compile_llm` (incremental and bounded, with a model), :mod:`.offline`
(no model), :mod:`.records` (``uac import-records``).  Heavy dependencies
(libcst, black) load only inside the functions that need them.
"""

from __future__ import annotations

__all__ = [
    "compile_llm",
    "loader",
    "offline",
    "records",
    "render",
    "routing",
    "store",
    "validate",
    "view",
]
