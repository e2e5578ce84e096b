"""`specbridge lint`: what an agent will get wrong, before any agent sees the API."""

from __future__ import annotations

import os
import stat
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

import click
from click.core import ParameterSource

from .._errors import DocumentError
from .._files import MAX_CONFIG_BYTES, read_bounded
from ..lint import (
    FORMATS,
    BaselineRefused,
    Report,
    Severity,
    baseline,
    baseline_entries,
    default_registry,
    lint,
    merge_baseline,
    render_all,
)
from ._app import EXIT_FINDINGS, EXIT_OK, EXIT_UNREADABLE, app, friendly_errors, one_shot_gc
from ._output import check_not_read, refused, unwritable, wants_colour, write_output
from ._sources import read_config, sources

if TYPE_CHECKING:
    from ..config import LintConfig

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
    help="Add today's findings to FILE's `lint.ignore` (a new file, an earlier baseline or the config); "
    "then lint with --config FILE.",
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
    --generate-baseline: 0 once the file is written; it never replaces a document or drops what FILE
    held (its other entries and settings stay). The text report is in colour on a terminal
    (NO_COLOR turns that off, FORCE_COLOR on)."""
    one_shot_gc()
    settings: LintConfig | None = None
    source = "specbridge.yaml"
    config = read_config(config_path)
    if config is not None:
        settings, source = config.lint, config.source
    if api_name is not None and len(specs) > 1:
        raise click.UsageError("--api names the API of one document; lint several documents without it")
    given = click.get_current_context().get_parameter_source("fmt") is ParameterSource.COMMANDLINE
    if baseline_path is not None and (output is not None or given):
        raise click.UsageError("--generate-baseline writes FILE and no report: leave out -o and --format")
    registry = default_registry()
    reports: list[Report] = []
    documents: list[str] = list(specs)  # what no output may replace: each document and its $ref'ed files
    unreadable = False
    targets = sources(specs, config, api_name, every_api=True)  # SPEC/URL/-, or the config's APIs
    for target in targets:
        try:
            toolset = target.toolset()
            documents += toolset.document.resolver.bases()
            reports.append(
                lint(toolset, registry=registry, api=target.served, settings=settings, config_source=source)
            )
        except DocumentError as error:
            if len(targets) == 1:
                raise
            click.echo(f"error [{error.code}]: {error}", err=True)
            unreadable = True
    if baseline_path is not None:
        if unreadable:
            sys.exit(EXIT_UNREADABLE)  # a baseline without some document's findings would mislead
        click.echo(write_baseline(baseline_path, reports, documents), err=True)
        sys.exit(EXIT_OK)
    if reports:
        if output is not None and output != "-":
            reads = [*documents, *([config_path] if config_path else [])]
            write_output(output, render_all(reports, fmt, registry) + "\n", reads=reads)
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


def write_baseline(path: str, reports: list[Report], documents: Sequence[str]) -> str:
    """Today's findings into `path`'s `lint.ignore`: a new file, or merged into the config or earlier
    baseline there (nothing it holds is lost); a document, or a file that is not a config, is refused
    (`output-unwritable`). The line that says what was done."""
    try:
        found = os.stat(path)
    except FileNotFoundError:
        found = None
    except OSError as error:
        raise unwritable(path, error) from None
    then = f"lint with --config {path} to count only new ones"
    if found is None or not stat.S_ISREG(found.st_mode):  # a new file, or a device or FIFO in place
        write_output(path, baseline(reports), reads=documents)
        entries = len(baseline_entries(reports))
        return (
            f"{entries} finding{'s' if entries != 1 else ''} written to {path} as lint.ignore entries; {then}"
        )
    check_not_read(path, documents)
    try:
        text = read_bounded(path, MAX_CONFIG_BYTES).decode("utf-8")
    except UnicodeDecodeError:
        raise refused(path, "it is not UTF-8 text, so not a specbridge.yaml") from None
    except OSError as error:
        raise refused(path, f"it cannot be read ({error.strerror or error})") from None
    try:
        merged, added = merge_baseline(text, path, reports)
    except BaselineRefused as error:
        raise refused(path, str(error)) from None
    today = len(baseline_entries(reports))
    if merged == text:
        return (
            f"nothing to add to {path}'s lint.ignore: "
            + (f"all of today's {today} findings are there already" if today else "no findings today")
            + "; it was left as it was"
        )
    write_output(path, merged, reads=documents, replaces="a specbridge.yaml")
    there = f" ({today - added} of today's {today} were there already)" if today > added else ""
    return (
        f"{added} finding{'s' if added != 1 else ''} added to {path}'s lint.ignore{there}; its other "
        f"entries and settings are kept; {then}"
    )
