"""The four memory tools, framework-free: one project, checked arguments, bounded output.

:class:`MemoryTools` is bound to one user project (a path, or a name under a root
directory) when it is made; none of its tools takes a project or a path, so the model
that calls them cannot reach another project.  Each tool is a :class:`ToolSpec` -- a
name, a description and the JSON schema of its arguments -- and :meth:`MemoryTools.call`
runs one from the arguments a model sent (a dict or its JSON text):

* ``search_memory(query, k, channel, as_of, happened)``: hybrid search, hits shaped like
  ``uac search --json`` with each text cut to :data:`HIT_CHARS`;
* ``run_python(code, as_of, include_facts)``: the sandbox over the typed state,
  ``{ok, result, stdout, error}``;
* ``ask_memory(question, as_of)``: the answer (with a model) or the ranked evidence;
* ``remember(note | messages, date)``: a note or a conversation, added as a session.

Whatever a tool returns is a JSON object of at most ``output_chars`` characters: the
project's ``[answer] tool_output_chars`` (8,000 unless set), the cap ``ask`` puts on
what its reader's sandbox tool sends back.  A search returns at most ``[answer]
top_facts`` hits.

Every failure is a :class:`ToolError`: bad arguments (wrong types, unknown fields, a
bad date), a uac error (``code: message hint``, with the codes of the HTTP API and the
hint in the tools' words) or code that failed in the sandbox (the run's capped JSON).
``retry`` says whether the model can fix it by calling again with other arguments.
A tool that fails writes nothing.

The calls of one :class:`MemoryTools` run one at a time, each in a worker thread
(:meth:`call`) or in the caller's thread (:meth:`call_sync`), so an event loop is never
blocked and the project's indexes are never used by two threads at once.
"""

from __future__ import annotations

import asyncio
import datetime as _dt
import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypedDict
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..config import CONFIG_NAME, AnswerConfig, load_config
from ..errors import InputError, InvalidName, NotFound, UacError
from ..memory import UserMemory
from ..server.errors import code_for, scrub, tool_vocabulary
from ..workspace import validate_project_name

if TYPE_CHECKING:
    from ..llm import LLMClient

#: characters of each hit's text a search returns
HIT_CHARS = 600
#: characters of the manifest the instructions quote
MANIFEST_CHARS = 2_000
#: the smallest output cap (what ``--tool-output-chars`` allows)
MIN_OUTPUT_CHARS = 500

TOOL_NAMES = ("search_memory", "run_python", "ask_memory", "remember")

#: how hints name arguments and operations for these tools
TOOLS_VOCABULARY = tool_vocabulary(
    "tools",
    {
        "doctor": "the application that runs this agent can check the project with UserMemory.doctor()",
        "repair": "the application that runs this agent can rebuild the indexes with UserMemory.doctor(repair=True)",
        "init": "the application that runs this agent creates projects",
        "list_tokens": "the application that runs this agent manages tokens",
        "create_token": "the application that runs this agent manages tokens",
        "probe_model": "the application that runs this agent configures the model",
        "ingest": "add conversations with the remember tool",
    },
)

INSTRUCTIONS = """\
You have a long-term memory of the user, compiled by uac. search_memory finds facts and \
conversation excerpts; run_python computes exact counts, sums and lists over the user's typed \
state in a sandbox (every collection is a global, e.g. `trips`; assign the answer to `result`); \
ask_memory answers a question from all of it; remember stores a note or a conversation worth \
keeping. Prefer run_python for "how many", "how much" and "which" questions over the typed state."""


class ToolError(Exception):
    """A tool call that failed; ``text`` is what the model reads."""

    def __init__(self, text: str, *, code: str, retry: bool) -> None:
        super().__init__(text)
        self.text = text
        self.code = code
        #: the model can fix it by calling again with other arguments
        self.retry = retry


# -- arguments -----------------------------------------------------------------------------


class _Arguments(BaseModel):
    model_config = ConfigDict(extra="forbid")


_AS_OF = Field(None, description="Only what was known on this day (YYYY-MM-DD).", max_length=40)


