"""A guard that keeps real model calls off the network where they must not happen.

With ``UAC_BLOCK_NETWORK=1`` (the test suite sets it) the OpenAI-compatible
provider only talks to loopback endpoints, so a test can use a local fake
server but never a real service.
"""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from urllib.parse import urlparse

from ..errors import NetworkBlocked

BLOCK_ENV = "UAC_BLOCK_NETWORK"


def network_blocked(env: Mapping[str, str] | None = None) -> bool:
    env = os.environ if env is None else env
    return env.get(BLOCK_ENV, "").strip().lower() in ("1", "true", "yes", "on")


def is_loopback_url(url: str) -> bool:
    host = urlparse(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_endpoint(url: str) -> None:
    """Raise :class:`NetworkBlocked` if ``url`` may not be called right now."""
    if network_blocked() and not is_loopback_url(url):
        raise NetworkBlocked(
            f"real model call to {url} blocked ({BLOCK_ENV}=1).",
            hint="Use the scripted provider in tests, or a fake server on 127.0.0.1.",
        )
