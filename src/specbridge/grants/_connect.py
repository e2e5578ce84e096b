"""Connecting one client's own account of an API (`oauth2_authorization_code`, `per_client: true`): the
authorization code grant with PKCE (RFC 6749 §4.1, RFC 7636 S256), run by a person in a browser.

    link     a call of a client with no account gets `account-not-connected` and a connect link
             (`/oauth/connect/<api>?id=…`, used once, ten minutes), bound in the store to that client
    offer    the link's page names the client and the API, and asks the person to go on (a form, so a
             link opened by another site's page does nothing; the page cannot be framed)
    authorize  going on takes the link (once) and starts an authorization: a new `state` bound to the
             client, the PKCE verifier and this browser (a cookie only this page set), kept sealed for
             ten minutes; the browser is sent to the API's consent page
    finish   the API's authorization server sends the browser back to `/oauth/callback/<api>` with a
             code; the browser checked, then the state taken (once: a callback without the cookie
             leaves it, so a forged one cannot spend it), the code exchanged (with the verifier) at
             the token endpoint, and the tokens stored as that client's account

So a connect link works once and only for a short time, a state works once and only in the browser
that started it, a code is no use without the verifier that never left the gateway, and tokens are
stored under the client the link was made for, never another.
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit

import orjson

from .._errors import ErrorCode, SpecbridgeError
from ..config import CALLBACK_PATH, ApiConfig, GrantConfig
from ..store import Store
from ._endpoint import TokenEndpoint
from ._keeper import Keeper
from ._results import AccountNotConnected
from ._seal import Unreadable, sealer_for
from ._slots import account_slot, connect_slot, grant_of, state_slot
from ._tokens import Tokens

CONNECT_LIFE = 600.0  # seconds a connect link and an authorization under way are good for
ACCOUNT_KEEP = 400 * 86400.0  # seconds an account with a refresh token is kept after it was last renewed
ID_BYTES = 24


class ConnectError(SpecbridgeError):
    """A connect page or callback that cannot go on (the person reads the message); `status`: its HTTP
    status (404 for an API that connects no accounts)."""

    code = ErrorCode.CONNECT_INVALID

    def __init__(self, message: str, *, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclass(frozen=True, slots=True)
class Offer:
    """What a connect link's page shows: whose account it connects, and where the person goes."""

    client: str
    api: str
    authorization_host: str


def keep_account(tokens: Tokens) -> float:
    """Until when the store keeps an account: its refresh token outlives the access token."""
    if tokens.refresh is None:
        return tokens.usable_until
    return max(tokens.usable_until, tokens.obtained_at + ACCOUNT_KEEP)


def connect_url(grant: GrantConfig, api: str, connect_id: str) -> str:
    """The gateway's connect page, at the public address `redirect_uri` names."""
    callback = grant.redirect_uri or ""
    base = callback[: len(callback) - len(CALLBACK_PATH + api)]
    return f"{base}/oauth/connect/{api}?" + urlencode({"id": connect_id})


def cookie_path(grant: GrantConfig, api: str) -> str:
    """The path the connect cookie is sent to: the gateway's `/oauth/` as the browser sees it."""
    path = urlsplit(grant.redirect_uri or "").path
    return path[: len(path) - len(CALLBACK_PATH + api)] + "/oauth/"


