"""``ask``: pack the channels, let the reader answer, run its code in the sandbox.

Without a model, ``ask`` returns the ranked evidence of every channel and says
that no model is configured.  With one, the reader gets the packed context and
-- when there is typed state -- the sandbox as a tool (native function calling,
or fenced code blocks for models without tool support), for a bounded number
of steps.  An endpoint that refuses native tool calls switches the answer to
fenced code by itself; code a model writes as text runs either way.  Every
call's tokens -- the iterative decider's included -- reach the answer's usage.
"""

from __future__ import annotations

import datetime as _dt
import json
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from ..compile.follow import view_lag
from ..context import MemoryContext
from ..errors import NO_MODEL_HINT, CapabilityUnsupported, ContextOverflow, ModelError, UacError, UserError
from ..llm import ChatResponse, LLMClient, Message, ToolCall
from ..llm.structured import looks_binary
from ..llm.toolcalls import text_tool_calls
from ..safejson import check_text
from ..templating import render_prompt
from .evidence import EvidenceRetriever
from .gaps import Gaps, view_gaps
from .iterative import select_evidence
from .model import Answer, EvidenceItem, StateChannel
from .options import AskOptions, ReaderLimits
from .state_view import build_state_channel, filter_state_as_of
from .style import AnswerStyle, final_answer_line, has_answer_line
from .tools import SandboxTool
from .windows import merge_windows


def _state_channel(
    ctx: MemoryContext, question: str, options: AskOptions, limits: ReaderLimits, gaps: Gaps
) -> StateChannel:
    as_of_state = excluded = None
    if options.as_of is not None:
        as_of_state, excluded = filter_state_as_of(ctx.sandbox_state(), options.as_of, ctx.fact_table().said)
    return build_state_channel(
        ctx.root,
        question,
        loading=limits.loading,
        budget=limits.state_chars,
        as_of_state=as_of_state,
        excluded=excluded,
        unrepresented=gaps.per_domain,
    )


def _gather_evidence(
    llm: LLMClient | None, question: str, options: AskOptions, limits: ReaderLimits, retriever: EvidenceRetriever
) -> tuple[list[EvidenceItem], list[EvidenceItem], dict[str, Any] | None]:
    if options.iterative and llm is not None and (options.use_facts or options.use_archive):
        channels = []
        if options.use_facts:
            channels.append(("facts", limits.top_facts))
        if options.use_archive:
            channels.append(("archive", limits.top_archive))
        selection = select_evidence(
            llm,
            question,
            retriever.search,
            channels=channels,
            rounds=limits.iterative_rounds,
            queries_per_round=limits.iterative_queries,
            k=limits.top_facts + limits.top_archive,
        )
        facts = [i for i in selection.items if i.channel == "facts"][: limits.top_facts]
        archive = [i for i in selection.items if i.channel == "archive"][: limits.top_archive]
        return facts, archive, selection.to_json()
    facts = retriever.search(question, "facts", limits.top_facts) if options.use_facts else []
    archive = retriever.search(question, "archive", limits.top_archive) if options.use_archive else []
    return facts, archive, None


def answer_question(ctx: MemoryContext, question: str, options: AskOptions) -> Answer:
    """Answer ``question`` from the project (see module docstring)."""
    options = options.resolve(ctx.project.config.answer)
    if not question.strip():
        raise UserError("the question is empty.", hint="Ask something, e.g. 'Where did I travel in 2024?'.")
    check_text(question, "the question")
    started = time.perf_counter()
    llm = ctx.llm
    if llm is None:
        answer = _answer(ctx, None, question, options, started)
    else:
        with llm.metered() as usage:
            answer = _answer(ctx, llm, question, options, started)
        answer.usage = usage
        answer.prompt_tokens, answer.completion_tokens = usage.prompt_tokens, usage.completion_tokens
    # the STATE channel is the view: say when it lags the log
    answer.view_lag = view_lag(ctx)
    return answer


def _session_reader(ctx: MemoryContext):
    """Reads an archived session by id (None when it is not there), for joining excerpts."""
    from ..sessions.archive import Archive

    archive = Archive(ctx.project.paths.sessions)

    def read(session_id: str):
        try:
            return archive.read(session_id) if archive.has(session_id) else None
        except (UacError, OSError, ValueError):
            return None  # an unreadable session: its excerpts stay as they were retrieved

    return read


