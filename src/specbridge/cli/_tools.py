"""`specbridge tools`: exactly what a model is handed."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from .._errors import ErrorCode
from .._json import dumps
from ..document import ApiDocument, Locator
from ..tools import ExportFormat, ToolSet, export
from ._app import app, friendly_errors, one_shot_gc
from ._output import write_output
from ._sources import read_config, sources

if TYPE_CHECKING:
    from ..config import Config


def load_toolset(spec: str | None, config: Config | None, api_name: str | None = None) -> ToolSet:
    """The tools of SPEC (a file, a URL or `-`), or of the config's named or only API (or toolset)
    without one."""
    found = sources((spec,) if spec is not None else (), config, api_name, every_api=False)
    if found[0].toolset_of is not None:  # a toolset: its tools of each API, in the config's order
        from ..tools import ToolSet

        parts = [source.toolset() for source in found]
        by_name = {tool.name: tool for part in parts for tool in part.tools}
        order = [pick.name for pick in found[0].toolset_of[1].tools if pick.name in by_name]
        return ToolSet(document=parts[0].document, tools=tuple(by_name[name] for name in order))
    (source,) = found
    if source.api is None:
        return source.toolset()  # no config: no `answers.select`, and `call/` (with `config/`) not imported
    from ..call import answer_tools

    return answer_tools(source.api, source.toolset())  # `fields` where `answers.select` says


@app.command("tools")
@click.argument("spec", required=False)
@click.option(
    "--format", "fmt", type=click.Choice(["mcp", "anthropic", "openai"]), default="mcp", show_default=True
)
@click.option("--strict", is_flag=True, help="OpenAI strict mode (with --format openai).")
@click.option("--defer-loading", is_flag=True, help="Anthropic deferred loading with a tool search tool.")
@click.option(
    "--code-mode", is_flag=True, help="The two tools of code mode (search, execute), with their token count."
)
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="specbridge.yaml")
@click.option("--api", "api_name", help="Which API (or toolset) of the config (when it has several).")
@click.option(
    "-o", "--output", help="Write to this file (`-` for stdout; a device or FIFO is written in place)."
)
@friendly_errors
def tools_command(
    spec: str | None,
    fmt: ExportFormat,
    strict: bool,
    defer_loading: bool,
    code_mode: bool,
    config_path: str | None,
    api_name: str | None,
    output: str | None,
) -> None:
    """Print the tool definitions a model is handed for SPEC (a file, an http(s):// URL, or - for stdin),
    or for the API of --config FILE [--api NAME]: its document, its config operations, or both."""
    if strict and fmt != "openai":
        raise click.UsageError("--strict applies to --format openai")
    if defer_loading and fmt != "anthropic":
        raise click.UsageError("--defer-loading applies to --format anthropic")
    one_shot_gc()
    config = read_config(config_path)
    toolset = load_toolset(spec, config, api_name)
    warn_dropped_parameters(toolset.document)
    if code_mode:
        from ._code_mode import code_mode_export, code_mode_settings  # config/ and codemode/ only then

        if defer_loading:
            raise click.UsageError("--defer-loading does not apply to --code-mode (two tools, always loaded)")
        limits, title = code_mode_settings(config, api_name)
        text = code_mode_export(toolset, fmt, strict=strict, limits=limits, title=title)
    else:
        text = dumps(export(toolset, fmt, strict=strict, defer_loading=defer_loading), indent=True)
    if output:
        reads = [spec or "", config_path or "", *toolset.document.resolver.bases()]
        write_output(output, text + "\n", reads=reads)
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
