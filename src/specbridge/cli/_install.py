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
(or, in VS Code, to a password the editor asks for once and keeps in its secret storage). A stdio entry
passes each `env:` secret of the config the same way, in its `env` block; Claude Desktop has no
references, so there the block holds a placeholder to replace, and a warning says so.

Nothing is written until the checks of `_install_checks` pass: an entry that cannot start is refused.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click
import orjson

from .._errors import ConfigError, ErrorCode
from .._files import MAX_DOCUMENT_BYTES, read_bounded
from .._json import dumps
from ._app import app, friendly_errors
from ._install_checks import Checked, check_start, check_values
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


def stdio_entry(client: str, command: list[str], env: Sequence[str] = ()) -> dict[str, Json]:
    entry: dict[str, Json] = {"command": command[0], "args": command[1:]}
    if env:
        entry["env"] = {name: env_reference(client, name) for name in env}
    return {"type": "stdio", **entry} if client in ("claude-code", "vscode") else entry


def env_reference(client: str, name: str) -> str:
    """How `client` passes the variable `name` to the server it starts (Claude Desktop: a placeholder)."""
    return {
        "claude-code": f"${{{name}}}",
        "cursor": f"${{env:{name}}}",
        "vscode": f"${{input:{input_id(name)}}}",
    }.get(client, placeholder(name))


def placeholder(name: str) -> str:
    return f"<the value of {name}>"


def input_id(name: str) -> str:
    return "specbridge-" + name.lower().replace("_", "-")


def secret_input(input_id: str, description: str) -> dict[str, Json]:
    """A VS Code input: a password the editor asks for once and keeps in its secret storage."""
    return {"type": "promptString", "id": input_id, "description": description, "password": True}


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


def client_config(
    client: str, name: str, entry: dict[str, Json], key_env: str | None, env: Sequence[str] = ()
) -> dict[str, Json]:
    """The client's file holding only this server (what `--print` shows)."""
    if client != "vscode":
        return {SERVERS_KEY[client]: {name: entry}}
    config: dict[str, Json] = {"servers": {name: entry}}
    inputs = [secret_input(input_id(variable), f"{variable} for specbridge serve") for variable in env]
    if key_env is not None and entry.get("headers"):
        inputs.append(
            secret_input(VSCODE_INPUT, "specbridge client key (the key `specbridge keys new` printed)")
        )
    if inputs:
        config["inputs"] = inputs
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
    config: str | None, spec: str | None, base_url: str | None, api: str | None, allow: Sequence[str] = ()
) -> list[str]:
    """The command a client starts for stdio: this Python's specbridge (no PATH needed), absolute paths."""
    words = [sys.executable, "-m", "specbridge", "serve"]
    if config is not None:
        words += ["--config", str(Path(config).resolve())]
    elif spec is not None:
        words.append(spec if "://" in spec else str(Path(spec).resolve()))
        words += ["--base-url", base_url] if base_url else []
        words += [word for entry in allow for word in ("--allow", entry)]
    else:
        raise click.UsageError("give --config FILE, or SPEC (with --base-url URL), for the server to serve")
    return words + (["--api", api] if api else [])


