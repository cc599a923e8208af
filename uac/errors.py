"""The one exception tree of uac.

Every error uac raises on purpose is a :class:`UacError`.  Two branches tell the
caller whose move it is:

* :class:`UserError` -- the input, the command line or the project is wrong; the
  message says what to change.  Nothing on disk was modified.
* :class:`RuntimeFailure` -- something outside the caller's input failed (the
  model endpoint, the vector store, a compile, the sandbox); the message says
  what failed and what to try.

The CLI turns any ``UacError`` into one line on stderr and a non-zero exit
(``UAC_DEBUG=1`` re-raises it with the traceback).
"""

from __future__ import annotations


class UacError(Exception):
    """Base class of every error uac raises deliberately."""

    #: process exit code used by the CLI for this class of error
    exit_code: int = 1

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        self.message = message
        self.hint = hint
        super().__init__(message if hint is None else f"{message} {hint}")


# --- the caller's move -------------------------------------------------------


class UserError(UacError):
    """The input, the arguments or the project need a change by the user."""

    exit_code = 2


class ProjectNotFound(UserError):
    """No user project at the given path or name."""


class NotAProject(UserError):
    """The directory exists but is not a uac user project."""


class ConfigError(UserError):
    """``uac.toml`` (or an environment setting) is malformed or invalid."""


class FormatVersionError(UserError):
    """The project was written by a newer uac (or has an unknown format)."""


class ProjectExists(UserError):
    """``init`` was asked to create a project where one already exists."""


class InputError(UserError):
    """A file given to uac (a session, records) cannot be read or parsed."""


class InvalidName(UserError):
    """A project, domain or collection name is not acceptable."""


class AccessDenied(UserError):
    """A server request's credentials do not open the project it names."""


class SessionConflict(UserError):
    """A session id is already in the memory (or the input) with different content."""


class UnsafePath(UserError):
    """A path inside a project leads out of it (a symbolic link) or is not a regular file."""


# --- something failed at run time -------------------------------------------


class RuntimeFailure(UacError):
    """Something failed while doing the work; the input itself may be fine."""


class ProjectLocked(RuntimeFailure):
    """Another writer holds the project lock."""


class MigrationError(RuntimeFailure):
    """A migration of persisted data failed; the project was left as it was."""


class ModelError(RuntimeFailure):
    """The language model call failed (network, endpoint, bad response)."""


class ModelNotConfigured(ModelError):
    """A step needs a language model but none is configured."""

    exit_code = 2


class TransientModelError(ModelError):
    """A model failure worth retrying (timeout, connection, rate limit, 5xx)."""


class ScriptExhausted(ModelError):
    """The scripted provider ran out of canned responses."""


class NetworkBlocked(ModelError):
    """A real network model call was attempted where the network is blocked (tests)."""


class StoreError(RuntimeFailure):
    """The fact log, archive or a search index failed."""


class CompileError(RuntimeFailure):
    """Structuring facts into typed code failed or produced invalid code."""


class SandboxError(RuntimeFailure):
    """The sandbox could not run code (not: the code itself raised)."""


NO_MODEL_HINT = (
    "Configure a model: set UAC_LLM_PROVIDER=openai with UAC_LLM_MODEL and "
    "OPENAI_API_KEY (and UAC_LLM_BASE_URL for vLLM, Ollama or llama.cpp), or put "
    "the same settings under [llm] in the project's uac.toml; for canned "
    "responses use UAC_LLM_PROVIDER=scripted with UAC_LLM_SCRIPT=FILE.jsonl."
)