def browser_mark(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def _challenge(verifier: str) -> str:
    digest = hashlib.sha256(verifier.encode("ascii")).digest()
    return base64.urlsafe_b64encode(digest).decode("ascii").rstrip("=")


class Connections:
    """The connect flow of every per-client API of one gateway (see the module)."""

    def __init__(
        self,
        store: Callable[[], Awaitable[Store]],
        keeper: Keeper,
        endpoint: Callable[[ApiConfig], TokenEndpoint],
        clock: Callable[[], float],
    ) -> None:
        self._store = store
        self._keeper = keeper
        self._endpoint = endpoint
        self._clock = clock

    async def link(self, api: ApiConfig, client: str) -> AccountNotConnected:
        """A new connect link for `client` (stored), and the refusal that hands it over."""
        grant = grant_of(api)
        connect_id = secrets.token_urlsafe(ID_BYTES)
        slot = connect_slot(api.name, connect_id)
        record = orjson.dumps({"client": client})
        now = self._clock()
        await (await self._store()).put_sealed(
            slot, sealer_for(grant).seal(slot, record), now + CONNECT_LIFE, now
        )
        url = connect_url(grant, api.name, connect_id)
        return AccountNotConnected(
            f"this client has not connected its account of {api.name} yet, so nothing was sent. Ask the "
            f"user to open this link and connect it (it works once, within {CONNECT_LIFE / 60:g} minutes), "
            f"then call the tool again: {url}",
            is_error=True,
            code=ErrorCode.ACCOUNT_NOT_CONNECTED,
            url=url,
            elicitation_id=connect_id,
            api=api.name,
        )

    async def offer(self, api: ApiConfig, connect_id: str) -> Offer:
        """What the link's page shows (the link is not used up); ConnectError for one that is unknown,
        used or expired."""
        grant = grant_of(api)
        slot = connect_slot(api.name, connect_id)
        record = await self._open(grant, slot, await (await self._store()).get_sealed(slot, self._clock()))
        return Offer(str(record["client"]), api.name, urlsplit(grant.authorize_url or "").netloc)

    async def authorize(self, api: ApiConfig, connect_id: str, browser: str) -> str:
        """The link taken (once), an authorization begun for its client in this browser (`browser`: the
        cookie's secret); the URL of the API's consent page to send the browser to."""
        grant = grant_of(api)
        store = await self._store()
        slot = connect_slot(api.name, connect_id)
        client = str((await self._open(grant, slot, await store.take_sealed(slot, self._clock())))["client"])
        state, verifier = secrets.token_urlsafe(ID_BYTES), secrets.token_urlsafe(48)
        record = {"client": client, "verifier": verifier, "browser": browser_mark(browser)}
        where = state_slot(api.name, state)
        now = self._clock()
        sealed = sealer_for(grant).seal(where, orjson.dumps(record))
        await store.put_sealed(where, sealed, now + CONNECT_LIFE, now)
        query = {
            "response_type": "code",
            "client_id": grant.client_id,
            "redirect_uri": grant.redirect_uri or "",
            "scope": " ".join(grant.scopes),
            "state": state,
            "code_challenge": _challenge(verifier),
            "code_challenge_method": "S256",
        }
        authorize_url = grant.authorize_url or ""
        return authorize_url + ("&" if "?" in authorize_url else "?") + urlencode(query)

    async def finish(self, api: ApiConfig, state: str, code: str, browser: str | None) -> str:
        """The state taken (once) and checked against this browser, the code exchanged, the tokens
        stored as the state's client's account; that client. ConnectError, or GrantError when the token
        endpoint gave nothing usable."""
        grant = grant_of(api)
        store = await self._store()
        record = await self._take(api, grant, state, browser)
        client = str(record["client"])
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": grant.redirect_uri or "",
            "code_verifier": str(record["verifier"]),
        }
        tokens = await self._endpoint(api).ask(grant, form, self._clock())
        slot = account_slot(api, client)
        await store.put_sealed(
            slot, sealer_for(grant).seal(slot, tokens.data()), keep_account(tokens), self._clock()
        )
        self._keeper.forget(slot)  # this process's memory of an earlier account of the client
        return client

    async def drop(self, api: ApiConfig, state: str, browser: str | None) -> None:
        """The authorization under `state` given up (the person declined, in the browser that started
        it): it cannot be finished. ConnectError, and nothing given up, from another browser."""
        await self._take(api, grant_of(api), state, browser)

    async def _take(
        self, api: ApiConfig, grant: GrantConfig, state: str, browser: str | None
    ) -> dict[str, object]:
        """The authorization under `state`, taken (once) only by the browser that started it: a callback
        forged with a state someone saw, without that browser's cookie, leaves it to its person."""
        store = await self._store()
        where = state_slot(api.name, state)
        record = await self._open(grant, where, await store.get_sealed(where, self._clock()))
        if browser is None or not secrets.compare_digest(browser_mark(browser), str(record["browser"])):
            raise ConnectError(
                "this authorization was started in another browser (or its cookie is gone); open the "
                "connect link again in this one"
            )
        return await self._open(grant, where, await store.take_sealed(where, self._clock()))

    async def _open(self, grant: GrantConfig, slot: str, blob: bytes | None) -> dict[str, object]:
        if blob is None:
            raise ConnectError(
                "this link is unknown, used or expired (a link works once, within "
                f"{CONNECT_LIFE / 60:g} minutes); call the tool again for a new one"
            )
        try:
            found = orjson.loads(sealer_for(grant).open(slot, blob))
        except (Unreadable, orjson.JSONDecodeError):
            raise ConnectError("this link cannot be read by this gateway; call the tool again") from None
        if not isinstance(found, dict):
            raise ConnectError("this link cannot be read by this gateway; call the tool again")
        return found
