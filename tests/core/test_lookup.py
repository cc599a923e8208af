"""``find_named``: the lookups by name of the reports."""

from __future__ import annotations

import pytest

from uac.lookup import find_named


def test_the_first_item_whose_key_is_the_name():
    items = [("a", 1), ("b", 2), ("b", 3)]
    assert find_named(items, "b", key=lambda item: item[0]) == ("b", 2)


def test_no_item_of_that_name_is_a_key_error_naming_it():
    with pytest.raises(KeyError) as caught:
        find_named(iter([("a", 1)]), "z", key=lambda item: item[0])
    assert caught.value.args == ("z",)


def test_the_reports_look_up_their_parts_through_it():
    from uac.compile.report import CompileReport
    from uac.doctor import DoctorReport
    from uac.doctor.result import OK, CheckResult

    report = DoctorReport(project="p", format_version=1, uac_version="0", checks=[CheckResult("layout", OK, "fine")])
    assert report.check("layout").detail == "fine"
    with pytest.raises(KeyError):
        report.check("index")
    with pytest.raises(KeyError):
        CompileReport(mode="offline").domain("travel")
