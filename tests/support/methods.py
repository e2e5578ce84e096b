"""An HTTP transport that counts the JSON-RPC methods a client sends through it (an MCP client's requests,
as the gateway receives them), around the transport it is given."""

from __future__ import annotations

import json
from collections import Counter

import httpx2


class CountingTransport(httpx2.AsyncBaseTransport):
    def __init__(self, inner: httpx2.AsyncBaseTransport) -> None:
        self.inner = inner
        self.methods: Counter[str] = Counter()

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        if request.method == "POST":
            try:
                message = json.loads(await request.aread())
            except ValueError:
                message = None
            if isinstance(message, dict) and isinstance(message.get("method"), str):
                self.methods[message["method"]] += 1
        return await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()
