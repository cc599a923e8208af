"""``uac show``: print the manifest, or one domain's generated code."""

from __future__ import annotations

import typer

from ..errors import UserError
from .common import echo, open_memory


def register(app: typer.Typer) -> None:
    @app.command("show")
    def show(
        project: str = typer.Argument(..., help="Project path or name."),
        domain: str = typer.Argument(None, help="Domain to print (schema.py and state.py); default: MANIFEST.md."),
    ) -> None:
        """Print MANIFEST.md, or a domain's schema.py and state.py."""
        from ..view.store import check_domain_name, domain_names

        memory = open_memory(project)
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