@app.command("install")
@click.argument("client", type=click.Choice(CLIENTS))
@click.argument("spec", required=False)
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="specbridge.yaml to serve.")
@click.option("--base-url", help="With SPEC: the API's base URL.")
@click.option(
    "--allow",
    multiple=True,
    help="With SPEC: HOST:PORT the egress policy may reach although not public (as `serve --allow`).",
)
@click.option("--api", "api_name", help="Which API of the config (when it has several).")
@click.option(
    "--name",
    help="The server's name in the client [default: specbridge, or specbridge-API with --api or a config of one API].",
)
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
@click.option(
    "--file",
    "file_path",
    type=click.Path(dir_okay=False),
    help="The client's config file (its folder must exist).",
)
@click.option("--print", "print_only", is_flag=True, help="Print the entry instead of writing the file.")
@friendly_errors
def install_command(
    client: str,
    spec: str | None,
    config_path: str | None,
    base_url: str | None,
    allow: tuple[str, ...],
    api_name: str | None,
    name: str | None,
    transport: str,
    url: str | None,
    key_env: str,
    file_path: str | None,
    print_only: bool,
) -> None:
    """Add this gateway to CLIENT's MCP servers (claude-code, claude-desktop, cursor, vscode), keeping the
    other servers of its file. Over HTTP the key is a reference to --key-env, never the key itself.

    A stdio entry is checked first as `serve` checks at start (the gateway extra, the document, the base
    URL against the egress policy, the secrets), so an entry that cannot start is never written; each
    `env:` secret is passed in the entry's `env` block. The checks run are listed on stderr."""
    check_values(
        spec=spec, config_path=config_path, base_url=base_url, allow=allow, api_name=api_name, name=name,
        transport=transport, url=url, key_env=key_env, file_path=file_path, print_only=print_only,
    )  # fmt: skip
    config = None
    if config_path is not None:
        from ..config import load_config

        config = load_config(config_path)  # a config error now, not when the client starts the server
        if transport == "stdio" and api_name is None and len(config.apis) > 1:
            # `serve --config` over stdio serves one API: an entry without --api would never start
            raise click.UsageError(
                f"the config has several APIs; name one with --api ({', '.join(config.apis)})"
            )
        api_name = config.api(api_name).name if api_name is not None or len(config.apis) == 1 else None
    server = name or _NAME.sub("-", "specbridge" + (f"-{api_name}" if api_name else "")).strip("-")
    checked = Checked()
    if transport == "stdio":
        if config is None:
            if spec is None:
                raise click.UsageError(
                    "give --config FILE, or SPEC (with --base-url URL), for the server to serve"
                )
            from ..config import EgressConfig, single_api_config

            config = single_api_config(spec, base_url, egress=EgressConfig(allow=allow))
        served = api_name or next(iter(config.apis))
        checked = check_start(
            config, served, command_line_base_url=base_url if config_path is None else None, allow=allow
        )
        entry = stdio_entry(
            client, serve_command_line(config_path, spec, base_url, api_name, allow), checked.env
        )
        reference = None
    else:
        reference = key_env or None
        entry = http_entry(client, url or "http://127.0.0.1:8765/mcp", reference)
        checked.done.append("--url is an http(s) URL (the gateway itself is not asked)")
    addition = client_config(client, server, entry, reference, checked.env)
    if print_only:
        click.echo(dumps(addition, indent=True))
        _report(client, checked, None)
        return
    path = Path(file_path) if file_path else default_file(client)
    result = merged(read_client_file(path), addition, path)
    if file_path is None:  # the client's own folder (~/.cursor, .vscode) may not be there yet
        path.parent.mkdir(parents=True, exist_ok=True)
    reads = [config_path or "", spec or ""]
    write_output(str(path), dumps(result, indent=True) + "\n", reads=reads, replaces="an MCP client's config")
    click.echo(f"{server} added to {path}", err=True)
    if reference is not None and client != "vscode":
        click.echo(f"set {reference} to the client key in the environment the client starts in", err=True)
    _report(client, checked, path)


def _report(client: str, checked: Checked, path: Path | None) -> None:
    """What was checked, what `serve` will warn of, and how the entry's `env:` secrets reach it."""
    click.echo(f"checked as `specbridge serve` starts: {'; '.join(checked.done)}", err=True)
    for code, message in checked.warnings:
        click.echo(f"warning [{code}]: {message}", err=True)
    if not checked.env:
        return
    names = ", ".join(checked.env)
    where = str(path) if path is not None else "the client's file"
    if client == "claude-desktop":
        click.echo(
            f"warning [{ErrorCode.SECRET_UNAVAILABLE}]: Claude Desktop passes none of your environment "
            f"to the servers it starts: replace each placeholder `<the value of NAME>` in the entry's env "
            f"block in {where} with its value ({names}), or use `file:` secrets in the config",
            err=True,
        )
    elif client == "vscode":
        click.echo(
            f"VS Code asks once for {names} (the entry's inputs) and keeps them in its secret storage",
            err=True,
        )
    else:
        click.echo(
            f"the entry passes {names} from the environment {client} starts in (its env block): set "
            f"{'it' if len(checked.env) == 1 else 'them'} there",
            err=True,
        )
