"""What letting a request in costs: client keys as before, and OAuth access tokens.

    .venv/bin/python bench/oauth.py [--rounds N]
    PYTHONPATH=OTHER/src .venv/bin/python bench/oauth.py --keys-only   # part 2 on another tree (main)

1. The admission step alone, in process, one request at a time (median and p99 µs), with 20 key clients
   in the config (a key is compared against every client's, in constant time):
   - `access.authenticate`: a client key on an API without `oauth:` (the path every key request takes,
     unchanged);
   - `ResourceServer.admit` with a client key, on an API with `oauth:`;
   - `ResourceServer.admit` / `.check` with an access token already checked (a SHA-256 and a lookup);
   - `.check` with a token seen for the first time (PyJWT: RS256 signature and claims; the JWKS held);
   - `.check` with an introspection answer kept.
   Tokens are minted here (RS256, 2048-bit key); the JWKS and the introspection endpoint are the loopback
   upstream of tests/support/upstream.py, asked once.
2. A key client's request at the gateway's front door: the MCP endpoint's ASGI app (`McpEndpoint`: the
   Origin check, the snapshot, the client, the session cap) with the SDK's session manager replaced by
   one that answers nothing, so only the door is timed; and a whole `tools/call` (getProduct of the
   example shop) through the gateway's ASGI app in process (httpx's ASGITransport, JSON-RPC on an open
   session, no SDK client) against a loopback upstream in this process. `--keys-only` runs only this
   part, so the same figures can be had from another tree (PYTHONPATH=OTHER/src).
3. The gateway's own authorization server (`oauth_server:`, front/): its access token checked by the
   resource server (kept: the same hash and lookup as any token; first seen: the EdDSA signature and
   the sign-in looked up in the store), and what issuing costs on SQLite (a sign-in's first tokens: two
   sealed records written; a refresh: the old token taken, its tombstone and the sign-in written again,
   a new refresh token; the access token's signature alone).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

# tests.support; a PYTHONPATH given still comes first for specbridge itself (`--keys-only` on another tree)
sys.path.insert(1, str(Path(__file__).resolve().parents[1]))

import httpx
from tests.support.upstream import Upstream, json_response

from specbridge.access import authenticate, key_sha256
from specbridge.config import config_from_data
from specbridge.gateway import Gateway, http_app

ROOT = Path(__file__).resolve().parents[1]
SHOP = ROOT / "src" / "specbridge" / "examples" / "shop.openapi.yaml"
RESOURCE = "http://127.0.0.1/shop/mcp"
KEY = "sbk_bench-key-19"
CLIENTS = {
    f"client-{n}": {"key_sha256": key_sha256(f"sbk_bench-key-{n}"), "apis": ["shop"]} for n in range(20)
}


def config_data(upstream: Upstream, oauth: dict[str, Any] | None = None) -> dict[str, Any]:
    api: dict[str, Any] = {
        "spec": str(SHOP),
        "base_url": upstream.url,
        "egress": {"allow": [upstream.address]},
    }
    if oauth is not None:
        api["oauth"] = oauth
    return {"apis": {"shop": api}, "clients": CLIENTS}


def report(name: str, samples: list[float]) -> None:
    samples = sorted(samples)
    p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))]
    print(f"| {name} | {statistics.median(samples) * 1e6:,.1f} | {p99 * 1e6:,.1f} |")


async def timed(rounds: int, step: Callable[[int], Awaitable[Any]]) -> list[float]:
    for number in range(min(200, rounds)):  # warm up
        await step(number)
    samples = []
    for number in range(rounds):
        started = time.perf_counter()
        await step(number)
        samples.append(time.perf_counter() - started)
    return samples


async def admission(upstream: Upstream, rounds: int) -> None:
    from tests.support.tokens import Issuer

    from specbridge.access import ResourceServer
    from specbridge.config import IntrospectionConfig, OAuthConfig, Secret

    issuer = Issuer(upstream.url)
    upstream.route("/jwks", json_response(issuer.jwks()))
    upstream.route(
        "/introspect",
        json_response(
            {"active": True, "client_id": "client-3", "aud": RESOURCE, "exp": int(time.time()) + 3600}
        ),
    )
    plain = config_from_data(config_data(upstream), source="bench")
    api = plain.apis["shop"]
    clients = plain.clients
    key_headers = {"authorization": f"Bearer {KEY}"}
    allow = (upstream.address,)
    jwt_server = ResourceServer(OAuthConfig(issuer=issuer.issuer, jwks_uri=upstream.url + "/jwks"), allow)
    os.environ["BENCH_INTROSPECTION_SECRET"] = "x"
    introspecting = ResourceServer(
        OAuthConfig(
            issuer=issuer.issuer,
            introspection=IntrospectionConfig(
                upstream.url + "/introspect", "g", Secret("env:BENCH_INTROSPECTION_SECRET")
            ),
        ),
        allow,
    )
    token = issuer.mint(aud=RESOURCE, client_id="client-3", scope="mcp:tools")
    token_headers = {"authorization": f"Bearer {token}"}
    fresh = [issuer.mint(aud=RESOURCE, client_id="client-3", n=n) for n in range(rounds + 200)]
    await jwt_server.check(token, RESOURCE)  # the JWKS fetched once
    await introspecting.check(token, RESOURCE)

    async def key_plain(_: int) -> Any:
        return authenticate(key_headers, clients, "shop")

    async def key_oauth(_: int) -> Any:
        return await jwt_server.admit(key_headers, clients, api, RESOURCE)

    async def token_admit(_: int) -> Any:
        return await jwt_server.admit(token_headers, clients, api, RESOURCE)

    async def token_check(_: int) -> Any:
        return await jwt_server.check(token, RESOURCE)

    async def first_check(number: int) -> Any:
        return await jwt_server.check(fresh[number], RESOURCE)

    async def introspected(_: int) -> Any:
        return await introspecting.check(token, RESOURCE)

    print("| letting one request in (µs) | median | p99 |")
    print("|---|---:|---:|")
    report("client key, API without `oauth:` (`authenticate`)", await timed(rounds, key_plain))
    report("client key, API with `oauth:` (`admit`)", await timed(rounds, key_oauth))
    report("token already checked (`admit`: + client lookup, scopes)", await timed(rounds, token_admit))
    report("token already checked (`check` alone)", await timed(rounds, token_check))
    report("token seen for the first time (RS256 signature, claims)", await timed(rounds, first_check))
    report("introspection answer kept (`check`)", await timed(rounds, introspected))
    await jwt_server.aclose()
    await introspecting.aclose()


class Unanswering:
    """Stands in for the SDK's session manager: the request ends at the door."""

    async def handle_request(self, scope: Any, receive: Any, send: Any) -> None:
        return None


