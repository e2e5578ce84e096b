"""The access tests' pieces: an issuer the test mints tokens for (its JWKS served by the real loopback
upstream), a settable clock, and a `ResourceServer` for one API checked against that JWKS."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

from specbridge.access import ResourceServer
from specbridge.config import IntrospectionConfig, OAuthConfig, Secret
from tests.support.tokens import Issuer
from tests.support.upstream import Upstream, json_response

RESOURCE = "http://127.0.0.1/shop/mcp"


class Clock:
    """Time that moves only when a test says so (epoch seconds and a monotonic reading, both)."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@pytest.fixture
def issuer(upstream: Upstream) -> Issuer:
    """An issuer at the upstream's URL, its JWKS at /jwks."""
    minted = Issuer(upstream.url)
    upstream.route("/jwks", json_response(minted.jwks()))
    return minted


@pytest.fixture
def clock() -> Clock:
    return Clock()


MakeServer = Callable[..., ResourceServer]


@pytest.fixture
async def make_server(upstream: Upstream) -> AsyncIterator[MakeServer]:
    """`make_server(**oauth settings)`: a resource server for the issuer at the upstream (JWKS at /jwks
    unless settings say otherwise), allowed to reach the upstream; closed after the test."""
    made: list[ResourceServer] = []

    def make(*, allow: tuple[str, ...] | None = None, clock: Any = None, **settings: Any) -> ResourceServer:
        settings.setdefault("issuer", upstream.url)
        if "introspection" in settings:
            given = settings["introspection"]
            settings["introspection"] = IntrospectionConfig(
                given["url"], given["client_id"], Secret(given["secret"])
            )
        else:
            settings.setdefault("jwks_uri", upstream.url + "/jwks")
        options: dict[str, Any] = {} if clock is None else {"clock": clock, "monotonic": clock}
        server = ResourceServer(
            OAuthConfig(**settings), (upstream.address,) if allow is None else allow, **options
        )
        made.append(server)
        return server

    yield make
    for server in made:
        await server.aclose()
