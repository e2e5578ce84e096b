"""`call/_render.py`: the answer as the agent sees it (JSON structured or text, images, binary
described, error statuses), and the credential redacted in whatever form the API echoes it."""

from __future__ import annotations

import base64
import json
import re
from typing import Any
from urllib.parse import quote

import anyio
import pytest

from specbridge._errors import ErrorCode
from specbridge.config import AnswersConfig
from tests.call._caller import SECRET, MakeCaller
from tests.call._caller import call as _call
from tests.support.upstream import (
    RecordedRequest,
    Reply,
    Upstream,
    binary_response,
    echo_header,
    invalid_utf8,
    json_response,
    redirect,
    text_response,
)

ENCODINGS = {
    "raw": SECRET,
    "url-encoded": quote(SECRET, safe=""),
    "base64": base64.b64encode(SECRET.encode()).decode(),
}


@pytest.mark.parametrize(("form", "echoed"), ENCODINGS.items())
@pytest.mark.parametrize("where", ["text", "json value", "json key", "error body", "location"])
async def test_an_echoed_credential_never_reaches_the_agent(
    make_caller: MakeCaller, upstream: Upstream, form: str, echoed: str, where: str
) -> None:
    replies: dict[str, Reply] = {
        "text": text_response(f"your token is {echoed}!"),
        "json value": json_response({"token": echoed, "list": [echoed]}),
        "json key": json_response({echoed: 1}),
        "error body": text_response(f"bad token {echoed}", status=401),
        "location": redirect(f"https://elsewhere.example/?t={echoed}"),
    }
    upstream.route("/v1/ping", replies[where])
    with anyio.fail_after(10):
        result = await make_caller().call("ping", {})
    assert echoed not in result.text
    assert echoed not in repr(result.structured)
    assert "[credential]" in result.text


