"""The load cache of the view: ``.uac/structure/<domain>.json``.

A loaded domain is stored as JSON (never pickle) with the dialect's codec,
keyed by the sha256 of its ``schema.py`` and ``state.py``
(:func:`uac.dialect.loader.source_hash`), so a second load of unchanged files
skips validation and interpretation.  An unreadable or inconsistent cache
file is ignored (and logged), never trusted.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

from ..dialect.classes import build_classes
from ..dialect.codec import StateCodec
from ..dialect.loader import LOADER_VERSION, LoadedDomain, gc_paused
from ..dialect.spec import SchemaSpec
from ..dialect.types import TypeSpec
from ..fsutil import atomic_write_text

log = logging.getLogger(__name__)


def cache_path(cache_dir: Path, name: str) -> Path:
    return cache_dir / f"{name}.json"


def read_cache(path: Path, key: str, name: str) -> LoadedDomain | None:
    try:
        with open(path, "r", encoding="utf-8") as handle, gc_paused():
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
        with gc_paused():
            for entry in data["values"]:
                spec = TypeSpec.from_json(entry["type"])
                values[entry["name"]] = codec.decode(entry["value"], spec)
                types[entry["name"]] = spec
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        log.warning("ignoring inconsistent structure cache %s: %s", path, exc)
        return None
    return LoadedDomain(name, schema, classes, values, types, key, from_cache=True)


def write_cache(path: Path, loaded: LoadedDomain) -> None:
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


__all__ = ["cache_path", "read_cache", "write_cache"]
