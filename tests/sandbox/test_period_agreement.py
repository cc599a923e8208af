"""``sandbox.period.Period`` (what agent code sees) and ``uac.dates.Period`` (what the
host stores and says) agree on every form they share: the same days, precision,
stored form, words, comparisons and membership."""

from __future__ import annotations

import datetime as dt
import operator

from hypothesis import given, settings
from hypothesis import strategies as st

from sandbox.period import Period as SandboxPeriod
from uac.dates import SEASONS
from uac.dates import Period as HostPeriod

_DAYS = st.dates(min_value=dt.date(1990, 1, 1), max_value=dt.date(2040, 12, 31))


@st.composite
def host_periods(draw: st.DrawFn) -> HostPeriod:
    """A period of each precision the host makes, and ranges of the shapes its words name."""
    day = draw(_DAYS)
    kind = draw(
        st.sampled_from(
            [
                "day",
                "week_of",
                "week_before",
                "weekend",
                "month",
                "season",
                "year",
                "range",
                "years",
                "months",
                "in_month",
            ]
        )
    )
    if kind == "day":
        return HostPeriod.day(day)
    if kind == "week_of":
        return HostPeriod.week_of(day)
    if kind == "week_before":
        return HostPeriod.week_before(day)
    if kind == "weekend":
        saturday = day + dt.timedelta(days=(5 - day.weekday()) % 7)
        return HostPeriod(saturday, saturday + dt.timedelta(days=1))
    if kind == "month":
        return HostPeriod.month(day.year, day.month)
    if kind == "season":
        return HostPeriod.season(draw(st.sampled_from(SEASONS)), day.year)
    if kind == "year":
        return HostPeriod.year(day.year)
    if kind == "years":
        return HostPeriod(dt.date(day.year, 1, 1), dt.date(day.year + draw(st.integers(1, 5)), 12, 31))
    if kind == "months":
        last = _month_after(day, draw(st.integers(1, 30)))
        return HostPeriod(day.replace(day=1), last.end)
    if kind == "in_month":
        end = draw(st.integers(day.day, HostPeriod.month(day.year, day.month).end.day))
        return HostPeriod(day, day.replace(day=end))
    return HostPeriod(day, day + dt.timedelta(days=draw(st.integers(0, 900))))


def _month_after(day: dt.date, months: int) -> HostPeriod:
    index = day.year * 12 + day.month - 1 + months
    return HostPeriod.month(index // 12, index % 12 + 1)


def _sandbox(period: HostPeriod) -> SandboxPeriod:
    return SandboxPeriod(period.start, period.end)


@settings(max_examples=400, deadline=None)
@given(host_periods())
def test_the_same_days_precision_stored_form_and_words(host):
    agent = _sandbox(host)
    assert (agent.start, agent.end, agent.days) == (host.start, host.end, host.days)
    assert agent.precision == host.precision
    assert agent.code == host.code and repr(agent) == repr(host)
    assert str(agent) == str(host) == host.render()
    assert hash(agent) == hash(host)


@settings(max_examples=300, deadline=None)
@given(host_periods(), host_periods(), _DAYS)
def test_the_same_order_and_membership(first, second, day):
    a, b = _sandbox(first), _sandbox(second)
    for compare in (operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge):
        assert compare(a, b) == compare(first, second)
        assert compare(a, day) == compare(first, day)
    assert (day in a) == (day in first) and (b in a) == (second in first)
    assert a.overlaps(b) == first.overlaps(second) and a.overlaps(day) == first.overlaps(day)
    assert [p.code for p in sorted([a, b])] == [p.code for p in sorted([first, second])]
