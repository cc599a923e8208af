"""Amounts of money in what people say: "€48", "£340", "1,299.99 USD", "30 euros",
"fifty quid", "a couple hundred bucks", "$1.2k", "two grand".

:func:`find_amounts` returns every amount in a text with its ISO 4217 currency
and where it stands.  The parts come from libraries made for them:

* ``price-parser`` reads the number of an amount the way shops write it
  ("1,299.99", "1.299,99", "48,-");
* ``babel`` (CLDR data) maps currency symbols and names to codes: every
  symbol English speakers see ("€", "£", "¥", "CA$", "A$", "R$", "₹"...) and
  every code; its data load once, on the first amount;
* number words ("fifty", "two hundred and forty", "a couple hundred") and the
  slang names ("quid", "bucks", "grand") are a small table of this module.

A bare number is no amount ("five nights", "the 40 bus"): an amount needs a
currency -- a symbol, a code or a name.  A bare "$" (and "dollars", "bucks",
"grand") is USD here; :func:`local_currency` says what it is where the user lives
(the project's ``[user] currency``, else the currency of their home's country:
"$" is AUD in Australia, never in Britain), and :func:`names_us_dollar` tells a
"$" that was bare from one that said so ("US$", "USD").

With the user's own currency (:func:`home_currency`), :func:`local_amounts` also reads
it the way its land writes it: babel's local symbols ("R450", "199 kr", "RM 45", "N$780")
and its English names ("4 200 rand"); a letter symbol only next to a number, never a label
("R2-D2", "Room R2").
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from decimal import Decimal, InvalidOperation
from functools import lru_cache

from .numbers import CARDINALS

__all__ = [
    "Money",
    "find_amounts",
    "home_currency",
    "local_amounts",
    "local_names",
    "local_symbols",
    "currency_code",
    "local_currency",
    "names_us_dollar",
    "number_words",
]


@dataclass(frozen=True)
class Money:
    amount: float
    currency: str
    start: int
    end: int
    #: the text says this is the speaker's share of a bill ("for my half")
    share: bool = False


_UNITS = {"zero": 0, **CARDINALS, "couple": 2, "few": 3}
_SCALES = {"hundred": 100, "thousand": 1000, "grand": 1000, "k": 1000, "million": 1_000_000}
#: the Indian numbering of South Asia: "1.2 lakh" is 120,000, "2 crore" 20,000,000 (of rupees or taka where none is named)
_SOUTH_ASIAN = {
    "lakh": 100_000,
    "lakhs": 100_000,
    "lac": 100_000,
    "lacs": 100_000,
    "crore": 10_000_000,
    "crores": 10_000_000,
}
_SCALES.update(_SOUTH_ASIAN)
#: the currencies counted in lakhs, and written "Rs" ("Rs 2,400", "Rs.899"): a bare "Rs" or "lakh" is the user's
#: own where it is one of them, else the Indian rupee
_RUPEE_LANDS = ("INR", "PKR", "NPR", "LKR", "BDT", "MUR")
_WORD_NUMBER = (
    r"(?:(?<![\w'’-])(?:a|an|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|"
    r"seventeen|eighteen|nineteen|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|a\s+couple(?:\s+of)?|a\s+few)"
    r"(?:[\s-]+(?:and\s+)?(?:one|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|forty|fifty|sixty|seventy|"
    r"eighty|ninety|hundred|thousand))*)"
)
#: "1,299.99", "1.299,99", "4 200" (a space or a narrow no-break space), "1'200" (an apostrophe)
_DIGITS = r"(?:\d{1,3}(?:[,.\s'’]\d{3})+(?:[.,]\d{1,2})?|\d+(?:[.,]\d{1,2})?)"
#: names and slang of currencies as people write them after a number (babel adds its English names)
_SLANG = {
    "quid": "GBP",
    "bucks": "USD",
    "buck": "USD",
    "dollars": "USD",
    "dollar": "USD",
    "euros": "EUR",
    "euro": "EUR",
    "pounds": "GBP",
    "pound": "GBP",
    "yen": "JPY",
    "francs": "CHF",
    "franc": "CHF",
    "rupees": "INR",
    "pesos": "MXN",
    "reais": "BRL",
    "kroner": "NOK",
    "kronor": "SEK",
    "krona": "SEK",
    "zloty": "PLN",
    "zlotys": "PLN",
    "zł": "PLN",
    "złoty": "PLN",
    "złotych": "PLN",
    "baht": "THB",
    "won": "KRW",
    "dirhams": "AED",
    "dirham": "AED",
    "dhs": "AED",
    "lira": "TRY",
    "yuan": "CNY",
    "rand": "ZAR",
    "forint": "HUF",
    "koruna": "CZK",
    "dong": "VND",
    "pence": "GBP",
    "cents": "USD",
    "p": "GBP",
    "eur": "EUR",
    "usd": "USD",
    "gbp": "GBP",
    "lari": "GEL",
    "laris": "GEL",
    "lei": "RON",
    "shekels": "ILS",
    "ringgit": "MYR",
    "rupiah": "IDR",
}
_SUBUNIT = {"pence": 0.01, "cents": 0.01, "p": 0.01}


@lru_cache(maxsize=1)
def _currency_tables() -> tuple[dict[str, str], set[str]]:
    """symbol -> code (babel's English symbols, the plain ones first) and every code."""
    from babel import Locale

    english = Locale("en")
    codes = set(english.currencies)
    symbols: dict[str, str] = {}
    for code, symbol in english.currency_symbols.items():
        if symbol != code and not symbol.isalpha():
            symbols.setdefault(symbol, code)
    for locale in (
        "en_GB",
        "en_IN",
        "ja",
        "ko",
        "pl",
        "th",
        "tr",
        "ru",
        "vi",
        "uk",
        "he",
        "fil",
        "en_NG",
        "en_GH",
        "bn",
        "kk",
        "lo",
    ):
        try:
            for code, symbol in Locale.parse(locale).currency_symbols.items():
                if code in codes and len(symbol) == 1 and not symbol.isalnum():
                    symbols.setdefault(symbol, code)
        except (ValueError, LookupError):
            continue
    symbols.update(
        {
            "US$": "USD",
            "E£": "EGP",
            "$": "USD",
            "€": "EUR",
            "£": "GBP",
            "¥": "JPY",
            "₹": "INR",
            "₩": "KRW",
            "₺": "TRY",
            "₽": "RUB",
            "₵": "GHS",
            "원": "KRW",
            "円": "JPY",
        }
    )
    return symbols, codes


@lru_cache(maxsize=1)
def _names() -> dict[str, str]:
    """English currency names ("Swiss francs", "Japanese yen") -> codes, from babel, plus the slang."""
    from babel import Locale

    out = {}
    english = Locale("en")
    for code, name in english.currencies.items():
        if len(name.split()) <= 3:
            out[name.lower()] = code
    out.update(_SLANG)
    for land, code in _PESO_LANDS.items():
        out[f"{land} pesos"] = out[f"{land} peso"] = code  # "38.000 chilean pesos"
    return out


#: the pesos a land's name says ("chilean pesos"); a bare "pesos" stays the Mexican one
_PESO_LANDS = {
    "chilean": "CLP",
    "argentine": "ARS",
    "argentinian": "ARS",
    "colombian": "COP",
    "uruguayan": "UYU",
    "philippine": "PHP",
    "cuban": "CUP",
    "dominican": "DOP",
    "mexican": "MXN",
}


def currency_code(text: str) -> str | None:
    """The ISO code of a symbol, a code or a currency name ("€", "eur", "Swiss francs"), or None."""
    text = text.strip()
    if not text:
        return None
    symbols, codes = _currency_tables()
    if text in symbols:
        return symbols[text]
    if text.upper() in codes and len(text) == 3 and (text.isupper() or text.lower() in _SLANG):
        return text.upper()
    return _names().get(" ".join(text.lower().split()))


def number_words(text: str) -> float | None:
    """``"fifty"`` -> 50, ``"two hundred and forty"`` -> 240, ``"a couple hundred"`` -> 200, else None."""
    words = [w for w in re.split(r"[\s-]+", text.strip().lower()) if w and w not in ("and", "of")]
    if not words:
        return None
    total, current = 0.0, 0.0
    for index, word in enumerate(words):
        if word in ("a", "an") and index + 1 < len(words) and words[index + 1] in ("couple", "few"):
            continue
        if word in _UNITS:
            current += _UNITS[word]
        elif word in _SCALES:
            current = (current or 1) * _SCALES[word]
            if _SCALES[word] >= 1000:
                total, current = total + current, 0.0
        else:
            return None
    return total + current


def _digits(text: str) -> float | None:
    from price_parser import parse_price

    try:
        value = parse_price(text.replace("’", "'")).amount
    except (InvalidOperation, ValueError):
        return None
    return float(value) if isinstance(value, Decimal) else None


_SYMBOL = r"(?P<sym>(?<![A-Za-z])E£|[$€£¥₹₩₺₽₨₦₱₴₫₪₵₭₸৳]|[A-Z]{1,3}\$|R\$|(?<![A-Za-z])Rs\.?)"
#: a code is written in capitals: "was 85 dollars" holds no code "was" (the pattern is read ignoring case)
_CODE = r"(?P<code>(?-i:[A-Z]{3}))"


def _scale(name: str) -> str:
    return rf"(?:\s*(?P<{name}>k|K|m|bn|grand|thousand|million|lakhs?|lacs?|crores?)\b)?"


_NAME_AFTER = (
    r"(?P<name>(?:US|Canadian|Australian|Swiss|Japanese|Hong\s+Kong|New\s+Zealand|Singapore|Mexican|Brazilian|Danish|"
    r"Norwegian|Swedish|Indian|Thai|Turkish|Polish|Czech|Hungarian|South\s+African|Egyptian|Chilean|Argentine|Argentinian|"
    r"Colombian|Uruguayan|Philippine|Cuban|Dominican)?\s*"
    r"(?:quid|bucks?|dollars?|euros?|pounds?|yen|francs?|rupees|pesos|reais|kroner|kronor|krona|zloty|baht|won|dirhams?|dhs|"
    r"lira|yuan|rand|forint|koruna|dong|laris?|lei|shekels|ringgit|rupiah|zł(?!\w)|złoty|złotych|zlotys|pence|cents|p|eur|usd|gbp|EUR|USD|GBP|CHF|JPY|CAD|AUD|SEK|NOK|DKK|INR|MXN|BRL|"
    r"PLN|CZK|HUF|THB|KRW|TRY|CNY|ZAR|AED|NZD|SGD|HKD))\b"
)
_AMOUNT = re.compile(
    rf"(?:{_SYMBOL}\s?(?P<n1>{_DIGITS}){_scale('s1')}(?:\s?(?P<code1>(?-i:[A-Z]{{3}}))\b)?"
    rf"|(?<![A-Za-z]){_CODE}\s?(?P<n2>{_DIGITS}){_scale('s2')}"
    rf"|(?P<n3>{_DIGITS})\s?(?P<sym2>[€£¥₹₩₺₽$₦₱₫₪₵원円]|,-)"
    # "54.990 CLP", "250 USD": a code after the number (any ISO code, written in capitals)
    rf"|(?<![\w.,])(?P<n7>{_DIGITS}){_scale('s7')}\s?(?P<code7>(?-i:[A-Z]{{3}}))(?![\w])"
    rf"|(?P<n4>{_DIGITS}|{_WORD_NUMBER}){_scale('s4')}(?:\s*-?\s*(?:odd|ish))?\s*{_NAME_AFTER}(?!\s+of\b)"
    rf"|(?P<n5>{_DIGITS}|{_WORD_NUMBER})\s+(?P<grand>grand)\b"
    rf"|(?P<n6>{_DIGITS}|{_WORD_NUMBER})\s*(?P<lakh>lakhs?|lacs?|crores?)\b)",
    re.I,
)
_SHARE = re.compile(
    r"\s*(?:each|apiece|for\s+(?:my|our|his|her|their|\w+'s)\s+(?:half|share|part|third)|(?:as\s+)?(?:my|(?-i:[A-Z])\w+['’]s)\s+(?:half|share|part))\b",
    re.I,
)


def _scaled(value: float | None, scale: str | None) -> float | None:
    if value is None or not scale:
        return value
    return value * _SCALES.get(scale.lower(), {"m": 1_000_000, "bn": 1_000_000_000}.get(scale.lower(), 1))


#: "a tenner", "two fivers": ten or five of the money where they are said (a pound's where none is known)
_NOTES = re.compile(r"\b(?P<count>a|one|two|three|four|five)\s+(?P<note>tenner|fiver)s?\b", re.I)
#: "4,500/-": a whole amount as South Asia writes it, in rupees (the user's own where they are one of them)
_WHOLE_RUPEES = re.compile(rf"(?<![\w.,])(?P<n>{_DIGITS})/-")


#: "280 lucas", "45 lucas my part": thousands of pesos as the River Plate and Chile say it
_LUCAS = re.compile(r"(?<![\w.,])(?P<n>[1-9]\d{0,3}(?:[.,]\d)?)\s*lucas\b", re.I)
#: the lands whose own money "lucas" counts in thousands (elsewhere, the Argentine peso's)
_LUCAS_LANDS = ("ARS", "CLP", "UYU")


def _notes_and_whole(text: str, local: str | None) -> list[Money]:
    """The amounts of :data:`_NOTES`, :data:`_WHOLE_RUPEES` and :data:`_LUCAS` in ``text``."""
    out = []
    for match in _LUCAS.finditer(text):
        thousands = float(match.group("n").replace(",", "."))
        code = local.upper() if local and local.upper() in _LUCAS_LANDS else "ARS"
        share = _SHARE.match(text, match.end()) is not None
        out.append(Money(thousands * 1000, code, match.start(), match.end(), share))
    for match in _NOTES.finditer(text):
        count = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5}[match.group("count").lower()]
        notes = count * (10 if match.group("note").lower() == "tenner" else 5)
        out.append(Money(float(notes), (local or "GBP").upper(), match.start(), match.end(), False))
    for match in _WHOLE_RUPEES.finditer(text):
        whole = _digits(match.group("n"))
        code = local.upper() if local and local.upper() in _RUPEE_LANDS else "INR"
        if whole and whole >= 10:
            out.append(Money(whole, code, match.start(), match.end(), _SHARE.match(text, match.end()) is not None))
    return out


