"""Hostile scripts in code mode, through the official MCP client: each ends with its own code (the
limits, imports, files, network, the environment, another client's tools), and the gateway serves
others meanwhile, a killed sandbox worker included."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

import anyio
import mcp_types as types
import pytest

from specbridge.access import key_sha256
from tests.support.codemode import code_config, shop_routes
from tests.support.gateway import IN_PROCESS, http_client, in_process_gateway, text
from tests.support.upstream import RecordedRequest, Reply, Upstream, json_response

READER, BUYER = "sbk_code-key-of-the-reader", "sbk_code-key-of-the-buyer"
CLIENTS = f"""\
clients:
  reader:
    key_sha256: "{key_sha256(READER)}"
    apis: [shop]
    tools: {{shop: {{deny: [refundOrder]}}}}
  buyer:
    key_sha256: "{key_sha256(BUYER)}"
    apis: [shop]
"""
LIMITS = "code_mode: {time: 1s, memory: 16MB, output: 10kB, calls: 3, depth: 50}\n"

HOSTILE = {
    "endless loop": ("while True:\n    pass", "script-timeout"),
    "memory bomb": ('x = ["a" * 1000]\nwhile True:\n    x = x + x', "script-memory"),
    "deep recursion": ("def down(n):\n    return down(n + 1)\ndown(0)", "script-recursion"),
    "huge output": ('while True:\n    print("x" * 1000)', "script-output-too-large"),
    "an import": ("import subprocess\nsubprocess.run(['id'])", "script-import-refused"),
    "the network": ("import socket\nsocket.create_connection(('127.0.0.1', 22))", "script-import-refused"),
    "a file": ('open("/etc/passwd").read()', "script-os-refused"),
    "the environment": ('import os\nos.environ["HOME"]', "script-os-refused"),
    "a directory": ('import os\nos.listdir("/")', "script-os-refused"),
    "too many calls": ('for n in range(10):\n    api.getOrder(orderId="o1")', "script-calls-exceeded"),
    "another client's tool": ('api.refundOrder(orderId="o40", reason="mine now")', "tool-unknown"),
    "a name of no operation": ("api.dropDatabase()", "tool-unknown"),
    "not python": ("def (:", "script-invalid"),
}


@pytest.fixture(autouse=True)
def upstream_routes(upstream: Upstream) -> None:
    shop_routes(upstream)


@pytest.mark.parametrize("case", HOSTILE, ids=list(HOSTILE))
async def test_a_hostile_script_ends_with_its_own_code(tmp_path: Path, upstream: Upstream, case: str) -> None:
    script, code = HOSTILE[case]
    config = code_config(tmp_path, upstream, top=LIMITS + CLIENTS)
    async with (
        in_process_gateway(config) as (asgi, _),
        http_client(f"{IN_PROCESS}/mcp", key=READER, transport=asgi) as client,
    ):
        result = await client.call_tool("execute", {"code": script})
        after = await client.call_tool("execute", {"code": "1 + 1"})
    assert result.is_error is True
    assert text(result).startswith(f"[{code}]"), text(result)
    assert after.is_error is False and after.structured_content == {"result": 2}
    assert all(request.path == "/orders/o1" for request in upstream.requests)  # nothing else reached the API
    assert len(upstream.requests) <= 3


def monty_workers() -> list[int]:
    """The sandbox worker processes of this process."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            name, fields = stat[stat.index("(") + 1 : stat.rindex(")")], stat[stat.rindex(")") + 2 :].split()
            if name == "monty" and int(fields[1]) == os.getpid():
                found.append(int(entry.name))
    return found


async def test_while_one_script_loops_others_are_served_and_a_killed_worker_ends_only_that_script(
    tmp_path: Path, upstream: Upstream
) -> None:
    looping = threading.Event()

    def customers(request: RecordedRequest) -> Reply:
        if ("email", "loop@example.com") in request.query:
            looping.set()
        return json_response([{"id": "c7", "email": "ada@example.com"}])

    upstream.route("/customers", customers)
    config = code_config(tmp_path, upstream, top="code_mode: {time: 60s}\n" + CLIENTS)
    loop_script = 'api.findCustomers(email="loop@example.com")\nwhile True:\n    pass'
    ended: list[types.CallToolResult] = []
    async with in_process_gateway(config) as (asgi, _):

        async def loop() -> None:
            async with http_client(f"{IN_PROCESS}/mcp", key=READER, transport=asgi) as client:
                ended.append(await client.call_tool("execute", {"code": loop_script}))

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(loop)
            assert await anyio.to_thread.run_sync(looping.wait, 30)
            async with http_client(f"{IN_PROCESS}/mcp", key=BUYER, transport=asgi) as other:
                served = await other.call_tool("execute", {"code": 'api.getOrder(orderId="o2")["total"]'})
                direct = await other.call_tool("getOrder", {"orderId": "o3"})
                assert not ended  # the loop still runs while both were served
                for pid in monty_workers():
                    os.kill(pid, signal.SIGKILL)
        async with http_client(f"{IN_PROCESS}/mcp", key=BUYER, transport=asgi) as other:
            again = await other.call_tool("execute", {"code": "sum([1, 2, 3])"})
    assert served.is_error is False and served.structured_content == {"result": 20}
    assert direct.is_error is False and direct.structured_content is not None
    assert text(ended[0]).startswith("[script-crashed]"), text(ended[0])
    assert again.is_error is False and again.structured_content == {"result": 6}
