"""Connectors without a document (seed 003's examples), served and called end to end: `specbridge
serve`'s gateway over Streamable HTTP, the official MCP SDK client, a real upstream on loopback, and a
person approving the refund through the admin API."""

from __future__ import annotations

import json
import re
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import httpx

from specbridge.access import key_sha256, new_key
from tests.support.gateway import http_client, running_gateway, text
from tests.support.upstream import Upstream, json_response

ADMIN_KEY = new_key(admin=True)


def connectors_config(directory: Path, upstream: Upstream) -> Path:
    """The seed's weather connector (a public API's whole URL, a bound query value) and its refund
    endpoint (a path under base_url, a request schema, requires_approval), pointed at the upstream."""
    config = f"""\
apis:
  weather:
    egress: {{allow: ["{upstream.address}"]}}
    operations:
      current_weather:
        method: GET
        url: {upstream.url}/v1/forecast
        description: >-
          Gets the current temperature, the wind speed in km/h and the WMO weather code for a place.
          Work out the latitude and longitude of the place yourself before you call it.
        parameters:
          query:
            - {{name: latitude, description: Latitude in decimal degrees, type: number, required: true}}
            - {{name: longitude, description: Longitude in decimal degrees, type: number, required: true}}
            - {{name: current, description: Comma-separated list of current weather variables}}
            - {{name: temperature_unit, description: celsius or fahrenheit}}
        bindings: {{query.current: "temperature_2m,wind_speed_10m,weather_code"}}
  shop:
    base_url: {upstream.url}/api
    egress: {{allow: ["{upstream.address}"]}}
    operations:
      refund-order:
        method: POST
        path: /orders/{{orderId}}/refund
        description: Refunds an order. Ask the customer first.
        request:
          type: object
          required: [amount, reason]
          properties:
            amount: {{type: number, exclusiveMinimum: 0}}
            reason: {{type: string}}
        response: {{type: object, properties: {{id: {{type: string}}, status: {{type: string}}}}}}
        requires_approval: true
      ping:
        method: POST
        path: /ping
        description: Wakes the shop up (a POST with no request schema sends no body).
admins:
  ops: {{key_sha256: {key_sha256(ADMIN_KEY)}}}
approvals: {{wait: 0}}
store: sqlite:///{directory / "state.db"}
"""
    path = directory / "specbridge.yaml"
    path.write_text(config, encoding="utf-8")
    return path


async def admin(base: str, method: str, path: str) -> httpx.Response:
    async with httpx.AsyncClient(base_url=base) as client:
        return await client.request(method, path, headers={"Authorization": f"Bearer {ADMIN_KEY}"})


async def test_the_weather_connector_is_a_tool_whose_bound_query_value_the_model_never_sees(
    tmp_path: Path, upstream: Upstream
) -> None:
    upstream.route("/v1/forecast", json_response({"current": {"temperature_2m": 14.2}}))
    config = connectors_config(tmp_path, upstream)
    async with running_gateway(config) as (base, _), http_client(f"{base}/weather/mcp") as client:
        (tool,) = (await client.list_tools()).tools
        result = await client.call_tool("current_weather", {"latitude": 51.5072, "longitude": -0.1276})
        refused = await client.call_tool("current_weather", {"latitude": 1, "longitude": 2, "current": "x"})
    assert tool.name == "current_weather" and tool.description and "latitude" in tool.description
    assert set(tool.input_schema["properties"]) == {"latitude", "longitude", "temperature_unit"}
    assert tool.input_schema["required"] == ["latitude", "longitude"]
    assert result.is_error is False and result.structured_content == {"current": {"temperature_2m": 14.2}}
    assert refused.is_error is True  # a bound argument supplied anyway: nothing sent
    (request,) = upstream.requests
    target = urlsplit(request.target)
    assert request.method == "GET" and target.path == "/v1/forecast"
    assert dict(parse_qsl(target.query)) == {
        "latitude": "51.5072",
        "longitude": "-0.1276",
        "current": "temperature_2m,wind_speed_10m,weather_code",
    }


async def test_the_refund_connector_waits_for_a_person_and_is_sent_once_approved(
    tmp_path: Path, upstream: Upstream
) -> None:
    upstream.route("/api/orders/A-1001/refund", json_response({"id": "r1", "status": "refunded"}))
    upstream.route("/api/ping", json_response({"ok": True}))
    config = connectors_config(tmp_path, upstream)
    arguments = {"orderId": "A-1001", "amount": 12.5, "reason": "Blue mug arrived smashed"}
    async with running_gateway(config) as (base, _), http_client(f"{base}/shop/mcp") as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
        pending = await client.call_tool("refund-order", arguments)
        assert pending.is_error is True and text(pending).startswith("[approval-pending]")
        assert upstream.requests == []
        found = re.search(r"approval ([A-Za-z0-9_-]{20,})", text(pending))
        assert found is not None
        assert (await admin(base, "POST", f"/admin/approvals/{found.group(1)}/approve")).status_code == 200
        done = await client.call_tool("refund-order", arguments)
        pinged = await client.call_tool("ping", {})
    assert listed["refund-order"].input_schema["required"] == ["orderId", "amount", "reason"]
    assert listed["refund-order"].output_schema is not None
    assert done.is_error is False and done.structured_content == {"id": "r1", "status": "refunded"}
    assert pinged.is_error is False
    refund, ping = upstream.requests
    assert (refund.method, refund.path) == ("POST", "/api/orders/A-1001/refund")
    assert json.loads(refund.body) == {"amount": 12.5, "reason": "Blue mug arrived smashed"}
    assert refund.headers["content-type"] == "application/json"
    assert (ping.method, ping.path, ping.body) == ("POST", "/api/ping", b"")
    assert "content-type" not in ping.headers
