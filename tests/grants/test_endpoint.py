"""Asking a token endpoint (`grants/_endpoint.py`): glewlwyd for real answers, the loopback upstream for
odd ones; always through the egress policy, and never a secret or description in what comes back."""

from __future__ import annotations

import pytest

from specbridge.config import GrantConfig, Secret
from specbridge.grants import GrantError, _endpoint
from specbridge.grants._endpoint import TokenEndpoint
from tests.support.glewlwyd import Glewlwyd
from tests.support.oauth_api import API_SCOPE, new_client, token_url
from tests.support.upstream import Reply, Upstream, json_response, redirect, slow_drip

NOW = 1_764_500_000.0
FORM = {"grant_type": "client_credentials", "scope": API_SCOPE}


def grant(url: str, client_id: str = "gw", secret: str | None = "env:GW_SECRET") -> GrantConfig:
    return GrantConfig(
        "client_credentials", url, client_id, client_secret=None if secret is None else Secret(secret)
    )


async def test_client_credentials_at_glewlwyd_give_a_bearer_token(
    glewlwyd: Glewlwyd, monkeypatch: pytest.MonkeyPatch
) -> None:
    client_id, secret = new_client(glewlwyd, grants=["client_credentials"])
    monkeypatch.setenv("GW_SECRET", secret)
    endpoint = TokenEndpoint((glewlwyd.address,))
    try:
        tokens = await endpoint.ask(grant(token_url(glewlwyd), client_id), FORM, NOW)
    finally:
        await endpoint.aclose()
    assert tokens.access.count(".") == 2 and tokens.expires_at == NOW + 3600  # a JWT, for an hour
    assert endpoint.requests == 1


async def test_a_refused_client_gives_upstream_auth_failed_with_the_status_and_never_the_secret(
    glewlwyd: Glewlwyd, monkeypatch: pytest.MonkeyPatch
) -> None:
    client_id, _ = new_client(glewlwyd, grants=["client_credentials"])
    monkeypatch.setenv("GW_SECRET", "wrong-secret-7c1d")
    endpoint = TokenEndpoint((glewlwyd.address,))
    try:
        with pytest.raises(GrantError) as failed:
            await endpoint.ask(grant(token_url(glewlwyd), client_id), FORM, NOW)
    finally:
        await endpoint.aclose()
    assert failed.value.code == "upstream-auth-failed" and failed.value.status == 403
    assert "answered 403" in failed.value.message and "nothing was sent" in failed.value.message
    assert "wrong-secret-7c1d" not in failed.value.message


async def test_the_oauth_error_code_is_named_and_its_description_left_out(
    upstream: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GW_SECRET", "s")
    said = {"error": "invalid_client", "error_description": "client secret s3cr3t-x is wrong"}
    upstream.route("/token", json_response(said, status=401))
    upstream.route("/spent", json_response({"error": "invalid_grant"}, status=400))
    endpoint = TokenEndpoint((upstream.address,))
    try:
        with pytest.raises(GrantError) as refused:
            await endpoint.ask(grant(upstream.url + "/token"), FORM, NOW)
        with pytest.raises(GrantError) as spent:
            await endpoint.ask(grant(upstream.url + "/spent"), FORM, NOW)
    finally:
        await endpoint.aclose()
    assert "answered 401 (invalid_client)" in refused.value.message and "s3cr3t" not in refused.value.message
    assert not refused.value.refused and spent.value.refused


async def test_the_client_authenticates_with_http_basic_form_encoded_or_names_itself_without_a_secret(
    upstream: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GW_SECRET", "se:cr et")
    upstream.route("/token", json_response({"access_token": "at", "token_type": "Bearer"}))
    endpoint = TokenEndpoint((upstream.address,))
    try:
        await endpoint.ask(grant(upstream.url + "/token", "gw id"), FORM, NOW)
        await endpoint.ask(grant(upstream.url + "/token", "public-gw", secret=None), FORM, NOW)
    finally:
        await endpoint.aclose()
    confidential, public = upstream.requests
    assert confidential.headers["authorization"] == "Basic Z3craWQ6c2UlM0FjcitldA=="  # gw+id:se%3Acr+et
    assert b"client_id" not in confidential.body
    assert "authorization" not in public.headers and b"client_id=public-gw" in public.body


@pytest.mark.parametrize(
    ("reply", "said"),
    [
        (
            Reply(200, [("Content-Type", "text/html")], b"<html>login</html>"),
            "its answer is not a JSON object",
        ),
        (json_response({"access_token": "at", "token_type": "mac"}), "is not Bearer"),
        (Reply(200, [("Content-Type", "application/json")], b"[" * 70_000), "more than 64 KB"),
        (redirect("https://auth.example.com/token", status=307), "answered 307"),
    ],
)
async def test_an_answer_that_gives_no_usable_token_is_upstream_auth_failed(
    upstream: Upstream, monkeypatch: pytest.MonkeyPatch, reply: Reply, said: str
) -> None:
    monkeypatch.setenv("GW_SECRET", "s")
    upstream.route("/token", reply)
    endpoint = TokenEndpoint((upstream.address,))
    try:
        with pytest.raises(GrantError, match=said):
            await endpoint.ask(grant(upstream.url + "/token"), FORM, NOW)
    finally:
        await endpoint.aclose()


async def test_a_token_endpoint_the_egress_policy_refuses_is_never_asked(
    upstream: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GW_SECRET", "s")
    endpoint = TokenEndpoint(())  # the loopback upstream is not listed under egress.allow
    try:
        with pytest.raises(GrantError, match="cannot be reached"):
            await endpoint.ask(grant(upstream.url + "/token"), FORM, NOW)
    finally:
        await endpoint.aclose()
    assert upstream.requests == []


async def test_a_token_endpoint_that_drips_its_answer_is_given_up_at_the_whole_timeout(
    upstream: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a byte every 0.2 s: no read waits its timeout, the whole answer takes 12 s
    monkeypatch.setenv("GW_SECRET", "s")
    monkeypatch.setattr(_endpoint, "TIMEOUT", 1.0)
    upstream.route("/token", slow_drip(interval=0.2, total=60))
    endpoint = TokenEndpoint((upstream.address,))
    try:
        with pytest.raises(GrantError, match="no whole answer within 1 s"):
            await endpoint.ask(grant(upstream.url + "/token"), FORM, NOW)
    finally:
        await endpoint.aclose()
