"""The front's authorization code flow (`front/_flow.py`) against glewlwyd: a person signs in, is mapped
to a client by the operator's rule, consents, and the client's code buys tokens the MCP endpoint takes;
and each rule of the flow that stops an attack: redirect URIs compared exactly (no open redirect),
PKCE S256 only, codes single-use and bound to the client, its redirect URI and its verifier, the
sign-in's state usable once and only with the browser's cookie, the consent form's CSRF token."""

from __future__ import annotations

import re
from typing import Any

import httpx2
import jwt

from tests.front._serving import Serving
from tests.support.front import MAPPED, REDIRECT, pkce, query_of
from tests.support.gateway import IN_PROCESS, http_client
from tests.support.glewlwyd import EMAIL

RESOURCE = f"{IN_PROCESS}/shop/mcp"


async def test_a_person_signs_in_consents_and_the_client_calls_tools_as_the_mapped_client(
    serving: Serving,
) -> None:
    async with serving() as served:
        client = await served.driver.register(token_endpoint_auth_method="none", client_name="Test client")
        verifier, challenge = pkce()
        back = await served.driver.code(client["client_id"], REDIRECT, challenge)
        assert back["state"] == "client-state-1" and back["iss"] == IN_PROCESS
        answer = await served.driver.token({"grant_type": "authorization_code", "code": back["code"],
            "redirect_uri": REDIRECT, "client_id": client["client_id"], "code_verifier": verifier})  # fmt: skip
        assert answer.status_code == 200, answer.text
        tokens = answer.json()
        async with http_client(RESOURCE, key=tokens["access_token"], transport=served.transport) as mcp:
            listed = await mcp.list_tools()
            result = await mcp.call_tool("createOrder", {"product": "mug", "quantity": 1})
    claims = jwt.decode(tokens["access_token"], options={"verify_signature": False})
    assert (claims["aud"], claims["sbc"], claims["client_id"]) == (RESOURCE, MAPPED, client["client_id"])
    assert jwt.get_unverified_header(tokens["access_token"])["alg"] == "EdDSA"
    assert "createOrder" in {tool.name for tool in listed.tools}
    assert not result.is_error, result
    assert EMAIL  # she was mapped by her address: the binding of `alice-agent` applied


async def _tokens(served: Any, client: str, verifier: str, code: str, **more: str) -> Any:
    form = {"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT,
            "client_id": client, "code_verifier": verifier, **more}  # fmt: skip
    return await served.driver.token(form)


async def test_a_redirect_uri_the_client_did_not_register_is_a_page_never_a_redirect(
    serving: Serving,
) -> None:
    async with serving() as served:
        client = await served.driver.register(token_endpoint_auth_method="none")
        _, challenge = pkce()
        for uri in ("https://evil.example/callback", REDIRECT + "/more", REDIRECT + "?x=1", REDIRECT.upper()):
            answer = await served.http.get(served.driver.authorize_url(client["client_id"], uri, challenge))
            assert answer.status_code == 400 and "location" not in answer.headers, uri
            assert "[authorize-invalid]" in answer.text or "authorize-invalid" in answer.text
        unknown = await served.http.get(
            served.driver.authorize_url("dcr_no-such-client", REDIRECT, challenge)
        )
    assert unknown.status_code == 400 and "location" not in unknown.headers


async def test_only_pkce_s256_is_taken(serving: Serving) -> None:
    async with serving() as served:
        client = await served.driver.register(token_endpoint_auth_method="none")
        verifier, _ = pkce()
        plain = await served.http.get(served.driver.authorize_url(
            client["client_id"], REDIRECT, verifier[:43], code_challenge_method="plain"))  # fmt: skip
        missing = await served.http.get(served.driver.authorize_url(client["client_id"], REDIRECT, ""))
    for answer in (plain, missing):
        assert answer.status_code == 303
        back = query_of(answer.headers["location"])
        assert answer.headers["location"].startswith(REDIRECT + "?")
        assert back["error"] == "invalid_request" and back["state"] == "client-state-1"


