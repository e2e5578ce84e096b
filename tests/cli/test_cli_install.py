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
    target.parent.mkdir()
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


EXISTING = '{\n  "mcpServers": {\n    "other": {"command": "npx", "args": ["-y", "some-server"]}\n  }\n}\n'


@pytest.fixture
def client_file(tmp_path: Path) -> Path:
    """A client's file with another server in it: every refusal must leave it as it was."""
    path = tmp_path / "mcp.json"
    path.write_text(EXISTING)
    return path


@pytest.mark.parametrize(
    ("words", "says"),
    [
        (["--transport", "http", "--url", "ftp://mcp.example.com/mcp"], "--url takes the gateway's MCP URL"),
        (["--transport", "http", "--url", "http://[::1"], "--url takes the gateway's MCP URL"),
        (["--transport", "http", "--url", "https:///mcp"], "--url takes the gateway's MCP URL"),
        (["--transport", "http", "--key-env", "MY KEY"], "--key-env takes the name of an environment"),
        (["--transport", "http", "--key-env", "1KEY"], "--key-env takes the name of an environment"),
        (["--name", "", "CONFIG"], "--name takes 1 to 64 letters"),
        (["--name", "my server", "CONFIG"], "--name takes 1 to 64 letters"),
        ([str(EXAMPLE), "CONFIG"], "not both: SPEC would be ignored"),
        (["--base-url", "https://api.example.com", "CONFIG"], "--base-url and --allow go with SPEC"),
        ([str(EXAMPLE), "--api", "shop"], "--api names an API of --config"),
        (["--url", "https://mcp.example.com/mcp", "CONFIG"], "--url goes with --transport http"),
        (["--transport", "http", str(EXAMPLE)], "give --url, not SPEC"),
        (["--transport", "http", "--allow", "127.0.0.1:80"], "give --url, not SPEC, --base-url or --allow"),
    ],
)
def test_a_bad_value_is_install_invalid_and_nothing_is_written(
    client_file: Path, config: Path, words: list[str], says: str
) -> None:
    words = [str(config) if word == "CONFIG" else word for word in words]
    if str(config) in words:
        words.insert(words.index(str(config)), "--config")
    code, stdout, stderr = install("cursor", *words, "--file", str(client_file))
    assert code == 2 and stdout == ""
    [line] = stderr.splitlines()
    assert line.startswith("error [install-invalid]: ") and says in line
    assert line.endswith("; nothing was written")
    assert client_file.read_text() == EXISTING


def test_print_with_a_file_is_install_invalid(client_file: Path, config: Path) -> None:
    code, _, stderr = install("cursor", "--config", str(config), "--print", "--file", str(client_file))
    assert code == 2 and "--print prints the entry and writes no file" in stderr


@pytest.mark.parametrize(
    ("content", "code"),
    [
        (None, "document-not-found"),
        ("openapi: [unclosed\n", "document-syntax"),
        ("title: x\n", "document-not-openapi"),
    ],
)
def test_a_document_that_does_not_load_is_refused_before_anything_is_written(
    tmp_path: Path, client_file: Path, content: str | None, code: str
) -> None:
    spec = tmp_path / "api.yaml"
    if content is not None:
        spec.write_text(content)
    for words in (["--file", str(client_file)], ["--print"]):
        status, stdout, stderr = install("cursor", str(spec), "--base-url", "https://api.example.com", *words)
        assert status == 3 and stdout == "" and stderr.startswith(f"error [{code}]: ")
    assert client_file.read_text() == EXISTING


def test_a_loopback_base_url_needs_allow_as_serve_does_and_the_entry_carries_it(
    client_file: Path,
) -> None:
    code, _, stderr = install(
        "cursor", str(EXAMPLE), "--base-url", "http://127.0.0.1:9000", "--file", str(client_file)
    )
    assert code == 3 and "add --allow 127.0.0.1:9000" in stderr
    assert client_file.read_text() == EXISTING
    code, _, stderr = install(
        "cursor", str(EXAMPLE), "--base-url", "http://127.0.0.1:9000", "--allow", "127.0.0.1:9000",
        "--file", str(client_file),
    )  # fmt: skip
    assert code == 0, stderr
    entry = json.loads(client_file.read_text())["mcpServers"]["specbridge"]
    assert entry["args"][-4:] == ["--base-url", "http://127.0.0.1:9000", "--allow", "127.0.0.1:9000"]
    assert "the base URL http://127.0.0.1:9000 passes the egress policy" in stderr


