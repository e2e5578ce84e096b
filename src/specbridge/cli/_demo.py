"""`specbridge demo` (what `make demo` runs): the bundled example API, converted and shown."""

from __future__ import annotations

from importlib import resources

import click

from .._json import dumps
from ..spec import load_document
from ..tools import convert, export_mcp
from ._app import app, friendly_errors


def example_spec_path() -> str:
    return str(resources.files("specbridge") / "examples" / "shop.openapi.yaml")


@app.command("demo")
@friendly_errors
def demo_command() -> None:
    """Convert the bundled example API and print the tools an agent would get."""
    path = example_spec_path()
    toolset = convert(load_document(path))
    click.echo(f"# {toolset.document.title}: {len(toolset.tools)} tools from {path}\n")
    click.echo(dumps(export_mcp(toolset), indent=True))