def find_amounts(text: str, local: str | None = None) -> list[Money]:
    """Every amount of money in ``text``, in order; with ``local`` (the ISO code of the user's
    currency) also the amounts written with its local symbol or name ("R450", "199 kr",
    "4 200 rand": :func:`local_amounts`)."""
    out = _amounts(text)
    if local and local.upper() in _RUPEE_LANDS:
        # "Rs 2,400" in Karachi is in Pakistani rupees, "1.2 lakh" in Dhaka in taka
        out = [
            m if m.currency != "INR" or "₹" in text[m.start : m.end] else replace(m, currency=local.upper())
            for m in out
        ]
    if local:
        # "350 kroner" for a Dane, "Rs 500" in Colombo: the name or symbol is also the user's own money's
        out = [_as_local(m, text, local.upper()) for m in out]
        taken = [(m.start, m.end) for m in out]
        extra = [m for m in local_amounts(text, local) if all(m.end <= a or m.start >= b for a, b in taken)]
        out = sorted(out + extra, key=lambda m: m.start)
    taken = [(m.start, m.end) for m in out]
    more = [m for m in _notes_and_whole(text, local) if all(m.end <= a or m.start >= b for a, b in taken)]
    return sorted(out + more, key=lambda m: m.start) if more else out


def _as_local(money: Money, text: str, local: str) -> Money:
    if money.currency == local or names_us_dollar(text[money.start : money.end]):
        return money
    said = text[money.start : money.end]
    if any(m.start == 0 and m.end == len(said) for m in local_amounts(said, local)):
        return replace(money, currency=local)
    return money


