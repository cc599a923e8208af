"""Resource limits applied to generated code before and while it is read.

They bound what a hostile or runaway ``schema.py``/``state.py`` can cost the
process that loads it; every limit is checked with a precise message.
"""

from __future__ import annotations

#: largest accepted ``schema.py`` (bytes)
MAX_SCHEMA_BYTES = 512 * 1024
#: largest accepted ``state.py`` (bytes); 100,000 imported records take ~25 MB
MAX_STATE_BYTES = 256 * 1024 * 1024
#: deepest bracket nesting (``([{``) accepted anywhere
MAX_BRACKET_DEPTH = 40
#: deepest syntax tree accepted in ``schema.py`` (checked before libcst sees it)
MAX_TREE_DEPTH = 60
#: most syntax nodes in ``schema.py``
MAX_SCHEMA_NODES = 50_000
#: most syntax nodes evaluated in ``state.py``
MAX_STATE_NODES = 40_000_000
#: longest string literal (characters)
MAX_STR_LEN = 100_000
#: most elements in one list/tuple/set/dict literal
MAX_COLLECTION = 2_000_000
#: largest integer literal (bits)
MAX_INT_BITS = 128
#: most classes in one schema, most fields in one class
MAX_CLASSES = 200
MAX_FIELDS = 300
