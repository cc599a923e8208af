"""``Ref``: a typed reference to a record by domain/id, a field type like ``Period``:
imported from ``uac.refs``, written ``Ref("relationships/person-2")``, loaded as a real
value by the interpreter and the fast path, kept by the cache codec, resolvable from
``memory.state`` and in the sandbox."""

from __future__ import annotations

import pytest

from uac.dialect import render
from uac.dialect.classes import build_classes, rebuild
from uac.dialect.codec import StateCodec
from uac.dialect.loader import load_sources
from uac.dialect.problems import CodeRejected
from uac.dialect.spec import ClassSpec, FieldSpec, SchemaSpec
from uac.dialect.types import TypeSpec
from uac.errors import NotFound
from uac.refs import Ref

from .test_fastload import both_paths, same

OPT_REF = TypeSpec("union", (TypeSpec("ref"), TypeSpec("none")))
LIST_STR = TypeSpec("list", (TypeSpec("str"),))
RUN = ClassSpec(
    "Run",
    "dataclass",
    (
        FieldSpec("id", TypeSpec("str")),
        FieldSpec("distance", TypeSpec("str")),
        FieldSpec("partner", OPT_REF, "value", None),
        FieldSpec("with_", TypeSpec("list", (TypeSpec("ref"),)), "list"),
        FieldSpec("sources", LIST_STR, "list"),
    ),
    doc="One run.",
)
SCHEMA = SchemaSpec((RUN,), "Runs.")
RUNS = TypeSpec("list", (TypeSpec("class", name="Run"),))


def _runs() -> list:
    cls = build_classes(SCHEMA, "t")["Run"]
    return [
        cls(
            id="run-1",
            distance="10k",
            partner=Ref("relationships/person-2"),
            with_=[Ref("relationships/person-3")],
            sources=["f1"],
        ),
        cls(id="run-2", distance="5k", sources=["f2"]),
    ]


def _texts() -> tuple[str, str]:
    return render.render_schema(SCHEMA), render.render_state("State.", SCHEMA, [("runs", RUNS, _runs())])


def test_a_ref_is_imported_from_uac_refs_written_by_its_target_and_loaded_as_a_value():
    schema_text, state_text = _texts()
    assert "from uac.refs import Ref\n" in schema_text and "    partner: Ref | None = None\n" in schema_text
    assert "from uac.refs import Ref\n" in state_text
    assert 'partner=Ref("relationships/person-2")' in state_text
    loaded = load_sources("running", schema_text, state_text)
    run = loaded.values["runs"][0]
    assert type(run.partner) is Ref and (run.partner.domain, run.partner.id) == ("relationships", "person-2")
    assert run.partner == Ref("relationships/person-2") and str(run.partner) == "relationships/person-2"
    assert loaded.record_count() == 2  # a reference is a value, not a record
    entries = list(zip(loaded.values, loaded.types.values(), loaded.values.values()))
    assert render.render_state("State.", SCHEMA, entries) == state_text


def test_fast_path_and_interpreter_agree_on_refs():
    fast, slow = both_paths(*_texts())
    assert fast is not None and slow != "rejected" and same(fast, slow)


def test_cache_codec_round_trips_refs():
    loaded = load_sources("running", *_texts())
    codec = StateCodec(loaded.classes)
    value = loaded.values["runs"]
    assert codec.decode(codec.encode(value, RUNS), RUNS) == value
    assert codec.tagged(Ref("travel/trip-1")) == {"$ref": "travel/trip-1"}
    assert codec.untagged({"$ref": "travel/trip-1"}) == Ref("travel/trip-1")
    assert rebuild(value[0], build_classes(SCHEMA, "t2")).partner is value[0].partner


@pytest.mark.parametrize(
    "literal, message",
    [
        ('Ref("person-2")', "is not a reference"),
        ('Ref("Relationships/Person 2")', "is not a reference"),
        ("Ref(2)", "takes one string literal"),
        ('Ref(target="travel/trip-1")', "takes one string literal"),
        ('Ref("travel/trip-1", "x")', "takes one string literal"),
        ('Ref(f"{1}")', "takes one string literal"),
    ],
)
def test_bad_ref_literals_are_refused(literal, message):
    schema_text, state_text = _texts()
    bad = state_text.replace('Ref("relationships/person-2")', literal)
    with pytest.raises(CodeRejected, match=message):
        load_sources("running", schema_text, bad)
    fast, slow = both_paths(schema_text, bad)
    assert fast is None and slow == "rejected"