class SearchArguments(_Arguments):
    query: str = Field(description="What to look for, in plain words.", min_length=1, max_length=2_000)
    k: int = Field(
        10, description="How many hits to return (capped at the memory's limit, 20 by default).", ge=1, le=100
    )
    channel: Literal["facts", "archive", "records", "all"] = Field(
        "all", description="facts, conversation excerpts (archive), imported records, or all of them."
    )
    as_of: str | None = _AS_OF
    happened: str | None = Field(
        None, description="Only facts whose event falls in this period (2023-05, 2022, START/END).", max_length=40
    )


class RunPythonArguments(_Arguments):
    code: str = Field(description="Python code; assign the answer to `result`.", min_length=1, max_length=50_000)
    as_of: str | None = _AS_OF
    include_facts: bool = Field(False, description="Also define `facts`, the list of individual facts.")


class AskArguments(_Arguments):
    question: str = Field(description="The question about the user.", min_length=1, max_length=2_000)
    as_of: str | None = Field(None, description="Answer as of this day (YYYY-MM-DD).", max_length=40)


class ChatMessage(_Arguments):
    role: Literal["user", "assistant"]
    content: str = Field(min_length=1, max_length=100_000)


class RememberArguments(_Arguments):
    note: str | None = Field(
        None, description="Something about the user worth keeping, as one or a few sentences.", max_length=20_000
    )
    messages: list[ChatMessage] | None = Field(
        None, description="A conversation to keep, instead of a note.", min_length=1, max_length=500
    )
    date: str | None = Field(None, description="The day it was said (YYYY-MM-DD); default today.", max_length=40)


@dataclass(frozen=True)
class ToolSpec:
    """One tool as a framework declares it."""

    name: str
    description: str
    arguments: type[_Arguments]
    #: the tool only reads the project
    read_only: bool = True

    @property
    def json_schema(self) -> dict[str, Any]:
        """The JSON schema of the arguments (``additionalProperties`` false)."""
        schema = self.arguments.model_json_schema()
        schema.pop("title", None)
        return schema


def _run_python_description(output_chars: int) -> str:
    from sandbox.tool import describe_python_tool

    return describe_python_tool(None, output_chars=output_chars) + " Returns {ok, result, stdout, error}."


def tool_specs(output_chars: int = AnswerConfig().tool_output_chars) -> tuple[ToolSpec, ...]:
    """The four tools; ``output_chars`` is what their descriptions say comes back at most."""
    return (
        ToolSpec(
            "search_memory",
            "Hybrid search (dense + BM25) over the user's facts, conversation excerpts and imported records; "
            "best first. Each hit has id, channel, text, score, session_id, session_date and evidence (turn ids).",
            SearchArguments,
        ),
        ToolSpec("run_python", _run_python_description(output_chars), RunPythonArguments),
        ToolSpec(
            "ask_memory",
            "Answer a question about the user from the typed state, the facts and the conversations. "
            "Without a model of its own, returns the ranked evidence instead of an answer.",
            AskArguments,
        ),
        ToolSpec(
            "remember",
            "Store something about the user for later: a `note` (one or a few sentences), or `messages`, a "
            "conversation as [{role: user|assistant, content}]. Give exactly one of them.",
            RememberArguments,
            read_only=False,
        ),
    )


def _validation_text(tool: str, error: ValidationError) -> str:
    problems = []
    for item in error.errors(include_url=False, include_input=False)[:8]:
        where = ".".join(str(part) for part in item.get("loc", ())) or "arguments"
        problems.append(f"{where}: {item.get('msg', 'invalid')}")
    return f"input_error: invalid arguments for {tool}: " + "; ".join(problems) + "."


def error_text(exc: UacError, root: Path | None = None) -> str:
    """``code: message hint`` in the tools' words, without the directory the projects live in."""
    hint = scrub(exc.hint_for(TOOLS_VOCABULARY), root)
    return f"{code_for(exc)}: {scrub(exc.message, root)}" + (f" {hint}" if hint else "")


def _fits(data: dict[str, Any], limit: int) -> bool:
    return len(json.dumps(data, ensure_ascii=False)) <= limit


