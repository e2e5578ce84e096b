"""A raw JSON-RPC session over Streamable HTTP (no SDK client): for requests the SDK would never send."""

from __future__ import annotations

import itertools
from types import TracebackType
from typing import Any

import httpx2

PROTOCOL = "2025-06-18"


class RawSession:
    """`initialize` and `notifications/initialized` on enter; `call(method, params)` -> (status, body)."""

    def __init__(self, url: str, *, key: str | None = None, timeout: float = 30.0) -> None:
        self.url = url
        self.headers = {"Accept": "application/json, text/event-stream", "MCP-Protocol-Version": PROTOCOL}
        if key:
            self.headers["Authorization"] = f"Bearer {key}"
        self._ids = itertools.count(1)
        self._http = httpx2.AsyncClient(timeout=timeout)
        self.session_id = ""

    async def __aenter__(self) -> RawSession:
        params = {
            "protocolVersion": PROTOCOL,
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"},
        }
        response = await self.post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params})
        assert response.status_code == 200, response.text
        self.session_id = response.headers["mcp-session-id"]
        self.headers["Mcp-Session-Id"] = self.session_id
        note = await self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        assert note.status_code == 202, note.text
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        await self._http.aclose()

    async def post(self, body: Any) -> httpx2.Response:
        return await self._http.post(self.url, json=body, headers=self.headers)

    async def call(self, method: str, params: Any = None, *, omit_params: bool = False) -> tuple[int, Any]:
        body: dict[str, Any] = {"jsonrpc": "2.0", "id": next(self._ids), "method": method}
        if not omit_params:
            body["params"] = params
        response = await self.post(body)
        try:
            return response.status_code, response.json()
        except ValueError:
            return response.status_code, response.text
