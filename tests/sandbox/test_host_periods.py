"""The host's ``uac.dates.Period`` crosses into the sandbox as ``sandbox.period.Period``."""

from __future__ import annotations

import dataclasses
import datetime as dt

import sandbox.codec
from sandbox.catalog import catalog
from sandbox.period import Period as SandboxPeriod
from uac.dates import Period


@dataclasses.dataclass(frozen=True)
class Trip:
    city: str
    when: Period | None


@dataclasses.dataclass(frozen=True)
class Phase:
    """A record class that merely has the name and fields of a period is still a record."""

    start: dt.date
    end: dt.date


Phase.__name__ = Phase.__qualname__ = "Period"


def test_host_periods_are_sent_as_periods_and_listed_as_such():
    trips = [Trip("Rome", Period("2023-06-02/2023-06-08")), Trip("Oslo", None)]
    payload = sandbox.codec.encode_state({"travel": {"trips": trips, "span": Period("2022")}})
    assert payload["domains"]["travel"]["trips"]["rows"][0][1] == {"$period": ["2023-06-02", "2023-06-08"]}
    decoded = sandbox.codec.decode_state(payload)
    when = decoded.domains["travel"].trips[0].when
    assert type(when) is SandboxPeriod and str(when) == "the week before 9 June 2023" and when.precision == "week"
    assert decoded.domains["travel"].span.code == "2022"
    info = {c.name: c for c in catalog(payload).collections}
    assert dict(info["trips"].fields)["when"] == "Period" and info["span"].kind == "Period"


def test_only_the_hosts_period_class_is_taken_for_a_period():
    payload = sandbox.codec.encode_state({"body": {"phases": [Phase(dt.date(2023, 5, 1), dt.date(2023, 5, 5))]}})
    assert payload["domains"]["body"]["phases"]["$table"] == "Period"


def test_a_field_that_is_none_in_every_row_says_so_of_this_data():
    # a model read "always None" as a rule of the field (a superseded_by link never saved)
    payload = sandbox.codec.encode_state({"travel": {"trips": [Trip("Rome", None), Trip("Oslo", None)]}})
    info = {c.name: c for c in catalog(payload).collections}
    assert dict(info["trips"].fields)["when"] == "None in every row here"
