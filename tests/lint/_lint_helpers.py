"""Small documents for lint tests, written as Python data and read through the real loader."""

from __future__ import annotations

from typing import Any

import yaml

from specbridge.config import ApiConfig, LintConfig
from specbridge.document import parse_document
from specbridge.lint import Finding, Report, lint
from specbridge.tools import ConvertOptions, convert


def document(paths: dict[str, Any], **top: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {"title": "Test API", "version": "1"},
        "servers": [{"url": "https://api.example.com"}],
        "paths": paths,
    }
    data.update(top)
    return data


def operation(operation_id: str | None = "doThing", **fields: Any) -> dict[str, Any]:
    op: dict[str, Any] = {
        "summary": "Does the thing to the widget, returning what changed and why.",
        "responses": {"200": {"description": "What changed."}},
    }
    if operation_id is not None:
        op["operationId"] = operation_id
    op.update(fields)
    return op


def json_body(schema: dict[str, Any]) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": schema}}}


def nested(levels: int) -> dict[str, Any]:
    """An object `levels` objects deep below the body (0: a flat body with one string field)."""
    node: dict[str, Any] = {"type": "string"}
    for index in range(levels):
        node = {"type": "object", "properties": {f"level{levels - index}": node}}
    return {"type": "object", "properties": {"field": node}}


def run(data: dict[str, Any], *, api: ApiConfig | None = None, settings: LintConfig | None = None) -> Report:
    text = yaml.safe_dump(data, sort_keys=False)
    options = api.convert_options() if api is not None else ConvertOptions()
    return lint(convert(parse_document(text, source="test.yaml"), options), api=api, settings=settings)


def rules(report: Report, tool: str | None = None) -> set[str]:
    return {f.rule for f in report.findings if tool is None or f.tool == tool}


def only(report: Report, rule: str) -> list[Finding]:
    return [f for f in report.findings if f.rule == rule]
