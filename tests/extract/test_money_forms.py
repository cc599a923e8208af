"""Amounts written the way South Asian and Nordic chats write them."""

from __future__ import annotations

import pytest

from uac.extract.money import find_amounts


def _read(text: str, local: str | None = None) -> list[tuple[float, str]]:
    return [(m.amount, m.currency) for m in find_amounts(text, local)]


@pytest.mark.parametrize(
    "text, local, expected",
    [
        ("a mixer grinder for Rs 2,400", None, [(2400.0, "INR")]),
        ("ordered a kurta for rs.1500", "INR", [(1500.0, "INR")]),
        ("Rs. 899 only", None, [(899.0, "INR")]),
        ("the sofa was 1.2 lakh", None, [(120000.0, "INR")]),
        ("Rs 1.5 lakh for the bike", None, [(150000.0, "INR")]),
        ("two lakh rupees", None, [(200000.0, "INR")]),
        # where the rupee or the lakh is the user's own other money
        ("Rs 2,400 at the market", "PKR", [(2400.0, "PKR")]),
        ("a flat for 2 crore", "BDT", [(20000000.0, "BDT")]),
        ("₹899 phone cover", "PKR", [(899.0, "INR")]),  # the sign names the Indian rupee itself
    ],
)
def test_rupees_and_lakhs(text, local, expected):
    assert _read(text, local) == expected


@pytest.mark.parametrize("text", ["5 yrs 20 days", "3 hrs 15 min", "the Rs in the word", "lakh"])
def test_no_rupees_in_words_that_end_in_rs(text):
    assert _read(text) == []


@pytest.mark.parametrize(
    "text, local, expected",
    [
        ("new running shoes for 1 299,- kr", "NOK", [(1299.0, "NOK")]),
        ("ski goggles, 799,-", "NOK", [(799.0, "NOK")]),
        ("kr 450,- at the café", "NOK", [(450.0, "NOK")]),
        ("1.299,- kr", "NOK", [(1299.0, "NOK")]),
        # "kroner" is Danish money to a Dane and Norwegian to anyone else
        ("350 kroner", "DKK", [(350.0, "DKK")]),
        ("350 kroner", None, [(350.0, "NOK")]),
        ("450 kr", None, []),  # a krone of no land known: no amount
    ],
)
def test_nordic_amounts(text, local, expected):
    assert _read(text, local) == expected


def test_a_whole_amount_with_a_dash_needs_the_users_money():
    assert _read("799,-") == []


@pytest.mark.parametrize(
    ("text", "local", "expected"),
    [
        ("Skechers slip-ins, 289 dhs", None, [(289.0, "AED")]),
        ("frankincense for 500 dirham", None, [(500.0, "AED")]),
        ("6,400 bob for the two of us", "KES", [(6400.0, "KES")]),
        ("6,400 bob for the two of us", None, []),  # "bob" is a shilling only where shillings are the money
        ("Ksh 6,500 from a watch shop", "KES", [(6500.0, "KES")]),
    ],
)
def test_dirhams_and_shillings_as_people_write_them(text, local, expected):
    assert _read(text, local) == expected


@pytest.mark.parametrize(
    ("text", "local", "expected"),
    [
        ("paid 45 quid for the tickets", "EUR", [(45.0, "EUR")]),  # Irish English: a quid is a euro
        ("paid 45 quid for the tickets", None, [(45.0, "GBP")]),
        ("gave him a tenner", "EUR", [(10.0, "EUR")]),
        ("two fivers for the raffle", None, [(10.0, "GBP")]),
        ("4,500/- for the kurta", "INR", [(4500.0, "INR")]),
        ("twenty odd euro for a pint and a toastie", "EUR", [(20.0, "EUR")]),
    ],
)
def test_quid_tenners_and_whole_rupees_as_people_say_them(text, local, expected):
    assert _read(text, local) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "the tent was 289,99$ and the cooler 74$",
            [(289.99, "USD"), (74.0, "USD")],
        ),  # the sign after, as Quebec writes it
        ("899$ at Best Buy", [(899.0, "USD")]),
    ],
)
def test_a_dollar_sign_after_the_amount(text, expected):
    # read as a dollar; whose dollar it is, the user's home decides (uac.compile.kinds.context)
    assert _read(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("school shoes ₦18,500", [(18500.0, "NGN")]),
        ("₱1,200 for the bag", [(1200.0, "PHP")]),
        ("₵50 for a taxi", [(50.0, "GHS")]),
    ],
)
def test_the_signs_of_more_currencies(text, expected):
    assert _read(text) == expected


@pytest.mark.parametrize(
    "text, local, expected",
    [
        ("a Kindle Paperwhite, 280 lucas at Musimundo", None, [(280000.0, "ARS")]),
        ("the sofa was 250 lucas", "ARS", [(250000.0, "ARS")]),
        ("2,5 lucas el almuerzo", "CLP", [(2500.0, "CLP")]),
        ("38.000 chilean pesos my part", None, [(38000.0, "CLP")]),
        ("a Columbia fleece, 54.990 CLP", None, [(54990.0, "CLP")]),
        ("spent 250 USD there", None, [(250.0, "USD")]),
        ("the monitor was 829,000원", None, [(829000.0, "KRW")]),
        ("about 500円 each", None, [(500.0, "JPY")]),
        # a word number starts a word: "chilean" holds no "an"
        ("chilean pesos are cheap", None, []),
        ("cost 3 ABC", None, []),  # no such currency
    ],
)
def test_pesos_thousands_codes_and_signs_after_the_number(text, local, expected):
    assert _read(text, local) == expected


def test_a_share_said_as_the_speakers_part():
    [money] = find_amounts("45 lucas Sam's part, worth it")
    assert money.share


@pytest.mark.parametrize(
    "text, expected",
    [("180 zł my part", [(180.0, "PLN")]), ("2 450 zł", [(2450.0, "PLN")]), ("99 złotych", [(99.0, "PLN")])],
)
def test_zloty_as_poles_write_it(text, expected):
    assert _read(text) == expected


@pytest.mark.parametrize(
    "text, local, expected",
    [
        ("1.250 TL for a kilo", "TRY", [(1250.0, "TRY")]),
        ("a cabin suitcase, 2.100tl on trendyol", "TRY", [(2100.0, "TRY")]),
        ("one hotel wanted 35 bin per night", "TRY", [(35000.0, "TRY")]),
        ("paid 2,5 bin for it", "TRY", [(2500.0, "TRY")]),
        ("the sofa is ₺27.999", None, [(27999.0, "TRY")]),
        # "TL" and "bin" are Turkey's: elsewhere neither is money
        ("2 TL Zucker", None, []),
        ("44 bin bags", "GBP", []),
    ],
)
def test_the_lira_as_turkey_writes_it(text, local, expected):
    assert _read(text, local) == expected


def test_egypts_own_signs_where_it_is_the_users_money():
    from uac.extract.money import find_amounts

    assert [(m.amount, m.currency) for m in find_amounts("E£120 for the taxi")] == [(120.0, "EGP")]
    for text, amount in (("it was LE 300", 300.0), ("got it for 300 L.E.", 300.0), ("came to 1,200 egp", 1200.0)):
        assert [(m.amount, m.currency) for m in find_amounts(text, "EGP")] == [(amount, "EGP")]
        assert find_amounts(text) == []  # a letter sign is read only where it is the user's own
    assert [(m.amount, m.currency) for m in find_amounts("cost me 850 pounds", "EGP")] == [(850.0, "EGP")]
    assert find_amounts("Le Bon was 300", "EGP") == []