def _amounts(text: str) -> list[Money]:
    out: list[Money] = []
    for match in _AMOUNT.finditer(text):
        g = match.groupdict()
        if g.get("sym") or g.get("n1"):
            rupees = g.get("sym") and g["sym"].rstrip(".").lower() == "rs"
            if not g.get("sym") or (len(g["sym"]) > 1 and not g["sym"].isupper() and g["sym"] != "R$" and not rupees):
                continue
            value = _scaled(_digits(g["n1"]), g.get("s1"))
            currency = "INR" if rupees or g["sym"] == "₨" else currency_code(g["sym"])
            if g.get("code1") and currency_code(g["code1"]) and g["sym"] == "$":
                currency = currency_code(g["code1"])  # "$86 NZD": the code says which dollar
            elif g["sym"] == "$" and (land := _LAND_AFTER.match(text, match.end())) is not None:
                currency = _LAND_DOLLARS[land.group("land").lower()]  # "$260 aussie": the land says which
        elif g.get("code"):
            code = g["code"]
            if not code.isupper():
                continue
            currency = currency_code(code)
            value = _scaled(_digits(g["n2"]), g.get("s2"))
        elif g.get("n7"):
            currency = currency_code(g["code7"])
            value = _scaled(_digits(g["n7"]), g.get("s7"))
        elif g.get("n3"):
            value, currency = _digits(g["n3"]), currency_code(g["sym2"]) if g["sym2"] != ",-" else None
        elif g.get("n4"):
            name = " ".join(g["name"].split())
            if name == "p" and not re.fullmatch(r"\d+", g["n4"]):
                continue
            raw = g["n4"]
            value = _digits(raw) if raw[:1].isdigit() else number_words(raw)
            value = _scaled(value, g.get("s4"))
            currency = currency_code(name) or currency_code(name.split()[-1])
            if value is not None and name.lower().split()[-1] in _SUBUNIT:
                value *= _SUBUNIT[name.lower().split()[-1]]
        elif g.get("n5"):
            raw = g["n5"]
            value = _digits(raw) if raw[:1].isdigit() else number_words(raw)
            value, currency = (value * 1000 if value is not None else None), "USD"
        else:
            raw = g["n6"]
            value = _scaled(_digits(raw) if raw[:1].isdigit() else number_words(raw), g["lakh"])
            currency = "INR"
        if value is None or currency is None or value <= 0:
            continue
        share = _SHARE.match(text, match.end()) is not None
        out.append(Money(round(value, 2), currency, match.start(), match.end(), share))
    return out


