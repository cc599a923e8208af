"""A working copy as files: ``__init__.py``, ``schema.py`` and ``state.py``, rendered
deterministically, with each record's lines kept for the next rendering."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..dialect import render
from ..dialect.loader import LoadedDomain
from ..dialect.partial import schema_key
from ..dialect.spec import SchemaSpec
from ..view import store

if TYPE_CHECKING:
    from .working_copy import DomainWork


class DomainFiles:
    """The files of ``work`` as it is now."""

    def __init__(self, work: "DomainWork", chunks: render.ChunkCache | None = None) -> None:
        self._work = work
        #: rendered lines per record object, shared by copies (records are immutable)
        self.chunks: render.ChunkCache = {} if chunks is None else chunks

    def render(self) -> tuple[dict[str, str], render.StateSource]:
        """The files (``__init__.py``, ``schema.py``, ``state.py``) and ``state.py``'s parts."""
        work = self._work
        entries = [(name, work.types[name], value) for name, value in work.values.items()]
        rendered = store.render_domain(work.name, work.schema, entries, chunk_cache=self.chunks)
        return rendered.files, rendered.state

    def files(self) -> dict[str, str]:
        return self.render()[0]

    def trust(self, digest: str) -> bool:
        """The files of source hash ``digest`` passed the full validator (they were loaded):
        if the copy renders exactly them, each record's lines are known to read back as
        the record, and are marked checked (see :mod:`uac.dialect.partial`)."""
        files, source = self.render()
        if store.files_digest(files) != digest:
            return False
        key = schema_key(files["schema.py"])
        for statement in source.statements:
            for chunk in statement.chunks or ():
                chunk.checked = key
        return True

    def as_loaded(self, schema: SchemaSpec, digest: str) -> LoadedDomain:
        """The copy as the loader would return it from its files (``schema``: as validated
        from ``schema.py``; ``digest``: their source hash)."""
        work = self._work
        values = {name: (list(value) if isinstance(value, list) else value) for name, value in work.values.items()}
        return LoadedDomain(work.name, schema, dict(work.classes), values, dict(work.types), digest)


__all__ = ["DomainFiles"]
