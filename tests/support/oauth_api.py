"""An API protected by a real authorization server, for the gateway as its OAuth client (grants/):
glewlwyd (tests/support/glewlwyd.py) issues the tokens, and the loopback upstream checks each one the
way a resource server does (its signature against glewlwyd's key, its expiry) before it answers.

    people(glewlwyd)                           # the scope `shop.orders`; bob and carol may grant it
    client_id, secret = new_client(glewlwyd, grants=[...], redirect_uris=[...])
    refused = protect(upstream, glewlwyd, "/notes")   # a 401 for a missing, bad or refused token
    config = oauth_config(tmp_path, upstream, glewlwyd, auth={...})

The upstream answers a good token with who it is for (`sub`, `client_id`) and the Authorization
header it got, so a test sees which account a call used and that the gateway's result hides the token.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import jwt

from tests.support.gateway import SPEC
from tests.support.glewlwyd import SCOPE, Glewlwyd
from tests.support.upstream import RecordedRequest, Reply, Upstream, json_response

API_SCOPE = "shop.orders"
PEOPLE = {"bob": "bob-password-1", "carol": "carol-password-1"}
STORE_KEY = "a-store-key-for-tests-only-0123456789abcdef"  # 43 characters, as `openssl rand -base64 32`


def people(glewlwyd: Glewlwyd) -> None:
    """The scope the API's tokens carry, and two people who may grant it (once per glewlwyd)."""
    if getattr(glewlwyd, "_api_people", False):
        return
    glewlwyd.add_scope(API_SCOPE)
    for name, password in PEOPLE.items():
        glewlwyd.add_user(name, password, [SCOPE, API_SCOPE])
    glewlwyd._api_people = True  # type: ignore[attr-defined]


def new_client(
    glewlwyd: Glewlwyd,
    *,
    grants: list[str],
    redirect_uris: Sequence[str] = (),
    public: bool = False,
) -> tuple[str, str]:
    """A new client of glewlwyd for the gateway (its own id per test: glewlwyd runs for the session)."""
    people(glewlwyd)
    client_id = f"gateway-{secrets.token_hex(4)}"
    secret = f"secret-{secrets.token_hex(8)}"
    glewlwyd.add_client(
        client_id,
        None if public else secret,
        grants=grants,
        scopes=[API_SCOPE],
        redirect_uris=list(redirect_uris),
    )
    return client_id, secret


def protect(upstream: Upstream, glewlwyd: Glewlwyd, *paths: str) -> set[str]:
    """Answer `paths` only with a valid token of glewlwyd; returns the set of tokens to refuse (401)
    even though valid (a token the API revoked)."""
    refused: set[str] = set()

    def answer(request: RecordedRequest) -> Reply:
        header = request.headers.get("authorization", "")
        token = header.removeprefix("Bearer ")
        if not header.startswith("Bearer ") or token in refused:
            return json_response({"error": "invalid_token"}, status=401)
        try:
            claims = jwt.decode(
                token, glewlwyd.public_pem, algorithms=["RS256"], options={"verify_aud": False}
            )
        except jwt.PyJWTError:
            return json_response({"error": "invalid_token"}, status=401)
        return json_response({"sub": claims.get("sub"), "client_id": claims.get("client_id"), "seen": header})

    for path in paths:
        upstream.route(path, answer)
    return refused


def oauth_config(
    folder: Path,
    upstream: Upstream,
    glewlwyd: Glewlwyd,
    *,
    auth: dict[str, Any],
    store: str | None = None,
    clients: dict[str, Any] | None = None,
) -> Path:
    """specbridge.yaml for the shop API with `auth` (an oauth2_* type), the token endpoint and
    glewlwyd's pages allowed by the egress policy, and `store_key` from SPECBRIDGE_TEST_STORE_KEY."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "shop.yaml").write_text(SPEC, encoding="utf-8")
    config = {
        "apis": {
            "shop": {
                "spec": "./shop.yaml",
                "base_url": upstream.url,
                "egress": {"allow": [upstream.address, glewlwyd.address]},
                "timeout": 30,
                "auth": auth,
            }
        },
        "store": store or f"sqlite:///{folder / 'state.db'}",
        "store_key": "env:SPECBRIDGE_TEST_STORE_KEY",
        **({"clients": clients} if clients else {}),
    }
    path = folder / "specbridge.yaml"
    path.write_text(json.dumps(config), encoding="utf-8")
    return path


def token_url(glewlwyd: Glewlwyd) -> str:
    return f"{glewlwyd.issuer}/token"


def authorize_url(glewlwyd: Glewlwyd) -> str:
    return f"{glewlwyd.issuer}/auth"