#: the dollars a word after "$40" names, as people write them ("$260 aussie", "$40 kiwi", "$68 US")
_LAND_DOLLARS = {"aussie": "AUD", "australian": "AUD", "kiwi": "NZD", "canadian": "CAD", "us": "USD", "sing": "SGD"}
_LAND_AFTER = re.compile(r"\s+(?P<land>(?i:aussie|australian|kiwi|canadian|sing)|US)\b(?!\s+(?:and|to)\b)")
#: "US$40", "40 USD", "US dollars", "American dollars", "$68 US": the US dollar by name, not a bare "$"
_US_DOLLAR = re.compile(r"US\$|\bUSD\b|\b(?:US|U\.S\.|American)\s+dollars?\b|\$\s?\d[\d,.]*\s+US\b")


def names_us_dollar(text: str) -> bool:
    """Whether ``text`` names the US dollar itself ("US$", "USD", "US dollars"), so that a
    USD read from it is not a bare "$" that :func:`local_currency` should place."""
    return _US_DOLLAR.search(text) is not None


@lru_cache(maxsize=64)
def local_currency(configured: str | None = None, country: str | None = None) -> str | None:
    """The currency a bare "$", "dollars" or "bucks" means for this user: ``configured`` (the
    project's ``[user] currency``) if it is a dollar, else the currency of ``country`` (an ISO
    country code: the user's home) if that is a dollar (its symbol holds "$": AUD, CAD, NZD,
    MXN, and SGD or JMD, whose own signs are "S$" and "J$"); None when neither says (the "$"
    stays USD).  A pound or euro user's "$" is USD."""
    from babel.numbers import get_territory_currencies

    symbols = _english_symbols()
    candidates = [configured.upper()] if configured else []
    if country:
        try:
            candidates += get_territory_currencies(country.upper(), tender=True)[:1]
        except (ValueError, LookupError):
            pass
    for code in candidates:
        # "A$", "NZ$"; and the lands whose own sign is "$" where English writes the code ("S$" for SGD, "J$")
        if "$" in symbols.get(code, "") or any("$" in sign for sign in local_symbols(code)):
            return code
        if configured and code == configured.upper():
            return None  # the user's own currency is no dollar: their "$" is the US one
    return None


