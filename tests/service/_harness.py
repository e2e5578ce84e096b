"""The call service in process: a real store of each backend (`store_url`), a real `Caller` to the
loopback upstream, the service's own steps called one by one or as the whole line (`Harness`)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from pathlib import Path
from types import FrameType
from typing import Any

from specbridge import ErrorCode
from specbridge.access import Identity
from specbridge.call import Caller, CallResult
from specbridge.config import ClientConfig, Config, config_from_data
from specbridge.document import load_document
from specbridge.files import Files
from specbridge.service import NOBODY, Asking, CallRequest, CallService, Deadline, Ledger, Question
from specbridge.store import Approval, Status
from specbridge.tools import Tool, convert
from tests.support.documents import BLOBS, IDEMPOTENCY_KEY
from tests.support.gateway import SPEC
from tests.support.openapi import operation
from tests.support.upstream import Upstream

SERVICE_SPEC = (
    SPEC
    + operation(
        "/payments", "post", "createPayment", "Take a payment", answer="The payment",
        parameters=[IDEMPOTENCY_KEY, "{name: X-Note, in: header, required: false, schema: {type: string}}"],
        body="{type: object, required: [amount], properties: {amount: {type: integer}, note: {type: string}}}",
    )
    + BLOBS
    + operation(
        "/imports", "post", "importOrders", "Import many orders at once", answer="Imported",
        body="{type: object, properties: {orders: {type: array, "
        "items: {type: object, properties: {product: {type: string}, quantity: {type: integer}}}}}}",
    )
)  # fmt: skip
ORDER = {"shopId": "s1", "product": "p1", "quantity": 2}
TOOLS = {"createOrder": {"requires_approval": True}}  # an order waits for a person


class Harness:
    """One API of the service's own: `request` makes the `CallRequest` an adapter would, `call` runs it."""

    def __init__(self, config: Config) -> None:
        self.config = config
        self.api = config.apis["shop"]
        self.toolset = convert(load_document(self.api.spec))
        self.caller = Caller(self.api, self.toolset, check_workers=False)
        self.ledger = Ledger(lambda: self.config)
        self.files = Files(self.ledger.open, lambda: self.config.files)
        self.service = CallService(self.ledger, self.files, lambda: self.config, deadline=60.0)

    def tool(self, name: str) -> Tool:
        found = self.toolset.get(name)
        assert found is not None, name
        return found

    def client(self, name: str | None) -> ClientConfig | None:
        return None if name is None else self.config.clients[name]

    def request(
        self,
        tool: str,
        arguments: Mapping[str, Any],
        *,
        client: str | None = None,
        deadline: float = 60.0,
        asking: Asking = NOBODY,
        identity: Identity | None = None,
    ) -> CallRequest:
        return CallRequest(
            self.api,
            self.caller,
            self.tool(tool),
            identity.client if identity is not None else self.client(client),
            arguments,
            Deadline.after(deadline),
            asking,
            identity,
        )

    async def call(self, tool: str, arguments: Mapping[str, Any], **options: Any) -> CallResult | Question:
        return await self.service.call(self.request(tool, arguments, **options))

    async def result(self, tool: str, arguments: Mapping[str, Any], **options: Any) -> CallResult:
        outcome = await self.call(tool, arguments, **options)
        assert isinstance(outcome, CallResult), outcome
        return outcome

    async def aclose(self) -> None:
        await self.service.aclose()
        await self.caller.aclose()
        await self.ledger.aclose()


@contextlib.asynccontextmanager
async def harness(
    folder: Path, upstream: Upstream, store: str | None = None, **top: Any
) -> AsyncIterator[Harness]:
    """The service on `store` (SQLite in `folder` by default) for the shop API with `top` config keys
    (`tools` and `auth` go to the API, and the keys of `api`; everything else to the top level)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "shop.yaml").write_text(SERVICE_SPEC, encoding="utf-8")
    api: dict[str, Any] = {
        "spec": str(folder / "shop.yaml"),
        "base_url": upstream.url,
        "egress": {"allow": [upstream.address]},
        "timeout": 30,
    }
    for key in ("tools", "auth"):  # the API's own keys
        if key in top:
            api[key] = top.pop(key)
    api.update(top.pop("api", {}))
    data = {"apis": {"shop": api}, "store": store or f"sqlite:///{folder / 'state.db'}", **top}
    made = Harness(config_from_data(data, source="specbridge.yaml", base_dir=folder))
    try:
        yield made
    finally:
        await made.aclose()


@contextlib.contextmanager
def counted(*functions: Callable[..., Any]) -> Iterator[dict[str, int]]:
    """How often each of `functions` ran (whoever called it), by a profile hook on their code objects."""
    codes = {function.__code__: function.__name__ for function in functions}
    counts = dict.fromkeys(codes.values(), 0)

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code in codes:
            counts[codes[frame.f_code]] += 1

    sys.setprofile(profile)
    try:
        yield counts
    finally:
        sys.setprofile(None)


def served(service: Harness) -> Any:
    """What the gateway hands its sender: its APIs as it serves them now."""
    return lambda: {"shop": service}


async def approved_while_nobody_waits(service: Harness, client: str | None = None) -> Approval:
    """The agent's call answered `approval-pending` and ended; then a person approves at the desk."""
    pending = await service.result("createOrder", ORDER, client=client)
    assert pending.code is ErrorCode.APPROVAL_PENDING, pending.text
    assert "sends it as soon as it is approved" in pending.text or "on_retry" in str(service.api.approvals)
    desk = service.ledger.current().desk
    (waiting,) = await desk.list(Status.PENDING)
    return await desk.approve(waiting.id, "alice")
