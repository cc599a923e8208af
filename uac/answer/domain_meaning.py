"""Finding the domains a question is about by meaning, not only by its words.

"How many things did I buy?" shares no word with a ``finance`` domain of ``Purchase``
records, nor "what am I reading" with ``books``.  Two offline means bridge that gap:

* word families (:data:`FAMILIES`): words of one meaning (buy, bought, purchase, spent,
  paid, cost) meet under one key, on the question's side and the domain's alike;
* the bundled embedding model (the one search uses, :mod:`uac.index.embeddings`): the
  question is compared with each domain's description -- its name, its ``schema.py``
  docstring, its classes' docstrings, class, field and collection names
  (:func:`domain_text`).  A domain's vector depends only on that text, so it is kept per
  text digest, in memory and in ``.uac/answer/domain_vectors.json``: a question against a
  view already seen costs one embedding.

A word that every domain's vocabulary holds (the offline timeline's ``Event`` fields)
tells no domain apart and is not counted (:func:`distinctive`).
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

from ..caches import BoundedCache
from ..fsutil import atomic_write_text, read_json_object

if TYPE_CHECKING:
    import numpy

    from .state_view import DomainView

#: words of one meaning, each line one family (its first word names it); matched after the
#: plural and tense fold of :func:`uac.answer.state_view.words`
FAMILIES = {
    "purchase": """buy bought purchase spend spent pay paid cost price pricey expensive cheap splurge
        splurged expense money shop shopping afford bill receipt""",
    "meal": """eat ate eaten dinner lunch breakfast brunch restaurant cafe café meal food dish supper
        takeaway dine dined""",
    "trip": """travel trip holiday vacation fly flew flight journey destination abroad country
        heading getaway""",
    "job": """work job employer company career occupation office colleague boss hired employ employed
        position role salary workplace""",
    "workout": """run ran running jog jogging gym workout exercise swim swam cycle cycled cycling bike
        km distance training race marathon 5k 10k pb pace""",
    "book": """read reading book novel author wrote reread""",
    "home": """live lived home house flat apartment move moved address residence""",
    "people": """sister brother mum mom dad mother father partner wife husband friend family birthday
        met relation relationship girlfriend boyfriend""",
}

#: a domain is chosen by meaning when its similarity to the question is at least this
#: and within :data:`MARGIN` of the best domain's (cosine of unit vectors)
FLOOR = 0.2
MARGIN = 0.06
#: the points of the best match by meaning (a word in common counts 1, a name hit 2)
MEANING_POINTS = 2.0

_lock = threading.Lock()
#: domain text digest -> its unit vector (a view of 50 domains holds 50; a server of many
#: projects keeps the most recently used)
_vectors: "BoundedCache[str, numpy.ndarray]" = BoundedCache("domain vectors", 4096)


def _family_index() -> dict[str, str]:
    from .state_view import words

    index: dict[str, str] = {}
    for key, members in FAMILIES.items():
        for word in words(members) | words(key):
            index.setdefault(word, "~" + key)
    return index


_FAMILY_OF: dict[str, str] = {}


def with_families(found: set[str]) -> set[str]:
    """``found`` and the family key of each of its words (``~purchase`` for "bought")."""
    if not _FAMILY_OF:
        _FAMILY_OF.update(_family_index())
    return found | {_FAMILY_OF[w] for w in found if w in _FAMILY_OF}


def distinctive(vocabularies: dict[str, set[str]]) -> dict[str, set[str]]:
    """Each vocabulary less the words that every one of them holds (when there are several)."""
    if len(vocabularies) < 2:
        return vocabularies
    common = set.intersection(*vocabularies.values())
    return {name: words - common for name, words in vocabularies.items()}


def domain_text(view: "DomainView", common_classes: Iterable[str] = ()) -> str:
    """What the model reads of a domain: its name, description, its classes (docstring,
    fields) and collections; the classes in ``common_classes`` (held by every domain) left out."""
    import ast

    from .state_view import _COLLECTION

    parts = [view.name.replace("_", " ") + "."]
    try:
        tree = ast.parse(view.schema_text)
    except (SyntaxError, ValueError):
        tree = None
    if tree is not None:
        doc = " ".join((ast.get_docstring(tree) or "").split())
        if doc:
            parts.append(doc)
        skip = set(common_classes)
        for node in tree.body:
            if not isinstance(node, ast.ClassDef) or node.name in skip:
                continue
            fields = [
                s.target.id.replace("_", " ")
                for s in node.body
                if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
                if s.target.id not in ("sources", "notes")
            ]
            said = " ".join((ast.get_docstring(node) or "").split())
            said = "" if said.startswith("One record of ") else said  # what import-records writes
            parts.append(f"{_spaced(node.name)}: {', '.join(fields)}. {said}".strip())
    collections = [c.replace("_", " ") for c in _COLLECTION.findall(view.state_text)]
    if collections:
        parts.append("Records: " + ", ".join(dict.fromkeys(collections)) + ".")
    return " ".join(parts)


def _spaced(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", name)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


def cache_path(root: Path) -> Path:
    """Where a project keeps its domains' vectors (derived: deleted, they are made again)."""
    return root / ".uac" / "answer" / "domain_vectors.json"


