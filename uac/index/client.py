"""Choosing and building the Chroma client: embedded, or a Chroma server.

Chroma comes with the ``chroma`` extra.  Without it, the embedded backend keeps
each channel's vectors in its flat copy alone (``.uac/index/<channel>.vectors``,
the file every search scans); with it, an embedded Chroma store mirrors them
(``.uac/chroma``), and ``backend = "http"`` serves them from a Chroma server.

``[index] backend`` in ``uac.toml`` (``embedded`` | ``http``) with
``chroma_host``/``chroma_port``; the environment overrides them with
``UAC_INDEX_BACKEND``, ``UAC_CHROMA_HOST`` and ``UAC_CHROMA_PORT`` (so one
project can be pointed at a server without editing its file).

A server that cannot be reached -- at start or in the middle of a run -- is a
:class:`~uac.errors.StoreError` naming the server and saying how to fix it,
never a raw transport exception.  The fact log and the archive are written
before the indexes, so they stay intact; ``uac doctor --repair`` rebuilds
the indexes once the server is back.

All projects of a process that use one Chroma server share one client (and
its one connection pool): :func:`build_client` hands out the same client for
the same address, closing a project's index leaves it open, and
:func:`close_shared_clients` closes them all (a server does at shutdown).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sys
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterator

from .. import heavy
from ..errors import ConfigError, StoreError
from ..fsutil import make_private_dirs

if TYPE_CHECKING:
    from ..config import IndexConfig

BACKENDS = ("embedded", "http")

#: Chroma's registry of shared clients is not safe against concurrent creation
_create_lock = threading.Lock()
#: (host, port) -> the one guarded HttpClient of this process for that server
_shared: dict[tuple[str, int], "_Guarded"] = {}


@dataclass(frozen=True)
class ChromaSettings:
    backend: str = "embedded"
    host: str = "127.0.0.1"
    port: int = 8000

    @property
    def where(self) -> str:
        return f"the Chroma server at {self.host}:{self.port}"


def resolve_settings(config: "IndexConfig | None", env: Mapping[str, str] | None = None) -> ChromaSettings:
    """The index settings of ``uac.toml`` with the environment's overrides applied."""
    env = os.environ if env is None else env
    backend = config.backend if config is not None else "embedded"
    host = config.chroma_host if config is not None else "127.0.0.1"
    port = config.chroma_port if config is not None else 8000
    backend = env.get("UAC_INDEX_BACKEND", "").strip() or backend
    if backend not in BACKENDS:
        raise ConfigError(f"UAC_INDEX_BACKEND must be one of {', '.join(BACKENDS)}; got {backend!r}.")
    host = env.get("UAC_CHROMA_HOST", "").strip() or host
    raw_port = env.get("UAC_CHROMA_PORT", "").strip()
    if raw_port:
        if not raw_port.isdigit() or not 0 < int(raw_port) < 65536:
            raise ConfigError(f"UAC_CHROMA_PORT must be a TCP port number; got {raw_port!r}.")
        port = int(raw_port)
    return ChromaSettings(backend, host, port)


def _unreachable(settings: ChromaSettings, exc: BaseException) -> StoreError:
    return StoreError(
        f"{settings.where} is not reachable ({exc}).",
        hint=(
            f"Start the Chroma server at {settings.host}:{settings.port} (its 'chroma run' command), or point "
            "[index] chroma_host/chroma_port in uac.toml (or UAC_CHROMA_HOST/UAC_CHROMA_PORT) at a running server. "
            "The fact log and the archive are not affected; once the server is back, {do:repair}."
        ),
    )


def _transport_errors() -> tuple[type[BaseException], ...]:
    import httpx

    return (httpx.TransportError, ConnectionError)


def _server_errors() -> tuple[type[BaseException], ...]:
    from chromadb.errors import InternalError

    return (InternalError,)


class _Guarded:
    """Forwards to a Chroma client or collection; transport failures become StoreError."""

    def __init__(self, target: Any, settings: ChromaSettings) -> None:
        self._target = target
        self._settings = settings

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._target, name)
        if not callable(value):
            return value
        return self._wrap(value)

    def _wrap(self, method: Callable[..., Any]) -> Callable[..., Any]:
        settings = self._settings

        def call(*args: Any, **kwargs: Any) -> Any:
            try:
                result = method(*args, **kwargs)
            except _transport_errors() as exc:
                raise _unreachable(settings, exc) from exc
            except _server_errors() as exc:
                raise StoreError(
                    f"{settings.where} failed: {exc}.",
                    hint="See the Chroma server's log; if its data directory was lost or replaced, {do:repair}.",
                ) from exc
            if type(result).__name__ == "Collection" or hasattr(result, "upsert"):
                return _Guarded(result, settings)
            return result

        return call