def _cut_off_message(max_tokens: int | None) -> str:
    limit = f" of {max_tokens} tokens" if max_tokens else ""
    return (
        f"The answer was cut off at the completion limit{limit}; raise `answer` under [llm.max_tokens] "
        "in uac.toml for longer answers."
    )


def _answer(ctx: MemoryContext, llm: LLMClient | None, question: str, options: AskOptions, started: float) -> Answer:
    today = options.as_of or _dt.date.today()
    retriever = EvidenceRetriever(ctx, options.as_of)
    gaps = view_gaps(ctx, options.as_of) if options.use_state else Gaps()
    limits = options.limits()
    state = _state_channel(ctx, question, options, limits, gaps) if options.use_state else None
    facts, archive, iterative = _gather_evidence(llm, question, options, limits, retriever)
    facts = gaps.mark(facts)
    archive = merge_windows(archive, _session_reader(ctx))
    context = render_prompt(
        "answer_context.j2",
        today=today.isoformat(),
        question=question,
        state=None if state is None else state.text,
        facts=facts if options.use_facts else None,
        archive=archive if options.use_archive else None,
    )
    answer = Answer(
        question=question,
        answer=None,
        mode="evidence",
        as_of=options.as_of,
        state=state,
        facts=facts,
        archive=archive,
        context=context,
        iterative=iterative,
        include_context=options.include_context,
    )
    if llm is None:
        answer.message = (
            "No language model is configured: returning the ranked evidence from all channels. " + NO_MODEL_HINT
        )
        answer.latency_seconds = time.perf_counter() - started
        return answer

    tool = SandboxTool(ctx, options.as_of, output_chars=limits.tool_output_chars)
    tool_mode = limits.tool_mode if (options.use_state and limits.max_tool_steps > 0 and tool.available()) else "off"
    if tool_mode == "native" and llm.capabilities.tools is False:
        tool_mode = "codeblock"  # the endpoint is known to refuse native tool calls
    style = options.style()

    def system_prompt(mode: str, again: bool = False) -> str:
        return reader_system_prompt(
            user_name=ctx.project.config.user.name,
            today=today,
            has_state=state is not None,
            has_facts=options.use_facts,
            has_archive=options.use_archive,
            tool_mode=mode,
            tool_has_facts=mode != "off" and tool.has_facts,
            tool_description=tool.description(again=again) if mode == "codeblock" else "",
            style=style,
            fact_ids=[item.id for item in facts],
            facts_outside_state=any(item.in_state is False for item in facts),
            archive_ids=[item.id for item in archive],
            instructions=options.instructions,
        )

    messages = [Message("system", system_prompt(tool_mode)), Message("user", context)]
    try:
        loop = _ReaderLoop(llm, messages, tool, tool_mode, limits.max_tool_steps, system_prompt, style.step_by_step)
        final, steps = loop.run()
    finally:
        tool.close()
    answer.tool_mode = loop.tool_mode
    answer.reasoning = style.reasoning
    text = _final_text(final, steps)
    if style.step_by_step:
        answer.reasoning_text = text
        text = final_answer_line(text)
    answer.answer = text
    if final.cut_off:
        answer.truncated = True
        answer.message = _cut_off_message(final.max_tokens)
    answer.mode = "llm"
    answer.steps = steps
    answer.tool_runs = tool.runs
    answer.latency_seconds = time.perf_counter() - started
    return answer


def reader_system_prompt(
    *,
    user_name: str,
    today: _dt.date,
    has_state: bool,
    has_facts: bool,
    has_archive: bool,
    tool_mode: str,
    style: AnswerStyle,
    fact_ids: Sequence[str] = (),
    archive_ids: Sequence[str] = (),
    tool_has_facts: bool = False,
    tool_description: str = "",
    instructions: str | None = None,
    facts_outside_state: bool = False,
) -> str:
    """The reader's system prompt: the channels, the tool, and the answer style said once."""
    return render_prompt(
        "answer_system.j2",
        user_name=user_name,
        today=today.isoformat(),
        has_state=has_state,
        has_facts=has_facts,
        has_archive=has_archive,
        tool_mode=tool_mode,
        tool_has_facts=tool_has_facts,
        tool_description=tool_description,
        facts_outside_state=facts_outside_state,
        step_by_step=style.step_by_step,
        refusal=style.refusal,
        style_lines=style.instructions(fact_ids, archive_ids),
        instructions=(instructions or "").strip(),
    )


