"""The working copy of one domain while the operations protocol changes it.

A :class:`DomainWork` holds a domain's schema (as a list of
:class:`~uac.dialect.spec.ClassSpec`), its top-level values and the classes
built from the schema.  Records of *managed* classes (dataclasses with an
``id: str`` and a ``sources: list[str]`` field, which uac adds to every class
the model creates) have a stable identity: ``id`` is assigned by uac
(``trip-3``) and never reused.  Classes without those fields (records brought
in by ``uac import-records``) are read-only to the model.

Operations (:mod:`.ops`) mutate a :class:`DomainWork`; its ``output``
(:class:`~.domain_files.DomainFiles`) renders it deterministically into ``__init__.py``, ``schema.py`` and
``state.py``.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Iterator

from ..dialect.classes import build_classes, field_specs, rebuild
from ..dialect.loader import LoadedDomain
from ..dialect.spec import ClassSpec, FieldSpec, SchemaSpec
from ..dialect.types import TypeSpec
from .domain_files import DomainFiles
from .offline import EVENT as OFFLINE_EVENT
from .record_ids import ID_FIELD, RecordIds, id_prefix

LIST_STR = TypeSpec("list", (TypeSpec("str"),))
ID_SPEC = FieldSpec(ID_FIELD, TypeSpec("str"))
NOTES_SPEC = FieldSpec("notes", LIST_STR, "list")
SOURCES_SPEC = FieldSpec("sources", LIST_STR, "list")
#: fields uac owns on managed classes; the model never sets them directly
RESERVED_FIELDS = frozenset({ID_FIELD, "notes", "sources"})


def is_managed(spec: ClassSpec) -> bool:
    """Does the operations protocol own records of this class (ids and sources)?"""
    if spec.kind != "dataclass":
        return False
    ident, sources = spec.field(ID_FIELD), spec.field("sources")
    return ident is not None and ident.type == TypeSpec("str") and sources is not None and sources.type == LIST_STR


def managed_layout(fields: list[FieldSpec]) -> tuple[FieldSpec, ...]:
    """``id`` first, required model fields, defaulted ones, then ``notes`` and ``sources``."""
    own = [f for f in fields if f.name not in RESERVED_FIELDS]
    required = [f for f in own if f.required]
    optional = [f for f in own if not f.required]
    return (ID_SPEC, *required, *optional, NOTES_SPEC, SOURCES_SPEC)


class DomainWork:
    """One domain's schema and values, changed in place by operations.

    Its parts: :attr:`ids` (:class:`~.record_ids.RecordIds`, the record ids and where
    each is) and :attr:`output` (:class:`~.domain_files.DomainFiles`, the files it renders).
    """

    def __init__(
        self, name: str, classes: list[ClassSpec], values: dict[str, Any], types: dict[str, TypeSpec], doc: str = ""
    ) -> None:
        self.name = name
        self.class_specs: list[ClassSpec] = list(classes)
        self.values: dict[str, Any] = dict(values)
        self.types: dict[str, TypeSpec] = dict(types)
        self.doc = doc or f"The {name} domain of this user's memory."
        self.ids = RecordIds(self.iter_records)
        self.output = DomainFiles(self)
        self._classes: dict[str, type] | None = None
        #: the other domains' records a reference may name (a :class:`~.related.CrossIndex`)
        self.refs: Any = None

    # -- construction ------------------------------------------------------------

    @classmethod
    def empty(cls, name: str) -> "DomainWork":
        return cls(name, [], {}, {})

    @classmethod
    def from_loaded(cls, loaded: LoadedDomain, *, adopt: bool = True) -> "DomainWork":
        """A working copy of a loaded domain.  With ``adopt``, classes that cite sources but
        lack an ``id`` (views written before the protocol) get one, so operations can name
        their records; the offline timeline's ``Event`` is left as it is."""
        work = cls(loaded.name, list(loaded.schema.classes), {}, dict(loaded.types), loaded.schema.doc)
        work._classes = dict(loaded.classes)
        work.values = {
            name: (list(value) if isinstance(value, (list, tuple)) else value) for name, value in loaded.values.items()
        }
        if adopt:
            upgraded = _with_ids(work.class_specs)
            if upgraded is not None:
                work.class_specs = upgraded
                work._rebuild_classes()
            _number_existing(work)
        return work

    # -- schema --------------------------------------------------------------------

    @property
    def schema(self) -> SchemaSpec:
        return SchemaSpec(tuple(self.class_specs), self.doc, ())

    @property
    def classes(self) -> dict[str, type]:
        if self._classes is None:
            self._classes = build_classes(self.schema, f"uac_domains.{self.name}")
        return self._classes

    def class_spec(self, name: str) -> ClassSpec | None:
        for spec in self.class_specs:
            if spec.name == name:
                return spec
        return None

    def add_class(self, spec: ClassSpec) -> None:
        self.class_specs.append(spec)
        self._rebuild_classes()

    def replace_class(self, spec: ClassSpec) -> None:
        for position, current in enumerate(self.class_specs):
            if current.name == spec.name:
                self.class_specs[position] = spec
        self._rebuild_classes()

    def _rebuild_classes(self) -> None:
        """Rebuild the classes and re-create every value with them (new fields take their defaults)."""
        self._classes = None
        classes = self.classes
        self.values = {name: rebuild(value, classes) for name, value in self.values.items()}
        self.ids.stale()

    # -- records --------------------------------------------------------------------

    def collection_class(self, collection: str) -> str | None:
        """The element class of a ``list[Class]`` collection, else ``None``."""
        spec = self.types.get(collection)
        if spec is not None and spec.kind == "list" and spec.args[0].kind == "class":
            return spec.args[0].name
        return None

    def collections(self) -> list[tuple[str, str, int]]:
        """(collection, class, record count) for every ``list[Class]`` value."""
        out = []
        for name, value in self.values.items():
            cls = self.collection_class(name)
            if cls is not None:
                out.append((name, cls, len(value)))
        return out

    def add_collection(self, collection: str, class_name: str) -> None:
        self.types[collection] = TypeSpec("list", (TypeSpec("class", name=class_name),))
        self.values[collection] = []

    def iter_records(self) -> Iterator[tuple[str, int, Any]]:
        """(collection, position, record) for every record of a managed class."""
        for collection, value in self.values.items():
            cls = self.collection_class(collection)
            spec = self.class_spec(cls) if cls else None
            if spec is None or not is_managed(spec):
                continue
            for position, record in enumerate(value):
                yield collection, position, record

    def find(self, ident: str) -> tuple[str, Any] | None:
        """(collection, record) of the record with id ``ident``."""
        where = self.ids.place(ident)
        if where is None:
            return None
        collection, position = where
        return collection, self.values[collection][position]

    def append(self, collection: str, record: Any) -> None:
        self.values[collection].append(record)
        self.ids.added(getattr(record, ID_FIELD), collection, len(self.values[collection]) - 1)

    def replace(self, ident: str, record: Any) -> None:
        where = self.ids.place(ident)
        if where is None:
            raise KeyError(ident)
        collection, position = where
        self.values[collection][position] = record

    def remove(self, ident: str) -> Any:
        where = self.ids.place(ident)
        if where is None:
            raise KeyError(ident)
        collection, position = where
        record = self.values[collection].pop(position)
        self.ids.stale()
        return record

    def record_count(self) -> int:
        return sum(len(v) for n, v in self.values.items() if self.collection_class(n))

    def cited_ids(self) -> set[str]:
        cited: set[str] = set()
        for _, _, record in self.iter_records():
            cited.update(record.sources)
        for name, value in self.values.items():  # unmanaged classes that still cite facts
            cls = self.collection_class(name)
            spec = self.class_spec(cls) if cls else None
            if spec is not None and not is_managed(spec) and spec.field("sources") is not None:
                for record in value:
                    cited.update(i for i in getattr(record, "sources", ()) if isinstance(i, str))
        return cited

    def copy(self) -> "DomainWork":
        twin = DomainWork(self.name, list(self.class_specs), {}, dict(self.types), self.doc)
        twin.values = {name: (list(value) if isinstance(value, list) else value) for name, value in self.values.items()}
        twin.ids = self.ids.copy(twin.iter_records)
        twin.output = DomainFiles(twin, self.output.chunks)
        twin._classes = self._classes
        twin.refs = self.refs
        return twin