def test_ref_must_be_imported_and_only_from_uac_refs():
    schema_text, state_text = _texts()
    with pytest.raises(CodeRejected, match="from uac.refs import"):
        load_sources("running", schema_text, state_text.replace("from uac.refs import Ref\n", ""))
    with pytest.raises(CodeRejected, match="not imported"):
        load_sources("running", schema_text.replace("from uac.refs import Ref\n", ""), state_text)
    for line in (
        "from uac.refs import parse_ref",
        "from uac import Ref",
        "from uac.refs import Ref as R",
        "import uac.refs",
    ):
        with pytest.raises(CodeRejected):
            load_sources("running", schema_text.replace("from uac.refs import Ref", line), state_text)


def test_a_ref_is_read_only_and_checks_its_form():
    ref = Ref("relationships/person-2")
    with pytest.raises(AttributeError):
        ref.id = "person-3"
    with pytest.raises(ValueError, match="<domain>/<record id>"):
        Ref("relationships")
    assert sorted([Ref("travel/trip-2"), Ref("relationships/person-1")])[0] == Ref("relationships/person-1")
    assert len({Ref("travel/trip-2"), Ref("travel/trip-2")}) == 1


def _project_with_a_ref(tmp_path):
    from uac.compile.ops import apply_operations
    from uac.compile.related import CrossIndex
    from uac.compile.working_copy import DomainWork
    from uac.memory import UserMemory
    from uac.view import store

    people = DomainWork.empty("relationships")
    assert not apply_operations(
        people,
        [
            {"op": "add_class", "name": "Person", "fields": [{"name": "name", "type": "str"}]},
            {"op": "add", "collection": "people", "class": "Person", "values": {"name": "Sam"}, "sources": ["f1"]},
        ],
        {"f1"},
    ).problems
    runs = DomainWork.empty("running")
    runs.refs = CrossIndex({"relationships": people})
    assert not apply_operations(
        runs,
        [
            {
                "op": "add_class",
                "name": "Run",
                "fields": [
                    {"name": "distance", "type": "str"},
                    {"name": "partner", "type": "Ref | None", "default": None},
                ],
            },
            {
                "op": "add",
                "collection": "runs",
                "class": "Run",
                "values": {"distance": "10k", "partner": {"ref": "relationships/person-1"}},
                "sources": ["f2"],
            },
            {
                "op": "add",
                "collection": "runs",
                "values": {"distance": "5k", "partner": "relationships/person-1"},
                "sources": ["f2"],
            },
        ],
        {"f2"},
    ).problems
    memory = UserMemory.create(tmp_path / "p", user_name="Alice")
    for work in (people, runs):
        store.write_domain(memory.project, work.name, work.output.files())
    memory.close()
    return UserMemory.open(tmp_path / "p")


def test_memory_state_resolves_a_ref(tmp_path):
    memory = _project_with_a_ref(tmp_path)
    run = memory.state["running"].runs[0]
    assert memory.state.resolve(run.partner).name == "Sam" and run.partner.resolve(memory.state).name == "Sam"
    assert memory.state.resolve("relationships/person-1").name == "Sam"
    with pytest.raises(NotFound, match="holds no record 'person-9'"):
        memory.state.resolve(Ref("relationships/person-9"))
    memory.close()


@pytest.mark.slow
def test_the_sandbox_resolves_a_ref_against_the_state_it_runs_on(tmp_path):
    from sandbox import session

    memory = _project_with_a_ref(tmp_path)
    state = {name: dict(memory.state[name]) for name in memory.state}
    result = session.run(
        "result = [runs[0].partner.resolve().name, str(runs[1].partner), runs[0].partner.domain, runs[0].partner == runs[1].partner]",
        state=state,
    )
    assert result.ok, result.error
    assert result.result == ["Sam", "relationships/person-1", "relationships", True]
    missing = session.run("result = runs[0].partner.resolve()", state={"running": state["running"]})
    assert (
        not missing.ok
        and missing.error["type"] == "LookupError"
        and "relationships/person-1" in missing.error["message"]
    )
    private = session.run("result = runs[0].partner._table", state=state)
    assert not private.ok and "_table" in private.error["message"]
    memory.close()
