"""`specbridge tools`: exactly what a model is handed."""

from __future__ import annotations

import contextlib
import errno
import sys
from pathlib import Path

import click

from .._errors import ErrorCode, StartError
from .._json import dumps
from ..call import answer_tools
from ..config import ApiConfig, check_tool_names, load_config
from ..document import ApiDocument, Locator, load_document
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
    toolset = convert(load_document(spec, ref_dirs=api.ref_dirs if api else ()), options)
    return answer_tools(api, check_tool_names(api, toolset))  # `fields` where `answers.select` says


@app.command("tools")
@click.argument("spec")
@click.option(
    "--format", "fmt", type=click.Choice(["mcp", "anthropic", "openai"]), default="mcp", show_default=True
)
@click.option("--strict", is_flag=True, help="OpenAI strict mode (with --format openai).")
@click.option("--defer-loading", is_flag=True, help="Anthropic deferred loading with a tool search tool.")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="specbridge.yaml")
@click.option("--api", "api_name", help="Which API of the config (when it has several).")
@click.option("-o", "--output", help="Write to this file instead of stdout.")
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


def write_output(path: str, text: str) -> None:
    """Write a command's output file, or a StartError naming the file and why (nothing half-written is
    left behind: the text goes to a temporary file beside it, which then replaces the target)."""
    target = Path(path)
    partial = target.with_name(f".{target.name}.partial")
    try:
        partial.write_text(text, encoding="utf-8")
        partial.replace(target)
    except OSError as error:
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)
        why = {
            "ENOENT": "its folder does not exist",
            "EACCES": "permission denied",
            "EISDIR": "it is a folder",
            "ENOSPC": "the disk is full",
        }.get(_errno_name(error), error.strerror or type(error).__name__)
        raise StartError(f"cannot write {path}: {why}", code=ErrorCode.OUTPUT_UNWRITABLE) from None


def _errno_name(error: OSError) -> str:
    return errno.errorcode.get(error.errno or 0, "")