@lru_cache(maxsize=64)
def home_currency(configured: str | None = None, country: str | None = None) -> str | None:
    """The user's own currency, whatever it is: ``configured`` (the project's ``[user]
    currency``), else the tender of ``country`` (an ISO country code: the user's home) from
    babel's ``get_territory_currencies``; None when neither says."""
    from babel.numbers import get_territory_currencies

    if configured:
        return configured.upper()
    if not country:
        return None
    try:
        found = get_territory_currencies(country.upper(), tender=True)
    except (ValueError, LookupError):
        return None
    return found[0] if found else None


@lru_cache(maxsize=1)
def _english_symbols() -> dict[str, str]:
    from babel import Locale

    return dict(Locale("en").currency_symbols)


#: a letter before a number that labels a thing, not a price: "Room R2", "seat R12", "bus R5"
_LABEL_BEFORE = re.compile(
    r"\b(?:rooms?|row|seat|gate|platform|level|floor|bay|aisle|terminal|route|bus|line|size|model|version|table|"
    r"unit|flat|block|ward|lane|road|exit|junction|track|court|section|zone)\s*$",
    re.I,
)


@lru_cache(maxsize=32)
def local_symbols(code: str) -> tuple[str, ...]:
    """The symbols people write for ``code`` where it is the money of the land, longest first:
    babel's ``get_currency_symbol`` in English and in every locale of the territories that use
    it ("R" for ZAR, "kr" and "kr." for SEK, NOK, DKK, "zł", "₹", "RM", "HK$"), and for a
    dollar its land writes "$" (or "$NA", "$SG") the English way with the country ("N$", "S$").
    The code itself ("CHF", "SEK") is read everywhere already."""
    from babel import Locale
    from babel.core import get_global
    from babel.localedata import locale_identifiers
    from babel.numbers import get_currency_symbol

    code = code.upper()
    territories = [
        territory
        for territory, currencies in get_global("territory_currencies").items()
        if any(entry[0] == code and entry[2] is None for entry in currencies)
    ]
    locales = ["en"] + [
        name for name in locale_identifiers() if any(name.endswith("_" + territory) for territory in territories)
    ]
    symbols: set[str] = set()
    for name in locales:
        try:
            symbols.add(get_currency_symbol(code, locale=Locale.parse(name)).strip())
        except (ValueError, LookupError):
            continue
    for symbol in list(symbols):
        # "$NA", "$\xa0SG": CLDR's French way; "N$", "NA$", "S$", "SG$" are the English ones
        found = re.fullmatch(r"\$\s?([A-Z]{2})", symbol)
        if found:
            symbols.update({found.group(1) + "$", found.group(1)[0] + "$"})
    if "$" in symbols and code[:2].isalpha():
        # a dollar its land writes "$": English tells it by the country ("N$" for NAD, "S$" for SGD)
        symbols.update({code[:2] + "$", code[0] + "$"})
    symbols = {s for s in symbols if s and s not in ("$", code) and not s[-1].isdigit()}
    symbols.update(_LOCAL_SIGNS.get(code, ()))  # "egp" in lower case is a local sign where the code is read already
    return tuple(sorted(symbols, key=lambda s: (-len(s), s)))


