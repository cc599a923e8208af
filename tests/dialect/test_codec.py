"""The cache codec's leaf values: one table says how each is written and read back,
typed (the spec says the kind) and tagged (``Any`` or a union of several types)."""

import datetime as dt
import json

from uac.dates import parse_period
from uac.dialect.codec import LEAVES, StateCodec
from uac.dialect.types import TypeSpec
from uac.refs import Ref

#: one value of each leaf kind and its stored form (the cache's format)
SAMPLES = {
    "date": (dt.date(2023, 5, 7), "2023-05-07"),
    "datetime": (dt.datetime(2023, 5, 7, 9, 30), "2023-05-07T09:30:00"),
    "time": (dt.time(9, 30, 15), "09:30:15"),
    "timedelta": (dt.timedelta(days=2, seconds=30, microseconds=7), [2, 30, 7]),
    "period": (parse_period("2023-05"), "2023-05"),
    "ref": (Ref("relationships/person-2"), "relationships/person-2"),
}


def test_every_leaf_kind_has_a_sample():
    assert set(LEAVES) == set(SAMPLES)


def test_leaves_are_stored_in_the_same_form_typed_and_tagged():
    codec = StateCodec({})
    tagged = TypeSpec("any")
    for kind, (value, stored) in SAMPLES.items():
        spec = TypeSpec(kind)
        assert codec.encode(value, spec) == stored, kind
        assert codec.encode(value, tagged) == {"$" + kind: stored}, kind
        # what the cache file holds reads back as an equal value of the same class
        for data, as_spec in ((stored, spec), ({"$" + kind: stored}, tagged)):
            back = codec.decode(json.loads(json.dumps(data)), as_spec)
            assert back == value and type(back) is type(value), (kind, as_spec)


def test_a_datetime_typed_as_any_keeps_its_time():
    codec = StateCodec({})
    value = dt.datetime(2023, 5, 7, 9, 30)
    data = codec.encode([value, value.date()], TypeSpec("any"))
    assert data == [{"$datetime": "2023-05-07T09:30:00"}, {"$date": "2023-05-07"}]
    assert codec.decode(data, TypeSpec("any")) == [value, value.date()]
