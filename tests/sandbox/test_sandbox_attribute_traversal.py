"""Attack class: attribute and dunder traversal, frames, str.format family."""

import pytest
from sandbox_support import run_err, run_ok


class TestDunderTraversal:
    @pytest.mark.parametrize(
        "code",
        [
            "x = trips[0].__class__",
            "x = ().__class__.__bases__[0].__subclasses__()",
            "x = (lambda: 1).__globals__",
            "x = len.__self__",
            "x = [].__class__.__mro__",
            "def f(): pass\nx = f.__code__",
            "x = trips.__dict__",
            "x = 1 .__class__",
            "__builtins__",
            "x = _getattr_",
            "_write_ = 1",
            "def _f(): pass",
            "class A:\n    def __getattr__(self, n):\n        return 1",
        ],
    )
    def test_underscore_names_are_rejected_at_compile_time(self, session, code):
        msg = run_err(session, code, "PolicyError")
        assert "line" in msg

    @pytest.mark.parametrize(
        "attr",
        [
            "gi_frame",
            "gi_code",
            "f_back",
            "f_globals",
            "f_locals",
            "f_builtins",
            "tb_frame",
            "tb_next",
            "cr_frame",
            "ag_frame",
            "co_code",
            "gi_yieldfrom",
        ],
    )
    def test_frame_and_code_attributes_are_forbidden(self, session, attr):
        run_err(session, f"g = (x for x in [1])\ny = g.{attr}", "PolicyError")

    def test_traceback_frame_unreachable(self, session):
        code = "try:\n    1/0\nexcept ZeroDivisionError as e:\n    x = e.tb_frame"
        run_err(session, code, "PolicyError")

    def test_generator_frame_through_send(self, session):
        code = "def g():\n    yield 1\nit = g()\nnext(it)\nf = it.gi_frame.f_back"
        run_err(session, code, "PolicyError")

    def test_mro_is_not_readable_on_types(self, session):
        msg = run_err(session, "x = int.mro()", "AttributeError")
        assert "not allowed" in msg

    def test_typo_on_record_names_fields(self, session):
        msg = run_err(session, "x = trips[0].destnation", "AttributeError")
        assert "'Trip' record has no field 'destnation'" in msg
        assert "fields: city, start" in msg
        assert msg.startswith("line 1:")


class TestStrFormat:
    @pytest.mark.parametrize(
        "code",
        [
            "x = '{0.__class__}'.format(trips[0])",
            "x = '{0.__class__.__mro__}'.format(1)",
            "x = str.format('{0.__globals__}', len)",
            "x = 'a'.format",
        ],
    )
    def test_format_is_blocked_on_strings(self, session, code):
        msg = run_err(session, code, "AttributeError")
        assert "f-strings" in msg

    def test_format_map(self, session):
        run_err(session, "x = '{a.__class__}'.format_map({'a': 1})", "AttributeError")

    def test_string_formatter_unreachable(self, session):
        run_err(session, "import string\nx = string.Formatter().format('{0.__class__}', 1)", "ImportError")

    def test_record_field_named_format_is_still_readable(self, session):
        assert run_ok(session, "result = [t.format for t in trips][:3]") == ["flight", "flight", "train"]

    def test_fstrings_work_and_do_not_traverse(self, session):
        assert run_ok(
            session, "t = trips[0]\nresult = f'{t.city}: {t.cost:.1f} on {t.start:%d %b %Y} {t.nights!r}'"
        ) == ("Paris: 420.0 on 01 May 2024 3")
        run_err(session, "t = trips[0]\nresult = f'{t.__class__}'", "PolicyError")

    def test_format_builtin_uses_spec_only(self, session):
        assert run_ok(session, "result = format(3.14159, '.2f')") == "3.14"
        run_err(session, "result = format(trips[0], '{0.__class__}')", "TypeError")
