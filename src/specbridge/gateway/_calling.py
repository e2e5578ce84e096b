"""How the gateway runs one call of a document tool, apart from MCP: around its idempotency key and as a
long call where configured (`_long_calls.CallService`), and for a tool whose plan says a person must
approve each call, checked first, then through the approval flow on the store (PRODUCT §5.1), where
`approvals.by: client` asks the client's user first (`_elicit`). The caller sends only once a person
said yes. What the config decides for the call (approval, bound values, timeout) is read from the
caller's plan for the tool and the call's bindings (`call/_plan.py`), never from the settings again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._logging import monotonic
from ..call import CallResult
from ..config import ClientConfig
from ..files import owner_of
from ..tools import Tool
from ._elicit import ask_client
from ._gateway import ApiState, Gateway


class CallPolicy:
    """The call policy of one API's MCP server; `call` is what `tools/call` of a document tool runs."""

    def __init__(self, gateway: Gateway, api: str) -> None:
        self.gateway = gateway
        self.api = api

    async def call(
        self,
        state: ApiState,
        tool: Tool,
        client: ClientConfig | None,
        arguments: Mapping[str, Any],
        deadline_at: float,
    ) -> CallResult:
        """One call through the caller, finished by `deadline_at` (monotonic) or answered as pending."""
        client_bindings = client.bindings.get(self.api) if client is not None else None
        secret_id = client.secrets.get(self.api) if client is not None else None

        async def send(arguments: Mapping[str, Any], extra: Mapping[str, Any]) -> CallResult:
            bindings = {**(client_bindings or {}), **extra} if extra else client_bindings
            return await self._send(state, tool, client, arguments, bindings, secret_id, deadline_at)

        return await self.gateway.calls.call(
            state.api,
            tool,
            client.id if client is not None else None,
            arguments,
            send,
            budget=deadline_at - monotonic(),
            send_timeout=state.caller.plan(tool, client_bindings).timeout,
        )

    async def _send(
        self,
        state: ApiState,
        tool: Tool,
        client: ClientConfig | None,
        arguments: Mapping[str, Any],
        bindings: Mapping[str, Any] | None,
        secret_id: str | None,
        deadline_at: float,
    ) -> CallResult:
        plan = state.caller.plan(tool, bindings)
        # Files by `file_id` become attachments, and a binary answer a file (gateway/_files.py).
        files, owner = self.gateway.files, owner_of(client)
        given, attachments = await files.attachments(tool, owner, arguments)
        if not plan.requires_approval:
            result = await state.caller.call(
                tool.name, given, client_bindings=bindings, secret_id=secret_id, attachments=attachments
            )
            return await files.keep_answer(owner, result)
        state.caller.prepare(tool, given, client_bindings=bindings)  # bad arguments need no person
        gate = self.gateway.approvals.current()

        async def send() -> CallResult:
            result = await state.caller.call(
                tool.name,
                given,
                client_bindings=bindings,
                secret_id=secret_id,
                attachments=attachments,
                approved=True,
            )
            return await files.keep_answer(owner, result)

        client_id, bound = client.id if client is not None else None, dict(plan.binding_values)
        # approvals.by: client: the client's user answers first where the client can ask them
        await ask_client(
            gate,
            self.api,
            tool.name,
            client_id,
            arguments,
            bound,
            budget=deadline_at - monotonic(),
            send_timeout=plan.timeout,
        )
        return await gate.call(
            self.api,
            tool.name,
            client_id,
            arguments,
            bound,
            send,
            budget=deadline_at - monotonic(),
            send_timeout=plan.timeout,
        )
