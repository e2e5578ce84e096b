"""The front's authorization code flow (OAuth 2.1, RFC 6749 §4.1 with PKCE S256 only), one person at a
time, and the token endpoint that ends it:

    authorize  GET /oauth/authorize: the client and its redirect URI are checked first (a bad one is a
               page here, never a redirect: no open redirect), then the request (code, S256, the MCP
               resource, scopes; a bad one goes back to the client as an OAuth error); it is kept under
               a new `state`, bound to this browser (a cookie), and the person is sent to sign in at the
               provider (PKCE, state, nonce of our own)
    signed_in  the provider sends the person back: the state is read, checked against the browser's
               cookie and only then taken (once); the code redeemed and the ID token checked; the person
               mapped to a client by the operator's rules; the consent page is offered (its own id and
               CSRF token, once, ten minutes)
    consent    the person allows (or denies): a code, bound to the client, its redirect URI and its PKCE
               challenge, good once for 60 seconds, goes back to the client's redirect URI with its
               `state` and our `iss` (RFC 9207)
    token      POST /oauth/token: a code (its client, redirect URI and verifier must match; it is taken
               first, so a wrong verifier spends it too) or a refresh token (`_issue`)
"""

from __future__ import annotations

import hmac
import re
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

from .._errors import ErrorCode, SpecbridgeError
from ..access import OidcProvider, Start, canonical_resource, challenge_of
from ..config import ApiConfig, Config, OAuthServerConfig, first_match
from ._clients import Client, Clients
from ._issue import Issuer, Refused
from ._records import Records, digest

AUTHORIZATION_LIFE = 600.0
CODE_LIFE = 60.0
_CHALLENGE = re.compile(r"[A-Za-z0-9_-]{43}")
_VERIFIER = re.compile(r"[A-Za-z0-9._~-]{43,128}")
_STATE = re.compile(r"[\x20-\x7e]{0,512}")
KEPT_CLAIMS = ("sub", "email", "email_verified", "name", "preferred_username")


class PageError(SpecbridgeError):
    """What the person reads on a page of the front (never sent to the client's redirect URI)."""

    def __init__(
        self,
        message: str,
        code: ErrorCode = ErrorCode.AUTHORIZE_INVALID,
        status: int = 400,
        back: str | None = None,
    ) -> None:
        super().__init__(message, code=code)
        self.status = status
        self.back = back  # the client's redirect URI with `access_denied`, when it is known and checked