async def front_door(upstream: Upstream, rounds: int, folder: str) -> list[float]:
    from specbridge.gateway._http import McpEndpoint
    from specbridge.gateway._sessions import SessionTable

    data = config_data(upstream)
    data["store"] = f"sqlite:///{folder}/door.db"
    gateway = Gateway(config_from_data(data, source="bench"))
    await gateway.start()
    endpoint = McpEndpoint(gateway, "shop", Unanswering(), SessionTable(64, 1800.0))  # type: ignore[arg-type]
    raw = [(b"authorization", f"Bearer {KEY}".encode()), (b"mcp-session-id", b"s-1"), (b"host", b"127.0.0.1")]

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: Any) -> None:
        return None

    async def one(_: int) -> None:
        scope = {"type": "http", "method": "POST", "path": "/shop/mcp", "headers": raw, "scheme": "http"}
        await endpoint(scope, receive, send)
        assert scope.get("specbridge.client") is not None

    try:
        return await timed(rounds, one)
    finally:
        await gateway.aclose()


async def key_calls(upstream: Upstream, rounds: int) -> None:
    upstream.route("/products/p-mug", json_response({"id": "p-mug", "name": "Mug"}))
    with tempfile.TemporaryDirectory() as folder:
        door = await front_door(upstream, rounds * 5, folder)
        data = config_data(upstream)
        data["store"] = f"sqlite:///{folder}/state.db"
        gateway = Gateway(config_from_data(data, source="bench"))
        app = http_app(gateway)
        accept = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        async with (
            app.router.lifespan_context(app),
            httpx.AsyncClient(transport=httpx.ASGITransport(app), base_url="http://127.0.0.1") as http,
        ):
            auth = {**accept, "Authorization": f"Bearer {KEY}"}
            opened = await http.post(
                "/shop/mcp",
                headers=auth,
                json={
                    "jsonrpc": "2.0",
                    "id": 0,
                    "method": "initialize",
                    "params": {
                        "protocolVersion": "2025-06-18",
                        "capabilities": {},
                        "clientInfo": {"name": "b", "version": "1"},
                    },
                },
            )
            headers = {
                **auth,
                "Mcp-Session-Id": opened.headers["mcp-session-id"],
                "Mcp-Protocol-Version": "2025-06-18",
            }
            await http.post(
                "/shop/mcp", headers=headers, json={"jsonrpc": "2.0", "method": "notifications/initialized"}
            )
            call = {"name": "getProduct", "arguments": {"id": "p-mug"}}

            async def one(number: int) -> None:
                body = {"jsonrpc": "2.0", "id": number + 1, "method": "tools/call", "params": call}
                response = await http.post("/shop/mcp", headers=headers, json=body)
                assert response.status_code == 200 and b"p-mug" in response.content, response.content[:200]

            samples = await timed(rounds, one)
    import specbridge

    print(
        f"\n| a key client's request, specbridge from {Path(specbridge.__file__).parent} (µs) | median | p99 |"
    )
    print("|---|---:|---:|")
    report("the MCP endpoint's front door (up to the SDK)", door)
    report("a whole tools/call (getProduct) through the ASGI app", samples)


