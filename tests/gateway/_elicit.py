"""A client whose user answers elicitations, and a gateway config whose approvals that client's user gives."""

from __future__ import annotations

from pathlib import Path

import mcp_types as types
from mcp.client.session import ClientRequestContext

from specbridge.access import key_sha256, new_key
from tests.support.gateway import write_config
from tests.support.upstream import Upstream

ADMIN_KEY = new_key(admin=True)


CLIENT_KEY = "sbk_test-key-for-client-alice"


ORDER = {"product": "p1", "quantity": 2}  # the shop is bound to alice: the model never sends it


def elicit_config(tmp_path: Path, upstream: Upstream, *, by: str = "client", wait: float = 20) -> Path:
    clients = f"""\
clients:
  alice:
    key_sha256: "{key_sha256(CLIENT_KEY)}"
    apis: [shop]
    bindings: {{shop: {{path.shopId: s1}}}}
admins:
  ops: {{key_sha256: {key_sha256(ADMIN_KEY)}}}
approvals: {{wait: {wait}, by: {by}}}
store: 'sqlite:///{tmp_path / "state.db"}'
"""
    return write_config(
        tmp_path, upstream, tools="tools:\n  createOrder: {requires_approval: true}\n", clients=clients
    )


class User:
    """The client's user: answers every elicitation with `action`, and remembers what it was asked."""

    def __init__(self, action: str = "accept", *, fail: bool = False) -> None:
        self.action = action
        self.fail = fail
        self.asked: list[str] = []

    async def __call__(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        self.asked.append(params.message)
        if self.fail:
            return types.ErrorData(code=types.INTERNAL_ERROR, message="the client's dialog broke")
        return types.ElicitResult(action=self.action)  # type: ignore[arg-type]
