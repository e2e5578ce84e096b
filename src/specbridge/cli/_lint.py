"""`specbridge lint`: what an agent will get wrong, before any agent sees the API."""

from __future__ import annotations

import sys

import click

from .._errors import DocumentError
from ..config import Config, LintConfig, load_config
from ..lint import FORMATS, Report, Severity, default_registry, lint, render_all
from ._app import EXIT_FINDINGS, EXIT_OK, EXIT_UNREADABLE, app, friendly_errors
from ._sources import sources

LEVELS = ["error", "warning", "info", "note", "none"]


def failing_level(strict: bool, fail_on: str | None) -> Severity | None:
    """Like Spectral and Redocly: errors fail a run; `--strict` fails warnings too; `--fail-on` decides."""
    level = fail_on or ("warning" if strict else "error")
    return None if level == "none" else Severity.parse(level)


@app.command("lint")
@click.argument("specs", metavar="[SPEC...]", nargs=-1)
@click.option("--format", "fmt", type=click.Choice(list(FORMATS)), default="text", show_default=True)
@click.option("--strict", is_flag=True, help="Fail on warnings too (same as --fail-on warning).")
@click.option(
    "--fail-on",
    type=click.Choice(LEVELS),
    default=None,
    help="The lowest severity that fails the run [default: error; warning with --strict; none: never].",
)
@click.option("--config", "config_path", type=click.Path(dir_okay=False), help="specbridge.yaml")
@click.option("--api", "api_name", help="Which API of the config (when it has several).")
@friendly_errors
def lint_command(
    specs: tuple[str, ...],
    fmt: str,
    strict: bool,
    fail_on: str | None,
    config_path: str | None,
    api_name: str | None,
) -> None:
    """Check each SPEC for what an agent will get wrong: names, collisions, depth, width, descriptions ...

    SPEC is a file, an http(s):// URL or - (stdin); without SPEC, every API of --config FILE (or the one
    --api NAME names) is checked: its document, its config operations, or both.

    Exit status: 0 when nothing at or above the failing level remains, 1 when something does, 3 when a
    document or the config cannot be read (the other documents are still linted)."""
    settings = LintConfig()
    source = "specbridge.yaml"
    config: Config | None = None
    if config_path is not None:
        config = load_config(config_path)
        settings, source = config.lint, config.source
    if api_name is not None and len(specs) > 1:
        raise click.UsageError("--api names the API of one document; lint several documents without it")
    registry = default_registry()
    reports: list[Report] = []
    unreadable = False
    targets = sources(specs, config_path, api_name, every_api=True)  # SPEC/URL/-, or the config's APIs
    for target in targets:
        try:
            reports.append(
                lint(
                    target.toolset(),
                    registry=registry,
                    api=target.api,
                    settings=settings,
                    config_source=source,
                )
            )
        except DocumentError as error:
            if len(targets) == 1:
                raise
            click.echo(f"error [{error.code}]: {error}", err=True)
            unreadable = True
    if reports:
        click.echo(render_all(reports, fmt, registry))
    if unreadable:
        sys.exit(EXIT_UNREADABLE)
    level = failing_level(strict, fail_on)
    if level is not None and any(report.failing(level) for report in reports):
        sys.exit(EXIT_FINDINGS)
    sys.exit(EXIT_OK)
