"""The front's HTTP routes (Starlette, no MCP), each answering 404 while the config has no
`oauth_server`:

    GET  /.well-known/oauth-authorization-server   RFC 8414 metadata
    GET  /oauth/jwks                               the key access tokens are signed with
    GET  /oauth/authorize                          the authorization request (`_flow.authorize`)
    GET  /oauth/signin/callback                    back from the sign-in provider: the consent page
    POST /oauth/consent                            the person's answer: back to the client with a code
    POST /oauth/token                              codes and refresh tokens (RFC 6749 §3.2)
    POST /oauth/revoke                             RFC 7009
    POST /oauth/register                           RFC 7591, when `registration.dynamic` (rate-limited)

The browser pages are bound to the browser that started the authorization by an `HttpOnly` cookie
(`SameSite=Lax`: it must come back with the provider's top-level redirect) whose hash every record of
the flow holds; forms are read through the admin page's form reader (Host, Origin, 16 KB). The
endpoints clients call (metadata, token, revoke, register) answer any origin (CORS `*`, no cookies).
"""

from __future__ import annotations

import base64
import logging
import re
import secrets
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import parse_qsl, unquote

import orjson
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from .._errors import CallError, ErrorCode, SpecbridgeError, TokenError
from .._logging import log_event
from ..access import SignInError, front_keys
from ..store import StoreError
from ._clients import Client, ClientError
from ._flow import PageError, ToClient, front_resources
from ._front import Front
from ._issue import Refused
from ._pages import consent_page, refusal_page

COOKIE = "specbridge_signin"
MAX_BODY = 16_384
_COOKIE_VALUE = re.compile(r"[A-Za-z0-9_-]{32,64}")
CORS = {"Access-Control-Allow-Origin": "*", "Cache-Control": "no-store"}
Endpoint = Callable[[Request], Awaitable[Response]]
Guard = Callable[[Endpoint], Endpoint]


def metadata(front: Front) -> dict[str, Any]:
    settings = front.settings
    issuer = settings.issuer
    scopes: dict[str, None] = {}
    for api in front_resources(front._config(), settings).values():
        assert api.oauth is not None
        scopes |= dict.fromkeys(api.oauth.advertised_scopes)
    document: dict[str, Any] = {
        "issuer": issuer,
        "authorization_endpoint": f"{issuer}/oauth/authorize",
        "token_endpoint": f"{issuer}/oauth/token",
        "revocation_endpoint": f"{issuer}/oauth/revoke",
        "jwks_uri": f"{issuer}/oauth/jwks",
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post"],
        "revocation_endpoint_auth_methods_supported": ["none", "client_secret_basic", "client_secret_post"],
        "scopes_supported": list(scopes),
        "authorization_response_iss_parameter_supported": True,
        "client_id_metadata_document_supported": settings.metadata_documents,
    }
    if settings.dynamic_registration:
        document["registration_endpoint"] = f"{issuer}/oauth/register"
    return document


def _oauth_error(error: str, description: str, status: int = 400, **headers: str) -> JSONResponse:
    return JSONResponse({"error": error, "error_description": description}, status_code=status,
                        headers={**CORS, **headers})  # fmt: skip


async def _body(request: Request) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY):
        raise Refused("invalid_request", "the request body is too large")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise Refused("invalid_request", "the request body is too large")
    return bytes(body)


async def _form(request: Request) -> dict[str, str]:
    if (
        request.headers.get("content-type", "").partition(";")[0].strip().lower()
        != "application/x-www-form-urlencoded"
    ):
        raise Refused("invalid_request", "send an application/x-www-form-urlencoded body")
    try:
        pairs = parse_qsl((await _body(request)).decode("utf-8"), keep_blank_values=True, max_num_fields=20)
    except (UnicodeDecodeError, ValueError):
        raise Refused("invalid_request", "the form cannot be read") from None
    found: dict[str, str] = {}
    for name, value in pairs:
        if name in found:  # RFC 6749 §3.2: a parameter is sent once
            raise Refused("invalid_request", f"the parameter {name} is repeated")
        found[name] = value
    return found


def _credentials(request: Request, form: dict[str, str]) -> tuple[str, str | None]:
    """The client's id and secret: HTTP Basic (RFC 6749 §2.3.1, form-encoded), else the form."""
    scheme, _, value = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "basic":
        try:
            user, _, password = base64.b64decode(value.strip(), validate=True).decode("utf-8").partition(":")
        except (ValueError, UnicodeDecodeError):
            raise Refused("invalid_client", "the Basic credentials cannot be read", 401) from None
        return unquote(user.replace("+", " ")), unquote(password.replace("+", " "))
    return form.get("client_id", ""), form.get("client_secret")


async def _client(front: Front, request: Request, form: dict[str, str]) -> Client:
    """The client that sent `form` (to the token or revocation endpoint), once its credentials hold."""
    client_id, secret = _credentials(request, form)
    try:
        client = await front.clients.get(client_id)
    except ClientError:
        raise Refused("invalid_client", "this client is not known here", 401) from None
    if not client.secret_ok(secret):
        raise Refused("invalid_client", "the client's credentials are wrong", 401)
    return client


def _browser(request: Request) -> str | None:
    value = request.cookies.get(COOKIE)
    return value if value is not None and _COOKIE_VALUE.fullmatch(value) else None


