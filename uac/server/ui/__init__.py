"""The web inspector served at ``/ui`` by ``uac serve http``: see ``docs/inspector.md``.

Server-rendered pages over :class:`~uac.UserMemory` (no scripts; a strict
Content-Security-Policy), signed in with the same project tokens as the API.
"""

from __future__ import annotations
