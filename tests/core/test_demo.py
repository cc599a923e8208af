"""``make demo`` tells one story: Maya's project, her chat with Leo, her trips and
meals; each step prints a question and its answer."""

from __future__ import annotations

import re

from uac import demo


def test_the_demo_answers_its_questions(tmp_path, capsys):
    assert demo.main([str(tmp_path / "demo")]) == 0
    out = capsys.readouterr().out
    assert "created " in out and "(user: Maya)" in out
    questions = re.findall(r"^  Q: (.+)$", out, re.M)
    answers = re.findall(r"^  A: (.+)$", out, re.M)
    assert len(questions) >= 6 and len(answers) >= len(questions)
    assert "Who went to Kyoto?   (search; imported records are searchable)" in questions
    assert "A: Maya, with Ana: 3 Kyoto trips in the records (2023-01-27, 2023-03-11, 2024-06-10)." in out
    assert re.search(r"\[records\] travel\.bookings: trip id T00\d, city Kyoto", out)
    assert "A: Maya just got back from Lisbon" in out
    assert re.search(r"facts routed to domains: \d+ by meaning \(embedding model\), \d+ by keywords", out)
    # answered from records the offline compile derived from the chat (not the imported CSV)
    assert "Which trips did Maya take, according to her chats with Leo?" in out
    assert "A: Lisbon (PT), 13 March 2024  (1 fact(s))" in out and "Kyoto (JP), June 2024  (2 fact(s))" in out
    # the per-kind summary of the offline compile, amounts with their currencies, a home with its country
    assert "offline kinds (records <- facts; unclear facts stay on the timeline):" in out
    assert re.search(r"    purchase  1 record\(s\) <- 1 fact\(s\), 0 unclear", out)
    assert "A: hand-painted tiles: 35 EUR" in out and "Gion Karyo: 12000 JPY" in out
    assert "A: run, 21.1, 114.0" in out and "Hamburg, DE, " in out
    assert "A: data engineer at a shipping company (cites demo-1_s3-f" in out
