"""``sandbox.spans``: the day arithmetic both ``Period`` types read, light enough for the host."""

from __future__ import annotations

import ast
import datetime as dt
import json
import subprocess
import sys
from pathlib import Path

import pytest

import sandbox.spans
from sandbox.period import Period as SandboxPeriod
from uac.dates import Period as HostPeriod

_SPANS = Path(sandbox.spans.__file__)


def test_it_imports_the_standard_library_only():
    tree = ast.parse(_SPANS.read_text("utf-8"))
    imported = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
    imported |= {node.module or "." for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert imported <= {"__future__", "calendar", "datetime"}, sorted(imported)


def test_the_host_dates_load_none_of_the_sandbox_machinery():
    code = (
        "import json, sys, uac.dates; print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'sandbox')))"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == ["sandbox", "sandbox.readonly", "sandbox.spans"]


@pytest.mark.parametrize(
    ("start", "end", "precision", "code", "words"),
    [
        (dt.date(2023, 5, 7), dt.date(2023, 5, 7), "day", "2023-05-07", "7 May 2023"),
        (dt.date(2023, 5, 1), dt.date(2023, 5, 31), "month", "2023-05", "May 2023"),
        (dt.date(2022, 1, 1), dt.date(2022, 12, 31), "year", "2022", "2022"),
        (dt.date(2023, 12, 1), dt.date(2024, 2, 29), "season", "2023-winter", "winter 2023"),
        (dt.date(2023, 6, 2), dt.date(2023, 6, 8), "week", "2023-06-02/2023-06-08", "the week before 9 June 2023"),
        (dt.date(2023, 6, 5), dt.date(2023, 6, 11), "week", "2023-06-05/2023-06-11", "the week of 5 June 2023"),
        (dt.date(2023, 5, 27), dt.date(2023, 5, 28), "weekend", "2023-05-27/2023-05-28", "the weekend of 27 May 2023"),
        (dt.date(2021, 1, 1), dt.date(2023, 12, 31), "range", "2021-01-01/2023-12-31", "between 2021 and 2023"),
        (
            dt.date(2022, 11, 1),
            dt.date(2023, 2, 28),
            "range",
            "2022-11-01/2023-02-28",
            "between November 2022 and February 2023",
        ),
        (dt.date(2023, 5, 3), dt.date(2023, 5, 12), "range", "2023-05-03/2023-05-12", "between 3 and 12 May 2023"),
        (
            dt.date(2023, 5, 3),
            dt.date(2023, 7, 9),
            "range",
            "2023-05-03/2023-07-09",
            "between 3 May 2023 and 9 July 2023",
        ),
    ],
)
def test_both_periods_say_what_the_spans_say(start, end, precision, code, words):
    assert sandbox.spans.precision_of(start, end) == precision
    assert sandbox.spans.code_of(start, end) == code
    assert sandbox.spans.render(start, end) == words
    for period in (SandboxPeriod(start, end), HostPeriod(start, end)):
        assert (period.precision, period.code, str(period)) == (precision, code, words)
