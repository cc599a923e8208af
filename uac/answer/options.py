"""The options of ``ask``, declared once for every adapter.

:class:`AskOptions` is the one place an answering option is defined: its type,
default, help text, allowed values and range live in the field's metadata
(:class:`OptionSpec`).  The Python API takes an ``AskOptions`` (or its fields as
keywords); the CLI builds its ``uac ask`` flags, the HTTP server its request
model and the MCP server its tool arguments from :func:`ask_option_specs`, so
a new option appears everywhere by adding one field here.

Fields left ``None`` that are marked ``from_config`` take their value from the
``[answer]`` table of ``uac.toml`` (:meth:`AskOptions.resolve`).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
from dataclasses import dataclass, field
from typing import Any

from ..config import AnswerConfig
from ..dates import parse_day
from ..errors import InputError
from .style import LENGTHS, REASONING_MODES, AnswerStyle

LOADING_MODES = ("monolithic", "modular", "manifest")
TOOL_MODES = ("native", "codeblock", "off")


@dataclass(frozen=True)
class OptionSpec:
    """How one answering option is presented by the adapters."""

    name: str
    kind: type  # str | int | bool | datetime.date
    default: Any
    help: str
    #: CLI flag(s); booleans use "--on/--off"
    flag: str
    choices: tuple[str, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    max_length: int | None = None
    #: ``None`` means "the [answer] setting of uac.toml"
    from_config: bool = False
    #: how messages name the option ("loading mode")
    label: str = ""

    @property
    def what(self) -> str:
        return self.label or self.name.replace("_", " ")


def _option(default: Any, help: str, **spec: Any) -> Any:
    return field(default=default, metadata={"uac_option": (help, spec)})


def _setting(help: str, **spec: Any) -> Any:
    """An option left ``None`` until :meth:`AskOptions.resolve` takes it from ``[answer]``."""
    return _option(None, help, from_config=True, **spec)


def _channel(name: str) -> Any:
    """The switch of one channel: on by default, ``--no-<name>`` leaves it out (an ablation)."""
    return _option(
        True, f"Use the {name.upper()} channel (--no-{name} leaves it out, an ablation).", flag=f"--{name}/--no-{name}"
    )


@dataclass(frozen=True)
class AskOptions:
    """Per-call answering settings (unset ones come from ``[answer]`` in uac.toml)."""

    as_of: _dt.date | None = _option(
        None, "Answer as of this date (YYYY-MM-DD): facts valid then, records dated on or before it.", max_length=40
    )
    loading: str | None = _setting("How much typed state the reader sees.", choices=LOADING_MODES, label="loading mode")
    use_state: bool = _channel("state")
    use_facts: bool = _channel("facts")
    use_archive: bool = _channel("archive")
    state_chars: int | None = _setting(
        "Characters of typed state packed into the prompt.", minimum=0, maximum=1_000_000
    )
    top_facts: int | None = _setting("Facts retrieved for the FACTS channel.", minimum=0, maximum=500)
    top_archive: int | None = _setting(
        "Conversation excerpts retrieved for the ARCHIVE channel.", minimum=0, maximum=500
    )
    tool_mode: str | None = _setting("How the reader runs code in the sandbox.", choices=TOOL_MODES, label="tool mode")
    max_tool_steps: int | None = _setting(
        "Most sandbox runs the reader may make before it must answer.", minimum=0, maximum=50
    )
    iterative: bool = _option(
        False, "Iterative evidence selection with follow-up queries.", flag="--iterative/--no-iterative"
    )
    iterative_rounds: int | None = _setting(
        "Rounds of follow-up queries in iterative selection.", minimum=1, maximum=10
    )
    iterative_queries: int | None = _setting(
        "Follow-up queries per round in iterative selection.", minimum=1, maximum=10
    )
    reasoning: str | None = _setting(
        "direct: answer at once; step_by_step: reason step by step, the answer on the last line (the one kept).",
        choices=REASONING_MODES,
        label="reasoning mode",
    )
    answer_length: str | None = _setting(
        "Length of the answer: phrase (a few words), short (one or two sentences), full.",
        choices=LENGTHS,
        label="answer length",
    )
    citations: bool = _option(
        True,
        "Cite the supporting fact and excerpt ids after the answer (--no-citations: no ids).",
        flag="--citations/--no-citations",
    )
    refusal: str | None = _setting("What the reader answers when the memory does not hold the answer.", max_length=200)
    tool_output_chars: int | None = _setting(
        "Characters of each sandbox result sent back to the reader.", minimum=500, maximum=1_000_000
    )
    instructions: str | None = _option(
        None, "Extra instructions for the reader, added after the answer style.", max_length=10_000
    )
    include_context: bool = _option(False, "Include the packed prompt context in the answer.", flag="--show-context")

    def __post_init__(self) -> None:
        if self.as_of is not None:
            object.__setattr__(self, "as_of", parse_day(self.as_of, what="as_of"))
        for spec in ask_option_specs():
            value = getattr(self, spec.name)
            if value is None:
                continue
            if spec.choices and value not in spec.choices:
                raise InputError(f"unknown {spec.what} {value!r}.", hint=f"Use one of {', '.join(spec.choices)}.")
            if spec.kind is int:
                if isinstance(value, bool) or not isinstance(value, int):
                    raise InputError(f"the {spec.what} must be a whole number, not {value!r}.")
                low = spec.minimum if spec.minimum is not None else value
                high = spec.maximum if spec.maximum is not None else value
                if not low <= value <= high:
                    raise InputError(f"the {spec.what} must be between {spec.minimum} and {spec.maximum}, not {value}.")
            if spec.kind is bool and not isinstance(value, bool):
                raise InputError(f"the {spec.what} option must be true or false, not {value!r}.")
        self.style()  # an unusable refusal wording fails here, not mid-answer

    def updated(self, **values: Any) -> "AskOptions":
        """These options with ``values`` set; ``None`` means "not given" (the value stays)."""
        known = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(values) - known)
        if unknown:
            raise InputError(
                f"unknown ask option(s): {', '.join(unknown)}.", hint=f"Known options: {', '.join(sorted(known))}."
            )
        given = {k: v for k, v in values.items() if v is not None}
        return dataclasses.replace(self, **given) if given else self

    def resolve(self, config: AnswerConfig) -> "AskOptions":
        """These options with every unset ``from_config`` field taken from ``[answer]``."""
        filled = {
            spec.name: getattr(config, spec.name)
            for spec in ask_option_specs()
            if spec.from_config and getattr(self, spec.name) is None
        }
        return dataclasses.replace(self, **filled)

    def style(self) -> AnswerStyle:
        """The answer style of these (resolved) options."""
        return AnswerStyle(
            citations=self.citations,
            refusal=self.refusal if self.refusal is not None else AnswerConfig.refusal,
            length=self.answer_length or AnswerConfig.answer_length,
            reasoning=self.reasoning or AnswerConfig.reasoning,
        )

    @property
    def resolved(self) -> bool:
        return all(getattr(self, s.name) is not None for s in ask_option_specs() if s.from_config)

    def limits(self) -> "ReaderLimits":
        """The reader's modes and sizes of these resolved options (:meth:`resolve` first)."""
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(ReaderLimits)}
        unset = sorted(name for name, value in values.items() if value is None)
        if unset:
            raise InputError(
                f"ask option(s) not resolved: {', '.join(unset)}.", hint="Call AskOptions.resolve(config) first."
            )
        return ReaderLimits(**values)


@dataclass(frozen=True)
class ReaderLimits:
    """The modes and sizes the reader works with: the ``from_config`` fields of resolved
    :class:`AskOptions` that the reader reads, every one set."""

    loading: str
    state_chars: int
    top_facts: int
    top_archive: int
    tool_mode: str
    max_tool_steps: int
    iterative_rounds: int
    iterative_queries: int
    tool_output_chars: int


def _kind(annotation: str) -> type:
    base = annotation.split("|")[0].strip()
    return {"bool": bool, "int": int, "str": str, "_dt.date": _dt.date}[base]


_SPECS: tuple[OptionSpec, ...] | None = None


def ask_option_specs() -> tuple[OptionSpec, ...]:
    """Every field of :class:`AskOptions` with how adapters present it, in declaration order."""
    global _SPECS
    if _SPECS is None:
        specs = []
        for f in dataclasses.fields(AskOptions):
            help_text, extra = f.metadata["uac_option"]
            extra = dict(extra)
            flag = extra.pop("flag", "--" + f.name.replace("_", "-"))
            specs.append(OptionSpec(f.name, _kind(str(f.type)), f.default, help_text, flag, **extra))
        _SPECS = tuple(specs)
    return _SPECS