def _bounded_list(data: dict[str, Any], key: str, limit: int) -> dict[str, Any]:
    """``data`` with items dropped from the end of ``data[key]`` until its JSON fits ``limit``."""
    items = data[key]
    kept = len(items)
    while kept and not _fits({**data, key: items[:kept], "cut": {key: len(items) - kept}}, limit):
        kept -= 1
    if kept == len(items):
        return data
    return {**data, key: items[:kept], "cut": {key: len(items) - kept}}


def _trimmed(text: str, limit: int = HIT_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 3].rstrip() + "..."


# -- the tools over one project ----------------------------------------------------------------


def resolve(project: str | Path, root: str | Path | None) -> Path:
    """The directory of ``project``: a name under ``root``, or (without a root) a path or a
    name under ``$UAC_HOME``, as :meth:`UserMemory.open` resolves it."""
    if root is not None:
        if not isinstance(project, str):
            raise InvalidName("with a root, the project is a name, not a path.", hint="Give the project's name.")
        return Path(root) / validate_project_name(project)
    from ..workspace import resolve_project

    return resolve_project(project)


class MemoryTools:
    """The four tools over one user project (see the module docstring).

    ``project`` is an open :class:`~uac.UserMemory`, a path, or a name (under ``root`` if
    given, else under ``$UAC_HOME``).  The project is opened on the first call; one that
    does not exist is that call's :class:`ToolError`, unless ``create`` makes it (with
    ``user_name`` and ``timezone``).  ``llm`` is the model ``ask_memory`` uses (default: the
    project's configured one); ``output_chars`` overrides the project's output cap.
    """

    def __init__(
        self,
        project: "UserMemory | str | Path",
        *,
        root: str | Path | None = None,
        create: bool = False,
        user_name: str | None = None,
        timezone: str = "UTC",
        llm: LLMClient | None = None,
        output_chars: int | None = None,
    ) -> None:
        if output_chars is not None and (
            isinstance(output_chars, bool) or not isinstance(output_chars, int) or output_chars < MIN_OUTPUT_CHARS
        ):
            raise InputError(
                f"output_chars must be a whole number of at least {MIN_OUTPUT_CHARS}, not {output_chars!r}."
            )
        self._memory = project if isinstance(project, UserMemory) else None
        #: the project as named (a name or a path) when no open one was given
        self._spec: str | Path = "" if isinstance(project, UserMemory) else project
        self._root = None if root is None else Path(root)
        self._create = create
        self._user_name = user_name
        self._timezone = timezone
        self._llm = llm
        self._output_chars = output_chars
        self._turn = threading.Lock()
        self._specs = {spec.name: spec for spec in tool_specs(self._described_chars())}

    def __repr__(self) -> str:
        target = self._memory.root if self._memory is not None else self._spec
        return f"MemoryTools({str(target)!r})"

    @property
    def specs(self) -> tuple[ToolSpec, ...]:
        return tuple(self._specs.values())

    # -- the project -----------------------------------------------------------------------

    def _scrub_root(self) -> Path | None:
        """The directory whose path is cut out of messages: the root, or the project's parent."""
        if self._root is not None:
            return self._root
        if self._memory is not None:
            return self._memory.root.parent
        try:
            return resolve(self._spec, None).parent
        except UacError:
            return None

    def memory(self) -> UserMemory:
        """The open project (opened, or created with ``create``, on first use); raises
        :class:`~uac.UacError` (e.g. :class:`~uac.ProjectNotFound`)."""
        if self._memory is None:
            path = resolve(self._spec, self._root)
            if self._create:
                self._memory = UserMemory.open_or_create(
                    path, user_name=self._user_name, timezone=self._timezone, llm=self._llm
                )
            else:
                self._memory = UserMemory.open(path, llm=self._llm)
        return self._memory

    def _tool_memory(self) -> UserMemory:
        """:meth:`memory` for a tool call: a project that cannot be opened is a :class:`ToolError`."""
        try:
            return self.memory()
        except UacError as exc:
            raise ToolError(error_text(exc, self._scrub_root()), code=code_for(exc), retry=False) from exc

    def output_chars(self) -> int:
        return self._output_chars or self.memory().project.config.answer.tool_output_chars

    def _described_chars(self) -> int:
        """The cap the tool descriptions state: the override, else the project's own
        (read from its ``uac.toml`` without opening it), else the default."""
        if self._output_chars is not None:
            return self._output_chars
        if self._memory is not None:
            return self._memory.project.config.answer.tool_output_chars
        try:
            return load_config(resolve(self._spec, self._root) / CONFIG_NAME).answer.tool_output_chars
        except (UacError, OSError):
            return AnswerConfig().tool_output_chars  # not there yet (``create``) or unreadable: the first call says so

    def close(self) -> None:
        """Release the project's index files (reopened on the next call)."""
        with self._turn:
            if self._memory is not None:
                self._memory.close()

    # -- calls --------------------------------------------------------------------------------

    def call_sync(self, name: str, arguments: "dict[str, Any] | str | None") -> dict[str, Any]:
        """Run tool ``name`` with the model's ``arguments``; raises :class:`ToolError`."""
        spec = self._specs.get(name)
        if spec is None:
            raise ToolError(
                f"input_error: no tool {name!r}; the tools are {', '.join(TOOL_NAMES)}.", code="input_error", retry=True
            )
        try:
            if isinstance(arguments, str):
                parsed = spec.arguments.model_validate_json(arguments or "{}")
            else:
                parsed = spec.arguments.model_validate(arguments or {})
        except ValidationError as exc:
            raise ToolError(_validation_text(name, exc), code="input_error", retry=True) from None
        with self._turn:
            memory = self._tool_memory()
            try:
                return getattr(self, "_" + name)(memory, parsed)
            except UacError as exc:
                retry = isinstance(exc, (InputError, InvalidName, NotFound))
                raise ToolError(error_text(exc, self._scrub_root()), code=code_for(exc), retry=retry) from exc

    async def call(self, name: str, arguments: "dict[str, Any] | str | None") -> dict[str, Any]:
        """:meth:`call_sync` in a worker thread, so the event loop carries on meanwhile."""
        return await asyncio.to_thread(self.call_sync, name, arguments)

    def instructions_sync(self) -> str:
        """What the tools are for, and the project's manifest (its domains), for a system prompt."""
        with self._turn:
            manifest = (self._tool_memory().project.read_text("MANIFEST.md") or "").strip()
        if not manifest:
            return INSTRUCTIONS
        return f"{INSTRUCTIONS}\n\nThe user's typed state (MANIFEST.md):\n{_trimmed(manifest, MANIFEST_CHARS)}"

    async def instructions(self) -> str:
        return await asyncio.to_thread(self.instructions_sync)

    def remember_conversation_sync(
        self,
        messages: "list[dict[str, Any]]",
        *,
        conversation_id: str | None = None,
        date: "_dt.date | str | None" = None,
    ) -> dict[str, Any]:
        """Keep a conversation's user and assistant messages (what the application feeds when a
        conversation ends; see :mod:`._conversation`).  Raises :class:`~uac.UacError`."""
        from ._conversation import remember_conversation

        with self._turn:
            memory = self.memory()
            return remember_conversation(
                memory, messages, conversation_id=conversation_id, date=date or self._today(memory)
            )

    async def remember_conversation(
        self,
        messages: "list[dict[str, Any]]",
        *,
        conversation_id: str | None = None,
        date: "_dt.date | str | None" = None,
    ) -> dict[str, Any]:
        return await asyncio.to_thread(
            lambda: self.remember_conversation_sync(messages, conversation_id=conversation_id, date=date)
        )

    # -- the four tools -----------------------------------------------------------------------

    def _search_memory(self, memory: UserMemory, args: SearchArguments) -> dict[str, Any]:
        k = min(args.k, memory.project.config.answer.top_facts)
        hits = memory.search(args.query, k=k, channel=args.channel, as_of=args.as_of, happened=args.happened)
        results = []
        for hit in hits:
            data = hit.to_json()
            data["text"] = _trimmed(data["text"])
            results.append(data)
        return _bounded_list({"results": results}, "results", self.output_chars())

    def _run_python(self, memory: UserMemory, args: RunPythonArguments) -> dict[str, Any]:
        from sandbox.tool import cap_output

        run = memory.run(args.code, as_of=args.as_of, include_facts=args.include_facts).to_json()
        lag = memory.view_lag()
        view = {"view": lag.to_json()} if lag.lags else {}  # facts the state does not hold yet
        text = cap_output(run, self.output_chars() - (len(json.dumps(view)) + 2 if view else 0))
        if not run["ok"]:  # the code raised, was refused by the sandbox, or hit a limit
            raise ToolError(text, code="code_error", retry=True)
        return {**json.loads(text), **view}

    def _ask_memory(self, memory: UserMemory, args: AskArguments) -> dict[str, Any]:
        answer = memory.ask(args.question, as_of=args.as_of)
        data: dict[str, Any] = {"answer": answer.answer, "mode": answer.mode}
        lag = memory.view_lag()
        if lag.lags:
            data["view"] = lag.to_json()
        if answer.as_of is not None:
            data["as_of"] = answer.as_of.isoformat()
        if answer.truncated:
            data["truncated"] = True
        if answer.mode != "llm":
            data["message"] = "No model answers for this memory: here is the ranked evidence; answer from it."
            data["evidence"] = [
                {"id": item.id, "channel": item.channel, "text": _trimmed(item.text), "session_date": item.session_date}
                for item in [*answer.facts, *answer.archive]
            ]
            return _bounded_list(data, "evidence", self.output_chars())
        if not _fits(data, self.output_chars()):
            data["answer"] = _trimmed(str(answer.answer), self.output_chars() - 200)
        return data

    def _today(self, memory: UserMemory) -> _dt.date:
        zone: _dt.tzinfo
        try:
            zone = ZoneInfo(memory.project.config.user.timezone or "UTC")
        except (ZoneInfoNotFoundError, ValueError):
            zone = _dt.timezone.utc
        return _dt.datetime.now(zone).date()

    def _remember(self, memory: UserMemory, args: RememberArguments) -> dict[str, Any]:
        if (args.note is None) == (args.messages is None):
            raise InputError(
                "give exactly one of note and messages.",
                hint="Give {opt:note} for a few sentences, or {opt:messages} for a conversation.",
            )
        if args.note is not None:
            if not args.note.strip():
                raise InputError("the note is empty.", hint="Give {opt:note} as one or a few sentences.")
            messages = [{"role": "user", "content": args.note}]
        else:
            messages = [message.model_dump() for message in args.messages or ()]
        from ..dates import parse_day

        day = parse_day(args.date, what="date") or self._today(memory)
        report = memory.add_session({"date": day.isoformat(), "messages": messages})
        return {
            "stored": bool(report.sessions_added),
            "session_ids": list(report.sessions_added or report.sessions_skipped),
            "facts_added": report.facts_appended,
            "date": day.isoformat(),
        }


