"""`call/_credential.py`: the credential an `AuthConfig` becomes, where it goes per auth type, and the
per-client secret chosen by id."""

from __future__ import annotations

import base64

import anyio
import pytest

from specbridge._errors import ErrorCode
from specbridge.call import Caller
from specbridge.config import AuthConfig, Secret
from tests.call._caller import SECRET, MakeCaller, api_config, toolset_for
from tests.call._caller import call as _call
from tests.support.upstream import Upstream


async def test_a_header_secret_for_authorization_without_a_space_is_sent_as_bearer(
    upstream: Upstream, secret_env: str
) -> None:
    api = api_config(
        upstream.url,
        allow=(upstream.address,),
        auth=AuthConfig(type="header", name="Authorization", secret=Secret(secret_env)),
    )
    caller = Caller(api, toolset_for())
    with anyio.fail_after(10):
        await caller.call("ping", {})
    await caller.aclose()
    assert upstream.requests[-1].headers["authorization"] == f"Bearer {SECRET}"


@pytest.mark.parametrize(
    ("auth_type", "auth_name", "where"),
    [
        ("bearer", "", ("header", "authorization", f"Bearer {SECRET}")),
        ("basic", "", ("header", "authorization", "Basic " + base64.b64encode(SECRET.encode()).decode())),
        ("header", "X-Api-Token", ("header", "x-api-token", SECRET)),
        ("query", "api_key", ("query", "api_key", SECRET)),
        ("cookie", "sid", ("cookie", "sid", SECRET)),
    ],
)
async def test_each_auth_type_puts_the_credential_where_it_belongs(
    make_caller: MakeCaller, upstream: Upstream, auth_type: str, auth_name: str, where: tuple[str, str, str]
) -> None:
    await _call(
        make_caller(auth_type=auth_type, auth_name=auth_name), "getItem", {"itemId": "1", "session": "s"}
    )
    request = upstream.requests[-1]
    location, name, value = where
    if location == "header":
        assert request.headers[name] == value
    elif location == "query":
        assert request.query == [(name, value)]
    else:
        assert (
            request.headers["cookie"]
            == f"session=s; sid={SECRET.replace('/', '%2F').replace('+', '%2B').replace('=', '%3D')}"
        )


async def test_auth_none_sends_no_credential(make_caller: MakeCaller, upstream: Upstream) -> None:
    await _call(make_caller(auth_type="none"), "ping", {})
    assert "authorization" not in upstream.requests[-1].headers


async def test_a_per_client_secret_is_chosen_by_its_id(
    make_caller: MakeCaller, upstream: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SHOP_B_TOKEN", "shop-b-token")
    caller = make_caller(secrets={"shop-b": Secret("env:SHOP_B_TOKEN")})
    await _call(caller, "ping", {}, secret_id="shop-b")
    assert upstream.requests[-1].headers["authorization"] == "Bearer shop-b-token"


async def test_an_unknown_secret_id_is_an_error_and_nothing_is_sent(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    result = await _call(make_caller(), "ping", {}, secret_id="nobody")
    assert result.is_error and result.code == ErrorCode.SECRET_UNKNOWN  # type: ignore[attr-defined]
    assert upstream.requests == []


async def test_a_secret_that_cannot_be_read_is_an_error_naming_no_secret(upstream: Upstream) -> None:
    api = api_config(
        upstream.url,
        allow=(upstream.address,),
        auth=AuthConfig(type="bearer", secret=Secret("env:NOT_SET_ANYWHERE")),
    )
    caller = Caller(api, toolset_for())
    result = await _call(caller, "ping", {})
    await caller.aclose()
    assert result.is_error and result.code == ErrorCode.SECRET_UNAVAILABLE  # type: ignore[attr-defined]
    assert "NOT_SET_ANYWHERE" not in result.text  # type: ignore[attr-defined]
    assert upstream.requests == []
