"""Both sides of the state codec check a domain's shape and names the same way, each in its own words."""

from __future__ import annotations

import pytest

from sandbox.codec import FORMAT, StateFormatError, decode_state, encode_state


def _payload(domains):
    return {"format": FORMAT, "types": {}, "domains": domains, "facts": None}


def test_encoding_refuses_a_domain_that_is_not_a_mapping():
    with pytest.raises(TypeError, match="domain 'travel' must map collection names to values"):
        encode_state({"travel": ["trip"]})


def test_decoding_refuses_a_domain_that_is_not_an_object():
    with pytest.raises(StateFormatError, match="domain 'travel' must be an object"):
        decode_state(_payload({"travel": ["trip"]}))


@pytest.mark.parametrize("domains", [{"_hidden": {}}, {"travel": {"class": []}}, {"travel": {"_trips": []}}])
def test_both_sides_refuse_names_that_are_not_identifiers(domains):
    with pytest.raises(ValueError, match="must be a Python identifier"):
        encode_state(domains)
    with pytest.raises(ValueError, match="must be a Python identifier"):
        decode_state(_payload(domains))


def test_an_empty_domain_round_trips():
    state = decode_state(encode_state({"travel": {}, "books": {"read": [1, 2]}}))
    assert set(state.domains) == {"travel", "books"}
    assert list(state.domains["books"].read) == [1, 2]
