"""`specbridge lint`: what an agent will get wrong, before any agent sees the API."""

from __future__ import annotations

import sys

import click

from ..config import LintConfig, check_tool_names, load_config
from ..document import load_document
from ..lint import FORMATS, Severity, default_registry, lint, render
from ..tools import ConvertOptions, convert
from ._app import EXIT_FINDINGS, EXIT_OK, app, friendly_errors
from ._tools import api_for


@app.command("lint")
@click.argument("spec", type=click.Path(dir_okay=False))
@click.option("--format", "fmt", type=click.Choice(list(FORMATS)), default="text", show_default=True)
@click.option("--strict", is_flag=True, help="Exit 1 when a finding at or above --fail-on remains.")
@click.option(
    "--fail-on",
    type=click.Choice(["error", "warning", "info", "note"]),
    default="warning",
    show_default=True,
    help="The lowest severity that fails a --strict run.",
)
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="specbridge.yaml")
@click.option("--api", "api_name", help="Which API of the config (when it has several).")
@friendly_errors
def lint_command(
    spec: str, fmt: str, strict: bool, fail_on: str, config_path: str | None, api_name: str | None
) -> None:
    """Check SPEC for what an agent will get wrong: names, collisions, depth, width, descriptions ..."""
    settings = LintConfig()
    source = "specbridge.yaml"
    api = None
    if config_path is not None:
        config = load_config(config_path)
        settings, source = config.lint, config.source
        api = api_for(spec, config_path, api_name)
    options = api.convert_options() if api is not None else ConvertOptions()
    registry = default_registry()
    report = lint(
        check_tool_names(api, convert(load_document(spec), options)),
        registry=registry,
        api=api,
        settings=settings,
        config_source=source,
    )
    click.echo(render(report, fmt, registry))
    if strict and report.at_or_above(Severity.parse(fail_on)):
        sys.exit(EXIT_FINDINGS)
    sys.exit(EXIT_OK)