async def test_a_basic_credential_echoed_as_its_base64_is_redacted(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    upstream.route("/v1/ping", echo_header("authorization"))
    with anyio.fail_after(10):
        result = await make_caller(auth_type="basic").call("ping", {})
    assert result.text == "Basic [credential]"


async def test_an_invalid_utf8_text_answer_is_shown_with_replacement_characters(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    upstream.route("/v1/ping", invalid_utf8())
    with anyio.fail_after(10):
        result = await make_caller().call("ping", {})
    assert not result.is_error and result.text.startswith("ok ") and "\ufffd" in result.text


@pytest.mark.parametrize(
    ("data", "kind"),
    [(b"\x00\x01\x02" * 100, "application/octet-stream"), (b"%PDF-1.7" + b"\0" * 50, "application/pdf")],
)
async def test_a_binary_answer_is_described_not_shown(
    make_caller: MakeCaller, upstream: Upstream, data: bytes, kind: str
) -> None:
    upstream.route("/v1/ping", binary_response(data, kind))
    with anyio.fail_after(10):
        result = await make_caller().call("ping", {})
    assert result.text == f"The API answered 200 with {len(data)} bytes of {kind} (not text, so not shown)."


async def test_a_binary_body_labelled_as_json_is_shown_as_text_not_structured(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    upstream.route("/v1/ping", binary_response(b"\xff\xfe{{{", "application/json"))
    with anyio.fail_after(10):
        result = await make_caller().call("ping", {})
    assert result.structured is None and not result.is_error


# -- answers ----------------------------------------------------------------------------------------


async def test_a_json_object_answer_is_structured_with_compact_json_text(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    upstream.route("/v1/ping", json_response({"a": [1, 2]}))
    result = await _call(make_caller(), "ping", {})
    assert result.text == '{"a":[1,2]}'  # type: ignore[attr-defined]  # the same again as structuredContent
    assert result.structured == {"a": [1, 2]} and result.status == 200  # type: ignore[attr-defined]


async def test_a_json_list_is_pretty_printed_and_structured_for_the_clients_that_take_any_value(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    upstream.route("/v1/ping", json_response([1, {"a": 2}]))
    result = await _call(make_caller(), "ping", {})
    assert result.text == '[\n  1,\n  {\n    "a": 2\n  }\n]'  # type: ignore[attr-defined]
    assert result.structured == [1, {"a": 2}]  # type: ignore[attr-defined]


async def test_an_error_status_is_an_error_result_with_the_start_of_the_body(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    upstream.route("/v1/ping", text_response("no such thing " + "x" * 5000, status=404))
    result = await _call(make_caller(), "ping", {})
    assert result.is_error and result.code == ErrorCode.UPSTREAM_STATUS and result.status == 404  # type: ignore[attr-defined]
    assert result.text.startswith("The API answered 404 Not Found.\nno such thing")  # type: ignore[attr-defined]
    assert len(result.text) < 2100  # type: ignore[attr-defined]


async def test_an_empty_answer_says_so(make_caller: MakeCaller, upstream: Upstream) -> None:
    from tests.support.upstream import Reply

    upstream.route("/v1/ping", Reply(204))
    result = await _call(make_caller(), "ping", {})
    assert result.text == "The API answered 204 with no content."  # type: ignore[attr-defined]


async def test_a_small_image_comes_back_as_image_content(make_caller: MakeCaller, upstream: Upstream) -> None:
    from tests.support.upstream import binary_response

    upstream.route("/v1/ping", binary_response(b"\x89PNG\r\n\x1a\n" + b"0" * 100, "image/png"))
    result = await _call(make_caller(), "ping", {})
    assert result.image is not None and result.image.mime_type == "image/png"  # type: ignore[attr-defined]


# -- F2: the credential cut in half by the 1 MB limit -----------------------------------------------


async def test_a_credential_cut_by_the_read_limit_does_not_leak_its_start(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    from specbridge.call._send import READ_LIMIT

    def padded(request: RecordedRequest) -> Reply:
        token = request.headers["authorization"].removeprefix("Bearer ")
        cut = len(token) - 3  # all but the last 3 characters fall inside the limit
        return text_response("x" * (READ_LIMIT - cut) + token + "y" * 100)

    upstream.route("/v1/ping", padded)
    whole = AnswersConfig(max_tokens=1_000_000)  # the budget would show only its start
    result = await _call(make_caller(answers=whole), "ping", {})
    assert not result.is_error
    assert SECRET[:8] not in result.text
    assert "[credential]" in result.text


# -- F3: a declared charset that hides the credential's bytes from the redactor ----------------------


@pytest.mark.parametrize("charset", ["utf-16-le", "utf-16", "cp500"])
async def test_a_credential_echoed_under_a_foreign_charset_is_redacted(
    make_caller: MakeCaller, upstream: Upstream, charset: str
) -> None:
    def echo(request: RecordedRequest) -> Reply:
        body = ("token: " + request.headers["authorization"] + "\n").encode("utf-8")
        return Reply(200, [("Content-Type", f"text/plain; charset={charset}")], body)

    upstream.route("/v1/ping", echo)
    result = await _call(make_caller(), "ping", {})
    decoded_back = result.text.encode(charset, "replace")
    assert SECRET[:12].encode() not in decoded_back
    assert SECRET[:12] not in result.text


async def test_a_credential_echoed_in_an_error_under_a_foreign_charset_is_redacted(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    def echo(request: RecordedRequest) -> Reply:
        body = ("denied: " + request.headers["authorization"]).encode("utf-8")
        return Reply(403, [("Content-Type", "text/plain; charset=utf-16-le")], body)

    upstream.route("/v1/ping", echo)
    result = await _call(make_caller(), "ping", {})
    assert result.is_error
    assert SECRET[:12].encode() not in result.text.encode("utf-16-le", "replace")


# -- F4: forms the redactor did not know ------------------------------------------------------------

NUMERIC_SECRET = "4242424242424242"


async def test_a_numeric_credential_echoed_as_a_json_number_is_redacted(
    make_caller: MakeCaller, upstream: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SPECBRIDGE_TEST_SECRET", NUMERIC_SECRET)

    def echo(request: RecordedRequest) -> Reply:
        value = int(request.headers["x-api-key"])
        return Reply(200, [("Content-Type", "application/json")], json.dumps({"key": value}).encode())

    upstream.route("/v1/ping", echo)
    caller = make_caller(auth_type="header", auth_name="X-Api-Key")
    result = await _call(caller, "ping", {})
    assert NUMERIC_SECRET not in result.text
    assert NUMERIC_SECRET not in json.dumps(result.structured)


@pytest.mark.parametrize(
    "form",
    [
        pytest.param(lambda s: json.dumps(s)[1:-1].replace("/", "\\/"), id="json-escaped-slash"),
        pytest.param(lambda s: "".join(f"\\u{ord(c):04x}" for c in s), id="json-unicode-escapes"),
        pytest.param(
            lambda s: re.sub("%[0-9A-F]{2}", lambda m: m.group().lower(), quote(s, safe="")),
            id="lower-case-percent-encoding",
        ),
        pytest.param(
            lambda s: base64.b64encode(b"Authorization: Bearer " + s.encode()).decode(),
            id="base64-of-a-longer-text",
        ),
        pytest.param(lambda s: base64.b64encode(b"x" + s.encode()).decode(), id="base64-offset-1"),
        pytest.param(lambda s: base64.b64encode(b"xy" + s.encode()).decode(), id="base64-offset-2"),
    ],
)
async def test_an_echoed_credential_in_another_common_encoding_is_redacted(
    make_caller: MakeCaller, upstream: Upstream, form: Any
) -> None:
    # Text (not parsed JSON): e.g. a JSON answer over the 1 MB limit, or a log line echoed as text.
    upstream.route("/v1/ping", lambda request: text_response(f"seen: {form(SECRET)} end"))
    result = await _call(make_caller(), "ping", {})
    assert form(SECRET) not in result.text
    assert "[credential]" in result.text


# -- F6: the credential inside an answer handed on as image content -------------------------------


async def test_a_credential_inside_an_image_answer_is_not_handed_on(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    # An echo endpoint whose content type the caller picks (httpbin's /response-headers, say).
    def echo(request: RecordedRequest) -> Reply:
        body = b"\x89PNG\r\n\x1a\n" + request.headers["authorization"].encode() + b"\0" * 16
        return Reply(200, [("Content-Type", "image/png")], body)

    upstream.route("/v1/ping", echo)
    result = await _call(make_caller(), "ping", {})
    assert result.image is None or SECRET.encode() not in result.image.data
    assert SECRET not in result.text


async def test_an_integer_past_64_bits_reaches_the_agent_exact(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    """orjson reads such an integer as a float: a 20-digit id would come back rounded."""
    upstream.route(
        "/v1/ping",
        binary_response(b'{"id": 123456789012345678901, "n": -9223372036854775809}', "application/json"),
    )
    with anyio.fail_after(10):
        result = await make_caller().call("ping", {})
    assert result.structured == {"id": 123456789012345678901, "n": -9223372036854775809}
    assert "123456789012345678901" in result.text