def _final_text(response: ChatResponse, step: int) -> str:
    content = response.content or ""
    if looks_binary(content):
        response.reject()  # never keep it in the response cache
        raise ModelError(
            f"answering failed at step {step}: the model's answer looks like binary data, not text.",
            hint="Check that UAC_LLM_MODEL names a chat model served at an OpenAI-compatible /v1 endpoint.",
        )
    text = response.text()
    if not text and not response.cut_off:
        response.reject()
        raise ModelError(
            f"answering failed at step {step}: the model returned an empty answer"
            + (" (only reasoning)." if content.strip() else "."),
            hint="Ask again; if it repeats, raise `answer` under [llm.max_tokens] or use another model.",
        )
    return text


def _call(llm: LLMClient, messages: list[Message], step: int, **kwargs) -> ChatResponse:
    try:
        return llm.chat(messages, purpose="answer", **kwargs)
    except (CapabilityUnsupported, ContextOverflow):
        raise
    except ModelError as exc:
        raise ModelError(f"answering failed at step {step}: {exc.message}", hint=exc.hint) from exc


@dataclass
class _ReaderLoop:
    """The reader's conversation: answer, or run code in the sandbox and go on.

    In ``native`` mode code comes as tool calls -- or, from models whose server
    has no tool parser, as ``<tool_call>`` text or a fenced block, which run the
    same way.  An endpoint that refuses ``tools`` switches the loop to
    ``codeblock`` mode (the system prompt asks for fenced code instead).
    """

    llm: LLMClient
    messages: list[Message]
    tool: SandboxTool
    #: ``native``, ``codeblock`` or ``off``; a refused ``tools`` request turns ``native`` to ``codeblock``
    tool_mode: str
    max_steps: int
    #: ``(mode, again=False) -> str``: the system prompt for a tool mode (``again``: the tool's reminder)
    system_prompt: Callable[..., str]
    step_by_step: bool = False
    #: codeblock mode: the system prompt carries the tool's reminder, not its description
    brief_system: bool = field(default=False, init=False)

    def _ask(self, step: int) -> ChatResponse:
        again = step > 1  # the tool's whole description went with the first request
        while True:
            if again and self.tool_mode == "codeblock" and not self.brief_system:
                self.messages[0] = Message("system", self.system_prompt("codeblock", True))
                self.brief_system = True
            tools = [self.tool.schema(again=again)] if self.tool_mode == "native" else []
            try:
                return _call(self.llm, self.messages, step, tools=tools)
            except CapabilityUnsupported as exc:
                if self.tool_mode != "native" or exc.feature != "tools":
                    raise
                self.tool_mode = "codeblock"
                # the endpoint refused this request: the whole description has not reached the model yet
                self.messages[0] = Message("system", self.system_prompt("codeblock"))
                again, self.brief_system = False, False

    def run(self) -> tuple[ChatResponse, int]:
        step = 0
        while True:
            step += 1
            response = self._ask(step)
            if self.tool_mode == "native" and response.tool_calls:
                self.messages.append(response.message())
                for call in response.tool_calls:
                    self.messages.append(Message("tool", self._run(call), tool_call_id=call.id, name=call.name))
            elif (
                self.tool_mode != "off"
                # step by step, a reply that ends on its answer line is the answer, code in it or not
                and not (self.step_by_step and has_answer_line(response.text()))
                and (calls := text_tool_calls(response.content))
            ):
                self.messages.append(Message("assistant", response.content))
                results = [self._run(call) for call in calls]
                self.messages.append(
                    Message(
                        "user",
                        render_prompt(
                            "answer_code_result.j2",
                            result=results[0] if len(results) == 1 else "[" + ", ".join(results) + "]",
                            steps_left=self.max_steps - step,
                        ),
                    )
                )
            else:
                return response, step
            if step >= self.max_steps:
                self.messages.append(Message("user", render_prompt("answer_final.j2")))
                return _call(self.llm, self.messages, step + 1), step + 1

    def _run(self, call: ToolCall) -> str:
        if not call.name:
            problem = 'the tool call is not JSON of the form {"name": "python", "arguments": {"code": "..."}}'
            return json.dumps(
                {"ok": False, "result": None, "stdout": "", "error": {"type": "BadToolCall", "message": problem}}
            )
        if call.name != "python":
            return json.dumps(
                {
                    "ok": False,
                    "result": None,
                    "stdout": "",
                    "error": {
                        "type": "UnknownTool",
                        "message": f"there is no tool {call.name!r}; only the python tool exists",
                    },
                }
            )
        _, text = self.tool.run_call_arguments(call.arguments)
        return text
