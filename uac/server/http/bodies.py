"""Request bodies handed to the library as files.

The library reads sessions and records from files (format detection, error
messages with line and column); a request body is written to a private
temporary file for that, and error messages name "the request body" instead
of the temporary path.
"""

from __future__ import annotations

import csv
import io
import json
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterator

from ...errors import InputError, UacError

if TYPE_CHECKING:
    from ...memory import UserMemory
    from .models import AddSessionRequest, ImportRecordsRequest


def _renamed(exc: UacError, path: Path, label: str) -> UacError:
    message = exc.message.replace(str(path), label)
    hint = exc.hint.replace(str(path), label) if exc.hint else exc.hint
    if message == exc.message and hint == exc.hint:
        return exc
    clone = type(exc).__new__(type(exc))
    UacError.__init__(clone, message, hint=hint)
    return clone


@contextmanager
def body_file(data: bytes | str, suffix: str, label: str = "the request body") -> Iterator[Path]:
    """``data`` in a temporary file for the ``with`` block."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    with tempfile.TemporaryDirectory(prefix="uac-body-") as folder:
        path = Path(folder) / f"body{suffix}"
        path.write_bytes(raw)
        try:
            yield path
        except UacError as exc:
            renamed = _renamed(exc, path, label)
            if renamed is exc:
                raise
            raise renamed from exc


def ingest_body(memory: "UserMemory", value: Any, options: "AddSessionRequest") -> dict[str, Any]:
    """Ingest a session given as JSON value, transcript text or raw uploaded bytes."""
    if isinstance(value, bytes):
        data, suffix = value, ".upload"
    elif isinstance(value, str):
        data, suffix = value, ".txt"
    else:
        data, suffix = json.dumps(value, ensure_ascii=False), ".json"
    with body_file(data, suffix) as path:
        report = memory.ingest(
            path,
            format=options.format,
            sample_id=options.sample_id,
            date=options.date,
            extractor=options.extractor,
        )
    result = report.to_json()
    result["file"] = None
    return result


@contextmanager
def records_file(body: "ImportRecordsRequest") -> Iterator[Path]:
    """The records of an import request as a JSON or CSV file."""
    if (body.records is None) == (body.csv is None):
        raise InputError("give exactly one of 'records' (a list of JSON objects) and 'csv' (CSV text).")
    if body.records is not None:
        with body_file(json.dumps(body.records, ensure_ascii=False), ".json", "the request's records") as path:
            yield path
        return
    # check the CSV has a header before handing it over
    if not next(csv.reader(io.StringIO(body.csv or "")), None):
        raise InputError("the 'csv' field has no header row.")
    with body_file(body.csv or "", ".csv", "the request's CSV") as path:
        yield path
