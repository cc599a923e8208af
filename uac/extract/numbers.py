"""Number words: the one table the rules read counts, amounts and durations from.

``CARDINALS`` holds the cardinal words up to ninety (with "a" and "an" as one), in
counting order; a reader adds its own words to it ("couple", "few", "zero") rather
than writing the table again.  Readers build regular expressions from their tables'
keys in this order, so the order is part of the contract.
"""

from __future__ import annotations

_ONES = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine")
_TEENS = ("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen")
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")

#: "a"/"an" and the cardinal words one to twenty, then the tens to ninety, in counting order
CARDINALS: dict[str, int] = {
    "a": 1,
    "an": 1,
    **{word: number for number, word in enumerate(_ONES + _TEENS, 1)},
    **{word: 10 * number for number, word in enumerate(_TENS, 2)},
}


def cardinals_up_to(most: int) -> dict[str, int]:
    """The words of :data:`CARDINALS` whose value is at most ``most``, in the same order."""
    return {word: number for word, number in CARDINALS.items() if number <= most}
