"""`specbridge install CLIENT`: each client's entry in the shape its documentation gives (checked with a
JSON Schema written from those docs), merged into an existing file without losing other servers, the
client key never written in clear, and the stdio entry a command that really serves."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import anyio
import jsonschema
import pytest
from click.testing import CliRunner
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from specbridge.cli import app

EXAMPLE = Path(__file__).resolve().parents[2] / "src" / "specbridge" / "examples" / "shop.openapi.yaml"
KEY = "sbk_this-must-never-be-written"

_STDIO = {
    "type": "object",
    "required": ["command", "args"],
    "properties": {"command": {"type": "string"}, "args": {"type": "array", "items": {"type": "string"}}},
}
_HTTP = {
    "type": "object",
    "required": ["url"],
    "properties": {
        "url": {"type": "string", "pattern": "^https?://"},
        "headers": {"type": "object", "additionalProperties": {"type": "string"}},
    },
}


def _typed(shape: dict[str, Any], kind: str) -> dict[str, Any]:
    return {
        **shape,
        "required": [*shape["required"], "type"],
        "properties": {**shape["properties"], "type": {"const": kind}},
    }


def _servers(key: str, entry: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "required": [key], "properties": {key: {"additionalProperties": entry}}}


# From each client's documentation: Claude Code ("MCP" page, .mcp.json: type stdio|http), Cursor ("Model
# Context Protocol", mcp.json: command/args or url/headers), VS Code ("MCP configuration reference":
# `servers`, `type`, `inputs` of promptString with password), Claude Desktop (stdio `mcpServers`).
DOCUMENTED = {
    "claude-code": _servers("mcpServers", {"oneOf": [_typed(_STDIO, "stdio"), _typed(_HTTP, "http")]}),
    "cursor": _servers("mcpServers", {"oneOf": [_STDIO, _HTTP]}),
    "claude-desktop": _servers("mcpServers", _STDIO),
    "vscode": {
        **_servers("servers", {"oneOf": [_typed(_STDIO, "stdio"), _typed(_HTTP, "http")]}),
        "properties": {
            **_servers("servers", {"oneOf": [_typed(_STDIO, "stdio"), _typed(_HTTP, "http")]})["properties"],
            "inputs": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["type", "id", "password"],
                    "properties": {"type": {"const": "promptString"}, "id": {"type": "string"}},
                },
            },
        },
    },
}


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "specbridge.yaml"
    path.write_text(f"apis:\n  shop:\n    spec: {EXAMPLE}\n    base_url: https://api.example.com/v1\n")
    return path


def install(*words: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["install", *words], env={"SPECBRIDGE_KEY": KEY})
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("client", sorted(DOCUMENTED))
def test_the_stdio_entry_has_the_clients_documented_shape(client: str, config: Path) -> None:
    code, stdout, _ = install(client, "--config", str(config), "--print")
    assert code == 0
    printed = json.loads(stdout)
    jsonschema.validate(printed, DOCUMENTED[client])
    [entry] = printed["servers" if client == "vscode" else "mcpServers"].values()
    assert entry["args"][-5:] == ["serve", "--config", str(config.resolve()), "--api", "shop"]


@pytest.mark.parametrize(
    ("client", "reference"),
    [
        ("claude-code", "${SPECBRIDGE_KEY}"),
        ("cursor", "${env:SPECBRIDGE_KEY}"),
        ("vscode", "${input:specbridge-key}"),
    ],
)
def test_the_http_entry_refers_to_the_key_and_never_holds_it(
    client: str, reference: str, config: Path
) -> None:
    code, stdout, _ = install(
        client, "--transport", "http", "--url", "https://mcp.example.com/shop/mcp", "--print"
    )
    assert code == 0
    printed = json.loads(stdout)
    jsonschema.validate(printed, DOCUMENTED[client])
    [entry] = printed["servers" if client == "vscode" else "mcpServers"].values()
    assert entry["headers"] == {"Authorization": f"Bearer {reference}"}
    assert KEY not in stdout
    if client == "vscode":
        assert printed["inputs"][0]["password"] is True


def test_claude_desktop_over_http_is_refused_with_where_to_add_it() -> None:
    code, _, stderr = install("claude-desktop", "--transport", "http", "--print")
    assert code == 2
    assert "Settings > Connectors" in stderr


def test_an_existing_file_keeps_its_other_servers_and_settings(tmp_path: Path, config: Path) -> None:
    target = tmp_path / ".mcp.json"
    other = {"command": "npx", "args": ["-y", "some-server"], "env": {"TOKEN": "${TOKEN}"}}
    target.write_text(json.dumps({"mcpServers": {"other": other}, "someSetting": True}))
    code, _, stderr = install("claude-code", "--config", str(config), "--file", str(target))
    assert code == 0, stderr
    written = json.loads(target.read_text())
    assert written["someSetting"] is True
    assert written["mcpServers"]["other"] == other
    assert sorted(written["mcpServers"]) == ["other", "specbridge-shop"]
    install("claude-code", "--config", str(config), "--file", str(target))  # again: replaced, not doubled
    assert sorted(json.loads(target.read_text())["mcpServers"]) == ["other", "specbridge-shop"]


def test_vscode_inputs_are_added_once(tmp_path: Path) -> None:
    target = tmp_path / ".vscode" / "mcp.json"
    for _ in range(2):
        code, _, _ = install("vscode", "--transport", "http", "--file", str(target))
        assert code == 0
    written = json.loads(target.read_text())
    assert [item["id"] for item in written["inputs"]] == ["specbridge-key"]
    jsonschema.validate(written, DOCUMENTED["vscode"])


def test_a_file_that_is_not_json_is_left_alone(tmp_path: Path, config: Path) -> None:
    target = tmp_path / "mcp.json"
    target.write_text('{"mcpServers": {}, // a comment\n}')
    code, _, stderr = install("cursor", "--config", str(config), "--file", str(target))
    assert code == 3
    assert stderr.startswith(f"error [config-invalid]: {target}")
    assert target.read_text() == '{"mcpServers": {}, // a comment\n}'


def test_a_config_error_is_reported_at_install_time(tmp_path: Path) -> None:
    code, _, stderr = install("cursor", "--config", str(tmp_path / "missing.yaml"), "--print")
    assert code == 3 and "config-not-found" in stderr


def test_the_stdio_entry_starts_a_server_an_mcp_client_can_use(config: Path) -> None:
    _, stdout, _ = install("claude-code", "--config", str(config), "--print")
    entry = json.loads(stdout)["mcpServers"]["specbridge-shop"]

    async def tools() -> list[str]:
        parameters = StdioServerParameters(command=entry["command"], args=entry["args"], env=dict(os.environ))
        with anyio.fail_after(60):
            async with Client(parameters) as client:  # type: ignore[arg-type]
                return [tool.name for tool in (await client.list_tools()).tools]

    assert "listProducts" in anyio.run(tools)


def test_a_config_with_several_apis_needs_api_over_stdio(tmp_path: Path) -> None:
    """`serve --config` over stdio serves one API, so an entry without --api would never start."""
    path = tmp_path / "specbridge.yaml"
    path.write_text(f"apis:\n  a: {{spec: {EXAMPLE}}}\n  b: {{spec: {EXAMPLE}}}\n")
    code, stdout, stderr = install("cursor", "--config", str(path), "--print")
    assert code == 2 and stdout == ""
    assert "several APIs; name one with --api (a, b)" in stderr
    code, stdout, _ = install("cursor", "--config", str(path), "--api", "b", "--print")
    assert code == 0 and json.loads(stdout)["mcpServers"]["specbridge-b"]["args"][-2:] == ["--api", "b"]
    code, stdout, _ = install("cursor", "--config", str(path), "--transport", "http", "--print")
    assert code == 0  # over HTTP the URL names the API
