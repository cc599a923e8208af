"""``ask``: pack the channels, let the reader answer, run its code in the sandbox.

Without a model, ``ask`` returns the ranked evidence of every channel and says
that no model is configured.  With one, the reader gets the packed context and
-- when there is typed state -- the sandbox as a tool (native function calling,
or fenced code blocks for models without tool support), for a bounded number
of steps.
"""

from __future__ import annotations

import datetime as _dt
import json
import re
import time
from ..context import MemoryContext
from ..errors import NO_MODEL_HINT, ModelError, UserError
from ..safejson import check_text
from ..llm import ChatResponse, LLMClient, Message
from ..templating import render_prompt
from .evidence import EvidenceRetriever
from .iterative import select_evidence
from .model import Answer, EvidenceItem, StateChannel, ToolRun
from .options import AskOptions
from .state_view import build_state_channel, filter_state_as_of
from .tools import SandboxTool

_CODE_BLOCK = re.compile(r"```(?:python|py)?[ \t]*\n(.*?)```", re.S)


def _state_channel(ctx: MemoryContext, question: str, options: AskOptions) -> StateChannel:
    as_of_state = excluded = None
    if options.as_of is not None:
        as_of_state, excluded = filter_state_as_of(ctx.sandbox_state(), options.as_of)
    return build_state_channel(
        ctx.root,
        question,
        loading=options.loading,
        budget=options.state_chars,
        as_of_state=as_of_state,
        excluded=excluded,
    )


def _gather_evidence(
    llm: LLMClient | None, question: str, options: AskOptions, retriever: EvidenceRetriever
) -> tuple[list[EvidenceItem], list[EvidenceItem], dict | None]:
    if options.iterative and llm is not None and (options.use_facts or options.use_archive):
        channels = []
        if options.use_facts:
            channels.append(("facts", options.top_facts))
        if options.use_archive:
            channels.append(("archive", options.top_archive))
        selection = select_evidence(
            llm,
            question,
            retriever.search,
            channels=channels,
            rounds=options.iterative_rounds,
            queries_per_round=options.iterative_queries,
            k=options.top_facts + options.top_archive,
        )
        facts = [i for i in selection.items if i.channel == "facts"][: options.top_facts]
        archive = [i for i in selection.items if i.channel == "archive"][: options.top_archive]
        return facts, archive, selection.to_json()
    facts = retriever.search(question, "facts", options.top_facts) if options.use_facts else []
    archive = retriever.search(question, "archive", options.top_archive) if options.use_archive else []
    return facts, archive, None


def answer_question(ctx: MemoryContext, question: str, options: AskOptions) -> Answer:
    """Answer ``question`` from the project (see module docstring)."""
    options = options.resolve(ctx.project.config.answer)
    if not question.strip():
        raise UserError("the question is empty.", hint="Ask something, e.g. 'Where did I travel in 2024?'.")
    check_text(question, "the question")
    started = time.perf_counter()
    llm = ctx.llm
    today = options.as_of or _dt.date.today()
    retriever = EvidenceRetriever(ctx, options.as_of)
    state = _state_channel(ctx, question, options) if options.use_state else None
    facts, archive, iterative = _gather_evidence(llm, question, options, retriever)
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
        answer.message = "No language model is configured: returning the ranked evidence from all channels. " + NO_MODEL_HINT
        answer.latency_seconds = time.perf_counter() - started
        return answer

    tool = SandboxTool(ctx, options.as_of)
    tool_mode = options.tool_mode if (options.use_state and options.max_tool_steps > 0 and tool.available()) else "off"
    system = render_prompt(
        "answer_system.j2",
        user_name=ctx.project.config.user.name,
        today=today.isoformat(),
        has_state=state is not None,
        has_facts=options.use_facts,
        has_archive=options.use_archive,
        tool_mode=tool_mode,
        instructions=(options.instructions or "").strip(),
    )
    messages = [Message("system", system), Message("user", context)]
    try:
        text, steps = _reader_loop(llm, messages, tool, tool_mode, options.max_tool_steps, answer)
    finally:
        tool.close()
    answer.answer = (text or "").strip()
    answer.mode = "llm"
    answer.steps = steps
    answer.tool_runs = tool.runs
    answer.latency_seconds = time.perf_counter() - started
    return answer


def _call(llm: LLMClient, messages: list[Message], answer: Answer, step: int, **kwargs) -> ChatResponse:
    try:
        response = llm.chat(messages, purpose="answer", **kwargs)
    except ModelError as exc:
        raise ModelError(f"answering failed at step {step}: {exc.message}", hint=exc.hint) from exc
    answer.prompt_tokens += response.usage.prompt_tokens
    answer.completion_tokens += response.usage.completion_tokens
    return response


def _reader_loop(
    llm: LLMClient, messages: list[Message], tool: SandboxTool, tool_mode: str, max_steps: int, answer: Answer
) -> tuple[str | None, int]:
    tools = [tool.schema()] if tool_mode == "native" else []
    step = 0
    while True:
        step += 1
        response = _call(llm, messages, answer, step, tools=tools)
        if tool_mode == "native" and response.tool_calls:
            messages.append(response.message())
            for call in response.tool_calls:
                if call.name != "python":
                    text = '{"ok": false, "error": {"type": "UnknownTool", "message": "only the python tool exists"}}'
                else:
                    _, text = tool.run_call_arguments(call.arguments)
                messages.append(Message("tool", text, tool_call_id=call.id, name=call.name))
        elif tool_mode == "codeblock" and _CODE_BLOCK.search(response.content or ""):
            code = _CODE_BLOCK.search(response.content or "").group(1)
            run: ToolRun = tool.run(code)
            messages.append(Message("assistant", response.content))
            messages.append(
                Message(
                    "user",
                    render_prompt("answer_code_result.j2", result=json.dumps(run.result, ensure_ascii=False), steps_left=max_steps - step),
                )
            )
        else:
            return response.content, step
        if step >= max_steps:
            messages.append(Message("user", render_prompt("answer_final.j2")))
            final = _call(llm, messages, answer, step + 1)
            return final.content, step + 1
