"""`specbridge lint`: what an agent will get wrong, before any agent sees the API."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from .._errors import DocumentError
from ..lint import FORMATS, Report, Severity, baseline, default_registry, lint, render_all
from ._app import EXIT_FINDINGS, EXIT_OK, EXIT_UNREADABLE, app, friendly_errors, one_shot_gc
from ._output import wants_colour, write_output
from ._sources import sources

if TYPE_CHECKING:
    from ..config import Config, LintConfig

# `specbridge.config` (the config's schema, its reader) loads only with --config: lint without one
# starts a few hundredths of a second sooner.
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
@click.option("--api", "api_name", help="Which API (or toolset) of the config (when it has several).")
@click.option(
    "-o", "--output", help="Write the report to this file (`-`: stdout; a device or FIFO in place)."
)
@click.option(
    "--generate-baseline",
    "baseline_path",
    metavar="FILE",
    help="Write today's findings to FILE as `lint.ignore` entries (then lint with --config FILE).",
)
@friendly_errors
def lint_command(
    specs: tuple[str, ...],
    fmt: str,
    strict: bool,
    fail_on: str | None,
    config_path: str | None,
    api_name: str | None,
    output: str | None,
    baseline_path: str | None,
) -> None:
    """Check each SPEC for what an agent will get wrong: names, collisions, depth, width, descriptions ...

    SPEC is a file, an http(s):// URL or - (stdin); without SPEC, every API of --config FILE (or the one
    --api NAME names) is checked: its document, its config operations, or both.

    Exit status: 0 when nothing at or above the failing level remains, 1 when something does, 3 when a
    document or the config cannot be read (the other documents are still linted). With
    --generate-baseline: 0 once the file is written. The text report is in colour on a terminal
    (NO_COLOR turns that off, FORCE_COLOR on)."""
    one_shot_gc()
    settings: LintConfig | None = None
    source = "specbridge.yaml"
    config: Config | None = None
    if config_path is not None:
        from ..config import load_config

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
    if baseline_path is not None:
        if unreadable:
            sys.exit(EXIT_UNREADABLE)  # a baseline without some document's findings would mislead
        write_output(baseline_path, baseline(reports))
        entries = sum(len(report.findings) for report in reports)
        click.echo(
            f"{entries} finding{'s' if entries != 1 else ''} written to {baseline_path} as lint.ignore "
            f"entries; lint with --config {baseline_path} to count only new ones",
            err=True,
        )
        sys.exit(EXIT_OK)
    if reports:
        if output is not None and output != "-":
            write_output(output, render_all(reports, fmt, registry) + "\n")
        else:
            colour = fmt == "text" and wants_colour(sys.stdout)
            text = render_all(reports, fmt, registry, colour=colour) + "\n"
            if output == "-":
                write_output("-", text)
            else:
                click.echo(text, nl=False, color=colour)
    if unreadable:
        sys.exit(EXIT_UNREADABLE)
    level = failing_level(strict, fail_on)
    if level is not None and any(report.failing(level) for report in reports):
        sys.exit(EXIT_FINDINGS)
    sys.exit(EXIT_OK)
