"""The defaults of the options a capability takes are stated once, by the facade
(:class:`uac.UserMemory`): the capability takes them from its caller."""

from __future__ import annotations

import inspect

import pytest

from uac.memory import UserMemory
from uac.recall import search, search_many
from uac.records.importer import import_records


def _defaults(function) -> dict[str, object]:
    return {
        name: parameter.default
        for name, parameter in inspect.signature(function).parameters.items()
        if parameter.kind is inspect.Parameter.KEYWORD_ONLY
    }


@pytest.mark.parametrize(
    ("facade", "capability", "stated"),
    [
        (UserMemory.search, search, {"k": 20, "channel": "all"}),
        (UserMemory.search_many, search_many, {"k": 20, "channel": "all"}),
        (UserMemory.import_records, import_records, {"record_type": None, "replace": False}),
    ],
)
def test_the_facade_states_the_defaults_the_capability_requires(facade, capability, stated):
    facade_defaults, capability_defaults = _defaults(facade), _defaults(capability)
    assert {name: facade_defaults[name] for name in stated} == stated
    assert all(capability_defaults[name] is inspect.Parameter.empty for name in stated)
    assert facade_defaults.keys() == capability_defaults.keys()
