"""Attack class: mutation of the shared state."""

import pytest
from sandbox_support import run_err, run_ok


class TestRecords:
    @pytest.mark.parametrize(
        "code",
        [
            "trips[0].cost = 0",
            "del trips[0].cost",
            "t = trips[0]\nt.city = 'X'",
            "travel.trips = []",
            "travel.extra = 1",
            "dining.budget['monthly'] = 0",
            "trips[0] = None",
            "del trips[0]",
        ],
    )
    def test_assignments_fail(self, session, code):
        run_err(session, code, ("ReadOnlyError", "TypeError"))

    @pytest.mark.parametrize(
        "code",
        [
            "trips.append(1)",
            "trips.sort()",
            "trips.clear()",
            "list.append(trips, 1)",
            "dict.update(dining.budget, {'x': 1})",
            "dining.budget.update({'x': 1})",
            "set.add(trips[0].tags, 1)",
            "trips[0].tags.append('x')",
        ],
    )
    def test_mutating_methods_fail(self, session, code):
        run_err(session, code, ("ReadOnlyError", "TypeError", "AttributeError"))

    def test_state_is_unchanged_after_attempts(self, session):
        session.run("trips[0].cost = 0")
        session.run("trips.append(1)")
        assert run_ok(session, "result = (len(trips), trips[0].cost, travel.trips is trips)") == [5, 420.0, True]

    def test_rebinding_a_collection_name_is_local_to_the_run(self, session):
        assert run_ok(session, "trips = []\nresult = len(trips)") == 0
        assert run_ok(session, "result = len(trips)") == 5

    def test_copies_are_mutable(self, session):
        code = "xs = list(trips)\nxs.append(None)\nd = dict(dining.budget)\nd['new'] = 1\nresult = (len(xs), len(d))"
        assert run_ok(session, code) == [6, 3]

    def test_records_are_hashable_and_compare_by_value(self, session):
        assert run_ok(session, "result = (len(set(trips)), trips[0] == trips[0], trips[0] == trips[3])") == [
            5,
            True,
            False,
        ]

    def test_record_classes_cannot_be_subclassed(self, fresh_session):
        code = "class Spy(Counter):\n    pass\nfrom collections import Counter"
        fresh_session.run(code)
        # A record's class is unreachable (no type()); subclassing the collection type is harmless.
        run_err(fresh_session, "class X(trips):\n    pass", "TypeError")


class TestOwnObjectsAreMutable:
    def test_lists_dicts_sets_counters(self, session):
        code = (
            "from collections import Counter, defaultdict, deque\n"
            "a = [1]\na.append(2)\na[0] = 5\nd = {}\nd['k'] = 1\ns = set()\ns.add(1)\n"
            "c = Counter()\nc['x'] += 2\ndd = defaultdict(list)\ndd['k'].append(1)\nq = deque()\nq.append(1)\n"
            "result = [a, d, sorted(s), dict(c), dict(dd), list(q)]"
        )
        assert run_ok(session, code) == [[5, 2], {"k": 1}, [1], {"x": 2}, {"k": [1]}, [1]]

    def test_simple_classes(self, session):
        code = (
            "class Acc:\n    def __init__(self):\n        self.total = 0\n    def add(self, v):\n"
            "        self.total += v\n        return self\nacc = Acc()\nfor t in trips:\n    acc.add(t.nights)\n"
            "result = acc.total"
        )
        assert run_ok(session, code) == 20