def forget_cached() -> None:
    """Drop the vectors kept in memory (the next selection reads them from disk or embeds)."""
    with _lock:
        _vectors.clear()


def _from_disk(root: Path | None, wanted: set[str]) -> None:
    import numpy as np

    if root is None:
        return
    data = read_json_object(cache_path(root))
    stored = data.get("vectors") if data else None
    if not isinstance(stored, dict):
        return
    for digest in wanted & set(stored):
        values = stored[digest]
        if isinstance(values, list) and len(values) > 0:
            _vectors[digest] = np.asarray(values, dtype=np.float32)


def _to_disk(root: Path | None, digests: list[str]) -> None:
    if root is None or not (root / ".uac").is_dir():
        return
    kept = {d: [round(float(x), 6) for x in _vectors[d]] for d in digests if d in _vectors}
    try:
        atomic_write_text(cache_path(root), json.dumps({"vectors": kept}, separators=(",", ":")) + "\n")
    except OSError:
        pass  # a read-only project still answers; the vectors are made again next time


def domain_vectors(texts: list[str], root: Path | None = None) -> "numpy.ndarray":
    """One unit vector per domain text, from memory, from the project's cache or embedded."""
    import numpy as np

    from ..index.embeddings import get_embedder

    digests = [_digest(t) for t in texts]
    with _lock:
        missing = {d for d in digests if d not in _vectors}
        if missing:
            _from_disk(root, missing)
        todo = {d: t for d, t in zip(digests, texts) if d not in _vectors}
    if todo:
        encoded = get_embedder().encode(list(todo.values()))
        with _lock:
            for digest, vector in zip(todo, encoded):
                _vectors[digest] = vector
            _to_disk(root, digests)
    with _lock:
        return np.stack([_vectors[d] for d in digests]) if digests else np.zeros((0, 384), dtype=np.float32)


def meaning_scores(question: str, views: "list[DomainView]", root: Path | None = None) -> dict[str, float]:
    """domain -> points for how close its description is to the question's meaning
    (:data:`MEANING_POINTS` for the closest, less for others within :data:`MARGIN`, none
    below :data:`FLOOR`); empty when the embedding model cannot be loaded."""
    from ..errors import UacError
    from ..index.embeddings import get_embedder

    if not views:
        return {}
    class_sets = [_class_names(v.schema_text) for v in views]
    common = set.intersection(*class_sets) if len(views) > 1 else set()
    texts = [domain_text(v, common) for v in views]
    try:
        vectors = domain_vectors(texts, root)
        asked = get_embedder().encode([question])[0]
    except (UacError, ImportError, OSError):
        return {}
    similarity = [float(x) for x in vectors @ asked]
    best = max(similarity)
    out = {}
    for view, value in zip(views, similarity):
        if value >= FLOOR and value >= best - MARGIN:
            out[view.name] = MEANING_POINTS * (1.0 - (best - value) / (2 * MARGIN))
    return out


def _class_names(schema_text: str) -> set[str]:
    return set(re.findall(r"^class\s+([A-Za-z_][A-Za-z0-9_]*)", schema_text, re.M))


__all__ = ["FAMILIES", "cache_path", "distinctive", "domain_text", "forget_cached", "meaning_scores", "with_families"]
