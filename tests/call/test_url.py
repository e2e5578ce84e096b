"""`call/_url.py`: the URL of one request. What arrives upstream: the path as one encoded segment under
the base URL, `.`/`..`/empty values refused, a hostile document's path template refused, the literal query
of a path key (never where the credential goes), and no URL longer than servers accept."""

from __future__ import annotations

from typing import Any

import anyio
import pytest

from specbridge._errors import ErrorCode
from tests.call._caller import SECRET, MakeCaller
from tests.call._caller import call as _call
from tests.call._documents import OK
from tests.call._documents import document as _document
from tests.support.upstream import Upstream

# -- path tricks ----------------------------------------------------------------------------------

PATH_REFUSED = ["..", ".", ""]


PATH_ENCODED = {
    "%2e%2e": "%252e%252e",
    "a/b": "a%2Fb",
    "?admin=1": "%3Fadmin%3D1",
    "#frag": "%23frag",
    "//evil.example": "%2F%2Fevil.example",
    "a\0b": "a%00b",
    "a\\b": "a%5Cb",
    "../../admin": "..%2F..%2Fadmin",
    "..;/x": "..%3B%2Fx",
    "%2F": "%252F",
    " space": "%20space",
    "é": "%C3%A9",
}


@pytest.mark.parametrize("value", PATH_REFUSED)
async def test_a_path_value_of_dot_dot_or_empty_is_refused(
    make_caller: MakeCaller, upstream: Upstream, value: str
) -> None:
    caller = make_caller()
    result = await caller.call("getItem", {"itemId": value})
    assert result.is_error and result.code == ErrorCode.PATH_REFUSED
    assert upstream.requests == []


@pytest.mark.parametrize(("value", "sent"), PATH_ENCODED.items())
async def test_a_path_value_is_one_encoded_segment_under_the_base_url(
    make_caller: MakeCaller, upstream: Upstream, value: str, sent: str
) -> None:
    caller = make_caller()
    with anyio.fail_after(10):
        result = await caller.call("getItem", {"itemId": value})
    assert not result.is_error, result.text
    assert upstream.requests[-1].target == f"/v1/items/{sent}"


@pytest.mark.parametrize("arguments", [{"itemId": "x" * 40_000}, {"itemId": "1", "tag": ["y" * 40_000]}])
async def test_a_url_longer_than_servers_accept_is_refused(
    make_caller: MakeCaller, upstream: Upstream, arguments: dict[str, Any]
) -> None:
    result = await make_caller().call("getItem", arguments)
    assert result.is_error and result.code == ErrorCode.PATH_REFUSED
    assert upstream.requests == []


# -- F5: a hostile document's path template --------------------------------------------------------

HOSTILE_TEMPLATES = [
    "/x/..;/admin",  # Tomcat/Jetty: `..;` is `..`
    "/x/\\..\\admin",  # servers that read `\` as `/` (IIS, WHATWG URL parsers)
    "/x/..\\admin",
    "/x/%2e%2e%5cadmin",
    "/x/%2e%2e%2fadmin",  # servers that decode `%2F` before routing
    "/x/..%2fadmin",
    "/x/%252e%252e/admin",  # double decoding
    "/x/%c0%ae%c0%ae/admin",  # overlong UTF-8 dots
    "/x/\u2025/admin",  # TWO DOT LEADER, `..` after NFKC
    "/x/\uff0e\uff0e/admin",  # full-width dots
]


@pytest.mark.parametrize("template", HOSTILE_TEMPLATES)
async def test_a_path_template_that_climbs_out_of_the_base_path_is_refused(
    make_caller: MakeCaller, upstream: Upstream, template: str
) -> None:
    document = _document({template: {"get": {"operationId": "climb", "responses": OK}}})
    result = await _call(make_caller(document=document), "climb", {})
    assert result.is_error and result.code == ErrorCode.PATH_REFUSED, result.text
    assert upstream.requests == []


async def test_a_path_template_cannot_set_the_credentials_query_parameter(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    document = _document(
        {
            "/items?api_key={key}": {
                "get": {
                    "operationId": "listItems",
                    "parameters": [
                        {"name": "key", "in": "path", "required": True, "schema": {"type": "string"}}
                    ],
                    "responses": OK,
                }
            }
        }
    )
    caller = make_caller(document=document, auth_type="query", auth_name="api_key")
    result = await _call(caller, "listItems", {"key": "attacker-key"})
    assert result.is_error and result.code == ErrorCode.HEADER_REFUSED, result.text
    assert upstream.requests == []


@pytest.mark.parametrize("template", ["/files/{name}.json", "/a;v=1/b", "/x/..data/y", "/x/.well-known/y"])
async def test_an_ordinary_path_template_is_still_called(
    make_caller: MakeCaller, upstream: Upstream, template: str
) -> None:
    parameters = (
        [{"name": "name", "in": "path", "required": True, "schema": {"type": "string"}}]
        if "{" in template
        else []
    )
    document = _document(
        {template: {"get": {"operationId": "fine", "parameters": parameters, "responses": OK}}}
    )
    arguments = {"name": "report"} if parameters else {}
    result = await _call(make_caller(document=document), "fine", arguments)
    assert not result.is_error, result.text
    assert upstream.requests[-1].path.startswith("/v1/")


async def test_a_fragment_in_a_path_template_does_not_swallow_the_query_and_credential(
    make_caller: MakeCaller, upstream: Upstream
) -> None:
    # Real documents (Box) write `/files/{id}#get_shared_link` to tell operations apart.
    document = _document(
        {
            "/files/{id}#get_shared_link": {
                "get": {
                    "operationId": "getLink",
                    "parameters": [
                        {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}},
                        {"name": "fields", "in": "query", "schema": {"type": "string"}},
                    ],
                    "responses": OK,
                }
            }
        }
    )
    caller = make_caller(document=document, auth_type="query", auth_name="api_key")
    result = await _call(caller, "getLink", {"id": "7", "fields": "shared_link"})
    assert not result.is_error, result.text
    assert upstream.requests[-1].path == "/v1/files/7"
    assert upstream.requests[-1].query == [("fields", "shared_link"), ("api_key", SECRET)]
