"""Attack class: imports, module monkeypatching and Unicode-normalised names."""

import pytest
from sandbox_support import run_err, run_ok


class TestImports:
    @pytest.mark.parametrize(
        "code",
        [
            "import os",
            "import sys",
            "import subprocess",
            "from os import path",
            "import socket",
            "import collections.abc",
            "import importlib",
            "from . import x",
            "import string",
            "import ctypes",
            "import time",
        ],
    )
    def test_disallowed_imports(self, session, code):
        msg = run_err(session, code, "ImportError")
        if "relative" not in msg:
            assert "allowed modules: collections" in msg

    def test_allowed_import_forms(self, session):
        code = (
            "import math\nimport statistics as st\nfrom collections import Counter, defaultdict\n"
            "from datetime import date, timedelta\nimport itertools, functools, re, json, decimal, fractions, operator\n"
            "result = [math.floor(2.5), st.mean([1, 2, 3]), Counter('aab')['a'], (date(2024, 1, 1) + timedelta(days=1)).day]"
        )
        assert run_ok(session, code) == [2, 2, 2, 2]

    def test_operator_attrgetter_and_methodcaller_removed(self, session):
        assert "reads attributes by name" in run_err(
            session, "import operator\nf = operator.attrgetter('x')", "AttributeError"
        )
        run_err(session, "from operator import methodcaller", "ImportError")
        assert run_ok(session, "import operator\nresult = operator.itemgetter(1)([5, 6])") == 6

    def test_functools_update_wrapper_removed(self, session):
        run_err(session, "import functools\nf = functools.update_wrapper", "AttributeError")
        run_err(session, "from functools import wraps", "ImportError")

    def test_json_cls_is_rejected(self, session):
        run_err(session, "import json\nx = json.loads('{}', cls=dict)", "TypeError")
        run_err(session, "import json\nx = json.dumps({}, cls=dict)", "TypeError")
        assert run_ok(session, "import json\nresult = json.loads('{\"a\": [1]}', object_hook=dict)") == {"a": [1]}

    def test_namedtuple_names_are_validated(self, session):
        run_err(
            session, "import collections\nP = collections.namedtuple('P', ['x', 'y=__import__(\"os\")'])", "ValueError"
        )
        run_err(session, "import collections\nP = collections.namedtuple('P', 'x', module='os')", "TypeError")
        assert (
            run_ok(session, "from collections import namedtuple\nP = namedtuple('P', 'x y')\nresult = P(1, 2).y") == 2
        )


class TestModulesAreReadOnly:
    @pytest.mark.parametrize(
        "code",
        [
            "import math\nmath.pi = 3",
            "import json\njson.dumps = len",
            "import math\ndel math.sqrt",
            "import collections\ncollections.Counter.most_common = len",
            "import datetime\ndatetime.date.today = len",
        ],
    )
    def test_monkeypatching_fails(self, session, code):
        run_err(session, code, ("ReadOnlyError", "TypeError"))

    def test_module_unchanged_afterwards(self, session):
        run_err(session, "import math\nmath.pi = 3", "ReadOnlyError")
        assert run_ok(session, "import math\nresult = round(math.pi, 4)") == 3.1416


class TestUnicodeNormalisedNames:
    def test_fullwidth_eval_normalises_to_eval(self, session):
        run_err(session, "x = ｅｖａｌ('1 + 1')", ("PolicyError", "NameError"))

    def test_fullwidth_dunder_attribute(self, session):
        # U+FF3F is not an identifier character: the parser refuses it.
        run_err(session, "x = trips.＿＿class＿＿", ("PolicyError", "SyntaxError"))
        # Full-width letters normalise (NFKC) to ASCII before the policy sees them.
        run_err(session, "x = trips.__ｃｌａｓｓ__", "PolicyError")

    def test_fullwidth_import(self, session):
        run_err(session, "import ｏｓ", "ImportError")

    def test_fullwidth_getattr(self, session):
        run_err(session, "x = ｇｅｔａｔｔｒ(1, 'real')", "NameError")

    def test_mathematical_alphanumerics(self, session):
        run_err(session, "x = 𝐞𝐱𝐞𝐜('1')", ("PolicyError", "NameError"))
