"""The one admission step of the HTTP edge: at an MCP endpoint as its API takes callers; beside the
endpoints (`/files`) as some endpoint would take the same request, and open only where one is; admin
keys apart from client keys."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from specbridge import ErrorCode
from specbridge.access import NOBODY, Admission, Identity, Refusal, key_sha256, open_to_anyone
from specbridge.config import AdminConfig, ApiConfig, ClientConfig, Config, EgressConfig, OAuthConfig
from tests.access._server import RESOURCE
from tests.support.tokens import Issuer
from tests.support.upstream import Upstream

KEY = "sbk_a-key-of-the-keyed-client"
KEYED = ClientConfig(id="keyed", key_sha256=key_sha256(KEY), apis=("shop",))
ROBOT = ClientConfig(id="robot", key_sha256="", apis=("shop",))
PLAIN = ApiConfig(name="plain", spec="/plain.yaml")


def oauth_api(upstream: Upstream) -> ApiConfig:
    settings = OAuthConfig(issuer=upstream.url, jwks_uri=upstream.url + "/jwks", audience=RESOURCE)
    return ApiConfig(name="shop", spec="/shop.yaml", oauth=settings, egress=EgressConfig((upstream.address,)))


def resources(api: ApiConfig) -> tuple[str, ...]:
    return (RESOURCE,)


@pytest.fixture
async def admission() -> AsyncIterator[Admission]:
    made = Admission()
    yield made
    await made.aclose()


async def test_a_config_whose_every_api_takes_tokens_lets_nobody_in_beside_the_endpoints(
    admission: Admission, upstream: Upstream
) -> None:
    api = oauth_api(upstream)
    config = Config(source="t", apis={"shop": api})  # no clients at all
    assert not open_to_anyone(config, api)
    refusal = await admission.anywhere({}, config, resources)
    assert isinstance(refusal, Refusal)
    assert (refusal.status, refusal.code) == (401, ErrorCode.KEY_MISSING)
    assert "resource_metadata=" in dict(refusal.headers)["WWW-Authenticate"]  # leads to a token


async def test_beside_the_endpoints_a_token_is_taken_as_its_api_takes_it(
    admission: Admission, upstream: Upstream, issuer: Issuer
) -> None:
    config = Config(source="t", apis={"shop": oauth_api(upstream)}, clients={"robot": ROBOT})
    token = issuer.mint(aud=RESOURCE, client_id="robot")
    identity = await admission.anywhere({"authorization": f"Bearer {token}"}, config, resources)
    assert isinstance(identity, Identity)
    assert (identity.client, identity.via) == (ROBOT, "token")
    other = issuer.mint(aud="https://elsewhere.example/mcp", client_id="robot")
    refused = await admission.anywhere({"authorization": f"Bearer {other}"}, config, resources)
    assert isinstance(refused, Refusal) and refused.code == ErrorCode.TOKEN_INVALID


async def test_beside_the_endpoints_a_client_key_is_its_client_and_a_wrong_one_is_refused(
    admission: Admission, upstream: Upstream
) -> None:
    config = Config(source="t", apis={"shop": oauth_api(upstream)}, clients={"keyed": KEYED})
    identity = await admission.anywhere({"x-api-key": KEY}, config, resources)
    assert isinstance(identity, Identity) and identity.client is KEYED
    refused = await admission.anywhere({"x-api-key": "sbk_not-a-key"}, config, resources)
    assert isinstance(refused, Refusal) and (refused.status, refused.code) == (401, ErrorCode.KEY_INVALID)


async def test_only_a_config_with_an_endpoint_open_to_anyone_is_open_beside_it(
    admission: Admission, upstream: Upstream
) -> None:
    open_config = Config(source="t", apis={"plain": PLAIN})
    assert await admission.anywhere({}, open_config, resources) is NOBODY
    mixed = Config(source="t", apis={"plain": PLAIN, "shop": oauth_api(upstream)})
    assert await admission.anywhere({}, mixed, resources) is NOBODY  # `plain` takes anybody (loopback only)
    keyed = Config(source="t", apis={"plain": PLAIN}, clients={"keyed": KEYED})
    refused = await admission.anywhere({}, keyed, resources)
    assert isinstance(refused, Refusal) and refused.code == ErrorCode.KEY_MISSING


async def test_at_an_endpoint_without_oauth_a_key_is_its_client_and_no_clients_is_nobody(
    admission: Admission,
) -> None:
    assert await admission.at_api({}, {}, PLAIN, lambda: RESOURCE) is NOBODY
    keyed = ClientConfig(id="keyed", key_sha256=key_sha256(KEY), apis=("plain",))
    identity = await admission.at_api(
        {"authorization": f"Bearer {KEY}"}, {"keyed": keyed}, PLAIN, lambda: RESOURCE
    )
    assert isinstance(identity, Identity) and (identity.client, identity.via) == (keyed, "key")


def test_an_admin_key_is_an_admin_and_a_client_key_is_not() -> None:
    admins = {"ops": AdminConfig("ops", key_sha256("sba_the-admins-key"))}
    identity = Admission.admin_key({"x-api-key": "sba_the-admins-key"}, admins)
    assert isinstance(identity, Identity) and identity.admin is admins["ops"] and identity.via == "admin-key"
    refused = Admission.admin_key({"x-api-key": KEY}, admins)
    assert isinstance(refused, Refusal) and refused.code == ErrorCode.ADMIN_KEY_INVALID


def test_the_token_a_request_came_with_never_shows_in_its_identity(upstream: Upstream) -> None:
    from specbridge.access import Presented

    identity = Identity(ROBOT, "robot", via="token", presented=Presented("eyJ-the-token"))
    assert "eyJ-the-token" not in repr(identity)
    assert identity.presented is not None and identity.presented.reveal() == "eyJ-the-token"
