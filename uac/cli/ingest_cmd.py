"""``uac ingest``: add conversation sessions to a user project."""

from __future__ import annotations

import typer

from .common import JsonOption, ProjectArgument, echo, open_memory, print_json, progress_bar


def register(app: typer.Typer) -> None:
    @app.command("ingest")
    def ingest(
        project: ProjectArgument,
        file: str = typer.Argument(..., help="Session file: LoCoMo JSON, chat messages (JSON/JSONL) or a transcript."),
        format: str = typer.Option("auto", "--format", help="auto | locomo | messages | transcript."),
        sample_id: str = typer.Option(None, "--sample-id", help="LoCoMo: the conversation to ingest (its sample_id)."),
        date: str = typer.Option(None, "--date", help="Session date (YYYY-MM-DD) for inputs that carry none."),
        extractor: str = typer.Option(
            "auto", "--extractor", help="auto (the LLM if one is configured, else rules) | rules | llm."
        ),
        no_compile: bool = typer.Option(
            False, "--no-compile", help="Leave the view as it is (bulk loads: run 'uac compile' once at the end)."
        ),
        as_json: JsonOption = False,
    ) -> None:
        """Archive a file's sessions, extract their facts into the log and index them, then bring the view up to date."""
        with progress_bar("ingest", as_json=as_json) as on_progress:
            report = open_memory(project).ingest(
                file,
                format=format,
                sample_id=sample_id,
                date=date,
                extractor=extractor,
                progress=on_progress,
                compile=False if no_compile else None,
            )
        if as_json:
            print_json(report.to_json())
            return
        if report.skipped:
            echo(f"Already ingested: {', '.join(report.sessions_skipped)} -- nothing to do.")
            if report.view is not None and report.view.status != "current":
                echo(report.view.line())
            return
        echo(
            f"Ingested {len(report.sessions_added)} session(s) from {file} ({report.format}, "
            f"{report.extractor} extractor): {report.facts_appended} facts, "
            f"{report.chunks_indexed} archive chunks indexed."
        )
        stats = report.extraction
        if stats and (
            stats["coerced"]
            or stats["repaired"]
            or stats["dropped"]
            or stats["windows_split"]
            or stats["windows_fallback"]
        ):
            echo(
                f"LLM extraction: {stats['kept']} of {stats['items']} items kept ({stats['coerced']} coerced, "
                f"{stats['repaired']} repaired), {stats['dropped']} dropped; {stats['windows_split']} window(s) split, "
                f"{stats['windows_fallback']} extracted by the rules instead."
            )
        if report.usage.calls:
            usage = report.usage
            echo(
                f"Model: {usage.calls - usage.cached_calls} call(s), {usage.prompt_tokens}+{usage.completion_tokens} tokens"
                + (f", {usage.cached_calls} from the cache" if usage.cached_calls else "")
                + "."
            )
        if report.supersessions:
            echo(f"{report.supersessions} earlier fact(s) superseded, corrected, cancelled or fulfilled.")
        rec = report.reconcile
        if rec and (rec["calls"] or rec["dropped_total"]):
            spent = rec["usage"]
            echo(
                f"Reconcile: {rec['calls']} call(s), {spent['prompt_tokens']}+{spent['completion_tokens']} tokens, "
                f"{rec['links']['model']} link(s) from the model, {rec['dropped_total']} dropped."
            )
        if report.sessions_skipped:
            echo(
                f"Skipped {len(report.sessions_skipped)} session(s) already ingested: {', '.join(report.sessions_skipped)}."
            )
        if report.view is not None:
            echo(report.view.line())
