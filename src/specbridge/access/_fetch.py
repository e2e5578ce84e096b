"""Asking the authorization server: its metadata, its JWKS, its introspection endpoint.

Every request goes through the API's egress policy (`call.EgressPolicy` under `call.EgressTransport`:
each resolved address checked, the connection pinned to it), so an authorization server on a private
address needs `apis.<name>.egress.allow`, like the API itself. Redirects are not followed, answers are
read up to a bound, each request ends within `TIMEOUT` in all (a server dripping its answer a byte at a
time included), and any failure becomes `token-check-unavailable`: the gateway cannot check a token now,
which is not the token's fault. A URL the authorization server names (a JWKS found from its metadata) is
held to the rules a written one meets (`check_named`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

import httpx
import orjson

from .._errors import ErrorCode, RequestRefused, TokenError
from .._network import base_url_host, check_base_url, is_allowed, parse_allow
from ..call import EgressPolicy, EgressTransport, ask_small

TIMEOUT = 5.0  # one request in all: connecting, sending, every byte of the answer
MAX_ANSWER_BYTES = 256 * 1024  # a JWKS of a few dozen keys, a metadata document, an introspection answer


def unavailable(message: str) -> TokenError:
    return TokenError(message, code=ErrorCode.TOKEN_CHECK_UNAVAILABLE)


class Fetcher:
    """One HTTP client per API's token checks, bound to that API's egress exceptions."""

    def __init__(
        self, allow: tuple[str, ...] = (), *, transport: httpx.AsyncBaseTransport | None = None
    ) -> None:
        self._client = httpx.AsyncClient(
            transport=EgressTransport(EgressPolicy(allow=allow), transport),
            timeout=TIMEOUT,
            follow_redirects=False,
            trust_env=False,
            # Raw bytes are counted against the bound, so nothing compressed is asked for (no gzip bomb).
            headers={"Accept": "application/json", "Accept-Encoding": "identity"},
        )
        self.requests = 0  # how many were sent (the JWKS refetch rule is tested on it)
        self._allow = tuple(parse_allow(entry) for entry in allow)

    def check_named(self, url: str, what: str) -> str:
        """`url`, named by the authorization server, when it meets what `oauth.jwks_uri` written in the
        config must: a public address or one under egress.allow, https:// unless its host is listed
        there; else `token-check-unavailable` and nothing is fetched."""
        try:
            check_base_url(url, self._allow)
            host, port = base_url_host(url)
        except RequestRefused as error:
            raise unavailable(
                f"{what} is not fetched: {error.message.replace('the base URL', 'it')}"
            ) from None
        if urlsplit(url).scheme != "https" and not is_allowed(self._allow, host, port):
            raise unavailable(
                f"{what} is not fetched: it must be https:// (http:// only for a host under egress.allow)"
            )
        return url

    async def get_json(self, url: str, what: str) -> tuple[int, Any]:
        return await self._send("GET", url, what)

    async def post_form(
        self, url: str, what: str, data: Mapping[str, str], auth: tuple[str, str] | None
    ) -> tuple[int, Any]:
        if auth is None:  # a public client names itself in the form
            return await self._send("POST", url, what, data=dict(data))
        return await self._send("POST", url, what, data=dict(data), auth=auth)

    async def _send(self, method: str, url: str, what: str, **options: Any) -> tuple[int, Any]:
        """(status, JSON body or None); raises `token-check-unavailable` when nothing usable came back.
        `what` names the document in messages ("the JWKS at https://…"); never a token or secret."""
        self.requests += 1
        status, body = await ask_small(
            self._client,
            method,
            url,
            what=what,
            limit=MAX_ANSWER_BYTES,
            timeout=TIMEOUT,
            failed=unavailable,
            **options,
        )
        try:
            return status, orjson.loads(body)
        except orjson.JSONDecodeError:
            if 200 <= status < 300:
                raise unavailable(f"{what} did not answer JSON") from None
            return status, None

    async def aclose(self) -> None:
        await self._client.aclose()
