"""The view on disk: reading domains/<d>/, the load cache, the read-only state."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from uac.dialect import render
from uac.dialect.problems import CodeRejected
from uac.view import store
from uac.view.store import load_domain_dir

from ..dialect.test_hostile import GOOD_SCHEMA, GOOD_STATE
from ..dialect.test_loader import NESTED_SCHEMA, NESTED_STATE


def write_domain_dir(root, name, schema, state, init='"""Domain."""\n'):
    directory = root / name
    directory.mkdir(parents=True)
    (directory / "schema.py").write_text(schema)
    (directory / "state.py").write_text(state)
    (directory / "__init__.py").write_text(init)
    return directory


def test_cache_round_trip_is_equal_and_used(tmp_path):
    directory = write_domain_dir(tmp_path / "domains", "life", NESTED_SCHEMA, NESTED_STATE)
    cache = tmp_path / "cache"
    cold = load_domain_dir(directory, cache_dir=cache)
    assert not cold.from_cache
    data = json.loads((cache / "life.json").read_text())
    assert data["key"] == cold.source_hash
    warm = load_domain_dir(directory, cache_dir=cache)
    assert warm.from_cache
    assert render.render_state(
        "x", warm.schema, [(n, warm.types[n], v) for n, v in warm.values.items()]
    ) == render.render_state("x", cold.schema, [(n, cold.types[n], v) for n, v in cold.values.items()])
    assert warm.values["days"][0].tags == cold.values["days"][0].tags
    # an edit invalidates the cache (keyed by the sources' hash)
    (directory / "state.py").write_text(NESTED_STATE.replace("count: int = -2", "count: int = 7"))
    edited = load_domain_dir(directory, cache_dir=cache)
    assert not edited.from_cache and edited.values["count"] == 7


def test_cache_is_never_trusted_over_a_bad_source(tmp_path):
    directory = write_domain_dir(tmp_path / "domains", "travel", GOOD_SCHEMA, GOOD_STATE)
    cache = tmp_path / "cache"
    load_domain_dir(directory, cache_dir=cache)
    (directory / "state.py").write_text(GOOD_STATE + "\nimport os\n")
    with pytest.raises(CodeRejected):
        load_domain_dir(directory, cache_dir=cache)
    (directory / "state.py").write_text(GOOD_STATE)
    (cache / "travel.json").write_text("{not json")
    assert load_domain_dir(directory, cache_dir=cache).values["trips"][0].city == "Lisbon"


def test_init_py_is_checked(tmp_path):
    directory = write_domain_dir(tmp_path / "domains", "travel", GOOD_SCHEMA, GOOD_STATE, init="import os\n")
    with pytest.raises(CodeRejected, match="__init__.py may only hold"):
        load_domain_dir(directory)


def test_missing_file_is_reported(tmp_path):
    directory = write_domain_dir(tmp_path / "domains", "travel", GOOD_SCHEMA, GOOD_STATE)
    (directory / "state.py").unlink()
    with pytest.raises(CodeRejected, match="state.py: file missing"):
        load_domain_dir(directory)


def test_load_view_and_state_api(memory):
    directory = memory.project.paths.domains
    write_domain_dir(directory, "travel", GOOD_SCHEMA, GOOD_STATE)
    view = store.load_view(memory.project)
    assert list(view) == ["travel"]
    state = memory.state
    assert isinstance(state["travel"].trips, tuple)
    assert state.travel.trips[0].city == "Lisbon"
    with pytest.raises(AttributeError, match="read-only"):
        state.travel.trips = ()
    with pytest.raises(AttributeError, match="has no 'meals'"):
        state.travel.meals  # noqa: B018 - the lookup is what raises
    with pytest.raises(AttributeError, match="read-only"):
        state.travel = None
    with pytest.raises(AttributeError, match=r"no domain 'health' \(domains: travel\)"):
        state.health  # noqa: B018 - the lookup is what raises
    assert len(state) == 1 and dict(state)["travel"] is state.travel and repr(state) == "<state: travel>"
    assert "trips" in dir(state.travel) and len(state.travel) == len(dict(state.travel))
    sandbox = memory.sandbox_state()
    assert list(sandbox) == ["travel"] and sandbox["travel"]["trips"][0].start == dt.date(2023, 5, 7)
