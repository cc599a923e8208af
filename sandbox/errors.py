"""Exceptions raised on the host side of the sandbox.

Errors *inside* agent code never raise on the host: they come back as a
:class:`~sandbox.result.RunResult` with ``ok=False``.  The exceptions here are
for infrastructure problems the caller has to fix (no Python to start, jail
required but unavailable, invalid arguments).
"""

from __future__ import annotations


class SandboxError(Exception):
    """Base class of every exception the sandbox raises on the host side."""


class SandboxUnavailable(SandboxError):
    """The sandbox cannot run at the required level (worker cannot start, jail missing)."""


class ProtocolError(SandboxError):
    """The worker sent something that is not a valid frame (treated as a crash)."""
