"""The host's ``uac.refs.Ref`` and the sandbox's ``sandbox.refs.Ref`` are one value, ``RefValue``."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from sandbox.codec import encode_state
from sandbox.refs import Ref as SandboxRef
from sandbox.refs import RefTable, RefValue
from uac.refs import Ref as HostRef


@pytest.mark.parametrize("kind", [HostRef, SandboxRef], ids=["host", "sandbox"])
def test_both_references_are_the_one_value(kind):
    assert issubclass(kind, RefValue)
    ref = kind("relationships/person-2")
    assert (ref.domain, ref.id) == ("relationships", "person-2")
    assert ref.code == str(ref) == "relationships/person-2"
    assert repr(ref) == "Ref('relationships/person-2')"
    assert ref == kind("relationships/person-2") and hash(ref) == hash(kind("relationships/person-2"))
    assert ref != kind("relationships/person-3") and ref < kind("relationships/person-3")
    assert sorted([kind("b/x-1"), kind("a/x-2")]) == [kind("a/x-2"), kind("b/x-1")]
    with pytest.raises(AttributeError, match="read-only"):
        ref.id = "person-9"
    with pytest.raises(AttributeError, match="read-only"):
        del ref.domain


def test_references_of_the_two_kinds_are_not_equal():
    host, inside = HostRef("relationships/person-2"), SandboxRef("relationships/person-2")
    assert host != inside and inside != host
    with pytest.raises(TypeError):
        host < inside  # noqa: B015


def test_the_sandbox_sends_the_hosts_reference_as_a_ref():
    state = encode_state({"running": {"partners": [HostRef("relationships/person-2")]}})
    assert state["domains"]["running"]["partners"] == [{"$ref": "relationships/person-2"}]


def test_each_kind_keeps_its_own_resolving():
    table = RefTable()
    with pytest.raises(LookupError, match="no record 'person-2'"):
        SandboxRef("relationships/person-2", table).resolve()

    class State:
        def resolve(self, ref):
            return ("found", ref.code)

    assert HostRef("relationships/person-2").resolve(State()) == ("found", "relationships/person-2")
    with pytest.raises(ValueError, match="not a reference"):
        HostRef("Relationships/Person")


def test_uac_refs_loads_only_the_sandbox_modules_it_builds_on():
    code = "import json, sys\nimport uac.refs\nprint(json.dumps(sorted(m for m in sys.modules if m.startswith('sandbox'))))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert json.loads(out) == ["sandbox", "sandbox.readonly", "sandbox.refs"]
