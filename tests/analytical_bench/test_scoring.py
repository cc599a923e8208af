import pytest

from analytical_bench.scoring import parse_number, score, split_items


@pytest.mark.parametrize(
    "prediction, gold, expected",
    [
        ("12", 12, True),
        ("12 trips", 12, True),
        ("You took 12 trips.", 12, True),
        ("1,234", 1234, True),
        ("1,234 records", 1234, True),
        ("-3", -3, True),
        ("\u22123", -3, True),
        ("3", -3, False),
        ("12.0", 12, True),
        ("12.5", 12, False),
        ("13", 12, False),
        ("none", 0, True),
        ("zero", 0, True),
        ("none", 1, False),
        ("", 0, False),
        ("   ", 0, False),
        ("I cannot tell", 3, False),
    ],
)
def test_int(prediction, gold, expected):
    assert score("int", gold, prediction) is expected


@pytest.mark.parametrize(
    "prediction, gold, expected",
    [
        ("1,234.5", 1234.5, True),
        ("$1,234.50", 1234.5, True),
        ("1246", 1234.5, True),  # within 1%
        ("1247", 1234.5, False),
        ("0.005", 0.0, True),  # absolute 0.01 floor
        ("0.02", 0.0, False),
        ("-12.40", -12.4, True),
        ("12.40", -12.4, False),
        ("The average is 47.56 USD.", 47.56, True),
        (".5", 0.5, True),
        ("", 1.0, False),
        ("n/a", 1.0, False),
    ],
)
def test_float(prediction, gold, expected):
    assert score("float", gold, prediction) is expected


@pytest.mark.parametrize(
    "prediction, gold, expected",
    [
        ("Europe", "Europe", True),
        ("europe", "Europe", True),
        ("The region is EUROPE.", "Europe", True),
        ("Trader  Joe's", "Trader Joe's", True),
        ("Asia", "Europe", False),
        ("", "Europe", False),
        ("fiction", "science fiction", False),
        ("increase", "increase", True),
        ("decrease", "increase", False),
    ],
)
def test_string(prediction, gold, expected):
    assert score("string", gold, prediction) is expected


def test_empty_prediction_never_matches_any_kind():
    for kind, gold in [("int", 0), ("float", 0.0), ("string", ""), ("set", []), ("list", [])]:
        assert score(kind, gold, "") is False
        assert score(kind, gold, None) is False


@pytest.mark.parametrize(
    "prediction, expected",
    [
        ('["Paris", "Lisbon", "Tokyo"]', True),
        ("Tokyo, Paris and Lisbon", True),
        ("tokyo; paris; LISBON.", True),
        ("- Paris\n- Lisbon\n- Tokyo", True),
        ("The destinations are: Paris, Lisbon, and Tokyo.", True),
        ('```json\n["Paris","Lisbon","Tokyo"]\n```', True),
        ("Paris, Lisbon", False),
        ("Paris, Lisbon, Tokyo, Rome", False),
        ("none", False),
    ],
)
def test_set(prediction, expected):
    assert score("set", ["Paris", "Lisbon", "Tokyo"], prediction) is expected


def test_set_normalises_punctuation_in_names():
    assert score("set", ["Dr. Amina Osei", "Trader Joe's"], "dr amina osei, trader joe\u2019s")
    assert score("set", ["The Quiet Harbor (Volume 2)"], "The Quiet Harbor (Volume 2)")


@pytest.mark.parametrize(
    "prediction, expected",
    [
        ('["2024-05-22", "2024-11-04", "2024-06-14"]', True),
        ("1. 2024-05-22\n2. 2024-11-04\n3. 2024-06-14", True),
        ("2024-05-22, 2024-11-04, 2024-06-14", True),
        ("2024-11-04, 2024-05-22, 2024-06-14", False),
        ("2024-05-22, 2024-11-04", False),
    ],
)
def test_list_is_ordered(prediction, expected):
    assert score("list", ["2024-05-22", "2024-11-04", "2024-06-14"], prediction) is expected


def test_parse_number_and_split_items():
    assert parse_number("about 1,234.5 USD") == 1234.5
    assert parse_number("no digits") == 0.0
    assert parse_number("nothing here") is None
    assert split_items("A, B and C") == ["a", "b", "c"]


def test_unknown_kind_is_an_error():
    with pytest.raises(ValueError):
        score("date", "2024-01-01", "2024-01-01")
