"""Step 7's one exception to "sent once" (`service/_renewing.py`), on every store: a token the gateway
fetched and the API refused (401) is had anew once and the call sent once more; a second 401, a
credential the gateway did not fetch, or no other token to be had leave the API's 401 as the result.
(glewlwyd as the token endpoint: tests/gateway/test_gateway_upstream_oauth.py.)"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.service._harness import harness
from tests.support.oauth_api import STORE_KEY
from tests.support.upstream import RecordedRequest, Reply, Upstream, json_response


class Endpoint:
    """A token endpoint handing out at-1, at-2, … (or 503 once `down`)."""

    def __init__(self, upstream: Upstream) -> None:
        self.handed = 0
        self.down = False
        upstream.route("/token", self.answer)

    def answer(self, request: RecordedRequest) -> Reply:
        if self.down:
            return json_response({"error": "temporarily_unavailable"}, status=503)
        self.handed += 1
        return json_response(
            {"access_token": f"at-{self.handed}", "token_type": "Bearer", "expires_in": 3600}
        )


def api(upstream: Upstream, refused: set[str]) -> None:
    def notes(request: RecordedRequest) -> Reply:
        token = request.headers.get("authorization", "").removeprefix("Bearer ")
        return (
            json_response({"error": "invalid_token"}, status=401)
            if token in refused
            else json_response({"ok": 1})
        )

    upstream.route("/notes", notes)


def sent(upstream: Upstream) -> list[str]:
    return [r.headers.get("authorization", "") for r in upstream.requests if r.path == "/notes"]


@pytest.fixture(autouse=True)
def store_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SPECBRIDGE_TEST_STORE_KEY", STORE_KEY)
    monkeypatch.setenv("GW_SECRET", "gw-secret")


def grant(upstream: Upstream) -> dict[str, object]:
    return {"type": "oauth2_client_credentials", "token_url": upstream.url + "/token", "client_id": "gw",
            "client_secret": "env:GW_SECRET"}  # fmt: skip


async def test_a_refused_fetched_token_is_renewed_once_and_the_call_sent_once_more(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    endpoint, refused = Endpoint(upstream), {"at-1"}
    api(upstream, refused)
    async with harness(
        tmp_path, upstream, store_url, auth=grant(upstream), store_key="env:SPECBRIDGE_TEST_STORE_KEY"
    ) as service:
        result = await service.result("listNotes", {})
    assert not result.is_error and result.structured == {"ok": 1}
    assert sent(upstream) == ["Bearer at-1", "Bearer at-2"] and endpoint.handed == 2


async def test_a_second_401_is_the_result_and_nothing_is_sent_a_third_time(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    endpoint, refused = Endpoint(upstream), {"at-1", "at-2", "at-3"}
    api(upstream, refused)
    async with harness(
        tmp_path, upstream, store_url, auth=grant(upstream), store_key="env:SPECBRIDGE_TEST_STORE_KEY"
    ) as service:
        result = await service.result("listNotes", {})
    assert result.is_error and result.status == 401 and result.code == "upstream-status"
    assert sent(upstream) == ["Bearer at-1", "Bearer at-2"] and endpoint.handed == 2


async def test_with_no_other_token_to_be_had_the_401_stands(
    tmp_path: Path, upstream: Upstream, store_url: str
) -> None:
    endpoint, refused = Endpoint(upstream), {"at-1"}
    api(upstream, refused)
    async with harness(
        tmp_path, upstream, store_url, auth=grant(upstream), store_key="env:SPECBRIDGE_TEST_STORE_KEY"
    ) as service:
        assert (await service.result("listNotes", {})).status == 200  # at-1 refused, at-2 taken
        refused.add("at-2")
        endpoint.down = True
        result = await service.result("listNotes", {})
    assert result.status == 401 and sent(upstream)[-1] == "Bearer at-2" and len(sent(upstream)) == 3


async def test_a_credential_the_gateway_did_not_fetch_is_never_sent_twice(
    tmp_path: Path, upstream: Upstream, store_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STATIC_TOKEN", "at-1")
    api(upstream, {"at-1"})
    async with harness(
        tmp_path, upstream, store_url, auth={"type": "bearer", "secret": "env:STATIC_TOKEN"}
    ) as service:
        result = await service.result("listNotes", {})
    assert result.status == 401 and sent(upstream) == ["Bearer at-1"]
