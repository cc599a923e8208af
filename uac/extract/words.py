"""Is a lower-case word an ordinary English word?  Chats typed in lower case name places
the way they write every other word ("back from varadero", "drove back from sudbury"), and
many small towns share their names with words ("can", "wedding", "holiday", "spring").

The English word frequencies come from ``pyspellchecker`` (its English list, counted over
film and television subtitles; loaded lazily, once): a word said at least
:data:`COMMON_COUNT` times there is a word, never a town's name in lower case.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

#: a word counted this often in the English list is a word ("cove" 939, "saga" 1553), below it a
#: name ("douglas" 268, "hamilton" 245, "sudbury" 50, "varadero" 0)
COMMON_COUNT = 500


@lru_cache(maxsize=1)
def _frequencies() -> Any:
    from spellchecker import SpellChecker

    return SpellChecker(language="en", distance=1).word_frequency


def is_common_word(word: str) -> bool:
    """ "holiday", "wedding", "can": True; "sudbury", "varadero": False."""
    return bool(_frequencies()[word.strip().lower()] >= COMMON_COUNT)