#: the signs a land writes for its money that CLDR does not list: "1.250 TL", "2.100tl" (Turkey's lira
#: before the ₺ of 2012, and still on every price tag)
_LOCAL_SIGNS: dict[str, tuple[str, ...]] = {
    "TRY": ("TL", "tl"),
    "VND": ("đ", "VNĐ", "vnđ"),
    # Egypt's pound on price tags and in chat: "LE 300", "300 L.E.", "E£120", "1,200 egp"
    "EGP": ("LE", "L.E.", "L.E", "E£", "egp"),
}
#: the land's own word for a thousand after a number: "44 bin" in Turkey is 44,000 lira
_LOCAL_THOUSANDS: dict[str, tuple[str, ...]] = {"TRY": ("bin",)}
#: the land's own word for a million: "1.2 triệu", "2tr", "14tr5" (14.5 million) in Vietnam
_LOCAL_MILLIONS: dict[str, tuple[str, ...]] = {"VND": ("triệu", "trieu", "tr")}


@lru_cache(maxsize=32)
def local_names(code: str) -> tuple[str, ...]:
    """The words for ``code`` after a number: the last word of babel's English names, one and
    many ("rand"; "krona", "kronor"; "ringgit", "ringgits"); none for a dollar, which is the US
    one unless :func:`local_currency` says otherwise."""
    from babel.numbers import get_currency_name

    words = {get_currency_name(code, count=count, locale="en").split()[-1].lower() for count in (1, 2)}
    words.update(_LOCAL_SLANG.get(code.upper(), ()))
    return tuple(sorted(w for w in words if w.isalpha() and w not in ("dollar", "dollars") and len(w) > 2))


