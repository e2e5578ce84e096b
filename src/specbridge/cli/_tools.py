"""`specbridge tools`: exactly what a model is handed."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from .._json import dumps
from ..config import ApiConfig, check_tool_names, load_config
from ..document import load_document
from ..tools import ConvertOptions, ExportFormat, ToolSet, convert, export
from ._app import app, friendly_errors


def api_for(spec: str, config_path: str | None, api_name: str | None = None) -> ApiConfig | None:
    """The config entry whose `spec` is SPEC (or the named/only API), when a config file is given."""
    if config_path is None:
        return None
    config = load_config(config_path)
    if api_name is None:
        if not config.apis:
            return None  # a config with only `lint:` settings
        wanted = str(Path(spec).resolve())
        for api in config.apis.values():
            if api.spec == wanted:
                return api
    return config.api(api_name)


def load_toolset(spec: str, config_path: str | None, api_name: str | None = None) -> ToolSet:
    api = api_for(spec, config_path, api_name)
    options = api.convert_options() if api is not None else ConvertOptions()
    return check_tool_names(api, convert(load_document(spec), options))


@app.command("tools")
@click.argument("spec", type=click.Path(dir_okay=False))
@click.option(
    "--format", "fmt", type=click.Choice(["mcp", "anthropic", "openai"]), default="mcp", show_default=True
)
@click.option("--strict", is_flag=True, help="OpenAI strict mode (with --format openai).")
@click.option("--defer-loading", is_flag=True, help="Anthropic deferred loading with a tool search tool.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="specbridge.yaml")
@click.option("--api", "api_name", help="Which API of the config (when it has several).")
@click.option("-o", "--output", type=click.Path(dir_okay=False, writable=True), help="Write to a file.")
@friendly_errors
def tools_command(
    spec: str,
    fmt: ExportFormat,
    strict: bool,
    defer_loading: bool,
    config_path: str | None,
    api_name: str | None,
    output: str | None,
) -> None:
    """Print the tool definitions a model is handed for SPEC."""
    if strict and fmt != "openai":
        raise click.UsageError("--strict applies to --format openai")
    if defer_loading and fmt != "anthropic":
        raise click.UsageError("--defer-loading applies to --format anthropic")
    toolset = load_toolset(spec, config_path, api_name)
    text = dumps(export(toolset, fmt, strict=strict, defer_loading=defer_loading), indent=True)
    if output:
        Path(output).write_text(text + "\n", encoding="utf-8")
        if sys.stderr.isatty():
            click.echo(f"{len(toolset.tools)} tools written to {output}", err=True)
    else:
        click.echo(text)
