"""``uac show``: print the manifest, or one domain's generated code."""

from __future__ import annotations

import typer

from ..errors import UserError
from .common import JsonOption, ProjectArgument, echo, open_memory, print_json


def register(app: typer.Typer) -> None:
    @app.command("show")
    def show(
        project: ProjectArgument,
        domain: str = typer.Argument(None, help="Domain to print (schema.py and state.py); default: MANIFEST.md."),
        at: str = typer.Option(
            None,
            "--at",
            help="Show the domain's records as they stood after a compile (c3) or at a date, from the change log.",
        ),
        as_json: JsonOption = False,
    ) -> None:
        """Print MANIFEST.md, or a domain's schema.py and state.py (with --at: its records then)."""
        from ..view.store import check_domain_name, domain_names

        memory = open_memory(project)
        if at is not None:
            if domain is None:
                raise UserError("--at needs a domain.", hint="Name the domain: uac show PROJECT DOMAIN --at c3.")
            then = memory.view_at(domain, at)
            if as_json:
                print_json(then.to_json())
                return
            _print_at(then.to_json())
            return
        paths = memory.project.paths
        if domain is None:
            echo(paths.manifest.read_text("utf-8").rstrip("\n"))
            return
        check_domain_name(domain)
        names = domain_names(memory.project)
        if domain not in names:
            raise UserError(
                f"no domain {domain!r} in {memory.project.root}.",
                hint=f"Domains: {', '.join(names) or 'none yet (run uac compile or uac import-records)'}.",
            )
        for name in ("schema.py", "state.py"):
            echo(f"# domains/{domain}/{name}")
            echo((paths.domains / domain / name).read_text("utf-8").rstrip("\n"))
            echo()


def _print_at(data: dict) -> None:
    from .history_cmd import _value

    after = f" (last changed by {data['compile']})" if data["compile"] else " (no change yet)"
    echo(f"# {data['domain']} at {data['at']}{after}: {data['records']} records")
    for collection, records in data["collections"].items():
        echo(f"{collection}:")
        for record in records:
            fields = ", ".join(f"{k}={_value(v)}" for k, v in record["fields"].items())
            echo(f"  {record['record']}: {fields}")
            if record["sources"]:
                echo(f"    sources: {', '.join(record['sources'])}")
