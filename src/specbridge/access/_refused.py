"""`refused`: the one JSON body every HTTP route of the gateway answers a refusal with (the MCP edge,
files, the admin API): `{"error": {"code": ..., "message": ...}}`, a 401 with its Bearer challenge."""

from __future__ import annotations

from starlette.responses import JSONResponse, Response

from .._errors import ErrorCode


def refused(
    status: int,
    code: ErrorCode,
    message: str,
    headers: tuple[tuple[str, str], ...] = (),
    *,
    realm: str = "specbridge",
) -> Response:
    """The refusal as a response; a 401 without a `WWW-Authenticate` of `headers` gets `realm`'s."""
    given = dict(headers)
    if status == 401 and "WWW-Authenticate" not in given:
        given["WWW-Authenticate"] = f'Bearer realm="{realm}"'
    return JSONResponse(
        {"error": {"code": str(code), "message": message}}, status_code=status, headers=given or None
    )
