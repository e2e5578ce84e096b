"""Properties: any valid arguments build a request under the base URL carrying the credential exactly
once; any invalid arguments send nothing."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import jsonschema
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from specbridge._errors import ArgumentError, ErrorCode
from specbridge.call import Caller, build_request
from specbridge.call._check import shape
from specbridge.call._credential import Credential
from tests.call._caller import api_config, toolset_for
from tests.support.schema_strategy import values as from_schema

BASE = "https://api.example.com/v1"
TOKEN = "Zq7credentialXk9"
TOOLSET = toolset_for()
TOOLS = [tool for tool in TOOLSET.tools if tool.name != "anything"]
CALLER = Caller(api_config(BASE), TOOLSET)
CREDENTIALS = [
    Credential("bearer", "", TOKEN),
    Credential("header", "X-Api-Token", TOKEN),
    Credential("query", "api_key", TOKEN),
    Credential("cookie", "sid", TOKEN),
]
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


def _shaped(tool_index: int) -> Any:
    schema = TOOLS[tool_index].input_schema
    return shape(schema, schema.get("$defs", {}))


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much]
)
@given(data=st.data(), tool_index=st.integers(0, len(TOOLS) - 1), credential=st.sampled_from(CREDENTIALS))
def test_valid_arguments_build_a_request_under_the_base_url_with_the_credential_once(
    data: st.DataObject, tool_index: int, credential: Credential
) -> None:
    tool = TOOLS[tool_index]
    arguments = data.draw(from_schema(_shaped(tool_index)))
    try:
        checked = CALLER.prepare(tool, arguments)
    except ArgumentError:
        assume(False)
        return
    try:
        built = build_request(tool, checked, base_url=BASE, credential=credential)
    except Exception as error:  # a refusal (path `..`, header CR/LF) is allowed; a crash is not
        assert getattr(error, "code", None) in (ErrorCode.PATH_REFUSED, ErrorCode.HEADER_REFUSED), error
        return
    request = built.to_httpx()
    assert (
        request.url.scheme == "https" and request.url.host == "api.example.com" and request.url.port is None
    )
    assert request.url.raw_path.decode().startswith("/v1/")
    segments = request.url.raw_path.decode().split("?")[0].split("/")
    assert "." not in segments and ".." not in segments
    everything = str(request.url) + "\n".join(f"{k}: {v}" for k, v in request.headers.multi_items())
    everything += (request.content or b"").decode("utf-8", "replace")
    assert everything.count(TOKEN) == 1


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    tool_index=st.integers(0, len(TOOLS) - 1),
    arguments=st.dictionaries(st.text(max_size=12), JSON, max_size=5),
)
def test_invalid_arguments_send_nothing(tool_index: int, arguments: dict[str, Any]) -> None:
    tool = TOOLS[tool_index]
    required = set(tool.input_schema.get("required", []))
    present = {k: v for k, v in arguments.items() if v is not None or k in required}
    oracle_invalid = not jsonschema.Draft202012Validator(_shaped(tool_index)).is_valid(present)
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200)

    async def resolve(host: str, port: int) -> list[str]:
        return ["93.184.216.34"]

    async def run() -> Any:
        caller = Caller(api_config(BASE), TOOLSET, transport=httpx.MockTransport(handler), resolve=resolve)
        try:
            return await caller.call(tool.name, arguments)
        finally:
            await caller.aclose()

    result = asyncio.run(run())
    if oracle_invalid:
        assert result.is_error and result.code == ErrorCode.ARGUMENTS_INVALID
    if result.is_error:
        assert seen == []
    else:
        assert len(seen) == 1
