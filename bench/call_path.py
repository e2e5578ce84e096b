"""The path of one `tools/call` through the gateway, traced: what it passes through and how often it
does the work that should happen once.

    .venv/bin/python bench/call_path.py

The fixture shop's `createOrder` with `requires_approval` and an `idempotency_key`, on SQLite, through
the gateway's ASGI app in this process and the official SDK client (handshake era): the call is made
once (a pending approval), approved at the desk, and made again; that second call, the one that is
sent, is traced with `sys.setprofile` from the client's request to its result. Counted, over frames of
the package only:

- stops: the distinct functions of the call's own modules entered from another module, in the order
  first entered (a helper called within its own module is no stop; a coroutine resumed is not entered
  again; a dataclass's generated `__init__` and a property read, cached or not, are data, no stop). The call's own
  modules are where the life of a call is: `service/` (and before it had one, the gateway's
  `_calling`, `_long_calls`, `_idempotency`, `_approving`, `_elicit`); the other rooms it uses
  (the MCP adapter, `approvals/`, `files/`, `store/`, `call/`) are counted apart, by module;
- modules: the distinct modules of the package the call entered at all;
- the argument check (`call/_checked.checked`), the plan lookup (`call/_plan.Plans.plan`), the
  fingerprints of "the same call" (any function named `fingerprint`) and the serialisations of the
  result for the store (any function named `result_json`): how many times each ran.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import sys
import tempfile
from collections import Counter
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.support.gateway import IN_PROCESS, http_client, in_process_gateway, write_config  # noqa: E402
from tests.support.upstream import Upstream, json_response  # noqa: E402

PACKAGES = {
    "gateway",
    "service",
    "approvals",
    "files",
    "call",
    "store",
    "webhooks",
    "tools",
    "config",
    "document",
}
RESUMABLE = inspect.CO_COROUTINE | inspect.CO_GENERATOR | inspect.CO_ASYNC_GENERATOR
OWN = (
    "service.",
    "gateway._calling",
    "gateway._elicit",
    "gateway._long_calls",
    "gateway._idempotency",
    "gateway._approving",
)
ORDER = {"shopId": "s1", "product": "p1", "quantity": 2, "idempotency_key": "order-1"}
COUNTED = {
    "check": lambda module, name: module == "specbridge.call._checked" and name == "checked",
    "plan lookup": lambda module, name: module == "specbridge.call._plan" and name == "Plans.plan",
    "fingerprint": lambda module, name: name == "fingerprint",
    "serialisation": lambda module, name: name == "result_json",
}


def _data(module: str, name: str) -> bool:
    """A generated `__init__` or a property read: data handed along, not a stop."""
    if "__create_fn__" in name:
        return True
    owner, _, attribute = name.rpartition(".")
    found = sys.modules[module].__dict__.get(owner) if owner and "." not in owner else None
    accessor = inspect.getattr_static(found, attribute, None) if found is not None else None
    return isinstance(accessor, property | functools.cached_property)


class Trace:
    def __init__(self) -> None:
        self.functions: set[tuple[str, str]] = set()
        self.stops: list[tuple[str, str]] = []  # (module, function) entered from another module, in order
        self.runs: Counter[str] = Counter()
        self.deepest: list[str] = []
        self.depth = 0  # the most module changes on the stack at once, among the call's own and the adapter's
        self.reentries: set[tuple[str, str]] = set()  # gateway functions entered again from below

    def __call__(self, frame: FrameType, event: str, arg: Any) -> None:
        if event != "call":
            return
        module = frame.f_globals.get("__name__", "")
        if not module.startswith("specbridge."):
            return
        name = frame.f_code.co_qualname
        if frame.f_code.co_flags & RESUMABLE and (module, name) in self.functions:
            return  # a coroutine or generator resumed: not a new run
        self.functions.add((module, name))
        caller = frame.f_back.f_globals.get("__name__", "") if frame.f_back is not None else ""
        if (
            caller != module
            and module.removeprefix("specbridge.").startswith(OWN)
            and not _data(module, name)
        ):
            self.stops.append((module, name))
        stack, at = [], frame
        while at is not None:
            stack.append(at.f_globals.get("__name__", "").removeprefix("specbridge."))
            at = at.f_back
        nested = [each for each in stack if each.startswith((*OWN, "gateway."))]
        nested = [each for n, each in enumerate(nested) if n == 0 or nested[n - 1] != each]
        if len(nested) > self.depth:
            self.depth, self.deepest = len(nested), nested[::-1]
        if stack[0].startswith("gateway."):
            inside = [each.startswith("gateway.") for each in stack[1:] if each.split(".")[0] in PACKAGES]
            if False in inside and True in inside[inside.index(False) :]:
                self.reentries.add((module, name))
        for what, matches in COUNTED.items():
            if matches(module, name):
                self.runs[what] += 1


async def main() -> None:
    with tempfile.TemporaryDirectory() as folder, Upstream() as upstream:
        upstream.route("/shops/s1/orders", json_response({"id": "o1"}, status=201))
        path = write_config(
            Path(folder), upstream, tools="tools:\n  createOrder: {requires_approval: true}\n"
        )
        path.write_text(
            path.read_text(encoding="utf-8")
            + f"approvals: {{wait: 0}}\nstore: 'sqlite:///{Path(folder) / 'state.db'}'\n",
            encoding="utf-8",
        )
        async with (
            in_process_gateway(path) as (asgi, gateway),
            http_client(f"{IN_PROCESS}/mcp", transport=asgi) as client,
        ):
            await client.list_tools()  # the client checks results against the listing: list them first
            pending = await client.call_tool("createOrder", ORDER)
            assert pending.is_error, pending
            desk = gateway.ledger.current().desk
            (approval,) = await desk.list()
            await desk.approve(approval.id, "bench")
            trace = Trace()
            sys.setprofile(trace)
            try:
                done = await client.call_tool("createOrder", ORDER)
            finally:
                sys.setprofile(None)
            assert done.structured_content == {"id": "o1"}, done
    distinct = list(dict.fromkeys(trace.stops))
    modules = sorted({module for module, _ in trace.functions})
    print(f"stops in the call's own modules (a function entered from another module): {len(distinct)}")
    for module, name in distinct:
        print(f"  {module.removeprefix('specbridge.')}.{name}")
    print(f"modules of the package entered: {len(modules)}")
    print(f"deepest nesting of the call's own modules and the adapter: {trace.depth}")
    print("  " + " > ".join(trace.deepest))
    print(f"adapter (gateway/) functions entered again from a deeper package: {len(trace.reentries)}")
    for module, name in sorted(trace.reentries):
        print(f"  {module.removeprefix('specbridge.')}.{name}")
    for what in COUNTED:
        print(f"{what}: {trace.runs[what]}")


if __name__ == "__main__":
    asyncio.run(main())
