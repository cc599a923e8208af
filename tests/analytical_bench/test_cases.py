import json
from collections import Counter

import pytest

from analytical_bench.cases import EXTENDED_TIERS, PAPER_TIERS, Case, Dataset
from analytical_bench.generator import TYPE_ORDER, extended_cases, generate
from analytical_bench.patterns import PATTERNS
from uac.errors import InputError


def test_same_seed_gives_byte_identical_json(dataset):
    text = dataset.to_text()
    assert generate().to_text() == text
    assert generate(seed=7).to_text() != text


def test_paper_layout_twenty_cases_per_tier(paper_cases):
    assert Counter(c.n for c in paper_cases) == {n: 20 for n in PAPER_TIERS}
    assert {(c.record_type, c.pattern) for c in paper_cases} == {(t, p) for t in TYPE_ORDER for p in PATTERNS}
    for n in PAPER_TIERS:
        tier = [c for c in paper_cases if c.n == n]
        assert set(Counter(c.pattern for c in tier).values()) == {2}
        assert set(Counter(c.record_type for c in tier).values()) == {2}


def test_answer_kinds_cover_every_kind(dataset):
    assert {c.answer_kind for c in dataset.cases} == {"int", "float", "string", "set", "list"}
    assert len({c.id for c in dataset.cases}) == len(dataset.cases)


def test_save_and_load_round_trip(tmp_path, dataset):
    path = dataset.save(tmp_path / "ds.json")
    loaded = Dataset.load(path)
    assert loaded.checksum == dataset.checksum
    assert loaded.cases == dataset.cases
    assert json.loads(path.read_text())["checksum"] == dataset.checksum


def test_tampered_dataset_is_refused(tmp_path, dataset):
    path = dataset.save(tmp_path / "ds.json")
    payload = json.loads(path.read_text())
    payload["cases"][0]["gold"] = 999
    path.write_text(json.dumps(payload))
    with pytest.raises(InputError, match="checksum"):
        Dataset.load(path)


def test_bad_dataset_files_say_what_is_wrong(tmp_path):
    with pytest.raises(InputError, match="does not exist"):
        Dataset.load(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(InputError, match="not valid"):
        Dataset.load(tmp_path / "bad.json")
    (tmp_path / "other.json").write_text("{}")
    with pytest.raises(InputError, match="not an analytical_bench dataset"):
        Dataset.load(tmp_path / "other.json")


def test_select_filters_in_order(dataset):
    small = dataset.select(tiers=[20], suites=["paper"], limit=5)
    assert [c.n for c in small.cases] == [20] * 5
    assert small.cases == [c for c in dataset.cases if c.n == 20 and c.suite == "paper"][:5]


def test_case_rejects_unknown_answer_kind():
    with pytest.raises(InputError):
        Case("x", "paper", "trips", 1, "q", "count", "?", "date", 1, [])


@pytest.mark.slow
def test_extended_tiers_layout():
    cases = extended_cases()
    assert Counter(c.n for c in cases) == {n: 10 for n in EXTENDED_TIERS}
    assert Counter(c.record_type for c in cases) == {t: 4 for t in TYPE_ORDER}
    assert all(len(c.records) == c.n for c in cases)
