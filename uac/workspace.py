"""Where user projects live: the one function that turns ``PROJECT`` into a path.

``PROJECT`` on the command line (and in :meth:`uac.UserMemory.open`) is either a
path to a project directory or a bare name resolved under the workspace:
``$UAC_HOME`` if set, else ``./user_projects`` relative to the current
directory.  Nothing here touches the disk beyond reading the environment.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from .errors import InvalidName
from .names import PROJECT_NAME

DEFAULT_HOME = "user_projects"
HOME_ENV = "UAC_HOME"


def workspace_home(env: Mapping[str, str] | None = None) -> Path:
    """The directory bare project names resolve under."""
    env = os.environ if env is None else env
    value = env.get(HOME_ENV, "").strip()
    return Path(value).expanduser() if value else Path(DEFAULT_HOME)


def validate_project_name(name: str) -> str:
    """Check a bare project name (letters, digits, ``.``, ``_``, ``-``; no traversal)."""
    return PROJECT_NAME.check(name)


def looks_like_path(spec: str) -> bool:
    """True if ``spec`` should be taken as a path rather than a bare name."""
    return os.sep in spec or (os.altsep is not None and os.altsep in spec) or spec.startswith(("~", "."))


def resolve_project(spec: str | os.PathLike[str], env: Mapping[str, str] | None = None) -> Path:
    """Resolve ``PROJECT`` to a directory path (which may not exist yet).

    A :class:`~pathlib.Path`, or a string that contains a path separator or
    starts with ``.``/``~``, is a path.  Anything else is a bare name under
    :func:`workspace_home`.
    """
    if isinstance(spec, Path):
        return spec.expanduser()
    text = os.fspath(spec)
    if not text.strip():
        raise InvalidName("empty project name.", hint="Give a project path or name.")
    if looks_like_path(text):
        return Path(text).expanduser()
    return workspace_home(env) / validate_project_name(text)
