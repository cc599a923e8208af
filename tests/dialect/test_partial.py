"""Checking a re-rendered state.py from the records that changed (uac.dialect.partial):
whatever it accepts, the full validator accepts too, and reads back the same values."""

from __future__ import annotations

import dataclasses

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from uac.dialect import render
from uac.dialect.classes import build_classes, rebuild
from uac.dialect.loader import load_sources
from uac.dialect.partial import check_files, schema_key
from uac.dialect.types import TypeSpec
from uac.dialect.validate import validate_schema

from .test_fastload import SCHEMA, records

RECS = TypeSpec("list", (TypeSpec("class", name="Rec"),))


def files_of(schema, recs, cache):
    source = render.state_source("S.", schema, [("recs", RECS, recs)], chunk_cache=cache)
    files = {
        "__init__.py": render.render_init("D.", schema, ["recs"]),
        "schema.py": SCHEMA,
        "state.py": source.text(),
    }
    return files, source


def full_load(files):
    return load_sources("d", files["schema.py"], files["state.py"])


def same(loaded, recs):
    """The same values (a fresh load builds classes of its own, so compare their source)."""
    return [render.flat(r) for r in loaded] == [render.flat(r) for r in recs]


# no shrinking: a failing example is reported as drawn (shrinking these records takes minutes)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], phases=[Phase.generate])
@given(records(), records(), st.data())
def test_what_the_partial_check_accepts_the_full_validator_accepts(first, second, data):
    spec = validate_schema(SCHEMA)
    classes = build_classes(spec, "t")
    old, new = rebuild(first[1], classes), rebuild(second[1], classes)
    cache: render.ChunkCache = {}
    files, source = files_of(spec, old, cache)
    if check_files("d", files, source, spec, classes):
        assert all(c.checked == schema_key(SCHEMA) for s in source.statements for c in s.chunks or ())
        assert same(full_load(files).values["recs"], old)
    position = data.draw(st.integers(0, len(old)))
    changed = old[:position] + new + old[position + 1 :]
    files, source = files_of(spec, changed, cache)
    if check_files("d", files, source, spec, classes):
        loaded = full_load(files)
        assert same(loaded.values["recs"], changed)
        assert render.render_state("S.", spec, [("recs", RECS, loaded.values["recs"])]) == files["state.py"]


def _rec_classes():
    spec = validate_schema(SCHEMA)
    return spec, build_classes(spec, "t")


def _rec(classes, **values):
    import datetime as dt

    base = dict(name="a", count=1, score=0.5, ok=True, day=dt.date(2024, 1, 2))
    base.update(values)
    return classes["Rec"](**base)


def test_only_the_records_not_checked_are_read_again(monkeypatch):
    spec, classes = _rec_classes()
    cache: render.ChunkCache = {}
    recs = [_rec(classes, name=f"record number {i}", count=i) for i in range(200)]
    files, source = files_of(spec, recs, cache)
    assert check_files("d", files, source, spec, classes)
    from uac.dialect import fastload

    read = []
    real = fastload.Builder.record

    def counting(self, name, record, args):
        read.append(name)
        return real(self, name, record, args)

    monkeypatch.setattr(fastload.Builder, "record", counting)
    grown = recs + [_rec(classes, name="new one", count=1000), _rec(classes, name="another", count=1001)]
    grown[7] = dataclasses.replace(grown[7], name="changed")
    files, source = files_of(spec, grown, cache)
    assert check_files("d", files, source, spec, classes)
    assert len(read) == 3  # the two new records and the changed one, not the 200
    assert same(full_load(files).values["recs"], grown)


def test_a_record_that_does_not_read_back_as_itself_is_not_shown():
    spec, classes = _rec_classes()
    cache: render.ChunkCache = {}
    recs = [_rec(classes, name=f"r{i}", count=i) for i in range(40)]
    # an int in a float field renders as `score=3`, which reads back as 3.0
    bad = recs + [_rec(classes, score=3)]
    files, source = files_of(spec, bad, cache)
    assert not check_files("d", files, source, spec, classes)
    # an integer past the dialect's limit is refused by the loaders
    files, source = files_of(spec, recs + [_rec(classes, count=2**200)], cache)
    assert not check_files("d", files, source, spec, classes)


def test_a_record_checked_under_another_schema_is_read_again():
    spec, classes = _rec_classes()
    cache: render.ChunkCache = {}
    recs = [_rec(classes, name=f"r{i}", count=i) for i in range(40)]
    files, source = files_of(spec, recs, cache)
    assert check_files("d", files, source, spec, classes)
    for chunk in cache.values():
        chunk.checked = "another schema"
    files, source = files_of(spec, recs, cache)
    assert check_files("d", files, source, spec, classes)
    assert all(c.checked == schema_key(SCHEMA) for c in cache.values())


def test_a_schema_that_does_not_read_back_is_not_shown():
    spec, classes = _rec_classes()
    cache: render.ChunkCache = {}
    recs = [_rec(classes, name=f"r{i}", count=i) for i in range(40)]
    files, source = files_of(spec, recs, cache)
    other = dataclasses.replace(spec, classes=spec.classes[:-1])
    assert not check_files("d", files, source, other, classes)
    files["schema.py"] = SCHEMA.replace("@dataclass", "@dataclass(frozen=True)\n@dataclass", 1)
    assert not check_files("d", files, source, spec, classes)
