"""Fixtures of the analytical benchmark tests: the generated dataset (built
once per test session) and helpers."""

from __future__ import annotations

import pytest

from analytical_bench.cases import Dataset
from analytical_bench.generator import generate


@pytest.fixture(scope="session")
def dataset() -> Dataset:
    return generate()


@pytest.fixture(scope="session")
def paper_cases(dataset):
    return [case for case in dataset.cases if case.suite == "paper"]


@pytest.fixture(scope="session")
def embedder():
    """The bundled sentence embedding model, loaded once for the whole test session."""
    from uac.index.embeddings import get_embedder

    return get_embedder()
