"""Escaped credentials in answers (issue 9, item 4): whatever escaping the API applies when it echoes
the credential — JSON `\\u`, HTML entities, percent-encoding, base64 — the agent sees `[credential]`.
Properties over random credentials against the renderer, and the reviewers' cases over a real socket."""

from __future__ import annotations

import base64
import html
import json
import re
from collections.abc import Callable
from urllib.parse import quote, quote_plus

import anyio
import httpx
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from specbridge.call._credential import Credential
from specbridge.call._render import REDACTED, Redactor, render
from specbridge.call._send import Answer
from tests.call._caller import MakeCaller
from tests.support.upstream import RecordedRequest, Reply, Upstream


def _go_json(secret: str) -> str:
    """Go's encoding/json: HTML-safe escapes for <, >, & (and U+2028/9), the rest as written."""
    text = json.dumps(secret, ensure_ascii=False)[1:-1]
    return text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")


ESCAPINGS: dict[str, Callable[[str], str]] = {
    "json-ascii": lambda s: json.dumps(s)[1:-1],
    "json-go-html-safe": _go_json,
    "json-every-char": lambda s: "".join(
        f"\\u{int.from_bytes(s[i].encode('utf-16-be')[j : j + 2], 'big'):04X}"
        for i in range(len(s))
        for j in range(0, len(s[i].encode("utf-16-be")), 2)
    ),
    "html-named": lambda s: html.escape(s, quote=True),
    "html-numeric-non-ascii": lambda s: html.escape(s).encode("ascii", "xmlcharrefreplace").decode(),
    "html-decimal-every-char": lambda s: "".join(f"&#{ord(c)};" for c in s),
    "html-hex-every-char": lambda s: "".join(f"&#x{ord(c):X};" for c in s),
    "percent-upper": lambda s: quote(s, safe=""),
    "percent-lower": lambda s: re.sub("%[0-9A-F]{2}", lambda m: m.group().lower(), quote(s, safe="")),
    "percent-plus": lambda s: quote_plus(s, safe=""),
    "base64": lambda s: base64.b64encode(s.encode()).decode(),
    "base64-urlsafe": lambda s: base64.urlsafe_b64encode(s.encode()).decode(),
    "base64-unpadded": lambda s: base64.b64encode(s.encode()).decode().rstrip("="),
}

SECRETS = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r\n\0"),
    min_size=4,
    max_size=40,
)


def _answer(status: int, content_type: str, body: str) -> Answer:
    return Answer(status, httpx.Headers({"Content-Type": content_type}), body.encode("utf-8"), False)


def _shown(secret: str, status: int, content_type: str, body: str) -> str:
    redactor = Redactor.for_credential(Credential("bearer", "", secret))
    result = render(_answer(status, content_type, body), redactor)
    return result.text + (
        "" if result.structured is None else "\n" + json.dumps(result.structured, ensure_ascii=False)
    )


@pytest.mark.parametrize("escaping", ESCAPINGS)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(secret=SECRETS)
def test_an_escaped_credential_in_a_text_error_body_is_redacted(escaping: str, secret: str) -> None:
    assume(secret.strip())
    echoed = ESCAPINGS[escaping](secret)
    frame = "The API answered 401 Unauthorized.\ndenied for <> end " + REDACTED
    assume(secret not in frame and echoed not in frame)
    shown = _shown(secret, 401, "text/html", f"denied for <{echoed}> end")
    assert echoed not in shown
    assert secret not in shown


@pytest.mark.parametrize("escaping", ["json-ascii", "json-go-html-safe", "json-every-char"])
@pytest.mark.parametrize("status", [200, 400])
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(secret=SECRETS)
def test_a_credential_in_a_json_body_is_redacted_however_the_string_was_escaped(
    escaping: str, status: int, secret: str
) -> None:
    echoed = ESCAPINGS[escaping](secret)
    body = '{"error": "bad token ' + echoed + '", "status": ' + str(status) + "}"
    frame = f'The API answered {status} Bad Request.\n{{"error":"bad token {REDACTED}","status":{status}}}'
    assume(secret not in frame and echoed not in frame)
    assume(json.loads(body))
    shown = _shown(secret, status, "application/json", body)
    assert echoed not in shown
    assert secret not in shown


# -- the reviewers' cases, over a real socket ------------------------------------------------------

PASSWORD = "p&ss<w0rd>\"'x"


@pytest.mark.parametrize(
    ("content_type", "escape"),
    [
        ("application/json", _go_json),
        ("application/json", lambda s: json.dumps(s)[1:-1]),
        ("text/html; charset=utf-8", lambda s: html.escape(s)),
        ("text/html; charset=utf-8", lambda s: "".join(f"&#{ord(c)};" for c in s)),
        ("application/x-www-form-urlencoded", lambda s: quote_plus(s).lower()),
    ],
)
async def test_a_basic_auth_password_echoed_escaped_in_an_error_body_is_redacted(
    make_caller: MakeCaller,
    upstream: Upstream,
    monkeypatch: pytest.MonkeyPatch,
    content_type: str,
    escape: Callable[[str], str],
) -> None:
    monkeypatch.setenv("SPECBRIDGE_TEST_SECRET", f"alice:{PASSWORD}")

    def echo_password(request: RecordedRequest) -> Reply:
        token = request.headers["authorization"].removeprefix("Basic ")
        password = base64.b64decode(token).decode().partition(":")[2]
        body = (
            f'{{"message": "wrong password {escape(password)}"}}'
            if "json" in content_type
            else (f"<p>wrong password {escape(password)}</p>")
        )
        return Reply(401, [("Content-Type", content_type)], body.encode())

    upstream.route("/v1/ping", echo_password)
    with anyio.fail_after(10):
        result = await make_caller(auth_type="basic").call("ping", {})
    assert result.is_error
    assert escape(PASSWORD) not in result.text
    assert "p&ss" not in result.text and "p\\u0026ss" not in result.text and "p&amp;ss" not in result.text
    assert REDACTED in result.text