def _with_ids(specs: list[ClassSpec]) -> list[ClassSpec] | None:
    """The classes with an ``id`` for those the protocol should own (older views had none),
    or ``None`` when none needs one."""
    upgraded = list(specs)
    for position, spec in enumerate(specs):
        if spec.kind != "dataclass" or is_managed(spec) or spec == OFFLINE_EVENT:
            continue
        sources = spec.field("sources")
        has_id = spec.field(ID_FIELD)
        if sources is None or sources.type != LIST_STR or (has_id is not None and has_id.type != TypeSpec("str")):
            continue  # imported records or a foreign `id`: read-only to the model
        fields = [f for f in spec.fields if f.name != ID_FIELD]
        if spec.field("notes") is None:
            fields.append(NOTES_SPEC)
        upgraded[position] = dataclasses.replace(spec, fields=managed_layout(fields))
    return None if upgraded == specs else upgraded


def _number_existing(work: DomainWork) -> None:
    """Record the highest id number per prefix and give missing or duplicate ids new ones."""
    for collection, position, record in work.ids.unnumbered():
        work.values[collection][position] = dataclasses.replace(
            record, **{ID_FIELD: work.ids.new(type(record).__name__)}
        )
    work.ids.stale()


__all__ = ["DomainWork", "ID_FIELD", "RESERVED_FIELDS", "field_specs", "id_prefix", "is_managed", "managed_layout"]
