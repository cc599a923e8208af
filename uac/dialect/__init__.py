"""The dialect: the generated Python that uac speaks with the model and with agents.

A domain package (``schema.py`` with dataclasses and enums, ``state.py`` with
typed literal values) is untrusted input: it is validated and evaluated by a
literal interpreter, never imported or executed.  This package holds the
language itself -- its types, checks, loaders and printers -- and nothing
about where the code lives or how it is produced: it never imports the
compile pipelines, the facts log, the LLM layer, the project or any other
capability (only :mod:`uac.errors`, :mod:`uac.fsutil`, :mod:`uac.templating`
and :mod:`uac.dates`, whose ``Period`` is a field type).  Heavy dependencies (libcst, black) load only inside
the functions that need them.

Modules, lowest layer first (each imports only modules above it in this list):

* :mod:`.limits` -- resource limits on generated code;
  :mod:`.types` -- the annotation grammar (:class:`~.types.TypeSpec`) and
  value checks; :mod:`.spec` -- the parsed schema (:class:`~.spec.SchemaSpec`);
  :mod:`.problems` -- :class:`~.problems.Problem` and
  :class:`~.problems.CodeRejected`.
* :mod:`.precheck` -- validation layer 1, the raw text (size, encoding,
  non-ASCII, bracket depth) and :func:`~.precheck.split_code`;
  :mod:`.syntax` -- layer 2, ``ast.parse`` and tree limits;
  :mod:`.grammar` -- allowed imports, reserved names, identifiers.
* :mod:`.schema_allowlist` -- layer 3a, the libcst allowlist of ``schema.py``;
  :mod:`.validate` -- ``schema.py`` into a :class:`~.spec.SchemaSpec`, and the
  ``__init__.py`` check.
* :mod:`.classes` -- frozen dataclasses and enums built from a schema.
* :mod:`.interpret` -- the literal interpreter of ``state.py``.
* :mod:`.fastload` -- the fast JSON loader for big ``state.py`` files.
* :mod:`.loader` -- a domain package from source text to Python objects.
* :mod:`.codec` -- the JSON codec of loaded values (what the load cache holds).
* :mod:`.render` -- deterministic ``schema.py``/``state.py`` source generation.

Validation is the lower layer and the fast loader the upper one: the text and
syntax checks and the grammar know nothing of how ``state.py`` is evaluated;
the interpreter builds on them; the fast loader builds on the interpreter (it
type-checks its statement skeleton through it and falls back to it), and the
loader chooses between the two.  Nothing below :mod:`.fastload` imports it.
"""
