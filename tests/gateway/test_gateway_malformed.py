"""Malformed params are the client's mistake: JSON-RPC -32602 naming the field, never -32603."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import pytest

from tests.gateway._rawrpc import RawSession
from tests.support.gateway import running_gateway, write_config
from tests.support.upstream import Upstream, json_response

MALFORMED: list[tuple[str, str, Any, str]] = [
    ("arguments a string", "tools/call", {"name": "getProduct", "arguments": "id=p1"}, "params.arguments"),
    ("arguments an array", "tools/call", {"name": "getProduct", "arguments": ["p1"]}, "params.arguments"),
    ("name a number", "tools/call", {"name": 7, "arguments": {}}, "params.name"),
    ("name null", "tools/call", {"name": None, "arguments": {}}, "params.name"),
    ("name missing", "tools/call", {"arguments": {"id": "p1"}}, "params.name"),
    (
        "_meta a string",
        "tools/call",
        {"name": "getProduct", "arguments": {"id": "p1"}, "_meta": "m"},
        "params._meta",
    ),
    ("cursor a number", "tools/list", {"cursor": 3}, "params.cursor"),
]


@pytest.fixture(autouse=True)
def upstream_routes(upstream: Upstream) -> None:
    """What this module's upstream answers (the upstream itself: tests/conftest.py)."""
    upstream.route("/products/p1", json_response({"id": "p1", "name": "Mug"}))


@pytest.fixture
def config(tmp_path: Path, upstream: Upstream) -> Path:
    return write_config(tmp_path, upstream)


async def test_malformed_params_are_invalid_params_naming_the_field_and_the_session_goes_on(
    config: Path, upstream: Upstream
) -> None:
    with anyio.fail_after(60):
        async with running_gateway(config) as (base, gateway), RawSession(f"{base}/mcp") as session:
            for case, method, params, field in MALFORMED:
                status, body = await session.call(method, params)
                assert status == 200, (case, body)
                error = body["error"]
                assert error["code"] == -32602, (case, error)
                assert error["data"] == {"code": "params-invalid"}, (case, error)
                assert error["message"].startswith("invalid params: "), (case, error)
                assert f"{field}: " in error["message"] and "params.params" not in error["message"], (
                    case,
                    error,
                )
                assert "id=p1" not in error["message"] and "getProduct" not in error["message"]
            status, body = await session.call("tools/call", {"name": "getProduct", "arguments": {"id": "p1"}})
            assert body["result"]["structuredContent"] == {"id": "p1", "name": "Mug"}
            assert "gateway-internal" not in gateway.metrics.render()
    assert len(upstream.requests) == 1


async def test_the_message_says_what_each_field_should_be(config: Path) -> None:
    with anyio.fail_after(60):
        async with running_gateway(config) as (base, _), RawSession(f"{base}/mcp") as session:
            _, body = await session.call("tools/call", {"name": 7, "arguments": "x"})
    message = body["error"]["message"]
    assert "params.name: must be a string" in message
    assert "params.arguments: must be an object" in message


def test_only_the_sdks_check_of_a_request_counts_as_malformed_params_not_a_model_the_gateway_built() -> None:
    import mcp_types as types
    from pydantic import ValidationError

    from specbridge.gateway._params import about_params

    with pytest.raises(ValidationError) as request:
        types.CallToolRequestParams.model_validate({"arguments": {}})
    with pytest.raises(ValidationError) as ours:
        types.Tool.model_validate({"name": "t"})
    assert about_params(request.value)
    assert not about_params(ours.value)


async def test_over_stdio_malformed_params_are_invalid_params_too(config: Path) -> None:
    import json
    import sys

    messages = [
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "getProduct", "arguments": "id=p1"},
        },
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list", "params": {"cursor": 3}},
    ]
    command = [sys.executable, "-m", "specbridge", "serve", "--config", str(config)]
    answers: dict[int, Any] = {}
    with anyio.fail_after(60):
        async with await anyio.open_process(command, cwd=str(config.parent)) as process:
            assert process.stdin is not None and process.stdout is not None
            await process.stdin.send("".join(json.dumps(m) + "\n" for m in messages).encode())
            buffer = b""
            while len(answers) < 3:
                buffer += await process.stdout.receive()
                *lines, buffer = buffer.split(b"\n")
                for line in lines:
                    answer = json.loads(line)
                    answers[answer["id"]] = answer
            await process.stdin.aclose()
            await process.wait()
    assert answers[1]["error"]["code"] == -32602
    assert answers[1]["error"]["message"] == "invalid params: params.arguments: must be an object"
    assert answers[2]["error"]["data"] == {"code": "params-invalid"}
