"""Ordinary analysis code just runs."""

import datetime as dt

from sandbox_support import run_err, run_ok


def test_comprehensions_and_filters(session):
    assert run_ok(session, "result = len([t for t in trips if t.cost > 100])") == 4
    assert run_ok(session, "result = {t.city for t in trips if t.purpose == 'work'}") == ["Berlin", "Paris"]
    assert run_ok(session, "result = {t.city: t.nights for t in trips}") == {
        "Paris": 4,
        "Rome": 5,
        "Berlin": 2,
        "Oslo": 6,
    }


def test_counter_groupby_and_topk(session):
    code = "from collections import Counter\nc = Counter(t.city for t in trips)\nresult = c.most_common(1)"
    assert run_ok(session, code) == [["Paris", 2]]
    code = (
        "from collections import defaultdict\nspend = defaultdict(float)\nfor t in trips:\n"
        "    spend[t.purpose] += t.cost\nresult = {k: round(v, 2) for k, v in spend.items()}"
    )
    assert run_ok(session, code) == {"leisure": 2021.49, "work": 275.0}


def test_statistics(session):
    code = "import statistics\nresult = [statistics.mean(t.nights for t in trips), statistics.median([t.cost for t in trips])]"
    assert run_ok(session, code) == [4, 420.0]


def test_date_arithmetic(session):
    code = (
        "from datetime import date, timedelta\n"
        "in_2024 = [t for t in trips if t.start.year == 2024]\n"
        "late = [t.city for t in trips if t.start >= date(2024, 3, 1)]\n"
        "ends = [t.start + timedelta(days=t.nights) for t in in_2024]\n"
        "gap = (max(t.start for t in trips) - min(t.start for t in trips)).days\n"
        "result = [len(in_2024), late, ends[0], gap, trips[0].start.month]"
    )
    assert run_ok(session, code) == [3, ["Paris", "Oslo"], "2024-05-04", 582, 5]


def test_datetimes_and_time_windows(session):
    code = (
        "import datetime\nstart = datetime.datetime(2024, 3, 1)\nend = start + datetime.timedelta(days=30)\n"
        "result = sum(m.price for m in meals if start <= m.when < end)"
    )
    assert run_ok(session, code) == 50.5


def test_sorting_with_keys_and_lambdas(session):
    code = "result = [t.city for t in sorted(trips, key=lambda t: (-t.cost, t.city))][:2]"
    assert run_ok(session, code) == ["Oslo", "Rome"]
    assert run_ok(session, "result = max(trips, key=lambda t: t.nights).city") == "Oslo"


def test_helper_functions_see_top_level_names(session):
    code = (
        "import math\nTHRESHOLD = 200\n"
        "def expensive(t):\n    return t.cost > THRESHOLD and math.isfinite(t.cost)\n"
        "def total(items):\n    return sum(t.cost for t in items if expensive(t))\n"
        "result = round(total(trips), 2)"
    )
    assert run_ok(session, code) == 2021.49


def test_try_except(session):
    code = "try:\n    x = {}['missing']\nexcept KeyError as e:\n    result = 'caught ' + str(e)"
    assert run_ok(session, code) == "caught 'missing'"


def test_json_re_itertools(session):
    code = (
        "import json, re, itertools\n"
        "cities = sorted(t.city for t in trips)\n"
        "groups = [(k, len(list(g))) for k, g in itertools.groupby(cities)]\n"
        "codes = [m.group(0) for m in re.finditer(r'[A-Z]', 'Paris Rome')]\n"
        "result = json.loads(json.dumps({'groups': groups, 'codes': codes}))"
    )
    assert run_ok(session, code) == {
        "groups": [["Berlin", 1], ["Oslo", 1], ["Paris", 2], ["Rome", 1]],
        "codes": ["P", "R"],
    }


def test_functools_and_operator(session):
    code = (
        "import functools, operator\nresult = [functools.reduce(operator.add, [t.nights for t in trips]),"
        " sorted([(2, 'b'), (1, 'a')], key=operator.itemgetter(0))[0][1]]"
    )
    assert run_ok(session, code) == [20, "a"]


