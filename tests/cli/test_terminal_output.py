"""Text printed for people shows control characters as escapes: conversation text,
facts, records and names reach the terminal as text, never as commands to it; ``--json``
output keeps them exactly."""

from __future__ import annotations

import json
import re

import pytest

from uac.cli import main

#: sets the window title, clears the screen, overwrites the line, an 8-bit CSI, reverses
#: the text that follows, a bell and DEL
EVIL = "\x1b]0;owned\x07\x1b[2J\rforged\x9b31m\u202etxt.exe\u2066\x7f"
SHOWN = "\\x1b]0;owned\\x07\\x1b[2J\\rforged\\x9b31m\\u202etxt.exe\\u2066\\x7f"
#: what must never reach a terminal raw
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_visible_escapes_controls_and_keeps_text():
    from uac.cli.common import visible

    assert visible(EVIL) == SHOWN
    assert visible("line one\n\tline two: café 😀 ‍ עברית") == "line one\n\tline two: café 😀 ‍ עברית"
    assert (
        visible("\u2028\u2029\x85\x00\x0b\x0c\x1c\u200f\u061c")
        == "\\u2028\\u2029\\x85\\x00\\x0b\\x0c\\x1c\\u200f\\u061c"
    )


@pytest.mark.embeddings
def test_every_text_printer_shows_controls_as_escapes(capsys, tmp_path):
    project = tmp_path / "p\x1b[31mred"
    assert run(capsys, "init", str(project), "--user-name", "Alice")[0] == 0
    chat = tmp_path / "chat.json"
    chat.write_text(
        json.dumps(
            {
                "date": "2024-03-01",
                "messages": [{"role": "user", "content": f"I flew to Kyoto yesterday {EVIL} with Ana."}],
            }
        )
    )
    records = tmp_path / "trips.json"
    records.write_text(json.dumps([{"city": "Kyoto", "note": EVIL}]))
    assert run(capsys, "ingest", str(project), str(chat))[0] == 0
    assert (
        run(capsys, "import-records", str(project), str(records), "--domain", "travel", "--collection", "trips")[0] == 0
    )

    printed = {
        "search": run(capsys, "search", str(project), "Kyoto"),
        "search records": run(capsys, "search", str(project), "Kyoto", "--channel", "records"),
        "ask": run(capsys, "ask", str(project), "Where did I fly?"),
        "show": run(capsys, "show", str(project)),
        "show travel": run(capsys, "show", str(project), "travel"),
        "repl": run(capsys, "repl", str(project), "-c", "print(trips[0].note)\nresult = trips[0].note"),
        "repl error": run(capsys, "repl", str(project), "-c", "raise ValueError(trips[0].note)"),
        "doctor": run(capsys, "doctor", str(project)),
        "error": run(capsys, "search", str(project), "Kyoto", "--as-of", "day\x1b[2J"),
    }
    for what, (_code, out, err) in printed.items():
        assert not CONTROL.search(out + err), (what, out, err)
    for what in ("search", "search records", "ask", "repl"):
        assert SHOWN in printed[what][1], (what, printed[what][1])
    assert SHOWN in printed["repl error"][2]
    assert "p\\x1b[31mred" in printed["doctor"][1]
    assert "\\x1b[2J" in printed["error"][2]

    code, out, _ = run(capsys, "search", str(project), "Kyoto", "--json")
    assert code == 0 and any(EVIL in hit["text"] for hit in json.loads(out)["results"])
    code, out, _ = run(capsys, "repl", str(project), "-c", "result = trips[0].note", "--json")
    assert code == 0 and json.loads(out)["result"] == EVIL
