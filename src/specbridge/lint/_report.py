"""Report writers: a table for a terminal, JSON, SARIF 2.1.0, GitHub workflow annotations, Markdown."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .._json import dumps
from .._version import __version__
from ._model import Finding, Registry, Severity
from ._run import Report

Json = Any
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "note"}
_GITHUB_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}
DOCS_URL = "https://github.com/specbridge/specbridge/blob/main/docs/lint.md"


# ANSI colours of the text report on a terminal (the CLI decides: a terminal, NO_COLOR, FORCE_COLOR).
_SGR = {Severity.ERROR: "1;31", Severity.WARNING: "33", Severity.INFO: "36", "dim": "2", "bold": "1"}


def _paint(text: str, style: Severity | str, colour: bool) -> str:
    return f"\x1b[{_SGR[style]}m{text}\x1b[0m" if colour else text


def _level_counts(count: Callable[[Severity], int]) -> str:
    return ", ".join(
        f"{count(level)} {level.value}{'s' if level != Severity.INFO and count(level) != 1 else ''}"
        for level in Severity
    )


def summary(report: Report) -> str:
    counts = _level_counts(report.count)
    advice = sum(1 for finding in report.findings if report.is_advice(finding))
    extra = f"; {advice} of them advice" if advice else ""
    extra += f"; {report.ignored} ignored" if report.ignored else ""
    tools = len(report.toolset.tools)
    total = len(report.findings)
    return f"{tools} tool{'s' if tools != 1 else ''}, {total} finding{'s' if total != 1 else ''} ({counts}){extra}"


def _where(report: Report, finding: Finding) -> str:
    place = report.source
    if finding.line is not None:
        place += f":{finding.line}:{finding.column}"
    return place


def _header(report: Report) -> str:
    version = report.toolset.document.version
    kind = "Swagger" if version.startswith("2") else "OpenAPI"
    return f"specbridge lint {report.source} ({kind} {version})"


def _per_rule(report: Report) -> str:
    counts: dict[str, int] = {}
    for finding in report.findings:
        counts[finding.rule] = counts.get(finding.rule, 0) + 1
    ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    return "by rule: " + ", ".join(f"{rule} {count}" for rule, count in ranked)


def render_text(report: Report, registry: Registry, *, colour: bool = False) -> str:
    """A header, the article's table (tool, method and path, arguments, rules), every finding in document
    order with its fix, a count per rule and a summary line. Names and paths are never shortened: a
    finding is for finding the thing, and `...` in a path cannot be searched for. `colour`: ANSI
    colours for a terminal (severities, fixes dimmed, the summary bold)."""
    lines: list[str] = [_paint(_header(report), "bold", colour), ""]
    grouped = report.by_tool()
    rows = []
    for tool in report.toolset.tools:
        found = grouped.get(tool.name)
        if found:
            rules = ", ".join(dict.fromkeys(finding.rule for finding in found))
            count = len(tool.arguments)
            rows.append((tool.name, tool.operation.label, f"{count} arg{'s' if count != 1 else ''}", rules))
    if rows:
        widths = [max(len(row[column]) for row in rows) for column in range(3)]
        for row in rows:
            lines.append(
                f"{row[0]:<{widths[0]}}  {row[1]:<{widths[1]}}  {row[2]:>{widths[2]}}  {row[3]}".rstrip()
            )
        lines.append("")
    for finding in report.findings:
        subject = finding.tool or "document"
        if finding.argument:
            subject += f" ({finding.argument})"
        level = _paint(finding.severity.value, finding.severity, colour)
        level += _paint(" (advice)", "dim", colour) if report.is_advice(finding) else ""
        lines.append(f"{_where(report, finding)}: {level} [{finding.rule}] {subject}: {finding.message}")
        lines.append(_paint(f"    fix: {finding.fix}", "dim", colour))
    if report.findings:
        lines += ["", _per_rule(report)]
    lines.append(_paint(summary(report), "bold", colour))
    return "\n".join(lines)


def finding_json(finding: Finding, *, advice: bool = False) -> dict[str, Json]:
    entry: dict[str, Json] = {
        "rule": finding.rule,
        "severity": finding.severity.value,
        "tool": finding.tool,
        "operation": finding.operation,
    }
    if advice:
        entry["advice"] = True
    if finding.argument is not None:
        entry["argument"] = finding.argument
    entry.update(
        pointer=finding.pointer,
        line=finding.line,
        column=finding.column,
        message=finding.message,
        fix=finding.fix,
    )
    return entry


def report_json(report: Report) -> dict[str, Json]:
    return {
        "source": report.source,
        "tools": len(report.toolset.tools),
        "summary": {level.value: report.count(level) for level in Severity} | {"ignored": report.ignored},
        "findings": [finding_json(finding, advice=report.is_advice(finding)) for finding in report.findings],
    }


def render_json(report: Report, registry: Registry) -> str:
    return dumps(report_json(report), indent=True)


def _artifact_uri(source: str) -> str:
    """Relative to the working directory (the repository root in CI), with forward slashes."""
    try:
        relative = os.path.relpath(Path(source).resolve(), Path.cwd())
    except ValueError:  # another drive on Windows
        return Path(source).resolve().as_uri()
    if relative.startswith(".."):
        return Path(source).resolve().as_uri()
    return relative.replace(os.sep, "/")


def render_sarif(report: Report, registry: Registry) -> str:
    return dumps(sarif_log([report], registry), indent=True)


def sarif_log(reports: list[Report], registry: Registry) -> dict[str, Json]:
    """One SARIF log with one run for every document linted (code scanning takes one run per tool)."""
    found = {finding.rule for report in reports for finding in report.findings}
    rules = sorted(found | {rule.id for rule in registry})
    index = {rule_id: position for position, rule_id in enumerate(rules)}
    descriptors = []
    for rule_id in rules:
        rule = registry.rules.get(rule_id)
        text = rule.summary if rule is not None else rule_id
        level = registry.severity(rule_id)
        descriptors.append(
            {
                "id": rule_id,
                "name": "".join(part.capitalize() for part in rule_id.split("-")),
                "shortDescription": {"text": text},
                "helpUri": f"{DOCS_URL}#{rule_id}",
                "defaultConfiguration": {"level": _SARIF_LEVEL[level]},
            }
        )
    results = []
    pairs = [(report, finding) for report in reports for finding in report.findings]
    for report, finding in pairs:
        uri = _artifact_uri(report.source)
        region: dict[str, int] = {"startLine": finding.line or 1}
        if finding.column is not None:
            region["startColumn"] = finding.column
        location: dict[str, Json] = {
            "physicalLocation": {"artifactLocation": {"uri": uri}, "region": region},
        }
        if finding.tool is not None:
            location["logicalLocations"] = [{"name": finding.tool, "kind": "function"}]
        properties: dict[str, Json] = {"pointer": finding.pointer}
        if report.is_advice(finding):
            properties["advice"] = True
        for key in ("tool", "operation", "argument"):
            if getattr(finding, key) is not None:
                properties[key] = getattr(finding, key)
        results.append(
            {
                "ruleId": finding.rule,
                "ruleIndex": index[finding.rule],
                "level": _SARIF_LEVEL[finding.severity],
                "message": {"text": f"{finding.message} Fix: {finding.fix}"},
                "locations": [location],
                "properties": properties,
            }
        )
    sarif = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "specbridge",
                        "version": __version__,
                        "informationUri": DOCS_URL,
                        "rules": descriptors,
                    }
                },
                "results": results,
            }
        ],
    }
    return sarif


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def render_github(report: Report, registry: Registry) -> str:
    """`::warning file=…,line=…,col=…,title=…::message` lines (a workflow turns them into annotations)."""
    lines = []
    for finding in report.findings:
        properties = [f"file={_escape_property(report.source)}"]
        if finding.line is not None:
            properties += [f"line={finding.line}", f"col={finding.column}"]
        subject = f" {finding.tool}" if finding.tool else ""
        properties.append(f"title={_escape_property(f'{finding.rule}{subject}')}")
        message = _escape_data(f"{finding.message} Fix: {finding.fix}")
        lines.append(f"::{_GITHUB_COMMAND[finding.severity]} {','.join(properties)}::{message}")
    return "\n".join(lines)


def _cell(text: str | None) -> str:
    return (text or "").replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def render_markdown(report: Report, registry: Registry) -> str:
    lines = [f"### specbridge lint: `{_cell(report.source)}`", "", summary(report), ""]
    if report.findings:
        lines += [
            "| Severity | Rule | Tool | Operation | Line | Message | Fix |",
            "|---|---|---|---|---|---|---|",
        ]
        for finding in report.findings:
            tool = finding.tool or ""
            if finding.argument:
                tool += f" ({finding.argument})"
            line = f"{finding.line}:{finding.column}" if finding.line is not None else finding.pointer
            lines.append(
                f"| {finding.severity.value} | `{finding.rule}` | {_cell(tool)} | {_cell(finding.operation)} "
                f"| {_cell(line)} | {_cell(finding.message)} | {_cell(finding.fix)} |"
            )
    return "\n".join(lines)


FORMATS: dict[str, Callable[[Report, Registry], str]] = {
    "text": render_text,
    "json": render_json,
    "sarif": render_sarif,
    "github": render_github,
    "markdown": render_markdown,
}


def render(report: Report, fmt: str, registry: Registry) -> str:
    return FORMATS[fmt](report, registry)


def render_all(reports: list[Report], fmt: str, registry: Registry, *, colour: bool = False) -> str:
    """Several documents in one output: one SARIF run, a JSON list, the others one after another.
    `colour` applies to the text format only."""
    if fmt == "text" and colour:
        return _render_texts(reports, registry)
    if len(reports) == 1:
        return render(reports[0], fmt, registry)
    if fmt == "sarif":
        return dumps(sarif_log(reports, registry), indent=True)
    if fmt == "json":
        return dumps([report_json(report) for report in reports], indent=True)
    parts = [render(report, fmt, registry) for report in reports]
    if fmt == "text":
        total = sum(len(report.findings) for report in reports)
        counts = _level_counts(lambda level: sum(report.count(level) for report in reports))
        parts.append(f"{len(reports)} documents, {total} finding{'s' if total != 1 else ''} ({counts})")
    separator = "\n" if fmt == "github" else "\n\n"
    return separator.join(part for part in parts if part)


def _render_texts(reports: list[Report], registry: Registry) -> str:
    parts = [render_text(report, registry, colour=True) for report in reports]
    if len(reports) > 1:
        total = sum(len(report.findings) for report in reports)
        counts = _level_counts(lambda level: sum(report.count(level) for report in reports))
        line = f"{len(reports)} documents, {total} finding{'s' if total != 1 else ''} ({counts})"
        parts.append(_paint(line, "bold", True))
    return "\n\n".join(parts)