def test_decimal_and_fractions(session):
    code = "from decimal import Decimal\nfrom fractions import Fraction\nresult = [Decimal('0.1') + Decimal('0.2'), Fraction(1, 3) * 3]"
    assert run_ok(session, code) == ["0.3", "1"]


def test_unpacking_and_augmented_assignment(session):
    code = (
        "counts = {}\nfor i, t in enumerate(trips):\n    counts[t.city] = counts.get(t.city, 0) + 1\n"
        "first, *rest = [t.city for t in trips]\ntotal = 0\nfor t in trips:\n    total += t.nights\n"
        "counts['Paris'] += 10\nresult = [counts['Paris'], first, len(rest), total]"
    )
    assert run_ok(session, code) == [12, "Paris", 4, 20]


def test_enums_stay_enums_equal_to_their_values_and_lists_arrive_as_tuples(session):
    assert run_ok(session, "result = [trips[0].purpose, trips[0].tags, 'food' in trips[0].tags]") == [
        "leisure",
        ["food", "museum"],
        True,
    ]
    assert run_ok(
        session, "result = [trips[0].purpose.value, trips[0].purpose == 'leisure', trips[2].purpose.name]"
    ) == ["leisure", True, "WORK"]


def test_domains_and_name_collisions(session):
    # `notes` exists in two domains: only domain.notes works.
    run_err(session, "x = notes", "NameError")
    assert run_ok(session, "result = [travel.notes[0].text, dining.notes[0].text, home_city, budget['monthly']]") == [
        "bring passport",
        "no peanuts",
        "Lisbon",
        300,
    ]
    msg = run_err(session, "x = travel.trip", "AttributeError")
    assert "collections: trips, notes, home_city" in msg


def test_facts(session):
    code = "result = [(f.id, f.session_date.month, f.evidence) for f in facts]"
    assert run_ok(session, code) == [["f1", 5, ["D1:3"]], ["f2", 6, ["D2:1", "D2:4"]]]


def test_variables_persist_across_runs(session):
    run_ok(
        session,
        "import statistics\nmy_total = sum(t.cost for t in trips)\ndef avg(xs):\n    return statistics.mean(xs)",
    )
    assert run_ok(session, "result = round(my_total, 2)") == 2296.49
    assert run_ok(session, "result = avg([1, 3])") == 2


def test_result_is_cleared_between_runs(session):
    run_ok(session, "result = 1")
    res = session.run("x = 2")
    assert res.ok and res.result is None


def test_result_conversion(session):
    code = (
        "from collections import Counter\nimport datetime\n"
        "result = {'date': trips[0].start, 'record': travel.notes[0], 'set': {3, 1, 2}, 'tuple': (1, 2),"
        " 'counter': Counter([2024, 2024]), 'nan': float('nan'), 'td': datetime.timedelta(days=1, hours=2),"
        " 'none_key': {None: 1, True: 2}, 'obj': len}"
    )
    out = run_ok(session, code)
    assert out["date"] == "2024-05-01"
    assert out["record"] == {"text": "bring passport"}
    assert out["set"] == [1, 2, 3] and out["tuple"] == [1, 2]
    assert out["counter"] == {"2024": 2}
    assert out["nan"] == "nan" and out["td"] == "1 day, 2:00:00"
    assert out["none_key"] == {"null": 1, "true": 2}
    assert out["obj"] == "<built-in function len>"


def test_records_repr_like_dataclasses(session):
    assert run_ok(session, "result = repr(travel.notes[0])") == "Note(text='bring passport')"
    assert run_ok(session, "result = repr(trips[2].start)") == repr(dt.date(2024, 1, 20))


def test_slicing_and_membership(session):
    assert run_ok(session, "result = [len(trips[1:3]), trips[-1].city, trips[0] in trips, len(list(trips))]") == [
        2,
        "Oslo",
        True,
        5,
    ]
