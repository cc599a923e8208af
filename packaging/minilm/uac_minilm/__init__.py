"""The all-MiniLM-L6-v2 model files, as package data (see the README of user-as-code-minilm)."""

from __future__ import annotations

import hashlib
from pathlib import Path

__version__ = "0.1.0"

MODEL_DIR = Path(__file__).resolve().parent / "all-MiniLM-L6-v2"
SUMS = Path(__file__).resolve().parent / "files.sha256"


def model_path() -> Path:
    """The directory of the model files (config.json, model.safetensors, tokenizer.json, ...)."""
    return MODEL_DIR


def expected_sums() -> dict[str, str]:
    """file (relative to :func:`model_path`) -> sha256, as the package was built with."""
    sums = {}
    for line in SUMS.read_text("utf-8").splitlines():
        if line.strip():
            digest, name = line.split(maxsplit=1)
            sums[name.strip()] = digest
    return sums


def verify() -> list[str]:
    """The files that are missing or differ from their recorded sha256 (empty: all good)."""
    problems = []
    for name, digest in expected_sums().items():
        path = MODEL_DIR / name
        try:
            with open(path, "rb") as handle:
                actual = hashlib.file_digest(handle, "sha256").hexdigest()
        except OSError:
            problems.append(f"{name}: missing")
            continue
        if actual != digest:
            problems.append(f"{name}: sha256 {actual[:12]}... differs from {digest[:12]}...")
    return problems