async def front(upstream: Upstream, rounds: int) -> None:
    from specbridge.access import ResourceServer
    from specbridge.front import Front
    from specbridge.store import open_store

    os.environ["BENCH_STORE_KEY"] = "bench-store-key-0123456789abcdefghijklmnopqrstuv"
    issuer_url = "http://127.0.0.1:9"
    with tempfile.TemporaryDirectory() as folder:
        data = config_data(upstream, {"issuer": issuer_url, "audience": RESOURCE})
        data["clients"] = {**data["clients"], "client-3": {"apis": ["shop"]}}
        data |= {
            "store": f"sqlite:///{folder}/front.db",
            "store_key": "env:BENCH_STORE_KEY",
            "oauth_server": {
                "issuer": issuer_url,
                "upstream": {"issuer": "https://login.example.com", "client_id": "bench"},
                "users": [{"claim": "sub", "value": "person-3", "client": "client-3"}],
            },
        }
        config = config_from_data(data, source="bench")
        api = config.apis["shop"]
        assert api.oauth is not None
        async with open_store(config.store) as store:

            async def opened() -> Any:
                return store

            made = Front(opened, lambda: config)
            grant = {"client_id": "https://app.example/client.json", "person": "person-3", "resource": RESOURCE,
                     "api": "shop", "scope": "", "client": "client-3", "claims": {"sub": "person-3"}}  # fmt: skip
            server = ResourceServer(api.oauth, (), alive=made.alive)
            first = await made.issuer.sign_in(grant)
            token = first["access_token"]
            headers = {"authorization": f"Bearer {token}"}
            await server.check(token, RESOURCE)
            fresh = [
                (await made.issuer.sign_in(grant))["access_token"] for _ in range(min(rounds, 2000) + 200)
            ]
            current = [first["refresh_token"]]

            async def kept(_: int) -> Any:
                return await server.check(token, RESOURCE)

            async def admitted(_: int) -> Any:
                return await server.admit(headers, config.clients, api, RESOURCE)

            async def first_seen(number: int) -> Any:
                return await server.check(fresh[number], RESOURCE)

            async def sign_in(_: int) -> Any:
                return await made.issuer.sign_in(grant)

            async def refresh(_: int) -> Any:
                answer = await made.issuer.refresh(current[0], grant["client_id"], None)
                current[0] = answer["refresh_token"]
                return answer

            async def signed(_: int) -> Any:
                return made.issuer.access_token("family", grant, time.time())

            few = min(rounds, 2000)
            print("\n| the gateway's own authorization server, SQLite (µs) | median | p99 |")
            print("|---|---:|---:|")
            report("its token, already checked (`check`)", await timed(rounds, kept))
            report("its token, already checked (`admit`: + client lookup)", await timed(rounds, admitted))
            report(
                "its token seen for the first time (EdDSA, the sign-in in the store)",
                await timed(few, first_seen),
            )
            report("an access token signed (EdDSA), alone", await timed(rounds, signed))
            report(
                "a sign-in's first tokens (`/oauth/token`, code: 2 records written)",
                await timed(few, sign_in),
            )
            report("a refresh (`/oauth/token`: rotation, 4 store steps)", await timed(few, refresh))
            await server.aclose()
            await made.aclose()


async def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=5000)
    parser.add_argument("--keys-only", action="store_true", help="only part 2 (the key client's call)")
    options = parser.parse_args()
    with Upstream() as upstream:
        if not options.keys_only:
            await admission(upstream, options.rounds)
            await front(upstream, options.rounds)
        await key_calls(upstream, max(500, options.rounds // 5))


if __name__ == "__main__":
    asyncio.run(main())
