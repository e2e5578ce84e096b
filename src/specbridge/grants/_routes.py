"""The gateway's connect pages for per-client accounts (`_connect`), on Starlette, no MCP:

    GET  /oauth/connect/<api>?id=…    the link's page: whose account, which API, where the person goes;
                                      sets the cookie that binds the authorization to this browser
    POST /oauth/connect/<api>         the page's form (same origin, the cookie's value in it): the link
                                      taken, the browser sent to the API's consent page (303)
    GET  /oauth/callback/<api>        where the API's authorization server sends the browser back: the
                                      code exchanged and the account stored for the link's client

Every page is plain HTML (nothing to run), cannot be framed (a click cannot be stolen), sends no
Referer to another site (the link's id and the state stay here; the form's own POST keeps its Origin)
and is not cached. Each refusal says why and carries
its code (docs/errors.md): `connect-invalid`, `connect-declined`, `csrf-invalid`, `upstream-auth-failed`,
`secret-unavailable`, `store-unavailable`.
"""

from __future__ import annotations

import html
import logging
import re
import secrets
from collections.abc import Awaitable, Callable
from urllib.parse import parse_qs, urlsplit

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from .._errors import CallError, ErrorCode, SpecbridgeError
from .._logging import log_event
from ..config import ApiConfig, Config
from ..store import StoreError
from ._connect import CONNECT_LIFE, ConnectError, Offer, cookie_path
from ._endpoint import GrantError
from ._grants import Grants

COOKIE = "specbridge_connect"
MAX_FORM = 4096  # bytes of the connect form (two short fields)
_ID = re.compile(r"[A-Za-z0-9_-]{16,128}")
_OAUTH_ERROR = re.compile(r"[a-z_]{1,40}")
Endpoint = Callable[[Request], Awaitable[Response]]
Guard = Callable[[Endpoint], Endpoint]


def connect_routes(grants: Grants, config: Callable[[], Config], guard: Guard) -> list[BaseRoute]:
    """The routes above; `guard` puts the gateway's Host check around each one."""

    async def connect(request: Request) -> Response:
        try:
            api = _per_client_api(config(), request.path_params["api"])
            if request.method == "GET":
                return await _offer(grants, api, request)
            return await _authorize(grants, api, request)
        except SpecbridgeError as error:
            return _refused(error, request)

    async def callback(request: Request) -> Response:
        try:
            api = _per_client_api(config(), request.path_params["api"])
            return await _finish(grants, api, request)
        except SpecbridgeError as error:
            return _refused(error, request)

    return [
        Route("/oauth/connect/{api}", guard(connect), methods=["GET", "POST"]),
        Route("/oauth/callback/{api}", guard(callback), methods=["GET"]),
    ]


def _per_client_api(config: Config, name: str) -> ApiConfig:
    api = config.apis.get(name)
    if api is None or api.auth.grant is None or not api.auth.grant.per_client:
        raise ConnectError("no API here connects accounts under this name", status=404)
    return api


async def _offer(grants: Grants, api: ApiConfig, request: Request) -> Response:
    connect_id = request.query_params.get("id", "")
    if not _ID.fullmatch(connect_id):
        raise ConnectError("this link is incomplete: open it exactly as the client gave it")
    offer = await grants.connections.offer(api, connect_id)
    browser = secrets.token_urlsafe(24)
    response = _page(api, "Connect your account", _offer_body(offer, connect_id, browser))
    grant = api.auth.grant
    assert grant is not None
    response.set_cookie(
        COOKIE,
        browser,
        max_age=int(CONNECT_LIFE),
        path=cookie_path(grant, api.name),
        secure=(grant.redirect_uri or "").startswith("https://"),
        httponly=True,
        samesite="lax",  # sent when the authorization server sends the browser back, never on a form from elsewhere
    )
    return response


def _offer_body(offer: Offer, connect_id: str, browser: str) -> str:
    client, api, host = (html.escape(part) for part in (offer.client, offer.api, offer.authorization_host))
    return (
        f"<p>This connects <strong>your account of {api}</strong> to the client <strong>{client}</strong> of "
        "this gateway: its calls to the API will then act as you.</p>"
        f"<p>Go on only if you asked for this in <strong>{client}</strong> yourself. You will sign in and "
        f"grant access at <strong>{host}</strong>, the API's own page.</p>"
        '<form method="post">'
        f'<input type="hidden" name="id" value="{html.escape(connect_id)}">'
        f'<input type="hidden" name="browser" value="{html.escape(browser)}">'
        f'<button type="submit">Continue to {host}</button></form>'
    )


