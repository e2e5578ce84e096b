"""Who the front's clients are (`front/_clients.py`): a client by Client ID Metadata Document, fetched
over https through the egress policy and kept, taken only when it names itself and is public; dynamic
registration only when allowed, at most `dynamic_per_hour`, its confidential clients held to their
secret; redirect URIs only of the kinds a client may register."""

from __future__ import annotations

from typing import Any

import pytest

from tests.front._serving import Serving
from tests.support.front import REDIRECT, pkce, query_of
from tests.support.gateway import IN_PROCESS
from tests.support.https import HttpsDocuments


@pytest.fixture
def documents() -> Any:
    with HttpsDocuments() as served:
        yield served


def document(url: str, **more: Any) -> dict[str, Any]:
    return {"client_id": url, "client_name": "Document client", "redirect_uris": [REDIRECT],
            "token_endpoint_auth_method": "none", **more}  # fmt: skip


async def test_a_client_by_metadata_document_signs_in_and_its_document_is_kept(
    serving: Serving, documents: HttpsDocuments
) -> None:
    url = documents.url("/clients/app.json")
    documents.serve("/clients/app.json", document(url))
    async with serving(allow=(documents.address,)) as served:
        verifier, challenge = pkce()
        code = (await served.driver.code(url, REDIRECT, challenge))["code"]
        answer = await served.driver.token({"grant_type": "authorization_code", "code": code,
            "redirect_uri": REDIRECT, "client_id": url, "code_verifier": verifier})  # fmt: skip
        again = await served.http.get(served.driver.authorize_url(url, REDIRECT, challenge))
    assert answer.status_code == 200, answer.text
    assert again.status_code == 303
    assert documents.fetched["/clients/app.json"] == 1  # kept, not fetched for each request


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"client_id": "https://elsewhere.example/app.json"}, "another client_id"),
        ({"token_endpoint_auth_method": "client_secret_basic"}, "must be public"),
        ({"redirect_uris": ["javascript:alert(1)"]}, "redirect URI"),
        ({"redirect_uris": []}, "redirect_uris"),
    ],
)
async def test_a_metadata_document_that_does_not_name_itself_or_is_not_public_is_refused(
    serving: Serving, documents: HttpsDocuments, change: dict[str, Any], why: str
) -> None:
    url = documents.url("/clients/bad.json")
    documents.serve("/clients/bad.json", document(url) | change)
    async with serving(allow=(documents.address,)) as served:
        answer = await served.http.get(served.driver.authorize_url(url, REDIRECT, pkce()[1]))
    assert answer.status_code == 400 and "location" not in answer.headers
    assert why in answer.text and "client-metadata-invalid" in answer.text


async def test_a_metadata_document_on_an_address_the_egress_policy_refuses_is_not_fetched(
    serving: Serving, documents: HttpsDocuments
) -> None:
    url = documents.url("/clients/app.json")
    documents.serve("/clients/app.json", document(url))
    async with serving() as served:  # 127.0.0.1:<port> not under oauth_server.egress.allow
        answer = await served.http.get(served.driver.authorize_url(url, REDIRECT, pkce()[1]))
    assert answer.status_code == 400 and "cannot be fetched" in answer.text
    assert documents.fetched["/clients/app.json"] == 0


async def test_dynamic_registration_is_off_unless_allowed(serving: Serving) -> None:
    async with serving(registration={"dynamic": False}) as served:
        answer = await served.http.post("/oauth/register", json={"redirect_uris": [REDIRECT]})
        metadata = (await served.http.get("/.well-known/oauth-authorization-server")).json()
    assert answer.status_code == 404
    assert (
        "registration_endpoint" not in metadata and metadata["client_id_metadata_document_supported"] is True
    )


async def test_dynamic_registrations_past_the_hourly_limit_wait(serving: Serving) -> None:
    async with serving(registration={"dynamic": True, "dynamic_per_hour": 2}) as served:
        answers = [
            await served.http.post("/oauth/register", json={"redirect_uris": [REDIRECT]}) for _ in range(3)
        ]
    assert [answer.status_code for answer in answers] == [201, 201, 429]
    assert "registration-limited" in answers[2].text and int(answers[2].headers["retry-after"]) > 0


@pytest.mark.parametrize(
    "uri",
    [
        "http://evil.example/callback",
        "https://app.example/cb#frag",
        "javascript:alert(1)",
        "data:text/html,x",
    ],
)
async def test_a_registration_with_a_redirect_uri_a_client_may_not_have_is_refused(
    serving: Serving, uri: str
) -> None:
    async with serving() as served:
        answer = await served.http.post("/oauth/register", json={"redirect_uris": [uri]})
    assert answer.status_code == 400 and answer.json()["error"] == "invalid_client_metadata"


async def test_a_confidential_client_needs_its_secret_at_the_token_endpoint(serving: Serving) -> None:
    async with serving() as served:
        client = await served.driver.register(token_endpoint_auth_method="client_secret_basic")
        verifier, challenge = pkce()
        code = (await served.driver.code(client["client_id"], REDIRECT, challenge))["code"]
        form = {
            "grant_type": "authorization_code",
            "code": code,
            "redirect_uri": REDIRECT,
            "code_verifier": verifier,
        }
        without = await served.driver.token({**form, "client_id": client["client_id"]})
        wrong = await served.driver.token(form, auth=(client["client_id"], "not-the-secret"))
        code = (await served.driver.code(client["client_id"], REDIRECT, challenge))["code"]
        right = await served.driver.token(
            {**form, "code": code}, auth=(client["client_id"], client["client_secret"])
        )
    assert without.status_code == 401 and without.json()["error"] == "invalid_client"
    assert wrong.status_code == 401
    assert right.status_code == 200, right.text


async def test_the_metadata_says_what_the_front_does(serving: Serving) -> None:
    async with serving() as served:
        answer = await served.http.get("/.well-known/oauth-authorization-server")
        keys = (await served.http.get("/oauth/jwks")).json()["keys"]
    metadata = answer.json()
    assert metadata["issuer"] == IN_PROCESS
    assert metadata["code_challenge_methods_supported"] == ["S256"]
    assert metadata["grant_types_supported"] == ["authorization_code", "refresh_token"]
    assert metadata["authorization_response_iss_parameter_supported"] is True
    assert metadata["registration_endpoint"] == f"{IN_PROCESS}/oauth/register"
    assert answer.headers["access-control-allow-origin"] == "*"
    assert [key["kty"] for key in keys] == ["OKP"] and "d" not in keys[0]
    assert query_of("x?a=1") == {"a": "1"}
