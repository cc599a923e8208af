"""The ``model`` check (``uac doctor PROJECT --model``): a few tiny real calls to the endpoint.

It shows what the configured endpoint supports -- JSON-schema output, JSON
mode, native tool calls, whether it reads a prompt as long as uac's longest --
and remembers the answers for the endpoint, so uac's fallbacks apply from the
next call on.  Unsupported features are fine (uac falls back by itself); an
endpoint that cannot be reached or cuts long prompts is a failure.
"""

from __future__ import annotations

from ..context import MemoryContext
from .result import FAIL, OK, WARN, CheckResult


def check_model(ctx: MemoryContext, repair: bool) -> CheckResult:
    settings = ctx.llm_settings
    if not settings.configured:
        return CheckResult("model", WARN, "no model configured: nothing to probe (set UAC_LLM_PROVIDER/UAC_LLM_MODEL)")
    client = ctx.llm
    provider = getattr(client, "provider", None)
    if provider is None or not hasattr(provider, "base_url"):
        return CheckResult("model", OK, f"{settings.describe()}: not an HTTP endpoint, nothing to probe")
    from ..llm.probe import probe_endpoint

    config = ctx.project.config
    longest = max(config.extract.window_chars + 2_000, config.compile.domain_prompt_chars + 1_000)
    report = probe_endpoint(provider, context_chars=longest, timeout=settings.timeout_seconds)
    data = report.to_json()
    if not report.reachable:
        return CheckResult(
            "model", FAIL, f"{report.endpoint} (model {report.model}): {report.probes[0].detail}", data=data
        )
    tools = {
        "native": "native tool calls",
        "text": "tool calls written as text (uac runs them)",
        "none": "no tool calls (uac asks for fenced code)",
    }
    json_mode = {
        "schema": "JSON schemas",
        "object": "JSON mode only (no schemas)",
        "none": "no JSON output mode (uac reads JSON from the text)",
    }
    parts = [
        f"{report.endpoint} serves {report.served_model or report.model}",
        json_mode.get(report.json_mode or "none", report.json_mode or "?"),
        tools.get(report.tools or "none", report.tools or "?"),
    ]
    if report.reasoning:
        parts.append("reasoning blocks seen (uac strips them)")
    long = next((p for p in report.probes if p.name == "long prompt"), None)
    if long is not None:
        parts.append(long.detail)
    status = FAIL if report.context_cut else OK
    return CheckResult("model", status, "; ".join(parts), data=data)
