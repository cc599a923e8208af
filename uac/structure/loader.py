"""Load a domain's generated package as Python objects -- without importing it.

``schema.py`` is validated into a :class:`SchemaSpec`; its classes are built
with :func:`dataclasses.make_dataclass` (always frozen) and :class:`enum.Enum`;
``state.py`` is evaluated by the literal interpreter, which checks every
value against its declared type.  The result is cached as JSON in
``.uac/structure/<domain>.json`` keyed by the sha256 of both sources, so a
second load of unchanged files skips validation and interpretation.
"""

from __future__ import annotations

import dataclasses
import enum
import gc
import hashlib
import json
import logging
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping

from ..errors import CompileError, StoreError
from ..fsutil import atomic_write_text
from . import limits
from .codec import StateCodec
from .interpret import StateInterpreter
from .spec import ClassSpec, SchemaSpec
from .types import TypeSpec, python_type
from .fastload import fast_values
from .validate import CodeRejected, check_depth, parse_python, precheck, precheck_split, validate_schema

log = logging.getLogger(__name__)

#: bump when the cache layout or the loader's semantics change
LOADER_VERSION = 1
FILES = ("__init__.py", "schema.py", "state.py")


def field_specs(cls: type) -> dict[str, TypeSpec]:
    """Declared field types of a loaded record class (name -> spec, in order)."""
    return cls.__dict__["__uac_types__"]


def build_classes(schema: SchemaSpec, module: str) -> dict[str, type]:
    """Build real (frozen) classes from a validated schema."""
    classes: dict[str, type] = {}
    for spec in schema.classes:
        if spec.kind == "enum":
            cls: type = enum.Enum(spec.name, [(m, v) for m, v in spec.members], module=module)  # type: ignore[misc]
            if spec.doc:
                cls.__doc__ = spec.doc
        else:
            cls = _dataclass(spec, classes, module)
        classes[spec.name] = cls
    return classes


def _dataclass(spec: ClassSpec, classes: Mapping[str, type], module: str) -> type:
    fields = []
    for f in spec.fields:
        annotation = python_type(f.type, classes)
        if f.default_kind == "required":
            fields.append((f.name, annotation))
        elif f.default_kind == "value":
            fields.append((f.name, annotation, dataclasses.field(default=f.default)))
        else:
            factory = list if f.default_kind == "list" else dict
            fields.append((f.name, annotation, dataclasses.field(default_factory=factory)))
    namespace = {"__uac_types__": {f.name: f.type for f in spec.fields}}
    if spec.doc:
        namespace["__doc__"] = spec.doc
    try:
        cls = dataclasses.make_dataclass(spec.name, fields, frozen=True, namespace=namespace)
    except (TypeError, ValueError) as exc:
        raise CompileError(f"schema class {spec.name} cannot be built: {exc}.") from None
    cls.__module__ = module
    return cls


@dataclass
class LoadedDomain:
    """One domain's loaded view."""

    name: str
    schema: SchemaSpec
    classes: dict[str, type]
    #: top-level name -> value, in source order
    values: dict[str, Any]
    types: dict[str, TypeSpec]
    source_hash: str
    from_cache: bool = False

    def records(self) -> Iterator[Any]:
        """Every record instance (dataclass object) reachable from the values."""
        stack = list(self.values.values())
        while stack:
            value = stack.pop()
            if dataclasses.is_dataclass(value) and not isinstance(value, type):
                yield value
                stack.extend(getattr(value, f.name) for f in dataclasses.fields(value))
            elif isinstance(value, (list, tuple, set)):
                stack.extend(value)
            elif isinstance(value, dict):
                stack.extend(value.values())

    def record_count(self) -> int:
        return sum(1 for _ in self.records())

    def cited_ids(self) -> set[str]:
        """Fact ids cited by records' ``sources`` (and ``notes`` that mention them)."""
        cited: set[str] = set()
        for record in self.records():
            for attr in ("sources", "notes"):
                items = getattr(record, attr, None)
                if isinstance(items, (list, tuple)):
                    cited.update(i for i in items if isinstance(i, str))
        return cited


def source_hash(schema_bytes: bytes, state_bytes: bytes) -> str:
    digest = hashlib.sha256()
    digest.update(f"uac-structure/{LOADER_VERSION}\0".encode())
    digest.update(len(schema_bytes).to_bytes(8, "big"))
    digest.update(schema_bytes)
    digest.update(state_bytes)
    return digest.hexdigest()


def load_sources(name: str, schema_src: bytes | str, state_src: bytes | str, *, label: str | None = None) -> LoadedDomain:
    """Validate and interpret one domain's sources (the cold path)."""
    label = label or f"domains/{name}"
    schema_bytes = schema_src.encode("utf-8") if isinstance(schema_src, str) else schema_src
    state_bytes = state_src.encode("utf-8") if isinstance(state_src, str) else state_src
    schema = validate_schema(schema_bytes, f"{label}/schema.py")
    classes = build_classes(schema, f"uac_domains.{name}")
    state_path = f"{label}/state.py"
    with _gc_paused():
        # the fast path never hands the values to a recursive parser (json.loads
        # declines deep nesting, the builder caps it), so the text-level depth
        # check runs only before the full parse
        text, code, strings = precheck_split(state_bytes, state_path, max_bytes=limits.MAX_STATE_BYTES, depth=False)
        values = fast_values(code, strings, schema, classes, state_path)
        if values is None:
            check_depth(text, code, state_path)
        del code, strings
        if values is None:
            tree = parse_python(text, state_path)
            values = StateInterpreter(state_path, schema, classes).run(tree)
            del tree
    return LoadedDomain(
        name,
        schema,
        classes,
        {v.name: v.value for v in values},
        {v.name: v.type for v in values},
        source_hash(schema_bytes, state_bytes),
    )