#: what people call their own money where it is the money of the land, beside babel's names: "6,400 bob"
#: in Nairobi (shillings), "45 quid" in Galway (euro: Irish English kept the word); "15 quid" in London is
#: read everywhere already
_LOCAL_SLANG: dict[str, tuple[str, ...]] = {
    "KES": ("bob",),
    "UGX": ("bob",),
    "TZS": ("bob",),
    "EUR": ("quid",),
    "EGP": ("geneh", "gineih", "guineh", "genih"),  # Egyptian Arabic's word for the pound, written in Latin
}


@lru_cache(maxsize=32)
def _local_pattern(code: str) -> re.Pattern[str] | None:
    symbols = [re.escape(s) for s in local_symbols(code)]
    names = [re.escape(n) for n in local_names(code)]
    parts = []
    end = r"(?![\w$€£&'’]|[-‐/]\w|[.,]\d)"
    if symbols:
        symbol = "|".join(symbols)
        parts.append(rf"(?<![\w$&])(?P<sym>{symbol})\s?(?P<n1>{_DIGITS}){_scale('s1')}{end}")
        parts.append(rf"(?<![\w.,'’])(?P<n2>{_DIGITS}){_scale('s2')}(?:,-)?\s?(?P<sym2>{symbol}){end}")
    # "799,-": the whole amount the way the Nordic and German lands write it, in their own money
    parts.append(rf"(?<![\w.,'’])(?P<n4>{_DIGITS}),-(?![\d\w])")
    if names:
        parts.append(
            rf"(?<![\w.,'’])(?P<n3>{_DIGITS}|{_WORD_NUMBER}){_scale('s3')}\s*(?P<name>{'|'.join(names)})\b(?!\s+of\b)"
        )
    thousands = _LOCAL_THOUSANDS.get(code, ())
    if thousands:
        parts.append(
            rf"(?<![\w.,'’])(?P<n5>\d{{1,3}}(?:[.,]\d)?)\s+(?:{'|'.join(thousands)})\b(?!\s+\w+\s+(?:people|kişi))"
        )
    millions = _LOCAL_MILLIONS.get(code, ())
    if millions:
        parts.append(
            rf"(?<![\w.,'’])(?P<n7>\d{{1,4}}(?:[.,]\d{{1,3}})?)\s*(?:{'|'.join(millions)})(?P<tail7>\d{{1,3}})?(?![\w])"
        )
    return re.compile("|".join(parts), re.I)


