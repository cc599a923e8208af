"""``uac token``: the bearer tokens the HTTP and MCP servers accept (stored hashed)."""

from __future__ import annotations

from pathlib import Path

import typer

from ..errors import ProjectNotFound
from .common import JsonOption, ProjectArgument, echo, open_memory, print_json


def _create_token(project: str | None, name: str, admin: bool, root: Path | None):
    """The store the new token went to, the token and its record."""
    from ..server.tokens import TokenStore

    if admin:
        if root is None or project is not None:
            raise typer.BadParameter("--admin takes --root DIR and no PROJECT.")
        if not root.is_dir():
            raise ProjectNotFound(f"{root} is not a directory.", hint="Pass the directory 'uac serve --root' serves.")
        store = TokenStore.for_admin(root)
        token, record = store.create(name)
    else:
        if project is None:
            raise typer.BadParameter("give the PROJECT to create a token for (or --admin --root DIR).")
        memory = open_memory(project)
        store = TokenStore.for_project(memory.root)
        with memory.project.lock("create token"):
            token, record = store.create(name)
    return store, token, record


def create(
    project: str = typer.Argument(None, help="Project path or name (omit with --admin)."),
    name: str = typer.Option("", "--name", help="A label to recognise the token by."),
    admin: bool = typer.Option(False, "--admin", help="Create a workspace admin token (may create projects)."),
    root: Path = typer.Option(None, "--root", help="With --admin: the directory 'uac serve' serves."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Print the token alone (the note about it is left out)."),
    as_json: JsonOption = False,
) -> None:
    """Create a token and print it once; only its hash is stored.

    The token is the only line on stdout (TOKEN=$(uac token create ...) captures it);
    the note that it is shown only once goes to stderr, and --quiet leaves it out.
    """
    store, token, record = _create_token(project, name, admin, root)
    if as_json:
        print_json({"token": token, "id": record.id, "name": record.name, "created": record.created})
        return
    echo(token)
    if not quiet:
        typer.echo(
            f"Token {record.id} created{' (' + name + ')' if name else ''}; it is shown only now. "
            f"Stored hashed in {store.path}.",
            err=True,
        )


def list_(
    project: ProjectArgument,
    as_json: JsonOption = False,
) -> None:
    """List a project's tokens (ids, labels, creation times; never the tokens)."""
    from ..server.tokens import TokenStore

    records = TokenStore.for_project(open_memory(project).root).records()
    if as_json:
        print_json({"tokens": [r.public() for r in records]})
        return
    if not records:
        echo("No tokens.")
    for record in records:
        echo(f"{record.id}  {record.created}  {record.name}")


def revoke(
    project: ProjectArgument,
    token_id: str = typer.Argument(..., help="The token's id (see 'uac token list')."),
    as_json: JsonOption = False,
) -> None:
    """Revoke a token: requests with it are refused from now on."""
    from ..server.tokens import TokenStore

    memory = open_memory(project)
    with memory.project.lock("revoke token"):
        record = TokenStore.for_project(memory.root).revoke(token_id)
    if as_json:
        print_json({"revoked": record.public()})
    else:
        echo(f"Revoked token {record.id}{' (' + record.name + ')' if record.name else ''}.")


def register(app: typer.Typer) -> None:
    token_app = typer.Typer(
        name="token",
        help="Create, list and revoke the bearer tokens of a project (for 'uac serve').",
        no_args_is_help=True,
    )
    app.add_typer(token_app, name="token")
    token_app.command("create")(create)
    token_app.command("list")(list_)
    token_app.command("revoke")(revoke)