async def _authorize(grants: Grants, api: ApiConfig, request: Request) -> Response:
    form = await _form(request)
    grant = api.auth.grant
    assert grant is not None
    origin = request.headers.get("origin")
    own = {_origin(grant.redirect_uri or ""), _origin(str(request.base_url))}
    cookie = request.cookies.get(COOKIE, "")
    given = form.get("browser", "")
    same = secrets.compare_digest(cookie.encode("utf-8", "replace"), given.encode("utf-8", "replace"))
    if (origin is not None and origin not in own) or not cookie or not same:
        raise SpecbridgeError(
            "this form did not come from the connect page in this browser; open the connect link again",
            code=ErrorCode.CSRF_INVALID,
        )
    connect_id = form.get("id", "")
    if not _ID.fullmatch(connect_id):
        raise ConnectError("this form is incomplete; open the connect link again")
    url = await grants.connections.authorize(api, connect_id, cookie)
    log_event("account connection started", api=api.name)
    return RedirectResponse(url, status_code=303, headers=_HEADERS)


async def _finish(grants: Grants, api: ApiConfig, request: Request) -> Response:
    query = request.query_params
    state = query.get("state", "")
    if not _ID.fullmatch(state):
        raise ConnectError(
            "this callback carries no authorization of this gateway; open the connect link again"
        )
    error = query.get("error")
    if error is not None:
        await grants.connections.drop(api, state, request.cookies.get(COOKIE))
        said = error if _OAUTH_ERROR.fullmatch(error) else "an error"
        raise SpecbridgeError(
            f"the API's authorization server did not grant access ({said}); nothing was connected. Call "
            "the tool again for a new link if you want to try again",
            code=ErrorCode.CONNECT_DECLINED,
        )
    code = query.get("code", "")
    if not code or len(code) > 4096:
        raise ConnectError("this callback carries no authorization code; open the connect link again")
    client = await grants.connections.finish(api, state, code, request.cookies.get(COOKIE))
    log_event("account connected", api=api.name, client=client)
    body = (
        f"<p>Your account of <strong>{html.escape(api.name)}</strong> is connected to the client "
        f"<strong>{html.escape(client)}</strong>. Go back to it and call again.</p>"
    )
    response = _page(api, "Connected", body)
    grant = api.auth.grant
    assert grant is not None
    response.delete_cookie(COOKIE, path=cookie_path(grant, api.name))
    return response


async def _form(request: Request) -> dict[str, str]:
    """The connect form, read no further than `MAX_FORM` bytes; one value per name."""
    if "application/x-www-form-urlencoded" not in request.headers.get("content-type", ""):
        raise ConnectError("this form is not the connect page's; open the connect link again")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_FORM:
            raise ConnectError("this form is too large to be the connect page's")
    try:
        fields = parse_qs(body.decode("ascii"), max_num_fields=8, strict_parsing=False)
    except (UnicodeDecodeError, ValueError):
        raise ConnectError("this form is not the connect page's; open the connect link again") from None
    return {name: values[0] for name, values in fields.items() if len(values) == 1}


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


_HEADERS = {
    "Cache-Control": "no-store",
    "Referrer-Policy": "same-origin",  # no Referer elsewhere (the id, the state), an Origin here
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
}


def _page(api: ApiConfig | None, title: str, body: str, status: int = 200) -> HTMLResponse:
    grant = api.auth.grant if api is not None else None
    target = _origin(grant.authorize_url) if grant is not None and grant.authorize_url else ""
    policy = (
        f"default-src 'none'; form-action 'self' {target}".rstrip()
        + "; frame-ancestors 'none'; base-uri 'none'"
    )
    text = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)} · specbridge</title></head>"
        f"<body><h1>{html.escape(title)}</h1>{body}</body></html>"
    )
    return HTMLResponse(text, status_code=status, headers={**_HEADERS, "Content-Security-Policy": policy})


def _refused(error: SpecbridgeError, request: Request) -> Response:
    status = error.status if isinstance(error, ConnectError) else 400
    if isinstance(error, StoreError):
        status, message = 503, "the gateway's store cannot be reached now; try again later"
    elif isinstance(error, GrantError):
        status, message = 502, error.message.replace("; nothing was sent", "; nothing was connected")
    elif isinstance(error, CallError):
        status, message = 503, error.message.replace("; nothing was sent", "")
    else:
        message = error.message
    if error.code == ErrorCode.CSRF_INVALID:
        status = 403
    log_event("account connection refused", level=logging.WARNING, path=request.url.path,
              code=str(error.code), reason=message)  # fmt: skip
    body = f"<p>{html.escape(message)}</p><p><small>[{html.escape(str(error.code))}]</small></p>"
    return _page(None, "Not connected", body, status=status)