#: the speaker's share told before its number: "RM1,700, my half 850", "$96, my share was 48"
_SHARE_FIRST = (
    rf"\b(?:my|our|{{me}}['’]s)\s+(?:half|share|part|cut)\s*(?:was\s+|is\s+|came\s+to\s+|=\s*|:\s*)?(?:[^\W\d_]{{1,3}}\$?\s?|[$€£¥₹])?"
    rf"(?P<n>{_DIGITS})(?![\d])"
)


def share_told_first(text: str, speaker: str | None = None) -> float | None:
    """The speaker's share of a price said before its number ("my half 850", "Sam's share was 48"
    where the extractor wrote the speaker's name for "my"), else None."""
    me = re.escape(speaker) if speaker else "(?!)"
    match = re.search(_SHARE_FIRST.replace("{me}", me), text, re.I)
    return _digits(match.group("n")) if match is not None else None


def local_amounts(text: str, code: str) -> list[Money]:
    """The amounts in ``text`` written the local way of the currency ``code``: its symbols
    (:func:`local_symbols`) before or after a number and its names (:func:`local_names`) after
    one.  A symbol that is a letter ("R", "kr", "RM") counts only next to a number and only as
    a price: "R2-D2", "R&B", "Room R2" are none."""
    pattern = _local_pattern(code.upper())
    if pattern is None:
        return []
    out: list[Money] = []
    for match in pattern.finditer(text):
        g = match.groupdict()
        symbol = g.get("sym") or g.get("sym2")
        if symbol and symbol[0].isalpha():
            if symbol not in local_symbols(code.upper()):
                continue  # written as the land writes it: "R450", "kr 199", never "r450"
            if g.get("sym") and _LABEL_BEFORE.search(text[: match.start()]):
                continue
        if g.get("n7"):  # "14tr5": 14.5 million
            whole = float(g["n7"].replace(",", "."))
            tail = g.get("tail7") or ""
            value: float | None = (whole + (int(tail) / 10 ** len(tail) if tail else 0)) * 1_000_000
        else:
            raw = g.get("n1") or g.get("n2") or g.get("n3") or g.get("n4") or g.get("n5") or ""
            scale = g.get("s1") or g.get("s2") or g.get("s3") or ("thousand" if g.get("n5") else None)
            value = _digits(raw.replace(",", ".") if g.get("n5") else raw) if raw[:1].isdigit() else number_words(raw)
            value = _scaled(value, scale)
        if value is None or value <= 0:
            continue
        share = _SHARE.match(text, match.end()) is not None
        out.append(Money(round(value, 2), code.upper(), match.start(), match.end(), share))
    return out
