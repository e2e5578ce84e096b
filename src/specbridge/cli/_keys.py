"""`specbridge keys new`: a client key, printed once, and the config lines that let it in."""

from __future__ import annotations

import re

import click

from ._app import app, friendly_errors

ID = re.compile(r"[A-Za-z0-9_.-]{1,64}")  # as the config's schema has it for client and admin ids


def checked_id(_context: click.Context, parameter: click.Parameter, value: str | None) -> str | None:
    if value is not None and not ID.fullmatch(value):
        raise click.BadParameter("use 1 to 64 letters, digits, `_`, `.` or `-` (the config accepts no other)")
    return value


@app.group("keys")
def keys_group() -> None:
    """Client keys (and admin keys) for the HTTP gateway."""


@keys_group.command("new")
@click.option(
    "--client",
    "client_id",
    default="my-client",
    show_default=True,
    callback=checked_id,
    help="The client's id.",
)
@click.option("--api", "apis", multiple=True, help="An API the client may use (repeatable).")
@click.option("--admin", is_flag=True, help="An admin key (answers approvals on /admin/), not a client key.")
@click.option("--admin-id", callback=checked_id, help="The admin's id (implies --admin) [default: admin].")
@friendly_errors
def keys_new_command(client_id: str, apis: tuple[str, ...], admin: bool, admin_id: str | None) -> None:
    """Make a key. The key is shown once (give it to the client); the config stores only its SHA-256."""
    from ..access import key_sha256, new_key

    if admin_id is not None:
        admin = True  # naming an admin asks for an admin key
    admin_id = admin_id or "admin"

    key = new_key(admin=admin)
    if admin:
        click.echo(f"admin key: {key}")
        click.echo("(shown once: sign in on /admin/ with it, or send it as `Authorization: Bearer <key>`)")
        click.echo("\n# add to specbridge.yaml:")
        click.echo("admins:")
        click.echo(f"  {admin_id}:")
        click.echo(f'    key_sha256: "{key_sha256(key)}"')
        return
    api_list = ", ".join(apis) if apis else "API_NAME"
    click.echo(f"key: {key}")
    click.echo("(shown once: give it to the client as `Authorization: Bearer <key>` or `X-Api-Key: <key>`)")
    click.echo("\n# add to specbridge.yaml:")
    click.echo("clients:")
    click.echo(f"  {client_id}:")
    click.echo(f'    key_sha256: "{key_sha256(key)}"')
    click.echo(f"    apis: [{api_list}]")
