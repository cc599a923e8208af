"""Fixtures of the model zoo: the fixture conversation and one run per profile (shared per module)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conversation import write_conversation
from .profiles import PROFILES
from .run import ZooRun, run_profile


@pytest.fixture(scope="session")
def zoo_conversation(tmp_path_factory) -> Path:
    return write_conversation(tmp_path_factory.mktemp("zoo") / "conversation.json")


@pytest.fixture(scope="session")
def zoo_runs(tmp_path_factory, zoo_conversation):
    """``runs(name)``: the run of one profile, made on first use and kept for the session."""
    done: dict[str, ZooRun] = {}
    workdir = tmp_path_factory.mktemp("zoo-runs")

    def runs(name: str) -> ZooRun:
        if name not in done:
            done[name] = run_profile(PROFILES[name], zoo_conversation, workdir)
        return done[name]

    return runs
