"""Asking the API's token endpoint (RFC 6749 §4.1.3, §4.4, §6): one POST of a form, through the API's
own egress policy (`call.EgressPolicy` under `call.EgressTransport`: each resolved address checked, the
connection pinned to it), so a token endpoint on a private address needs `apis.<name>.egress.allow`
like the API itself. Redirects are not followed; the answer is read up to 64 KB (nothing compressed is
asked for), and the whole request ends within `TIMEOUT` however slowly the endpoint answers. The client authenticates with HTTP Basic (its id and secret form-encoded first, as §2.3.1
says), or, without a secret, names itself in the form (a public client, with PKCE).

Every failure is a `GrantError` (`upstream-auth-failed`) naming the status and the endpoint's OAuth
`error` code when it is one of the plain codes of RFC 6749 — never its description, a token or a
secret — so the agent's result says why and nothing was sent to the API.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Awaitable, Callable, Mapping
from urllib.parse import quote_plus

import httpx
import orjson

from .._errors import CallError, ConfigError, ErrorCode
from .._version import __version__
from ..call import EgressPolicy, EgressTransport, ask_small
from ..config import GrantConfig
from ._tokens import Tokens, from_answer

TIMEOUT = 10.0  # one request in all: connecting, sending, every byte of the answer
MAX_ANSWER = 64 * 1024
_OAUTH_ERROR = re.compile(r"[a-z_]{1,40}")
Resolve = Callable[[str, int], Awaitable[list[str]]]


class GrantError(CallError):
    """The token endpoint gave no usable token; `refused` when it said the grant itself is no good: 400
    with `invalid_grant` (a refresh token or code that is spent, revoked or expired), or 400 saying
    nothing (some servers, glewlwyd among them, answer a spent refresh token so)."""

    code = ErrorCode.UPSTREAM_AUTH_FAILED

    def __init__(self, why: str, *, status: int | None = None, error: str | None = None) -> None:
        super().__init__(f"the API's access token could not be had: {why}; nothing was sent")
        self.status = status
        self.error = error

    @property
    def refused(self) -> bool:
        return self.status == 400 and self.error in (None, "invalid_grant")


class TokenEndpoint:
    """One HTTP client for the token endpoints of an API, bound to its egress exceptions."""

    def __init__(
        self,
        allow: tuple[str, ...] = (),
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        resolve: Resolve | None = None,
    ) -> None:
        self._client = httpx.AsyncClient(
            transport=EgressTransport(EgressPolicy(allow=allow, resolve=resolve), transport),
            timeout=TIMEOUT,
            follow_redirects=False,
            trust_env=False,
            headers={
                "Accept": "application/json",
                "Accept-Encoding": "identity",
                "User-Agent": f"specbridge/{__version__}",
            },
        )
        self.requests = 0  # token requests sent (tests and the log count them)

    async def ask(
        self, grant: GrantConfig, form: Mapping[str, str], now: float, refresh: str | None = None
    ) -> Tokens:
        """The tokens the endpoint hands out for `form` (a grant's parameters); raises GrantError.
        `refresh`: the refresh token being used, kept when the answer brings no new one."""
        body = dict(form)
        headers: dict[str, str] = {}
        if grant.client_secret is not None:
            try:
                secret = grant.client_secret.reveal()
            except ConfigError:
                raise GrantError("the client_secret is not available to the gateway") from None
            pair = f"{quote_plus(grant.client_id)}:{quote_plus(secret)}".encode()
            headers["Authorization"] = "Basic " + base64.b64encode(pair).decode("ascii")
        else:
            body["client_id"] = grant.client_id
        self.requests += 1
        status, raw = await ask_small(
            self._client,
            "POST",
            grant.token_url,
            what="the token endpoint",
            limit=MAX_ANSWER,
            timeout=TIMEOUT,
            failed=GrantError,
            data=body,
            headers=headers,
        )
        try:
            answer = orjson.loads(raw)
        except orjson.JSONDecodeError:
            answer = None
        if status != 200:
            said_error = answer.get("error") if isinstance(answer, dict) else None
            code = said_error if isinstance(said_error, str) and _OAUTH_ERROR.fullmatch(said_error) else None
            said = f" ({code})" if code else ""
            raise GrantError(f"the token endpoint answered {status}{said}", status=status, error=code)
        tokens = from_answer(answer, now, refresh)
        if isinstance(tokens, str):
            raise GrantError(f"the token endpoint answered 200, but {tokens}", status=status)
        return tokens

    async def aclose(self) -> None:
        await self._client.aclose()
