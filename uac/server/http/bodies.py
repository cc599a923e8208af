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
from typing import TYPE_CHECKING, Any, Callable, Iterator

from ...errors import InputError, UacError

if TYPE_CHECKING:
    from ...memory import UserMemory
    from .models import AddSessionRequest, ImportRecordsRequest


def _renamed(exc: UacError, path: Path, label: str) -> UacError:
    message = exc.message.replace(str(path), label)
    hint = exc.hint_template.replace(str(path), label) if exc.hint_template else exc.hint_template
    if message == exc.message and hint == exc.hint_template:
        return exc
    clone = type(exc).__new__(type(exc))
    UacError.__init__(clone, message, hint=hint, retry_after=exc.retry_after)
    return clone


def public_json(value: Any, root: Path) -> Any:
    """``value`` (a response) with the server's root cut out of every string."""
    prefix = str(root).rstrip("/")
    if isinstance(value, str):
        return value.replace(prefix + "/", "").replace(prefix, ".") if prefix in value else value
    if isinstance(value, dict):
        return {key: public_json(item, root) for key, item in value.items()}
    if isinstance(value, list):
        return [public_json(item, root) for item in value]
    return value


def not_text(exc: UnicodeDecodeError | UnicodeEncodeError, label: str) -> InputError:
    """What is wrong with a body that is not text, both ways: bytes that are not UTF-8 (a JSON
    body, :func:`~.jsonbody.parse_body`), or text with a lone surrogate, which no UTF-8 file
    can hold (:func:`body_file`)."""
    if isinstance(exc, UnicodeDecodeError):
        return InputError(
            f"{label} is not UTF-8: byte 0x{exc.object[exc.start]:02x} at offset {exc.start} cannot be decoded.",
            hint="Send JSON encoded as UTF-8.",
        )
    return InputError(
        f"{label} holds a lone surrogate at character {exc.start} ({exc.object[exc.start]!r}), which is not text.",
        hint="Send valid Unicode: a character outside the BMP is a pair of escapes (\\ud83d\\ude00), or write it as UTF-8.",
    )


@contextmanager
def body_file(data: bytes | str, suffix: str, label: str = "the request body") -> Iterator[Path]:
    """``data`` in a temporary file for the ``with`` block."""
    if isinstance(data, str):
        try:
            raw = data.encode("utf-8")
        except UnicodeEncodeError as exc:
            raise not_text(exc, label) from None
    else:
        raw = data
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


def ingest_body(
    memory: "UserMemory",
    value: Any,
    options: "AddSessionRequest",
    after: "Callable[[UserMemory, Any], None] | None" = None,
) -> dict[str, Any]:
    """Ingest a session given as JSON value, transcript text or raw uploaded bytes; ``after``
    (the server's background catch-up of the view) runs in place of the catch-up in line."""
    data: bytes | str
    if isinstance(value, bytes):
        data, suffix = value, ".upload"
    elif isinstance(value, str):
        data, suffix = value, ".txt"
    else:
        # ASCII escapes: a lone surrogate reaches the session reader, which names its spot
        data, suffix = json.dumps(value), ".json"
    with body_file(data, suffix) as path:
        report = memory.ingest(
            path,
            format=options.format,
            sample_id=options.sample_id,
            date=options.date,
            extractor=options.extractor,
            compile=False if after is not None else options.compile,
        )
    if after is not None:
        after(memory, report)
    result = report.to_json()
    result["file"] = None
    return result


@contextmanager
def records_file(body: "ImportRecordsRequest") -> Iterator[Path]:
    """The records of an import request as a JSON or CSV file."""
    if (body.records is None) == (body.csv is None):
        raise InputError("give exactly one of 'records' (a list of JSON objects) and 'csv' (CSV text).")
    if body.records is not None:
        with body_file(json.dumps(body.records), ".json", "the request's records") as path:
            yield path
        return
    # check the CSV has a header before handing it over
    if not next(csv.reader(io.StringIO(body.csv or "")), None):
        raise InputError("the 'csv' field has no header row.")
    with body_file(body.csv or "", ".csv", "the request's CSV") as path:
        yield path