def test_the_checks_it_ran_are_said(config: Path) -> None:
    code, _, stderr = install("cursor", "--config", str(config), "--print")
    assert code == 0
    assert stderr.splitlines()[0] == (
        "checked as `specbridge serve` starts: the gateway extra imports; the document loads (9 tools); the "
        "base URL https://api.example.com/v1 passes the egress policy; its secrets (and store key) are "
        "there, as `serve` reads them"
    )
    code, _, stderr = install("cursor", "--transport", "http", "--print")
    assert code == 0 and "--url is an http(s) URL (the gateway itself is not asked)" in stderr


SECRET_CONFIG = """apis:
  shop:
    spec: {spec}
    base_url: https://api.example.com/v1
    auth: {{type: bearer, secret: env:SHOP_TOKEN}}
"""


@pytest.mark.parametrize(
    ("client", "value"),
    [
        ("claude-code", "${SHOP_TOKEN}"),
        ("cursor", "${env:SHOP_TOKEN}"),
        ("vscode", "${input:specbridge-shop-token}"),
        ("claude-desktop", "<the value of SHOP_TOKEN>"),
    ],
)
def test_an_env_secret_is_passed_in_the_entrys_env_block(tmp_path: Path, client: str, value: str) -> None:
    path = tmp_path / "specbridge.yaml"
    path.write_text(SECRET_CONFIG.format(spec=EXAMPLE))
    result = CliRunner().invoke(
        app, ["install", client, "--config", str(path), "--print"], env={"SHOP_TOKEN": "t0ken-never-written"}
    )
    assert result.exit_code == 0, result.stderr
    printed = json.loads(result.stdout)
    jsonschema.validate(printed, DOCUMENTED[client])
    [entry] = printed["servers" if client == "vscode" else "mcpServers"].values()
    assert entry["env"] == {"SHOP_TOKEN": value}
    assert "t0ken-never-written" not in result.stdout + result.stderr
    if client == "vscode":
        assert printed["inputs"] == [
            {
                "type": "promptString",
                "id": "specbridge-shop-token",
                "description": "SHOP_TOKEN for specbridge serve",
                "password": True,
            }
        ]
    if client == "claude-desktop":
        assert "warning [secret-unavailable]: Claude Desktop passes none of your environment" in result.stderr
        assert "replace each placeholder `<the value of NAME>`" in result.stderr


def test_an_unset_env_secret_is_the_warning_serve_gives_at_start(tmp_path: Path) -> None:
    path = tmp_path / "specbridge.yaml"
    path.write_text(SECRET_CONFIG.format(spec=EXAMPLE))
    result = CliRunner().invoke(
        app, ["install", "cursor", "--config", str(path), "--print"], env={"SHOP_TOKEN": None}
    )  # type: ignore[dict-item]
    assert result.exit_code == 0
    assert (
        "warning [secret-unavailable]: apis.shop.auth.secret: the environment variable SHOP_TOKEN is not set"
        in result.stderr
    )
    assert "1 thing every call would fail on" in result.stderr


def test_a_file_in_a_folder_that_does_not_exist_is_output_unwritable(tmp_path: Path, config: Path) -> None:
    target = tmp_path / "no-such-folder" / "mcp.json"
    code, _, stderr = install("cursor", "--config", str(config), "--file", str(target))
    assert code == 4
    assert stderr.strip() == f"error [output-unwritable]: cannot write {target}: its folder does not exist"
    assert not target.parent.exists()


def test_install_never_writes_into_the_config_or_document_it_serves(tmp_path: Path, config: Path) -> None:
    spec = tmp_path / "api.json"
    spec.write_text(json.dumps({"openapi": "3.1.0", "info": {"title": "t", "version": "1"}, "paths": {}}))
    before = spec.read_text()
    code, _, stderr = install(
        "cursor", str(spec), "--base-url", "https://api.example.com", "--file", str(spec)
    )
    assert code == 4 and "which this command reads; nothing was written" in stderr
    other = tmp_path / "other.json"
    other.write_text(before)
    code, _, stderr = install("cursor", "--config", str(config), "--file", str(other))
    assert code == 4 and "it is an OpenAPI document, not what this command writes" in stderr
    assert spec.read_text() == before and other.read_text() == before