class ToolOptions(TypedDict, total=False):
    """The options each framework's ``memory_tools`` takes after the project: :class:`MemoryTools`'."""

    #: the directory the project is a name under (else a path, or a name under ``$UAC_HOME``)
    root: str | Path | None
    #: make the project on first use when it does not exist (named ``user_name``)
    create: bool
    user_name: str | None
    #: the model ``ask_memory`` answers with (default: the project's own)
    llm: LLMClient | None
    #: the cap on each result (default: the project's ``[answer] tool_output_chars``)
    output_chars: int | None


def tools_of(project: "MemoryTools | UserMemory | str | Path", **options: Any) -> MemoryTools:
    """The tools over one project: ``project`` itself when it is a :class:`MemoryTools` (then
    no option may be given), else the tools over an open :class:`~uac.UserMemory`, a path, or
    a name (under ``root``, else ``$UAC_HOME``) with the ``options`` given (:class:`ToolOptions`;
    ``None``, and ``create`` false, are the defaults: as if not given)."""
    options = {name: value for name, value in options.items() if value is not None and value is not False}
    if isinstance(project, MemoryTools):
        if options:
            raise TypeError(f"options {', '.join(sorted(options))} apply to a project, not to a MemoryTools")
        return project
    return MemoryTools(project, **options)
