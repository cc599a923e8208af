"""The one exception tree of uac.

Every error uac raises on purpose is a :class:`UacError`.  Two branches tell the
caller whose move it is:

* :class:`UserError` -- the input, the command line or the project is wrong; the
  message says what to change.  Nothing on disk was modified.
* :class:`RuntimeFailure` -- something outside the caller's input failed (the
  model endpoint, the vector store, a compile, the sandbox); the message says
  what failed and what to try.

The CLI turns any ``UacError`` into one line on stderr and a non-zero exit
(``UAC_DEBUG=1`` re-raises it with the traceback); the HTTP and MCP servers
turn it into their own error shapes (see ``uac/server/errors.py``).

Messages are adapter-neutral: they say what is wrong without naming a command
line flag, an HTTP field or a tool argument.  The hint, which says how to fix
it, may name the input or the operation that fixes it with a marker that each
adapter spells its own way (:class:`Vocabulary`):

* ``{opt:as_of}`` -- an input: ``--as-of`` on the command line, ``"as_of"``
  over HTTP, ``as_of`` for MCP tools and the Python API;
* ``{do:repair}`` -- an operation, as a clause: "rebuild them with 'uac
  doctor PROJECT --repair'" on the command line, the ``/doctor`` route over
  HTTP, and so on (the actions are listed in :data:`ACTIONS`).

``exc.hint`` and ``str(exc)`` use the Python API's words; an adapter calls
``exc.hint_for(vocabulary)``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Mapping

_MARKER = re.compile(r"\{(opt|do):([a-z][a-z0-9_]*)\}")


@dataclass(frozen=True)
class Vocabulary:
    """How one adapter names the inputs (``{opt:...}``) and operations (``{do:...}``) in hints."""

    name: str
    option: Callable[[str], str]
    actions: Mapping[str, str] = field(default_factory=dict)

    def render(self, text: str | None) -> str | None:
        if text is None:
            return None

        def spell(match: re.Match[str]) -> str:
            kind, name = match.group(1), match.group(2)
            if kind == "opt":
                return self.option(name)
            words = self.actions.get(name, name.replace("_", " "))
            before = text[: match.start()].rstrip()
            return words[:1].upper() + words[1:] if not before or before.endswith((".", "!", "?")) else words

        return _MARKER.sub(spell, text)


#: the operations hints may refer to, in the Python API's words
ACTIONS: dict[str, str] = {
    "find_facts": "find fact ids with UserMemory.facts() or UserMemory.search()",
    "find_sessions": "find session ids with UserMemory.sessions()",
    "doctor": "see UserMemory.doctor()",
    "repair": "rebuild the indexes with UserMemory.doctor(repair=True)",
    "init": "create it with UserMemory.create()",
    "list_tokens": "list them with TokenStore.records()",
    "create_token": "create new tokens with TokenStore.create()",
    "probe_model": "see what the endpoint supports with UserMemory.doctor(model=True)",
    "ingest": "add conversations with UserMemory.ingest()",
}

#: the Python API's words: keyword arguments by name
PYTHON = Vocabulary("python", option=lambda name: name, actions=ACTIONS)


class UacError(Exception):
    """Base class of every error uac raises deliberately."""

    #: process exit code used by the CLI for this class of error
    exit_code: int = 1
    #: seconds after which the same call may succeed (a busy or locked
    #: project); servers send it as ``Retry-After``
    retry_after: float | None = None

    def __init__(self, message: str, *, hint: str | None = None, retry_after: float | None = None) -> None:
        self.message = message
        self.hint_template = hint
        self.hint = PYTHON.render(hint)
        if retry_after is not None:
            self.retry_after = retry_after
        super().__init__(message if hint is None else f"{message} {self.hint}")

    def hint_for(self, vocabulary: Vocabulary) -> str | None:
        """The hint in one adapter's words."""
        return vocabulary.render(self.hint_template)


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


class NotFound(UserError):
    """Something the caller named by id (a fact, a session, a domain, a job) does not exist."""


class FactNotFound(NotFound):
    """No fact with the given id in the project's log."""


class SessionNotFound(NotFound):
    """No session with the given id in the project."""


class DomainNotFound(NotFound):
    """The project has no domain of that name."""


class JobNotFound(NotFound):
    """No background job with that id (for this caller)."""


# --- something failed at run time -------------------------------------------


class RuntimeFailure(UacError):
    """Something failed while doing the work; the input itself may be fine."""


class ProjectLocked(RuntimeFailure):
    """Another writer holds the project lock."""


class ServerBusy(RuntimeFailure):
    """A bound on concurrent work (sandbox workers, model calls) is reached; retry later."""


class MigrationError(RuntimeFailure):
    """A migration of persisted data failed; the project was left as it was."""


class ModelError(RuntimeFailure):
    """The language model call failed (network, endpoint, bad response)."""


class ModelNotConfigured(ModelError):
    """A step needs a language model but none is configured."""

    exit_code = 2


class TransientModelError(ModelError):
    """A model failure worth retrying (timeout, connection, rate limit, 5xx).

    ``retry_after`` is what the endpoint asked for (its ``Retry-After``), if anything.
    """


class RateLimitHit(TransientModelError):
    """The endpoint refused one call for its rate limit (HTTP 429): every worker of the
    client waits (one shared backoff), then the call is retried."""


class RateLimited(ModelError):
    """The endpoint kept refusing calls for its rate limit after every retry."""


class InvalidReply(ModelError):
    """The model's reply could not be read as the structured answer asked for.

    ``problems`` lists what is wrong (JSON paths and reasons); the reply was not
    cached, so a retry reaches the model again.
    """

    def __init__(self, message: str, *, problems: "list[str] | None" = None, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.problems = list(problems or [])


class ReplyCutOff(InvalidReply):
    """The reply stopped at the token limit (``finish_reason == "length"``).

    ``finish_reason`` is what the endpoint reported and ``max_tokens`` the limit
    that was sent (``None``: the server's own).  The caller should ask for less
    per call -- split the unit of work and retry -- or raise ``[llm.max_tokens]``.
    """

    def __init__(
        self,
        message: str,
        *,
        finish_reason: str = "length",
        max_tokens: int | None = None,
        purpose: str = "",
        hint: str | None = None,
    ) -> None:
        super().__init__(message, problems=[message], hint=hint)
        self.finish_reason = finish_reason
        self.max_tokens = max_tokens
        self.purpose = purpose


class CapabilityUnsupported(ModelError):
    """The endpoint refused a request feature (``tools``, ``response_format``).

    ``feature`` names it; the endpoint's answer is remembered, so later calls
    go straight to the fallback.
    """

    def __init__(self, message: str, *, feature: str, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.feature = feature


class ContextOverflow(ModelError):
    """The prompt did not fit the model's context window (or was cut to fit it).

    Not retried and never worked around silently: the message names the
    server setting and the uac settings that fix it.
    """


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
