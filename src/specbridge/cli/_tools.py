"""`specbridge tools`: exactly what a model is handed."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from .._errors import ErrorCode
from .._json import dumps
from ..call import answer_tools
from ..document import ApiDocument, Locator, load_document
from ..tools import ConvertOptions, ExportFormat, ToolSet, convert, export
from ._app import app, friendly_errors, one_shot_gc
from ._output import write_output

if TYPE_CHECKING:
    from ..config import ApiConfig


def api_for(spec: str, config_path: str | None, api_name: str | None = None) -> ApiConfig | None:
    """The config entry whose `spec` is SPEC (or the named/only API), when a config file is given."""
    if config_path is None:
        return None
    from ..config import load_config  # only with --config: `tools` without one starts sooner

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
    toolset = convert(load_document(spec, ref_dirs=api.ref_dirs if api else ()), options)
    if api is not None:
        from ..config import check_tool_names

        toolset = check_tool_names(api, toolset)
    return answer_tools(api, toolset)  # `fields` where `answers.select` says


@app.command("tools")
@click.argument("spec")
@click.option(
    "--format", "fmt", type=click.Choice(["mcp", "anthropic", "openai"]), default="mcp", show_default=True
)
@click.option("--strict", is_flag=True, help="OpenAI strict mode (with --format openai).")
@click.option("--defer-loading", is_flag=True, help="Anthropic deferred loading with a tool search tool.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="specbridge.yaml")
@click.option("--api", "api_name", help="Which API of the config (when it has several).")
@click.option(
    "-o", "--output", help="Write to this file (`-` for stdout; a device or FIFO is written in place)."
)
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
    one_shot_gc()
    toolset = load_toolset(spec, config_path, api_name)
    warn_dropped_parameters(toolset.document)
    text = dumps(export(toolset, fmt, strict=strict, defer_loading=defer_loading), indent=True)
    if output:
        write_output(output, text + "\n")
        if sys.stderr.isatty():
            click.echo(f"{len(toolset.tools)} tools written to {output}", err=True)
    else:
        click.echo(text)


def dropped_parameters(document: ApiDocument) -> list[str]:
    """One line for each parameter left out of the tools because its `$ref` cannot be followed (a file
    that is missing, or a pointer into it that leads nowhere): the tools are then silently short."""
    notes = [
        note
        for note in document.notes
        if note.rule == "ref-unresolved" and "/parameters/" in note.pointer + "/"
    ]
    if not notes:
        return []
    positions = Locator(document.text).positions([note.pointer for note in notes])
    lines = []
    for note, position in zip(notes, positions, strict=True):
        where = document.source + (f":{position[0]}:{position[1]}" if position else f" at {note.pointer}")
        lines.append(
            f"warning [{ErrorCode.PARAMETER_DROPPED}]: {where}: a parameter is left out of the tools: "
            f"{note.message} (`specbridge lint` lists every such problem)"
        )
    return lines


def warn_dropped_parameters(document: ApiDocument) -> None:
    for line in dropped_parameters(document):
        click.echo(line, err=True)