class ToClient(Exception):
    """An OAuth error that goes back to the client's (checked) redirect URI."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.url = url


@dataclass(frozen=True, slots=True)
class Offer:
    """What the consent page shows and posts back."""

    consent_id: str
    csrf: str
    client: Client
    person: str
    mapped: str
    api: str
    scope: str
    redirect_uri: str


def front_resources(config: Config, settings: OAuthServerConfig) -> dict[str, ApiConfig]:
    """The MCP resources whose tokens the front issues, by URL: each API whose `oauth.issuer` is the
    front, at its `oauth.audience`, else at `<issuer>/<api>/mcp` (and `<issuer>/mcp` with one API)."""
    found: dict[str, ApiConfig] = {}
    for api in config.apis.values():
        if api.oauth is None or not api.oauth.front:
            continue
        if api.oauth.audience:
            found[canonical_resource(api.oauth.audience)] = api
            continue
        found[canonical_resource(f"{settings.issuer}/{api.name}/mcp")] = api
        if len(config.apis) == 1:
            found[canonical_resource(f"{settings.issuer}/mcp")] = api
    return found


def back_to(redirect_uri: str, **query: str) -> str:
    return redirect_uri + ("&" if urlsplit(redirect_uri).query else "?") + urlencode(query)


class Flow:
    def __init__(
        self,
        config: Callable[[], Config],
        records: Records,
        clients: Clients,
        provider: Callable[[], OidcProvider],
        issuer: Issuer,
    ) -> None:
        self._config = config
        self.records = records
        self.clients = clients
        self._provider = provider
        self.issuer = issuer

    @property
    def settings(self) -> OAuthServerConfig:
        settings = self._config().oauth_server
        assert settings is not None
        return settings

    async def authorize(self, query: Mapping[str, str], browser: str) -> str:
        """Where the person goes to sign in (see the module); PageError or ToClient otherwise."""
        client_id = query.get("client_id", "")
        if not client_id or len(client_id) > 2000:
            raise PageError("this authorization request names no client")
        client = await self.clients.get(client_id)
        redirect_uri = query.get("redirect_uri", "")
        if redirect_uri not in client.redirect_uris:  # exactly, character for character
            raise PageError("this redirect URI is not one the client registered; nothing was sent to it")
        state = query.get("state", "")
        settings = self.settings

        def refuse(error: str, description: str) -> ToClient:
            answer = {"error": error, "error_description": description, "iss": settings.issuer}
            return ToClient(back_to(redirect_uri, **answer, **({"state": state} if state else {})))

        if not _STATE.fullmatch(state):
            raise PageError(
                "this authorization request's state is not printable text of up to 512 characters"
            )
        if query.get("response_type") != "code":
            raise refuse("unsupported_response_type", "only the authorization code flow (response_type=code)")
        if query.get("code_challenge_method") != "S256" or not _CHALLENGE.fullmatch(
            query.get("code_challenge", "")
        ):
            raise refuse("invalid_request", "PKCE with code_challenge_method=S256 is required")
        api, resource = self._resource(query.get("resource"), refuse)
        scope = self._scope(api, query.get("scope", ""))
        start = Start.new()
        record = {"client_id": client.client_id, "redirect_uri": redirect_uri, "state": state,
                  "challenge": query["code_challenge"], "scope": scope, "resource": resource, "api": api.name,
                  "nonce": start.nonce, "verifier": start.verifier, "browser": digest(browser)}  # fmt: skip
        await self.records.put("authz", start.state, record, self.records.clock() + AUTHORIZATION_LIFE)
        return await self._provider().authorize_url(start, settings.signin_callback)

    def _resource(self, given: str | None, refuse: Callable[[str, str], ToClient]) -> tuple[ApiConfig, str]:
        resources = front_resources(self._config(), self.settings)
        if given is None:
            apis = {api.name for api in resources.values()}
            if len(apis) != 1:
                raise refuse("invalid_target", "name the MCP endpoint as `resource` (RFC 8707)")
            resource, api = next(iter(resources.items()))
            return api, resource
        resource = canonical_resource(given)
        if resource not in resources:
            raise refuse("invalid_target", "this gateway issues no tokens for that resource")
        return resources[resource], resource

    @staticmethod
    def _scope(api: ApiConfig, asked: str) -> str:
        """The scopes granted: those asked that the API knows, and every one it requires."""
        assert api.oauth is not None
        known = set(api.oauth.advertised_scopes)
        granted = {scope for scope in asked.split() if scope in known} | set(api.oauth.scopes_supported)
        return " ".join(sorted(granted))

    async def signed_in(self, state: str, code: str, browser: str | None) -> Offer:
        """The person back from the provider (see the module): the consent page's offer."""
        kept = await self.records.get("authz", state) if state else None
        if kept is None or browser is None or not hmac.compare_digest(digest(browser), str(kept["browser"])):
            raise PageError(
                "this sign-in is unknown, used, expired, or was started in another browser; start again "
                "from the application"
            )
        if await self.records.take("authz", state) is None:  # of two callbacks, one goes on
            raise PageError("this sign-in was already used; start again from the application")
        start = Start(state, str(kept["nonce"]), str(kept["verifier"]))
        claims = await self._provider().finish(code, start, self.settings.signin_callback)
        person = str(claims["sub"])
        shown = claims.get("email") if isinstance(claims.get("email"), str) else None
        mapped = first_match(self.settings.users, claims)
        config = self._config()
        client_config = config.clients.get(mapped) if mapped is not None else None
        if client_config is None or kept["api"] not in client_config.apis:
            raise PageError(
                f"you signed in as {shown or person}, but this gateway's operator has not given that "
                f"account access to {kept['api']} (oauth_server.users); nothing was issued",
                ErrorCode.SIGNIN_UNMAPPED,
                403,
                back_to(
                    str(kept["redirect_uri"]),
                    error="access_denied",
                    iss=self.settings.issuer,
                    **({"state": str(kept["state"])} if kept["state"] else {}),
                ),
            )
        client = await self.clients.get(str(kept["client_id"]))
        consent_id, csrf = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
        rules = {rule.claim for rule in self.settings.users}
        kept_claims = {name: claims[name] for name in (*KEPT_CLAIMS, *rules) if _plain(claims.get(name))}
        record = {**kept, "person": person, "shown": shown or person, "client": mapped, "csrf": csrf,
                  "claims": kept_claims}  # fmt: skip
        await self.records.put("consent", consent_id, record, self.records.clock() + AUTHORIZATION_LIFE)
        return Offer(consent_id, csrf, client, shown or person, mapped or "", str(kept["api"]),
                     str(kept["scope"]), str(kept["redirect_uri"]))  # fmt: skip

    async def consent(self, consent_id: str, csrf: str, browser: str | None, allow: bool) -> str:
        """The person's answer on the consent page: where the browser goes back to the client."""
        kept = await self.records.get("consent", consent_id) if consent_id else None
        same_browser = (
            kept is not None
            and browser is not None
            and hmac.compare_digest(digest(browser), str(kept["browser"]))
        )
        if (
            kept is None
            or not same_browser
            or not hmac.compare_digest(csrf.encode(), str(kept["csrf"]).encode())
        ):
            raise PageError(
                "this consent page is stale, used, or from another browser; start again",
                ErrorCode.CSRF_INVALID,
                403,
            )
        if await self.records.take("consent", consent_id) is None:
            raise PageError("this consent was already answered; start again from the application")
        redirect_uri, state = str(kept["redirect_uri"]), str(kept["state"])
        back = {"iss": self.settings.issuer, **({"state": state} if state else {})}
        if not allow:
            return back_to(
                redirect_uri, error="access_denied", error_description="the person declined", **back
            )
        code = secrets.token_urlsafe(32)
        grant = {
            name: kept[name]
            for name in ("client_id", "person", "resource", "api", "scope", "client", "claims")
        }
        record = {"client_id": kept["client_id"], "redirect_uri": redirect_uri, "challenge": kept["challenge"],
                  "grant": grant}  # fmt: skip
        await self.records.put("code", digest(code), record, self.records.clock() + CODE_LIFE)
        return back_to(redirect_uri, code=code, **back)

    async def token(self, form: Mapping[str, str], client: Client) -> dict[str, Any]:
        """The token endpoint, for a client already authenticated (`client`)."""
        kind = form.get("grant_type")
        if kind == "refresh_token":
            refresh = form.get("refresh_token", "")
            if not refresh or len(refresh) > 512:
                raise Refused("invalid_request", "refresh_token is missing")
            return await self.issuer.refresh(refresh, client.client_id, form.get("scope"))
        if kind != "authorization_code":
            raise Refused("unsupported_grant_type", "only authorization_code and refresh_token")
        code, verifier = form.get("code", ""), form.get("code_verifier", "")
        record = await self.records.take("code", digest(code)) if code and len(code) <= 512 else None
        if record is None:
            raise Refused("invalid_grant", "the code is unknown, used or expired")
        if record["client_id"] != client.client_id or record["redirect_uri"] != form.get("redirect_uri"):
            raise Refused("invalid_grant", "the code was issued to another client or redirect URI")
        if not _VERIFIER.fullmatch(verifier) or not hmac.compare_digest(
            challenge_of(verifier), str(record["challenge"])
        ):
            raise Refused("invalid_grant", "the code_verifier does not match the code's challenge (PKCE)")
        if (
            form.get("resource") is not None
            and canonical_resource(form["resource"]) != record["grant"]["resource"]
        ):
            raise Refused("invalid_target", "the resource is not the one the code was issued for")
        return await self.issuer.sign_in(dict(record["grant"]))


def _plain(value: Any) -> bool:
    """A claim kept for the rules: text, a flag, or a short list of text."""
    if isinstance(value, str | bool):
        return True
    return isinstance(value, list) and len(value) <= 200 and all(isinstance(item, str) for item in value)
