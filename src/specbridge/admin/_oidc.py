"""Signing in to the admin page with the company's OpenID Connect provider (`oauth_server.upstream`),
beside admin keys: a person whose ID token an `oauth_server.admins` rule maps to `admins.<id>` answers
approvals as that admin.

    GET /admin/sign-in/oidc?next=…   a sign-in begun: `state`, `nonce` and PKCE kept sealed in the store
                                     ten minutes, bound to this browser (an `HttpOnly`, `SameSite=Lax`
                                     cookie: it must come back with the provider's redirect); the
                                     browser goes to the provider
    GET /admin/sign-in/callback      back from the provider: the state read with the cookie and only then
                                     taken (once), the code redeemed and the ID token checked
                                     (`access.OidcProvider`), the person mapped, a session opened in the
                                     store like a key's (its claims kept, so a rule taken away ends it at
                                     the next page load); a page that goes on to the list by itself

The session cookie is `SameSite=Strict`, so the page after the provider's cross-site redirect is reached
by a same-site `<meta>` refresh rather than by a redirect, which would not carry it. Register
`<oauth_server.issuer>/admin/sign-in/callback` as a redirect URI at the provider.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from .._errors import ErrorCode, SpecbridgeError
from ..access import OidcProvider, SignInError, Start
from ..config import AdminConfig, ClaimRule, OAuthServerConfig, first_match
from ..grants import Unreadable, sealer_of
from ..store import Store
from ._guard import log_admin
from ._html import HEADERS, document, e

CALLBACK = "/admin/sign-in/callback"
BROWSER_COOKIE = "specbridge_admin_oidc"
LIFE = 600.0
KEPT_CLAIMS = ("sub", "email", "email_verified", "name")
_VALUE = re.compile(r"[A-Za-z0-9_-]{32,64}")
Open = Callable[[AdminConfig, dict[str, Any]], Awaitable[str]]  # a session opened: the cookie's value


def _mark(browser: str) -> str:
    return hashlib.sha256(browser.encode()).hexdigest()


class AdminSignIn:
    def __init__(
        self,
        settings: Callable[[], OAuthServerConfig | None],
        store: Callable[[], Awaitable[Store]],
        admins: Mapping[str, AdminConfig],
        provider: Callable[[], OidcProvider],
        clock: Callable[[], float] = time.time,
    ) -> None:
        """`provider`: the sign-in provider's relying party of the config served now (the gateway's,
        which the front shares and which the gateway closes)."""
        self._settings = settings
        self._store = store
        self.admins = admins
        self._provider = provider
        self._clock = clock

    def rules(self) -> tuple[ClaimRule, ...]:
        settings = self._settings()
        return settings.admins if settings is not None else ()

    def offered(self) -> bool:
        settings = self._settings()
        return settings is not None and bool(settings.admins)

    async def start(self, request: Request, next_path: str) -> Response:
        settings = self._settings()
        if settings is None or not settings.admins:
            raise SignInError("this gateway signs no admins in with OpenID Connect")
        browser = request.cookies.get(BROWSER_COOKIE) or ""
        if not _VALUE.fullmatch(browser):
            browser = secrets.token_urlsafe(32)
        begun = Start.new()
        record = {
            "nonce": begun.nonce,
            "verifier": begun.verifier,
            "browser": _mark(browser),
            "next": next_path,
        }
        slot = f"admin-signin:{begun.state}"
        now = self._clock()
        sealed = sealer_of(settings.store_key).seal(slot, orjson.dumps(record))
        await (await self._store()).put_sealed(slot, sealed, now + LIFE, now)
        url = await self._provider().authorize_url(begun, settings.issuer + CALLBACK)
        response = RedirectResponse(
            url, status_code=303, headers={**HEADERS, "Referrer-Policy": "no-referrer"}
        )
        response.set_cookie(BROWSER_COOKIE, browser, max_age=int(LIFE), path="/admin", httponly=True,
                            samesite="lax", secure=settings.issuer.startswith("https://"))  # fmt: skip
        return response

    async def finish(self, request: Request, open_session: Open) -> tuple[Response, str]:
        """The person back from the provider: a page that goes on, with the session cookie's value."""
        settings = self._settings()
        if settings is None or not settings.admins:
            raise SignInError("this gateway signs no admins in with OpenID Connect")
        query = request.query_params
        if query.get("error") is not None:
            raise SignInError("the sign-in provider did not sign you in")
        state, browser = query.get("state", ""), request.cookies.get(BROWSER_COOKIE)
        slot = f"admin-signin:{state}"
        store = await self._store()
        kept = self._open(settings, slot, await store.get_sealed(slot, self._clock())) if state else None
        if kept is None or browser is None or not hmac.compare_digest(_mark(browser), str(kept["browser"])):
            raise SpecbridgeError(
                "this sign-in is unknown, used, expired, or was started in another browser; sign in again",
                code=ErrorCode.CSRF_INVALID,
            )
        if await store.take_sealed(slot, self._clock()) is None:
            raise SignInError("this sign-in was already used; sign in again")
        begun = Start(state, str(kept["nonce"]), str(kept["verifier"]))
        claims = await self._provider().finish(query.get("code", ""), begun, settings.issuer + CALLBACK)
        admin_id = first_match(settings.admins, claims)
        admin = self.admins.get(admin_id) if admin_id is not None else None
        shown = claims.get("email") if isinstance(claims.get("email"), str) else claims["sub"]
        if admin is None:
            log_admin(
                "admin sign-in refused", code=str(ErrorCode.SIGNIN_UNMAPPED), via="admin-oidc", status=403
            )
            raise SpecbridgeError(
                f"you signed in as {shown}, but no rule of oauth_server.admins makes that account an admin",
                code=ErrorCode.SIGNIN_UNMAPPED,
            )
        rules = {rule.claim for rule in settings.admins}
        kept_claims = {name: claims[name] for name in (*KEPT_CLAIMS, *rules) if name in claims}
        sid = await open_session(admin, kept_claims)
        log_admin("admin signed in", admin=admin.id, via="admin-oidc")
        target = str(kept.get("next") or "/admin/")
        body = (
            f"<p>Signed in as <strong>{e(admin.id)}</strong> ({e(shown)}).</p>"
            f'<p><a href="{e(target)}">Go on to the approvals</a></p>'
        )
        page = document(body, signed_in=None, refresh=target)
        page.headers["Refresh"] = f"0; url={target}"
        return page, sid

    def _open(self, settings: OAuthServerConfig, slot: str, blob: bytes | None) -> dict[str, Any] | None:
        if blob is None:
            return None
        try:
            found = orjson.loads(sealer_of(settings.store_key).open(slot, blob))
        except (Unreadable, orjson.JSONDecodeError):
            return None
        return found if isinstance(found, dict) else None