def front_routes(
    front: Front, guard: Guard, read_form: Callable[[Request], Awaitable[dict[str, str]]]
) -> list[BaseRoute]:
    """The routes above; `guard`: the gateway's Host check; `read_form`: the admin page's form reader."""

    def served(endpoint: Endpoint) -> Endpoint:
        async def answer(request: Request) -> Response:
            if not front.enabled:
                return JSONResponse({"error": "not_found"}, status_code=404)
            try:
                return await endpoint(request)
            except Refused as refused:
                return _oauth_error(refused.error, refused.description, refused.status)
            except ToClient as back:
                return RedirectResponse(back.url, status_code=303, headers={"Cache-Control": "no-store"})
            except PageError as error:
                log_event(
                    "sign-in refused", level=logging.WARNING, code=str(error.code), reason=error.message
                )
                return refusal_page(error.message, str(error.code), error.status, error.back)
            except (ClientError, SignInError) as error:
                log_event(
                    "sign-in refused", level=logging.WARNING, code=str(error.code), reason=error.message
                )
                return refusal_page(error.message, str(error.code), 400)
            except (StoreError, CallError, TokenError) as error:
                log_event(
                    "sign-in unavailable", level=logging.WARNING, code=str(error.code), reason=error.message
                )
                return refusal_page(
                    "the gateway cannot sign anyone in now; try again shortly", str(error.code), 503
                )

        return guard(answer)

    async def well_known(request: Request) -> Response:
        return JSONResponse(metadata(front), headers={**CORS, "Cache-Control": "public, max-age=3600"})

    async def jwks(request: Request) -> Response:
        return JSONResponse({"keys": [front_keys(front.settings.store_key).jwk()]}, headers=CORS)

    async def authorize(request: Request) -> Response:
        query = {name: value for name, value in request.query_params.multi_items()}
        if len(query) != len(request.query_params.multi_items()):
            raise PageError("a parameter of this authorization request is repeated")
        browser = _browser(request) or secrets.token_urlsafe(32)
        url = await front.flow.authorize(query, browser)
        response = RedirectResponse(
            url, status_code=303, headers={"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}
        )
        response.set_cookie(COOKIE, browser, max_age=900, path="/oauth", httponly=True, samesite="lax",
                            secure=front.settings.issuer.startswith("https://"))  # fmt: skip
        return response

    async def callback(request: Request) -> Response:
        query = request.query_params
        if query.get("error") is not None:
            raise PageError("the sign-in provider did not sign you in; start again from the application",
                            ErrorCode.SIGNIN_FAILED)  # fmt: skip
        offer = await front.flow.signed_in(query.get("state", ""), query.get("code", ""), _browser(request))
        log_event(
            "signed in at the provider", client=offer.client.client_id, mapped=offer.mapped, api=offer.api
        )
        return consent_page(offer)

    async def consent(request: Request) -> Response:
        try:
            form = await read_form(request)
        except SpecbridgeError as error:
            raise PageError(error.message, error.code, 403) from None
        allow = form.get("decision") == "allow"
        url = await front.flow.consent(
            form.get("consent", ""), form.get("csrf", ""), _browser(request), allow
        )
        log_event("consent answered", allowed=allow)
        return RedirectResponse(url, status_code=303, headers={"Cache-Control": "no-store"})

    async def token(request: Request) -> Response:
        form = await _form(request)
        client = await _client(front, request, form)
        answer = await front.flow.token(form, client)
        log_event("token issued", client=client.client_id, grant=form.get("grant_type"))
        return JSONResponse(answer, headers={**CORS, "Pragma": "no-cache"})

    async def revoke(request: Request) -> Response:
        form = await _form(request)
        client = await _client(front, request, form)
        given = form.get("token", "")
        if given and len(given) <= 16 * 1024:
            await front.issuer.revoke(given, client.client_id)
        log_event("token revoked", client=client.client_id)
        return Response(status_code=200, headers=CORS)

    async def register(request: Request) -> Response:
        settings = front.settings
        if not settings.dynamic_registration:
            return _oauth_error("invalid_request", "this gateway takes no dynamic registrations", 404)
        wait = await front.records.count("front-register", settings.registrations_per_hour, 3600.0)
        if wait > 0:
            return _oauth_error("temporarily_unavailable", f"[{ErrorCode.REGISTRATION_LIMITED}] too many "
                                "registrations this hour; try again later", 429, **{"Retry-After": str(int(wait) + 1)})  # fmt: skip
        try:
            metadata_given = orjson.loads(await _body(request))
        except orjson.JSONDecodeError:
            return _oauth_error("invalid_client_metadata", "send the client's metadata as a JSON object")
        try:
            answer = await front.clients.register(metadata_given)
        except ClientError as error:
            return _oauth_error("invalid_client_metadata", error.message)
        log_event("client registered", client=answer["client_id"])
        return JSONResponse(answer, status_code=201, headers=CORS)

    async def preflight(request: Request) -> Response:
        return Response(status_code=204, headers={**CORS, "Access-Control-Allow-Methods": "GET, POST",
                        "Access-Control-Allow-Headers": "Authorization, Content-Type, MCP-Protocol-Version",
                        "Access-Control-Max-Age": "3600"})  # fmt: skip

    return [
        Route("/.well-known/oauth-authorization-server", served(well_known), methods=["GET"]),
        Route("/oauth/jwks", served(jwks), methods=["GET"]),
        Route("/oauth/authorize", served(authorize), methods=["GET"]),
        Route("/oauth/signin/callback", served(callback), methods=["GET"]),
        Route("/oauth/consent", served(consent), methods=["POST"]),
        Route("/oauth/token", served(token), methods=["POST"]),
        Route("/oauth/revoke", served(revoke), methods=["POST"]),
        Route("/oauth/register", served(register), methods=["POST"]),
        *(
            Route(path, preflight, methods=["OPTIONS"])
            for path in (
                "/.well-known/oauth-authorization-server",
                "/oauth/token",
                "/oauth/revoke",
                "/oauth/register",
            )
        ),
    ]
