"""The gateway's connect pages for per-client accounts (`_connect`), on Starlette, no MCP:

    GET  /oauth/connect/<api>?id=…    the link's page: whose account, which API, where the person goes;
                                      sets the cookie that binds the authorization to this browser
    POST /oauth/connect/<api>         the page's form (same origin, the cookie's value in it): the link
                                      taken, the browser sent to the API's consent page (303)
    GET  /oauth/callback/<api>        where the API's authorization server sends the browser back: the
                                      code exchanged and the account stored for the link's client

Every page is plain HTML (nothing to run, `_pages`: the admin page's look, the API's title and the
client's display name), cannot be framed (a click cannot be stolen), sends no Referer to another site
(the link's id and the state stay here; the form's own POST keeps its Origin) and is not cached. Each
outcome has its page — connected, denied, expired, error — and each refusal says why and carries its
code (docs/errors.md): `connect-invalid`, `connect-declined`, `csrf-invalid`, `upstream-auth-failed`,
`secret-unavailable`, `store-unavailable`.
"""

from __future__ import annotations

import logging
import re
import secrets
from collections.abc import Awaitable, Callable
from urllib.parse import parse_qs, urlsplit

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from .._errors import CallError, ErrorCode, SpecbridgeError
from .._logging import log_event
from ..config import ApiConfig, Config
from ..store import StoreError
from ._connect import CONNECT_LIFE, ConnectError, cookie_path
from ._endpoint import GrantError
from ._grants import Grants
from ._pages import HEADERS, Names, Outcome, offer_page, outcome_page

COOKIE = "specbridge_connect"
MAX_FORM = 4096  # bytes of the connect form (two short fields)
_ID = re.compile(r"[A-Za-z0-9_-]{16,128}")
_OAUTH_ERROR = re.compile(r"[a-z_]{1,40}")
Endpoint = Callable[[Request], Awaitable[Response]]
Guard = Callable[[Endpoint], Endpoint]
Title = Callable[[str], str | None]  # an API's title (its document's `info.title`), by its name


def connect_routes(
    grants: Grants, config: Callable[[], Config], guard: Guard, title: Title = lambda _: None
) -> list[BaseRoute]:
    """The routes above; `guard` puts the gateway's Host check around each one; `title` names an API
    as people know it."""

    def names(api: ApiConfig, client: str | None = None) -> Names:
        known = config().clients.get(client) if client is not None else None
        shown = known.shown_name if known is not None else client
        return Names(title(api.name) or api.name, shown)

    async def connect(request: Request) -> Response:
        api = None
        try:
            api = _per_client_api(config(), request.path_params["api"])
            if request.method == "GET":
                return await _offer(grants, api, request, names)
            return await _authorize(grants, api, request)
        except SpecbridgeError as error:
            return _refused(error, request, names(api) if api is not None else None)

    async def callback(request: Request) -> Response:
        api = None
        try:
            api = _per_client_api(config(), request.path_params["api"])
            return await _finish(grants, api, request, names)
        except SpecbridgeError as error:
            return _refused(error, request, names(api) if api is not None else None)

    return [
        Route("/oauth/connect/{api}", guard(connect), methods=["GET", "POST"]),
        Route("/oauth/callback/{api}", guard(callback), methods=["GET"]),
    ]


def _per_client_api(config: Config, name: str) -> ApiConfig:
    api = config.apis.get(name)
    if api is None or api.auth.grant is None or not api.auth.grant.per_client:
        raise ConnectError("no API here connects accounts under this name", status=404)
    return api


async def _offer(
    grants: Grants, api: ApiConfig, request: Request, names: Callable[[ApiConfig, str], Names]
) -> Response:
    connect_id = request.query_params.get("id", "")
    if not _ID.fullmatch(connect_id):
        raise ConnectError("this link is incomplete: open it exactly as the client gave it")
    offer = await grants.connections.offer(api, connect_id)
    browser = secrets.token_urlsafe(24)
    grant = api.auth.grant
    assert grant is not None
    response = offer_page(
        names(api, offer.client),
        grant.scopes,
        offer.authorization_host,
        {"id": connect_id, "browser": browser},
        target=_origin(grant.authorize_url or ""),
    )
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
    return RedirectResponse(url, status_code=303, headers=HEADERS)


async def _finish(
    grants: Grants, api: ApiConfig, request: Request, names: Callable[[ApiConfig, str], Names]
) -> Response:
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
        raise Declined(
            f"the API's authorization server did not grant access ({said}); nothing was connected. Call "
            "the tool again for a new link if you want to try again",
            code=ErrorCode.CONNECT_DECLINED,
            said=said,
        )
    code = query.get("code", "")
    if not code or len(code) > 4096:
        raise ConnectError("this callback carries no authorization code; open the connect link again")
    client = await grants.connections.finish(api, state, code, request.cookies.get(COOKIE))
    log_event("account connected", api=api.name, client=client)
    response = outcome_page(Outcome.CONNECTED, names(api, client), "")
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


class Declined(SpecbridgeError):
    """The person (or the authorization server) declined: `said` is its OAuth `error` code."""

    def __init__(self, message: str, *, code: ErrorCode, said: str) -> None:
        super().__init__(message, code=code)
        self.said = said


def _refused(error: SpecbridgeError, request: Request, names: Names | None) -> Response:
    status = error.status if isinstance(error, ConnectError) else 400
    outcome = Outcome.ERROR
    if isinstance(error, StoreError):
        status, message = 503, "the gateway's store cannot be reached now; try again later"
    elif isinstance(error, GrantError):
        status, message = 502, error.message.replace("; nothing was sent", "; nothing was connected")
    elif isinstance(error, CallError):
        status, message = 503, error.message.replace("; nothing was sent", "")
    else:
        message = error.message
    if isinstance(error, Declined):
        outcome, message = Outcome.DENIED, error.said
    elif (
        isinstance(error, ConnectError) and "expired" in message
    ):  # a link (or state) unknown, used or expired
        outcome = Outcome.EXPIRED
    if error.code == ErrorCode.CSRF_INVALID:
        status = 403
    log_event("account connection refused", level=logging.WARNING, path=request.url.path,
              code=str(error.code), reason=message)  # fmt: skip
    return outcome_page(outcome, names, message, str(error.code), status=status)
