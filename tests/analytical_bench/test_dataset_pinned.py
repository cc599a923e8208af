"""The generated dataset is pinned: the same seed gives the same records,
sentences and facts, byte for byte, on every machine and after every
refactoring of the generator."""

from __future__ import annotations

import hashlib
import json

import pytest

from analytical_bench.generator import generate
from analytical_bench.record_types import RECORD_TYPES

STANDARD_CHECKSUM = "dde147811eee1d958db571fe9c7804381355f9ce785bd9de4755b7c00d34eefc"
STANDARD_RENDERS = "1a6076e644ea5282d6baede30950e61404ab5b86bdde1d1cde813d38772e2789"
EXTENDED_CHECKSUM = "3bc33295bef5dd340490b21da7f9fd8a64a34e6e9ab85e7c85c772430a533cab"
EXTENDED_RENDERS = "2eba07ff1486eb9b658297f631786581e4d33f4c355ff0dceb0f3d1e16317822"


def render_digest(dataset) -> str:
    """sha256 over every record of every case as JSON (key order kept), its
    retrieval sentence and its facts."""
    digest = hashlib.sha256()
    for case in dataset.cases:
        for name, records in case.collections.items():
            record_type = RECORD_TYPES[name]
            for record in records:
                digest.update(json.dumps(record).encode())
                digest.update(record_type.sentence(record).encode())
                digest.update("\n".join(record_type.facts(record)).encode())
    return digest.hexdigest()


def test_standard_dataset_is_pinned(dataset):
    assert dataset.checksum == STANDARD_CHECKSUM
    assert render_digest(dataset) == STANDARD_RENDERS


@pytest.mark.slow
def test_extended_dataset_is_pinned():
    extended = generate(extended=True)
    assert extended.checksum == EXTENDED_CHECKSUM
    assert render_digest(extended) == EXTENDED_RENDERS