def chroma_installed() -> bool:
    """Is the chromadb package installed (the ``chroma`` extra)?  Checked without importing it.

    Without it the embedded backend keeps the vectors in uac's own flat copy only
    (which every search reads anyway); a Chroma server needs it."""
    import importlib.util

    try:
        return importlib.util.find_spec("chromadb") is not None
    except (ImportError, ValueError):
        return False


def build_client(settings: ChromaSettings, chroma_path: Path) -> Any:
    """The Chroma client for ``settings`` (embedded clients live at ``chroma_path``).

    A server's client is shared by every caller in the process (see
    :func:`is_shared`); an embedded client belongs to its caller, who closes it."""
    from ..extras import require

    what = "a Chroma server index" if settings.backend == "http" else "the embedded Chroma store"
    if not chroma_installed():
        require("chromadb", "chroma", what=what)  # fails, naming the extra
    heavy.load("chroma")  # never beside another thread's import of numpy or onnxruntime
    import chromadb
    from chromadb.config import Settings

    options = Settings(anonymized_telemetry=False, allow_reset=True)
    with _create_lock:
        if settings.backend == "http":
            key = (settings.host, settings.port)
            shared = _shared.get(key)
            if shared is not None:
                return shared
            try:
                client = chromadb.HttpClient(host=settings.host, port=settings.port, settings=options)
            except (ValueError, OSError, RuntimeError) + _transport_errors() as exc:
                raise _unreachable(settings, exc) from exc
            shared = _shared[key] = _Guarded(client, settings)
            return shared
        try:
            if not Path(chroma_path).exists():
                # checked under the lock: another thread of this process may be opening it now
                _forget_stale_system(Path(chroma_path))
            make_private_dirs(Path(chroma_path))  # Chroma's own files inside keep its modes
            with _store_lock(Path(chroma_path)):
                return chromadb.PersistentClient(path=str(chroma_path), settings=options)
        except (ValueError, OSError, RuntimeError) as exc:
            raise StoreError(
                f"cannot open the vector index at {chroma_path}: {exc}.",
                hint="{do:repair} (from the fact log and the archive).",
            ) from exc


@contextlib.contextmanager
def _store_lock(chroma_path: Path) -> Iterator[None]:
    """Hold an exclusive lock on the store's directory while a client opens it: Chroma
    creates a new store's tables when it opens it, and two processes (two servers, or a
    command beside a server) opening a new store at once fail with "table ... already
    exists".  The lock is ``flock`` on the directory itself: no file is added."""
    fd = os.open(chroma_path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # releases the lock


def forget_stale_system(chroma_path: Path) -> None:
    """Drop the system Chroma cached for the embedded store at ``chroma_path``, e.g.
    before the store's directory is deleted (see :func:`_forget_stale_system`)."""
    with _create_lock:
        _forget_stale_system(Path(chroma_path))


def _forget_stale_system(path: Path) -> None:
    """Chroma caches one system per directory for the whole process; when the
    directory was deleted (e.g. ``.uac/`` removed before a repair) that cached
    system points at files that are gone, so drop it before opening a new one.
    The caller holds ``_create_lock``: a client being built in another thread
    registers its system before starting it, and must not lose it halfway."""
    if "chromadb.api.shared_system_client" not in sys.modules:
        return  # Chroma was never opened in this process: it caches nothing
    heavy.load("chroma")  # never beside another thread's import of numpy or onnxruntime
    from chromadb.api.shared_system_client import SharedSystemClient

    systems = getattr(SharedSystemClient, "_identifier_to_system", None)
    if isinstance(systems, dict):
        stale = systems.pop(str(path), None)
        if stale is not None:
            getattr(SharedSystemClient, "_identifier_to_refcount", {}).pop(str(path), None)
            stale.stop()


def is_shared(client: Any) -> bool:
    """Is ``client`` a process-wide client of a Chroma server (never closed by one project)?"""
    with _create_lock:
        return any(client is shared for shared in _shared.values())


def shared_client_count() -> int:
    """How many Chroma server clients this process holds (one per server address)."""
    with _create_lock:
        return len(_shared)


def close_shared_clients() -> None:
    """Close every shared Chroma server client (the next use opens a new one)."""
    with _create_lock:
        clients = list(_shared.values())
        _shared.clear()
    for client in clients:
        client._target.close()
