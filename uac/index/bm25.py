"""BM25 over a channel's corpus, kept on disk so a search loads it in milliseconds.

The scoring is BM25 as Lucene computes it (``k1 = 1.5``, ``b = 0.75``):
``idf = ln(1 + (N - df + 0.5) / (df + 0.5))`` and a term's score in a document
is ``idf * tf / (tf + k1 * (1 - b + b * len / avg_len))``.  Scores are computed
once per (term, document) and stored by term (a CSC matrix), so a query only
reads the columns of its own terms and adds them up in float32, term by term
in query order -- the same numbers, bit for bit, as the ``bm25s`` library
computes with its defaults, without importing it or scipy.

The index is saved as ``.uac/index/<channel>.bm25.pack`` (a packed array
file, :mod:`uac.packed`, format 2: opening it reads the arrays a query needs and
parses nothing but the vocabulary) together with the identity of the corpus file it was built
from and the version of the tokenizer it was built with
(:data:`~uac.index.tokens.STEMMER_VERSION`).  An index built with another
tokenizer, or saved by an earlier version as ``<channel>.bm25.npz``, is built
again from the corpus: only BM25, the vectors stay.  A search whose corpus changed
since rebuilds it (appends only tokenize the new documents: the token ids of
every document are kept) and saves it again, atomically.  Like everything in
``.uac/`` it is derived data: deleting it costs one rebuild.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from ..packed import read_pack, text_array, write_pack
from .tokens import STEMMER_VERSION, tokenize

if TYPE_CHECKING:
    import numpy

K1 = 1.5
B = 0.75
#: bump when the stored layout or the scoring changes (1: the ``.npz`` file; 2: packed)
FORMAT = 2
KIND = "uac-bm25"
#: the token of a document without any (as uac has always indexed it)
EMPTY = "_"


class BM25:
    """An immutable BM25 index of ``size`` documents, in corpus order."""

    def __init__(
        self,
        vocab: list[str],
        doc_tokens: "numpy.ndarray | None",
        doc_offsets: "numpy.ndarray",
        *,
        stamp: tuple[int, ...] = (-1, 0, 0),
        saved_at: Path | None = None,
    ) -> None:
        import numpy as np

        self.vocab = vocab
        self._column: dict[str, int] | None = None
        self._doc_tokens = None if doc_tokens is None else np.asarray(doc_tokens, dtype=np.int32)
        self.doc_offsets = np.asarray(doc_offsets, dtype=np.int64)
        self.size = len(self.doc_offsets) - 1
        self.stamp = stamp
        #: the file the token ids can be read from when they were not loaded
        self._saved_at = saved_at
        self._matrix: tuple["numpy.ndarray", "numpy.ndarray", "numpy.ndarray"] | None = None

    @property
    def column(self) -> dict[str, int]:
        """Term -> its column (built on first use)."""
        if self._column is None:
            self._column = {term: number for number, term in enumerate(self.vocab)}
        return self._column

    @property
    def doc_tokens(self) -> "numpy.ndarray":
        """Token ids of every document, concatenated (read from disk on first use)."""
        import numpy as np

        if self._doc_tokens is None:
            assert self._saved_at is not None
            pack = read_pack(self._saved_at, KIND, FORMAT)
            tokens = None if pack is None else pack["doc_tokens"]
            if tokens is None or len(tokens) != int(self.doc_offsets[-1]):
                raise OSError(f"the token ids of {self._saved_at} are gone or changed")
            self._doc_tokens = np.asarray(tokens, dtype=np.int32)
        return self._doc_tokens

    # -- building -------------------------------------------------------------------------

    @classmethod
    def build(cls, texts: Sequence[str], *, stamp: tuple[int, ...] = (-1, 0, 0)) -> "BM25":
        return cls.empty().extended(texts, stamp=stamp)

    @classmethod
    def empty(cls) -> "BM25":
        import numpy as np

        return cls([], np.zeros(0, dtype=np.int32), np.zeros(1, dtype=np.int64))

    def extended(self, texts: Sequence[str], *, stamp: tuple[int, ...]) -> "BM25":
        """This index plus ``texts`` appended as new documents (only they are tokenized)."""
        import numpy as np

        vocab = list(self.vocab)
        column = dict(self.column)
        ids: list[int] = []
        lengths: list[int] = []
        for text in texts:
            tokens = tokenize(text) or [EMPTY]
            for token in tokens:
                number = column.get(token)
                if number is None:
                    number = column[token] = len(vocab)
                    vocab.append(token)
                ids.append(number)
            lengths.append(len(tokens))
        doc_tokens = np.concatenate([self.doc_tokens, np.asarray(ids, dtype=np.int32)])
        offsets = np.concatenate([self.doc_offsets, self.doc_offsets[-1] + np.cumsum(lengths, dtype=np.int64)])
        return BM25(vocab, doc_tokens, offsets, stamp=stamp)

    def _scores_matrix(self) -> tuple["numpy.ndarray", "numpy.ndarray", "numpy.ndarray"]:
        """(indptr, document indices, scores) by term: the eager score matrix."""
        import numpy as np

        if self._matrix is not None:
            return self._matrix
        n_docs, n_terms = self.size, len(self.vocab)
        lengths = np.diff(self.doc_offsets)
        docs = np.repeat(np.arange(n_docs, dtype=np.int64), lengths)
        # (doc, term) pairs with their counts, ordered by doc then term
        keys, tf = np.unique(docs * max(n_terms, 1) + self.doc_tokens, return_counts=True)
        pair_docs = keys // max(n_terms, 1)
        pair_terms = keys % max(n_terms, 1)
        df = np.bincount(pair_terms, minlength=n_terms)
        idf = np.array(
            [math.log(1 + (n_docs - d + 0.5) / (d + 0.5)) if d else 0.0 for d in df.tolist()], dtype=np.float32
        )
        avg = lengths.mean() if n_docs else np.float64(1.0)
        tf32 = tf.astype(np.float32)
        norm = K1 * ((1 - B) + B * lengths[pair_docs] / avg)
        scores = (idf[pair_terms] * (tf32 / (norm + tf32))).astype(np.float32)
        order = np.argsort(pair_terms, kind="stable")  # by term, documents ascending within a term
        indptr = np.zeros(n_terms + 1, dtype=np.int64)
        np.cumsum(df, out=indptr[1:])
        self._matrix = (indptr, pair_docs[order].astype(np.int32), scores[order])
        return self._matrix

    # -- querying -------------------------------------------------------------------------

    def scores(self, tokens: list[str], weighted: "dict[str, float] | None" = None) -> "numpy.ndarray | None":
        """Score of every document for ``tokens`` (a repeated token counts again) plus
        ``weighted`` terms, each counting its weight times, or None when no term of
        the query is in the corpus."""
        import numpy as np

        known = [(self.column[t], 1.0) for t in tokens if t in self.column]
        known += [(self.column[t], w) for t, w in (weighted or {}).items() if t in self.column]
        if not known or not self.size:
            return None
        indptr, docs, values = self._scores_matrix()
        out = np.zeros(self.size, dtype=np.float32)
        for term, weight in known:
            start, end = indptr[term], indptr[term + 1]
            out[docs[start:end]] += values[start:end] if weight == 1.0 else weight * values[start:end]
        return out

    def document_frequency(self, term: str) -> int:
        """How many documents hold ``term`` (0: none, or not in the vocabulary)."""
        column = self.column.get(term)
        if column is None:
            return 0
        indptr = self._scores_matrix()[0]
        return int(indptr[column + 1] - indptr[column])

    # -- on disk --------------------------------------------------------------------------

    def save(self, path: Path) -> None:
        indptr, docs, values = self._scores_matrix()
        write_pack(
            path,
            KIND,
            FORMAT,
            {
                "vocab": text_array(self.vocab),
                "doc_tokens": self.doc_tokens,
                "doc_offsets": self.doc_offsets,
                "indptr": indptr,
                "docs": docs,
                "values": values,
            },
            {"stamp": list(self.stamp), "stemmer": STEMMER_VERSION},
        )

    @classmethod
    def load(cls, path: Path) -> "BM25 | None":
        """The saved index, or None if there is none, it is unreadable, of another
        format, or built with another tokenizer (its words would not meet a query's).
        The documents' token ids stay on disk until an extension needs them."""
        pack = read_pack(path, KIND, FORMAT, skip=("doc_tokens",))  # a search does not need them
        if pack is None or pack.meta.get("stemmer", 1) != STEMMER_VERSION:
            return None
        try:
            index = cls(
                json.loads(pack.text("vocab")),
                None,
                pack["doc_offsets"],
                stamp=tuple(int(x) for x in pack.meta["stamp"]),
                saved_at=Path(path),
            )
        except (ValueError, KeyError, TypeError):
            return None
        index._matrix = (pack["indptr"], pack["docs"], pack["values"])
        return index
