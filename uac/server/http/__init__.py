"""The HTTP API (FastAPI): ``create_app(root)``; run it with ``uac serve http``."""

from .app import create_app

__all__ = ["create_app"]
