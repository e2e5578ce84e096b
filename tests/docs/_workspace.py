"""Where the documented commands run: the example shop (`specbridge demo`'s API) on loopback, and a
folder holding the files the docs name (`openapi.yaml`, `specbridge.yaml`, `api/*.yaml`), with a
config of our own that points at the shop.

What the docs write as a placeholder is replaced from one small table (`SUBSTITUTIONS`), and what a
test cannot provide is listed, with the reason, in `NOT_RUN`; nothing else is left out.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import shutil
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import uvicorn

from specbridge.access import key_sha256
from specbridge.approvals import Approvals
from specbridge.examples.shop_api import shop_app
from specbridge.store import open_store
from tests.support.examples import DEMO_ORDER, example_spec_path

TOKEN_ENV = "SPECBRIDGE_DOCS_SHOP_TOKEN"
TOKEN = "docs-shop-t0ken"
CLIENT_KEY = "sbk_docs-client-key-for-the-commands-of-the-docs"
ADMIN_KEY = "sba_docs-admin-key-for-the-commands-of-the-docs"

# The documents the docs name, all of them the example shop's document.
DOCUMENTS = ("openapi.yaml", "orders.openapi.yaml", "api/orders.openapi.yaml", "api/shop.openapi.yaml")

CONFIG = """\
# The config the documented commands run with: the example shop as `orders` (its document) and as
# `weather` (an API of config operations), a client and an admin, a SQLite store beside this file.
apis:
  orders:
    spec: ./openapi.yaml
    base_url: {shop}/v1
    auth: {{type: bearer, secret: env:{token}}}
    egress: {{allow: ["{address}"]}}
    tools:
      refundOrder: {{requires_approval: true}}
  weather:
    base_url: {shop}/v1
    auth: {{type: bearer, secret: env:{token}}}
    egress: {{allow: ["{address}"]}}
    operations:
      search_products:
        method: GET
        path: /search
        description: Finds products whose name holds a word.
        parameters:
          query:
            - {{name: q, description: A word of the product's name, required: true}}
clients:
  support-bot:
    key_sha256: "{client}"
    apis: [orders, weather]
admins:
  alice: {{key_sha256: "{admin}"}}
store: sqlite:///state.db
"""


@dataclass
class Shop:
    """The example shop on 127.0.0.1, served by uvicorn in a thread of this process."""

    address: str
    stop: Callable[[], None]

    @property
    def url(self) -> str:
        return f"http://{self.address}"


@contextlib.contextmanager
def running_shop() -> Iterator[Shop]:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)  # connections wait in the backlog until the server's loop takes them: no wait here
    server = uvicorn.Server(
        uvicorn.Config(shop_app(TOKEN), log_config=None, access_log=False, lifespan="off")
    )
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    host, port = sock.getsockname()[:2]

    def stop() -> None:
        server.should_exit = True
        thread.join(30)

    try:
        yield Shop(f"{host}:{port}", stop)
    finally:
        stop()
        sock.close()


@dataclass
class Workspace:
    """A folder with the files the docs name; the documented commands run in it."""

    folder: Path
    shop: Shop
    approvals: list[str] = field(default_factory=list)  # made for the ID placeholder, in order
    answered: set[str] = field(default_factory=set)  # approved or rejected by a documented command

    @property
    def env(self) -> dict[str, str]:
        home = self.folder / "home"
        return {
            TOKEN_ENV: TOKEN,
            "HOME": str(home),  # `install` writes ~/.cursor/mcp.json, ~/.config/Claude/… here
            "XDG_CONFIG_HOME": str(home / ".config"),
            "XDG_CACHE_HOME": str(home / ".cache"),
            "NO_COLOR": "1",
        }

    def new_approval(self) -> str:
        """A new pending approval of refundOrder in the workspace's store: its id."""

        async def request() -> str:
            async with open_store("sqlite:///state.db", base=self.folder) as store:
                arguments = {"orderId": DEMO_ORDER, "reason": f"docs test {len(self.approvals)}"}
                approval = await Approvals(store).request(
                    "orders", "refundOrder", "support-bot", arguments, {}
                )
                return approval.id

        self.approvals.append(asyncio.run(request()))
        return self.approvals[-1]

    def status(self, approval_id: str) -> str:
        async def get() -> str:
            async with open_store("sqlite:///state.db", base=self.folder) as store:
                approval = await store.get_approval(approval_id)
                return approval.status if approval else "not found"

        return asyncio.run(get())


def make_workspace(folder: Path, shop: Shop) -> Workspace:
    (folder / "api").mkdir(parents=True, exist_ok=True)
    (folder / "home").mkdir(exist_ok=True)
    for name in DOCUMENTS:
        shutil.copyfile(example_spec_path(), folder / name)
    (folder / "specbridge.yaml").write_text(
        CONFIG.format(
            shop=shop.url,
            address=shop.address,
            token=TOKEN_ENV,
            client=key_sha256(CLIENT_KEY),
            admin=key_sha256(ADMIN_KEY),
        ),
        encoding="utf-8",
    )
    workspace = Workspace(folder, shop)
    workspace.new_approval()  # so `approvals list` has one to show
    return workspace


@dataclass(frozen=True)
class Substitution:
    pattern: str  # a regular expression over the command as written
    replace: Callable[[Workspace], str]
    why: str


# What the docs write for something each reader has their own of, and what the test puts there.
SUBSTITUTIONS = (
    Substitution(r"\bID\b", Workspace.new_approval, "an approval's id: a new pending approval, one per ID"),
    Substitution(
        r"http://127\.0\.0\.1:8080\b",
        lambda ws: f"{ws.shop.url}/v1",
        "an API on this machine: the example shop (its operations are under /v1)",
    ),
    Substitution(r"\b127\.0\.0\.1:8080\b", lambda ws: ws.shop.address, "the example shop's address"),
)


def substitute(text: str, workspace: Workspace) -> str:
    for rule in SUBSTITUTIONS:
        text = re.sub(rule.pattern, lambda _, rule=rule: rule.replace(workspace), text)  # type: ignore[misc]
    return text


# Documented commands the test does not run, each with why; compared as written (spaces normalised).
NOT_RUN = {
    "specbridge lint https://api.example.com/openapi.yaml": (
        "fetches a document from a public server; a loopback one is refused by design "
        "(the fetch is tested in tests/document/ and tests/cli/test_cli_sources.py)"
    ),
    """specbridge call getOrder openapi.yaml --args '{"orderId": "42"}'""": (
        "sends the call to the server your document names: a real API of yours"
    ),
    """specbridge call getOrder openapi.yaml --args '{"orderId": "42"}' --format json""": (
        "sends the call to the server your document names: a real API of yours"
    ),
}


def normalised(text: str) -> str:
    return " ".join(text.split())


def environ(workspace: Workspace) -> dict[str, str]:
    """The environment of a command run in a process of its own."""
    return {**os.environ, **workspace.env}
