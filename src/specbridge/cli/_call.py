"""`specbridge call`: one tool call, exactly as an agent would make it, printed."""

from __future__ import annotations

import json
import sys
from typing import Any

import click

from .._errors import ArgumentError, CallError, ErrorCode
from .._json import dumps
from ..call import Caller, CallResult, Credential
from ..config import DEFAULT_STORE, ApiConfig, EgressConfig, api_toolset, load_config
from ..grants import Grants
from ..store import Store, StoreError, open_store
from ._app import EXIT_FINDINGS, app, friendly_errors
from ._serve import allow_hint, check_command_line_base_url


def parse_arguments(text: str) -> dict[str, Any]:
    """`--args` as a JSON object; duplicate keys, NaN and Infinity are refused, not guessed at."""

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        seen: dict[str, Any] = {}
        for key, value in items:
            if key in seen:
                raise ArgumentError([f"--args: the key {key[:40]!r} appears twice"])
            seen[key] = value
        return seen

    def constant(name: str) -> Any:
        raise ArgumentError([f"--args: {name} is not a JSON number"])

    try:
        value = json.loads(text, object_pairs_hook=pairs, parse_constant=constant)
    except (ValueError, RecursionError):
        raise ArgumentError(["--args: is not valid JSON"]) from None
    if not isinstance(value, dict):
        raise ArgumentError(["--args: must be a JSON object"])
    return value


def _api(
    spec: str | None,
    config_path: str | None,
    api_name: str | None,
    base_url: str | None,
    allow: tuple[str, ...],
) -> tuple[ApiConfig, str]:
    """The API to call, and the store its OAuth token is kept in (the config's)."""
    if config_path is not None:
        config = load_config(config_path)
        return config.api(api_name), config.store
    if spec is None:
        raise click.UsageError("give --config FILE, or SPEC (with --base-url URL, or the document's server)")
    if base_url is not None:
        check_command_line_base_url(base_url, allow)
    return ApiConfig(
        name="api", spec=spec, base_url=base_url, egress=EgressConfig(allow=allow)
    ), DEFAULT_STORE


async def _run(
    api: ApiConfig, store: str, tool: str, arguments: dict[str, Any], secret_id: str | None, approved: bool
) -> tuple[CallResult, str | None]:
    """The result, and the base URL the call went to (the configured one or the document's server)."""
    toolset = api_toolset(api)
    caller = Caller(api, toolset, check_workers=False)  # one call: no process to start for it
    try:
        credential = await _token(api, store) if api.auth.grant is not None else None
        if isinstance(credential, CallResult):
            return credential, caller.base_url
        result = await caller.call(
            tool, arguments, secret_id=secret_id, approved=approved, credential=credential
        )
        return result, caller.base_url
    finally:
        await caller.aclose()


async def _token(api: ApiConfig, url: str) -> Credential | CallResult:
    """The API's own OAuth token (`oauth2_client_credentials`, `oauth2_refresh_token`), from the config's
    store or its token endpoint, as the gateway has it; a per-client account is the gateway's to use."""
    grant = api.auth.grant
    if grant is not None and grant.per_client:
        return CallResult(
            f"{api.name} connects each client's own account; call it through `specbridge serve` as that "
            "client; nothing was sent",
            is_error=True,
            code=ErrorCode.ACCOUNT_NOT_CONNECTED,
        )
    store = open_store(url)

    async def opened() -> Store:
        return store

    grants = Grants(opened)
    try:
        await store.start()
        return await grants.credential(api, None)
    except (CallError, StoreError) as error:
        return CallResult(error.message, is_error=True, code=error.code)
    finally:
        await grants.aclose()
        await store.close()


@app.command("call")
@click.argument("tool")
@click.argument("spec", required=False)
@click.option("--args", "args_json", default="{}", show_default=True, help="The arguments as a JSON object.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="specbridge.yaml")
@click.option("--api", "api_name", help="Which API of the config (when it has several).")
@click.option(
    "--base-url", help="The API's base URL (with SPEC; default: the document's first public server)."
)
@click.option(
    "--allow", multiple=True, help="HOST:PORT the egress policy may reach although not public (with SPEC)."
)
@click.option("--secret-id", help="Which of the API's per-client secrets to use.")
@click.option(
    "--approve", is_flag=True, help="You approve this call of a tool configured with requires_approval."
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="text: the answer as an agent reads it; json: the MCP tools/call result (content, "
    "structuredContent, isError).",
)
@friendly_errors
def call_command(
    tool: str,
    spec: str | None,
    args_json: str,
    config_path: str | None,
    api_name: str | None,
    base_url: str | None,
    allow: tuple[str, ...],
    secret_id: str | None,
    approve: bool,
    fmt: str,
) -> None:
    """Call TOOL once and print the answer (exit status 1 on an error result; with --format json the
    result, error or not, is printed on stdout)."""
    if config_path is not None and (base_url is not None or allow):
        raise click.UsageError("--base-url and --allow go with SPEC, not with --config")
    arguments = parse_arguments(args_json)
    api, store = _api(spec, config_path, api_name, base_url, allow)
    import anyio  # here: the command line loads it only for a command that runs

    result, used_url = anyio.run(_run, api, store, tool, arguments, secret_id, approve)
    if fmt == "json":
        from ..gateway import to_mcp_result

        mcp_result = to_mcp_result(result).model_dump(mode="json", by_alias=True, exclude_none=True)
        click.echo(dumps(mcp_result, indent=True))
        sys.exit(EXIT_FINDINGS if result.is_error else 0)
    if result.is_error:
        hint = ""
        if result.code == ErrorCode.EGRESS_REFUSED and config_path is None and used_url:
            hint = allow_hint(used_url)
        elif result.code == ErrorCode.BASE_URL_MISSING and config_path is None:
            hint = "; give --base-url URL (and --allow HOST:PORT for an API on this machine)"
        elif result.code == ErrorCode.APPROVAL_REQUIRED:
            hint = f" (you are the person: run it again with --approve to approve this call of {tool})"
        click.echo(f"error [{result.code}]: {result.text}{hint}", err=True)
        sys.exit(EXIT_FINDINGS)
    click.echo(result.text)
