"""`specbridge install CLIENT`: write (or print) an MCP client's config entry for this gateway, merged into
the client's file without losing its other servers (what FastMCP's `fastmcp install` does).

Each client's shape, as its documentation gives it:

| client | file | servers under | stdio entry | HTTP entry | a secret by reference |
|---|---|---|---|---|---|
| Claude Code | `.mcp.json` (project) | `mcpServers` | `type: stdio`, `command`, `args` | `type: http`, `url`, `headers` | `${NAME}` |
| Claude Desktop | `claude_desktop_config.json` | `mcpServers` | `command`, `args` | (not in the file: Settings > Connectors) | none |
| Cursor | `~/.cursor/mcp.json` | `mcpServers` | `command`, `args` | `url`, `headers` | `${env:NAME}` |
| VS Code | `.vscode/mcp.json` | `servers` | `type: stdio`, `command`, `args` | `type: http`, `url`, `headers` | `${input:ID}` (a password prompt in `inputs`) |

The client key of an HTTP entry is never written in clear: it is a reference to an environment variable
(or, in VS Code, to a password the editor asks for once and keeps in its secret storage).
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path
from typing import Any

import click
import orjson

from .._errors import ConfigError, ErrorCode
from .._files import MAX_DOCUMENT_BYTES, read_bounded
from .._json import dumps
from ._app import app, friendly_errors
from ._output import write_output

Json = Any
CLIENTS = ("claude-code", "claude-desktop", "cursor", "vscode")
SERVERS_KEY = {"claude-code": "mcpServers", "claude-desktop": "mcpServers", "cursor": "mcpServers"}
DEFAULT_KEY_ENV = "SPECBRIDGE_KEY"
VSCODE_INPUT = "specbridge-key"
_NAME = re.compile(r"[^A-Za-z0-9_-]+")


def default_file(client: str) -> Path:
    """Where the client reads its MCP servers (the project's file for Claude Code and VS Code, the
    user's for Cursor and Claude Desktop)."""
    if client == "claude-code":
        return Path(".mcp.json")
    if client == "vscode":
        return Path(".vscode") / "mcp.json"
    if client == "cursor":
        return Path.home() / ".cursor" / "mcp.json"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Application Support" / "Claude" / "claude_desktop_config.json"
    if sys.platform == "win32":
        appdata = os.environ.get("APPDATA") or str(Path.home() / "AppData" / "Roaming")
        return Path(appdata) / "Claude" / "claude_desktop_config.json"
    return Path.home() / ".config" / "Claude" / "claude_desktop_config.json"


def stdio_entry(client: str, command: list[str]) -> dict[str, Json]:
    entry: dict[str, Json] = {"command": command[0], "args": command[1:]}
    return {"type": "stdio", **entry} if client in ("claude-code", "vscode") else entry


def http_entry(client: str, url: str, key_env: str | None) -> dict[str, Json]:
    if client == "claude-desktop":
        raise click.UsageError(
            "Claude Desktop takes remote (HTTP) servers in Settings > Connectors, not in its config file; "
            "install it over stdio (the default), or add the URL there"
        )
    entry: dict[str, Json] = {"url": url}
    if key_env is not None:
        reference = {
            "claude-code": f"${{{key_env}}}",
            "cursor": f"${{env:{key_env}}}",
            "vscode": f"${{input:{VSCODE_INPUT}}}",
        }[client]
        entry["headers"] = {"Authorization": f"Bearer {reference}"}
    return {"type": "http", **entry} if client in ("claude-code", "vscode") else entry


def client_config(client: str, name: str, entry: dict[str, Json], key_env: str | None) -> dict[str, Json]:
    """The client's file holding only this server (what `--print` shows)."""
    if client != "vscode":
        return {SERVERS_KEY[client]: {name: entry}}
    config: dict[str, Json] = {"servers": {name: entry}}
    if key_env is not None and entry.get("headers"):
        config["inputs"] = [
            {
                "type": "promptString",
                "id": VSCODE_INPUT,
                "description": "specbridge client key (the key `specbridge keys new` printed)",
                "password": True,
            }
        ]
    return config


def merged(existing: dict[str, Json], addition: dict[str, Json], path: Path) -> dict[str, Json]:
    """`existing` with the server (and any input) of `addition` added or replaced; nothing else changes."""
    result = dict(existing)
    for key, value in addition.items():
        if key == "inputs":
            inputs = result.get("inputs", [])
            if not isinstance(inputs, list):
                raise _not_a_config(path, "its `inputs` is not a list")
            ids = {item.get("id") for item in inputs if isinstance(item, dict)}
            result["inputs"] = [*inputs, *(item for item in value if item["id"] not in ids)]
            continue
        servers = result.get(key, {})
        if not isinstance(servers, dict):
            raise _not_a_config(path, f"its `{key}` is not an object")
        result[key] = {**servers, **value}
    return result


def _not_a_config(path: Path, why: str) -> ConfigError:
    return ConfigError(
        f"{why}; fix or move it (nothing was written)", source=str(path), code=ErrorCode.CONFIG_INVALID
    )


def read_client_file(path: Path) -> dict[str, Json]:
    try:
        raw = read_bounded(path, MAX_DOCUMENT_BYTES)
    except FileNotFoundError:
        return {}
    except OSError as error:
        raise ConfigError(
            f"cannot read it: {error.strerror or type(error).__name__}",
            source=str(path),
            code=ErrorCode.CONFIG_NOT_FOUND,
        ) from None
    if not raw.strip():
        return {}
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise _not_a_config(path, "it is not JSON (comments and trailing commas included)") from None
    if not isinstance(data, dict):
        raise _not_a_config(path, "it is not a JSON object")
    return data


def serve_command_line(
    config: str | None, spec: str | None, base_url: str | None, api: str | None
) -> list[str]:
    """The command a client starts for stdio: this Python's specbridge (no PATH needed), absolute paths."""
    words = [sys.executable, "-m", "specbridge", "serve"]
    if config is not None:
        words += ["--config", str(Path(config).resolve())]
    elif spec is not None:
        words.append(spec if "://" in spec else str(Path(spec).resolve()))
        words += ["--base-url", base_url] if base_url else []
    else:
        raise click.UsageError("give --config FILE, or SPEC (with --base-url URL), for the server to serve")
    return words + (["--api", api] if api else [])


@app.command("install")
@click.argument("client", type=click.Choice(CLIENTS))
@click.argument("spec", required=False)
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="specbridge.yaml to serve.")
@click.option("--base-url", help="With SPEC: the API's base URL.")
@click.option("--api", "api_name", help="Which API of the config (when it has several).")
@click.option("--name", help="The server's name in the client [default: specbridge-API].")
@click.option(
    "--transport",
    type=click.Choice(["stdio", "http"]),
    default="stdio",
    show_default=True,
    help="stdio: the client starts `specbridge serve`; http: it connects to a running gateway (--url).",
)
@click.option("--url", help="http: the gateway's MCP URL [default: http://127.0.0.1:8765/mcp].")
@click.option(
    "--key-env",
    default=DEFAULT_KEY_ENV,
    show_default=True,
    help="http: the environment variable holding the client key ('' for a gateway without keys).",
)
@click.option("--file", "file_path", type=click.Path(dir_okay=False), help="The client's config file.")
@click.option("--print", "print_only", is_flag=True, help="Print the entry instead of writing the file.")
@friendly_errors
def install_command(
    client: str,
    spec: str | None,
    config_path: str | None,
    base_url: str | None,
    api_name: str | None,
    name: str | None,
    transport: str,
    url: str | None,
    key_env: str,
    file_path: str | None,
    print_only: bool,
) -> None:
    """Add this gateway to CLIENT's MCP servers (claude-code, claude-desktop, cursor, vscode), keeping the
    other servers of its file. Over HTTP the key is a reference to --key-env, never the key itself."""
    if config_path is not None:
        from ..config import load_config

        config = load_config(config_path)  # a config error now, not when the client starts the server
        if transport == "stdio" and api_name is None and len(config.apis) > 1:
            # `serve --config` over stdio serves one API: an entry without --api would never start
            raise click.UsageError(
                f"the config has several APIs; name one with --api ({', '.join(config.apis)})"
            )
        api_name = config.api(api_name).name if api_name is not None or len(config.apis) == 1 else None
    server = name or "specbridge" + (f"-{api_name}" if api_name else "")
    server = _NAME.sub("-", server).strip("-") or "specbridge"
    if transport == "stdio":
        if url is not None:
            raise click.UsageError("--url goes with --transport http")
        entry = stdio_entry(client, serve_command_line(config_path, spec, base_url, api_name))
        reference = None
    else:
        if spec is not None or base_url is not None:
            raise click.UsageError("--transport http connects to a running gateway: give --url, not SPEC")
        reference = key_env or None
        entry = http_entry(client, url or "http://127.0.0.1:8765/mcp", reference)
    addition = client_config(client, server, entry, reference)
    if print_only:
        click.echo(dumps(addition, indent=True))
        return
    path = Path(file_path) if file_path else default_file(client)
    result = merged(read_client_file(path), addition, path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_output(str(path), dumps(result, indent=True) + "\n")
    click.echo(f"{server} added to {path}", err=True)
    if reference is not None and client != "vscode":
        click.echo(f"set {reference} to the client key in the environment the client starts in", err=True)
