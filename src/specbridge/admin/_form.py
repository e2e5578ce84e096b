"""A POST from the page's own forms, checked before it is used: Host, Origin, and a body read no further
than `MAX_FORM` bytes whatever its framing.

A declared `Content-Length` over the limit is refused before reading anything; a chunked body (or one
with no length) is read chunk by chunk and refused as soon as it passes the limit, so an unsigned-in
request costs the gateway 16 KB, not the megabytes it sends. Only the page's own encoding is read
(`application/x-www-form-urlencoded`, at most `MAX_FIELDS` fields).
"""

from __future__ import annotations

from collections.abc import Sequence
from urllib.parse import parse_qsl, urlsplit

from starlette.requests import Request

from .._errors import ErrorCode
from ._guard import Refused, check_host

MAX_FORM = 16_384
MAX_FIELDS = 10
FORM_TYPE = "application/x-www-form-urlencoded"


def _too_large() -> Refused:
    return Refused(413, ErrorCode.REQUEST_INVALID, f"the form is too large (at most {MAX_FORM} bytes)")


def check_origin(request: Request) -> None:
    """A browser's form from another origin, or from an opaque one (`Origin: null`), is refused."""
    origin = request.headers.get("origin")
    if origin == "null":
        raise Refused(403, ErrorCode.ORIGIN_REFUSED, "a form from an opaque origin was refused")
    if origin and urlsplit(origin)[:2] != (request.url.scheme, request.url.netloc):
        raise Refused(403, ErrorCode.ORIGIN_REFUSED, "a form from another site was refused")


async def read_body(request: Request, limit: int = MAX_FORM) -> bytes:
    """The request's body, refused (413) as soon as it passes `limit` bytes."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.strip().isdigit() or int(declared) > limit):
        raise _too_large()
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise _too_large()
    return bytes(body)


async def read_form(request: Request, allowed_hosts: Sequence[str]) -> dict[str, str]:
    """The fields of one of the page's forms (the last value of a repeated field)."""
    check_host(request, allowed_hosts)
    check_origin(request)
    kind = request.headers.get("content-type", "").partition(";")[0].strip().lower()
    if kind not in ("", FORM_TYPE):
        raise Refused(400, ErrorCode.REQUEST_INVALID, "send the page's own form (urlencoded)")
    body = await read_body(request)
    try:
        fields = parse_qsl(
            body.decode("utf-8"), keep_blank_values=True, strict_parsing=False, max_num_fields=MAX_FIELDS
        )
    except (UnicodeDecodeError, ValueError):
        raise Refused(400, ErrorCode.REQUEST_INVALID, "the form could not be read") from None
    return dict(fields)
