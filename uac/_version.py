from __future__ import annotations

__version__ = "0.1.0"

#: the oldest Python uac runs on (``requires-python`` in pyproject.toml says the same)
REQUIRES_PYTHON = (3, 11)


def python_problem(version_info: tuple = ()) -> str | None:
    """Why this Python cannot run uac, in one line, or None when it can."""
    import sys

    version = tuple(version_info or sys.version_info)[:3]
    if version[:2] >= REQUIRES_PYTHON:
        return None
    have = ".".join(str(part) for part in version)
    need = ".".join(str(part) for part in REQUIRES_PYTHON)
    return (
        f"uac needs Python {need} or newer; this is Python {have}. "
        f"Create the virtualenv with a newer Python (python{need} -m venv .venv) and install user-as-code there."
    )
