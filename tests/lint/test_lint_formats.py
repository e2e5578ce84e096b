"""Every output format, each read back by a parser for that format."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema

from specbridge.document import load_document
from specbridge.lint import default_registry, lint, render
from specbridge.tools import convert

ARTICLE = Path(__file__).parent / "fixtures" / "article.yaml"
# The parts of SARIF 2.1.0 (OASIS, sarif-schema-2.1.0.json) that GitHub code scanning requires.
SARIF_MINIMAL = json.loads(
    (Path(__file__).parent / "fixtures" / "sarif-2.1.0-minimal.schema.json").read_text()
)


def rendered(fmt: str) -> str:
    registry = default_registry()
    return render(lint(convert(load_document(ARTICLE)), registry=registry), fmt, registry)


def test_json_has_every_field_of_a_finding() -> None:
    data = json.loads(rendered("json"))
    collision = next(f for f in data["findings"] if f["rule"] == "collision")
    assert collision == {
        "rule": "collision",
        "severity": "warning",
        "tool": "users.update",
        "operation": "PUT /users/{username}",
        "argument": "body_username",
        "pointer": "/paths/~1users~1{username}/put/requestBody/content/application~1json/schema/properties/username",
        "line": 23,
        "column": 17,
        "message": collision["message"],
        "fix": collision["fix"],
    }
    assert data["summary"]["warning"] == len(data["findings"])


def test_sarif_is_valid_against_the_sarif_schema_subset_code_scanning_needs() -> None:
    sarif: dict[str, Any] = json.loads(rendered("sarif"))
    jsonschema.validate(sarif, SARIF_MINIMAL)
    run = sarif["runs"][0]
    rule_ids = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    for result in run["results"]:
        assert rule_ids[result["ruleIndex"]] == result["ruleId"]
    assert {result["level"] for result in run["results"]} <= {"error", "warning", "note"}


def test_github_annotations_are_workflow_commands_with_file_line_and_title() -> None:
    lines = rendered("github").splitlines()
    pattern = re.compile(r"^::(error|warning|notice) file=([^,]+),line=(\d+),col=(\d+),title=([^:]+)::(.+)$")
    parsed = [pattern.match(line) for line in lines]
    assert all(parsed), lines
    assert {match.group(5).split(" ")[0] for match in parsed if match} >= {"collision", "width", "depth"}


def test_github_annotations_escape_newlines_and_percent_signs() -> None:
    from specbridge.lint._report import _escape_data, _escape_property

    assert _escape_data("50%\nnext") == "50%25%0Anext"
    assert _escape_property("a:b,c") == "a%3Ab%2Cc"


def test_markdown_is_a_table_with_one_row_per_finding() -> None:
    text = rendered("markdown")
    rows = [line for line in text.splitlines() if line.startswith("| ")]
    header, *body = rows
    assert [cell.strip() for cell in header.strip("|").split("|")][:3] == ["Severity", "Rule", "Tool"]
    assert len(body) == 6
    assert all(row.count(" | ") == 6 for row in body)


def test_text_shows_a_header_the_article_table_a_count_per_rule_and_a_summary_line() -> None:
    lines = rendered("text").splitlines()
    assert lines[0] == f"specbridge lint {ARTICLE} (OpenAPI 3.1.0)"
    table = {line.split()[0]: line for line in lines[2:5]}
    assert re.search(r"PUT /users/\{username\}\s+3 args\s+.*collision", table["users.update"])
    assert re.search(r"GET /search\s+16 args\s+name-missing, width", table["get_search"])
    assert lines[-2] == (
        "by rule: collision 1, depth 1, name-charset 1, name-length 1, name-missing 1, width 1"
    )
    assert lines[-1] == "3 tools, 6 findings (0 errors, 6 warnings, 0 info)"
    assert "\x1b[" not in "\n".join(lines)


def test_text_never_shortens_a_tool_name_or_path() -> None:
    text = rendered("text")
    assert "..." not in text
    assert "recalculateOrderTotalsIncludingTaxesDiscountsShippingAndLoyaltyPoints  POST" in text


def test_text_lists_findings_in_document_order() -> None:
    positions = [
        tuple(int(part) for part in line.split(":")[1:3])
        for line in rendered("text").splitlines()
        if line.startswith(str(ARTICLE) + ":")
    ]
    assert len(positions) == 6
    assert positions == sorted(positions)
