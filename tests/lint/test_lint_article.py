"""The seed article's three examples come out as it shows them."""

from __future__ import annotations

from pathlib import Path

from specbridge.document import load_document
from specbridge.lint import lint
from specbridge.tools import convert

ARTICLE = Path(__file__).parent / "fixtures" / "article.yaml"


def test_the_article_examples_report_exactly_the_article_findings() -> None:
    report = lint(convert(load_document(ARTICLE)))
    found = {
        (finding.operation, finding.rule)
        for finding in report.findings
        if finding.rule in {"collision", "name-charset", "name-length", "depth", "name-missing", "width"}
    }
    assert found == {
        ("PUT /users/{username}", "collision"),
        ("PUT /users/{username}", "name-charset"),
        ("POST /orders/{order}", "name-length"),
        ("POST /orders/{order}", "depth"),
        ("GET /search", "name-missing"),
        ("GET /search", "width"),
    }
    assert {finding.rule for finding in report.findings} == {rule for _, rule in found}


def test_the_article_search_tool_is_named_get_search_with_sixteen_arguments() -> None:
    toolset = convert(load_document(ARTICLE))
    search = next(tool for tool in toolset.tools if tool.operation.label == "GET /search")
    assert search.name == "get_search"
    assert len(search.arguments) == 16
