"""`specbridge webhooks verify`: does a saved delivery carry a valid signature for a secret? For receivers
that want to test their set-up against what the gateway sends."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
import orjson

from .._errors import ErrorCode, SpecbridgeError
from .._files import MAX_DOCUMENT_BYTES, read_bounded
from ._app import EXIT_OK, app, friendly_errors


@app.group("webhooks")
def webhooks_group() -> None:
    """Signed webhook deliveries (Standard Webhooks)."""


def read_delivery(path: Path) -> tuple[dict[str, str], bytes]:
    """A saved delivery: JSON `{"headers": {...}, "body": "<the raw body>"}`, or the HTTP request as it
    came (header lines, an empty line, the body; a request line first is skipped)."""
    try:
        raw = read_bounded(path, MAX_DOCUMENT_BYTES)
    except OSError as error:  # FileTooLarge among them
        raise SpecbridgeError(
            f"cannot read {path}: {error.strerror or error}", code=ErrorCode.REQUEST_INVALID
        ) from None
    if raw.lstrip().startswith(b"{"):
        try:
            saved: Any = orjson.loads(raw)
        except orjson.JSONDecodeError:
            saved = None
        if (
            not isinstance(saved, dict)
            or not isinstance(saved.get("headers"), dict)
            or not isinstance(saved.get("body"), str)
        ):
            raise SpecbridgeError(
                f'{path}: expected {{"headers": {{...}}, "body": "..."}}', code=ErrorCode.REQUEST_INVALID
            )
        return {str(k): str(v) for k, v in saved["headers"].items()}, saved["body"].encode("utf-8")
    head, _, body = raw.replace(b"\r\n", b"\n").partition(b"\n\n")
    headers: dict[str, str] = {}
    for line in head.decode("latin-1").split("\n"):
        name, colon, value = line.partition(":")
        if colon and " " not in name.strip():
            headers[name.strip()] = value.strip()
    return headers, body


@webhooks_group.command("verify")
@click.argument("delivery", type=click.Path(path_type=Path))
@click.option(
    "--secret",
    "secrets",
    multiple=True,
    required=True,
    help="The webhook secret as env:NAME or file:PATH (repeat while rotating).",
)
@click.option(
    "--max-age",
    type=float,
    default=None,
    help="Also refuse a timestamp more than this many seconds from now (what a live receiver does).",
)
@friendly_errors
def verify_command(delivery: Path, secrets: tuple[str, ...], max_age: float | None) -> None:
    """Check DELIVERY (a saved request: JSON with headers and body, or the raw HTTP request) against the
    secret(s). Exit 0 when a signature matches, 1 when none does."""
    from ..config import Secret
    from ..webhooks import verify as verify_delivery

    for reference in secrets:
        if not reference.startswith(("env:", "file:")):
            raise SpecbridgeError(
                "give the secret as env:NAME or file:PATH, never on the command line itself",
                code=ErrorCode.REQUEST_INVALID,
            )
    headers, body = read_delivery(delivery)
    problem = verify_delivery(
        headers, body, [Secret(reference).reveal() for reference in secrets], max_age=max_age
    )
    if problem is not None:
        raise SpecbridgeError(f"{delivery}: {problem}", code=ErrorCode.WEBHOOK_SIGNATURE_INVALID)
    click.echo(f"valid: {delivery} is signed with the secret given (webhook-id {headers_id(headers)})")
    raise SystemExit(EXIT_OK)


def headers_id(headers: dict[str, str]) -> str:
    return next((value for name, value in headers.items() if name.lower() == "webhook-id"), "?")