def check_init(name: str, data: bytes, label: str) -> None:
    """``__init__.py`` may hold a docstring and ``from .schema|.state import ...`` only."""
    import ast

    path = f"{label}/__init__.py"
    text = precheck(data, path, max_bytes=limits.MAX_SCHEMA_BYTES)
    tree = parse_python(text, path)
    for index, statement in enumerate(tree.body):
        if index == 0 and isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant) and isinstance(statement.value.value, str):
            continue
        if (
            isinstance(statement, ast.ImportFrom)
            and statement.level == 1
            and statement.module in ("schema", "state")
            and all(a.asname is None and a.name != "*" and not a.name.startswith("_") for a in statement.names)
        ):
            continue
        raise CodeRejected([_problem(path, getattr(statement, "lineno", 0), "__init__.py may only hold a docstring and `from .schema/.state import ...`")])


def _problem(path: str, line: int, message: str):
    from .validate import Problem

    return Problem(path, line, message)


# --- the cache ------------------------------------------------------------------------


def _cache_path(cache_dir: Path, name: str) -> Path:
    return cache_dir / f"{name}.json"


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while bulk-building acyclic objects
    (millions of fresh containers would otherwise trigger repeated full scans)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _read_cache(path: Path, key: str, name: str) -> LoadedDomain | None:
    try:
        with open(path, "r", encoding="utf-8") as handle, _gc_paused():
            data = json.load(handle)
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        log.warning("ignoring unreadable structure cache %s: %s", path, exc)
        return None
    if not isinstance(data, dict) or data.get("loader") != LOADER_VERSION or data.get("key") != key:
        return None
    try:
        schema = SchemaSpec.from_json(data["schema"])
        classes = build_classes(schema, f"uac_domains.{name}")
        codec = StateCodec(classes)
        values: dict[str, Any] = {}
        types: dict[str, TypeSpec] = {}
        with _gc_paused():
            for entry in data["values"]:
                spec = TypeSpec.from_json(entry["type"])
                values[entry["name"]] = codec.decode(entry["value"], spec)
                types[entry["name"]] = spec
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        log.warning("ignoring inconsistent structure cache %s: %s", path, exc)
        return None
    return LoadedDomain(name, schema, classes, values, types, key, from_cache=True)


def _write_cache(path: Path, loaded: LoadedDomain) -> None:
    codec = StateCodec(loaded.classes)
    data = {
        "loader": LOADER_VERSION,
        "key": loaded.source_hash,
        "schema": loaded.schema.to_json(),
        "values": [
            {"name": name, "type": loaded.types[name].to_json(), "value": codec.encode(value, loaded.types[name])}
            for name, value in loaded.values.items()
        ],
    }
    try:
        atomic_write_text(path, json.dumps(data, ensure_ascii=False, separators=(",", ":")))
    except OSError as exc:
        log.warning("could not write structure cache %s: %s", path, exc)


def load_domain_dir(directory: Path, *, cache_dir: Path | None = None, label: str | None = None) -> LoadedDomain:
    """Load ``domains/<name>/`` (using and refreshing the cache if given)."""
    directory = Path(directory)
    name = directory.name
    label = label or f"domains/{name}"
    try:
        schema_bytes = (directory / "schema.py").read_bytes()
        state_bytes = (directory / "state.py").read_bytes()
        init_bytes = (directory / "__init__.py").read_bytes()
    except FileNotFoundError as exc:
        raise CodeRejected([_problem(f"{label}/{Path(exc.filename).name}", 0, "file missing")]) from None
    except OSError as exc:
        raise StoreError(f"cannot read {directory}: {exc}.") from None
    check_init(name, init_bytes, label)
    key = source_hash(schema_bytes, state_bytes)
    if cache_dir is not None:
        cached = _read_cache(_cache_path(cache_dir, name), key, name)
        if cached is not None:
            return cached
    loaded = load_sources(name, schema_bytes, state_bytes, label=label)
    if cache_dir is not None:
        _write_cache(_cache_path(cache_dir, name), loaded)
    return loaded


def domain_dirs(domains_root: Path) -> list[Path]:
    """The domain package directories, sorted by name."""
    if not domains_root.is_dir():
        return []
    return sorted(p for p in domains_root.iterdir() if p.is_dir() and (p / "schema.py").exists() and not p.name.startswith((".", "_")))


__all__ = ["LoadedDomain", "build_classes", "domain_dirs", "field_specs", "load_domain_dir", "load_sources", "source_hash"]
