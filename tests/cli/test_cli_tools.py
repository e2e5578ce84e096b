"""`specbridge tools` (and `serve`) say on stderr when a parameter is left out of the tools because its
`$ref` cannot be followed; stdout stays the tool definitions alone."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from specbridge.cli import app

DOCUMENT = """openapi: 3.1.0
info: {title: Refs, version: "1"}
servers: [{url: "https://api.example.com"}]
paths:
  /things:
    get:
      operationId: listThings
      summary: List the things in the store, newest first.
      parameters:
        - $ref: "./common.yaml#/components/parameters/Limit"
        - $ref: "./missing.yaml#/components/parameters/Page"
        - {name: q, in: query, schema: {type: string}}
      responses: {"200": {description: ok}}
"""
COMMON = "components: {parameters: {Offset: {name: offset, in: query, schema: {type: integer}}}}\n"


def write(tmp_path: Path) -> Path:
    (tmp_path / "common.yaml").write_text(COMMON)
    spec = tmp_path / "api.yaml"
    spec.write_text(DOCUMENT)
    return spec


def test_tools_warns_for_each_parameter_an_external_ref_drops(tmp_path: Path) -> None:
    spec = write(tmp_path)
    result = CliRunner().invoke(app, ["tools", str(spec)])
    assert result.exit_code == 0
    warnings = result.stderr.splitlines()
    assert len(warnings) == 2
    assert warnings[0].startswith(f"warning [parameter-dropped]: {spec}:10:9: a parameter is left out")
    assert "common.yaml#/components/parameters/Limit" in warnings[0]
    assert warnings[1].startswith(f"warning [parameter-dropped]: {spec}:11:9: ")
    assert "missing.yaml" in warnings[1]
    [tool] = json.loads(result.stdout)["tools"]
    assert list(tool["inputSchema"]["properties"]) == ["q"]


def test_serve_warns_for_a_dropped_parameter_before_serving(tmp_path: Path) -> None:
    spec = write(tmp_path)
    # Over stdio with an empty stdin: the gateway loads the document, warns, and ends as stdin closes.
    result = CliRunner().invoke(app, ["serve", str(spec)], input="")
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in result.stderr.splitlines()]  # serve's stderr: log lines only
    dropped = [record for record in records if record.get("code") == "parameter-dropped"]
    assert len(dropped) == 2 and {record["level"] for record in dropped} == {"warning"}


def test_a_document_whose_refs_all_resolve_gets_no_warning(tmp_path: Path) -> None:
    spec = write(tmp_path)
    spec.write_text(DOCUMENT.replace("Limit", "Offset").replace('        - $ref: "./missing.yaml', "#"))
    result = CliRunner().invoke(app, ["tools", str(spec)])
    assert result.exit_code == 0
    assert result.stderr == ""


def test_tools_o_writes_the_definitions_and_replaces_an_existing_file(tmp_path: Path) -> None:
    spec = write(tmp_path)
    target = tmp_path / "tools.json"
    target.write_text("old")
    result = CliRunner().invoke(app, ["tools", str(spec), "-o", str(target)])
    assert result.exit_code == 0
    assert [tool["name"] for tool in json.loads(target.read_text())["tools"]] == ["listThings"]
    assert sorted(path.name for path in tmp_path.iterdir()) == ["api.yaml", "common.yaml", "tools.json"]