async def test_a_code_is_good_once_for_its_client_redirect_uri_and_verifier_only(serving: Serving) -> None:
    async with serving() as served:
        client = await served.driver.register(token_endpoint_auth_method="none")
        other = await served.driver.register(token_endpoint_auth_method="none")
        verifier, challenge = pkce()
        code = (await served.driver.code(client["client_id"], REDIRECT, challenge))["code"]
        first = await _tokens(served, client["client_id"], verifier, code)
        again = await _tokens(served, client["client_id"], verifier, code)
        refused = {}
        for name, change in {
            "another client": {"client_id": other["client_id"]},
            "another verifier": {"code_verifier": pkce()[0]},
            "another redirect URI": {"redirect_uri": REDIRECT + "x"},
        }.items():
            fresh = (await served.driver.code(client["client_id"], REDIRECT, challenge))["code"]
            wrong = await _tokens(served, client["client_id"], verifier, fresh, **change)
            after = await _tokens(served, client["client_id"], verifier, fresh)  # spent by the wrong try
            refused[name] = (wrong.status_code, wrong.json()["error"], after.json()["error"])
    assert first.status_code == 200
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant"
    for name, outcome in refused.items():
        assert outcome == (400, "invalid_grant", "invalid_grant"), name


async def test_the_sign_in_state_is_taken_only_in_the_browser_that_started_it(serving: Serving) -> None:
    async with serving() as served:
        client = await served.driver.register(token_endpoint_auth_method="none")
        _, challenge = pkce()
        callback = served.driver.at_provider(
            await served.driver.to_provider(client["client_id"], REDIRECT, challenge)
        )
        async with httpx2.AsyncClient(transport=served.transport, base_url=IN_PROCESS) as stranger:
            forged = await stranger.get(callback)  # the callback without the browser's cookie
        own = await served.driver.consent_page(callback)  # the person's own callback still works
        replayed = await served.driver.consent_page(callback)
    assert forged.status_code == 400 and "another browser" in forged.text
    assert own.status_code == 200 and "Allow access?" in own.text
    assert replayed.status_code == 400


async def test_the_consent_form_needs_its_csrf_token_and_this_sites_origin(serving: Serving) -> None:
    async with serving() as served:
        client = await served.driver.register(token_endpoint_auth_method="none")
        _, challenge = pkce()
        page = await served.driver.consent_page(
            served.driver.at_provider(
                await served.driver.to_provider(client["client_id"], REDIRECT, challenge)
            )
        )
        consent = re.search(r'name="consent" value="([^"]+)"', page.text)
        assert consent is not None
        wrong = await served.http.post(f"{IN_PROCESS}/oauth/consent", headers={"Origin": IN_PROCESS},
            data={"consent": consent.group(1), "csrf": "not-the-token", "decision": "allow"})  # fmt: skip
        elsewhere = await served.http.post(f"{IN_PROCESS}/oauth/consent", headers={"Origin": "https://evil.example"},
            data={"consent": consent.group(1), "csrf": "x", "decision": "allow"})  # fmt: skip
        right = await served.driver.answer(page)
    assert wrong.status_code == 403 and "csrf-invalid" in wrong.text and "location" not in wrong.headers
    assert elsewhere.status_code == 403 and "location" not in elsewhere.headers
    assert right.status_code == 303 and "code=" in right.headers["location"]
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]


async def test_a_person_who_declines_sends_the_client_access_denied(serving: Serving) -> None:
    async with serving() as served:
        client = await served.driver.register(token_endpoint_auth_method="none")
        _, challenge = pkce()
        page = await served.driver.consent_page(
            served.driver.at_provider(
                await served.driver.to_provider(client["client_id"], REDIRECT, challenge)
            )
        )
        declined = await served.driver.answer(page, "deny")
    back = query_of(declined.headers["location"])
    assert back["error"] == "access_denied" and back["state"] == "client-state-1" and "code" not in back


async def test_a_person_no_rule_maps_is_told_so_and_gets_nothing(serving: Serving) -> None:
    rules = [{"claim": "email", "value": "someone-else@example.com", "client": MAPPED}]
    async with serving(users=rules) as served:
        client = await served.driver.register(token_endpoint_auth_method="none")
        _, challenge = pkce()
        page = await served.driver.consent_page(
            served.driver.at_provider(
                await served.driver.to_provider(client["client_id"], REDIRECT, challenge)
            )
        )
    assert page.status_code == 403
    assert "[signin-unmapped]" in page.text or "signin-unmapped" in page.text
    assert EMAIL in page.text and "has not given that account access" in page.text
    assert "error=access_denied" in page.text and "code=" not in page.text


async def test_a_resource_the_front_issues_nothing_for_goes_back_as_invalid_target(serving: Serving) -> None:
    async with serving() as served:
        client = await served.driver.register(token_endpoint_auth_method="none")
        _, challenge = pkce()
        answer = await served.http.get(served.driver.authorize_url(
            client["client_id"], REDIRECT, challenge, resource="https://other.example/mcp"))  # fmt: skip
    assert query_of(answer.headers["location"])["error"] == "invalid_target"
