"""docs/code-mode.md's worked example, run: its `search` call finds the signature the page shows, and
its script, run by `execute` against the example shop in code mode, answers what the page shows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.docs import _reading
from tests.docs._workspace import TOKEN, TOKEN_ENV, running_shop
from tests.support.gateway import IN_PROCESS, http_client, in_process_gateway

PAGE = _reading.ROOT / "docs" / "code-mode.md"


def worked_example() -> list[_reading.Block]:
    return [block for block in _reading.blocks() if block.page == PAGE and block.section is not None
            and block.section.title == "A worked example"]  # fmt: skip


async def test_the_worked_example_of_code_mode_answers_as_the_page_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    search, signature, script, answer = worked_example()
    assert (search.info, signature.info, script.info, answer.info) == ("json", "python", "python", "json")
    compile(signature.text, "signature", "exec")
    monkeypatch.setenv(TOKEN_ENV, TOKEN)
    (tmp_path / "shop.openapi.yaml").write_text(
        (_reading.ROOT / "src/specbridge/examples/shop.openapi.yaml").read_text(encoding="utf-8"),
        encoding="utf-8",
    )
    with running_shop() as shop:
        (tmp_path / "specbridge.yaml").write_text(
            f"apis:\n  shop:\n    spec: ./shop.openapi.yaml\n    base_url: {shop.url}/v1\n"
            f"    auth: {{type: bearer, secret: env:{TOKEN_ENV}}}\n"
            f'    egress: {{allow: ["{shop.address}"]}}\n    code_mode: on\n',
            encoding="utf-8",
        )
        async with (
            in_process_gateway(tmp_path / "specbridge.yaml") as (asgi, _),
            http_client(f"{IN_PROCESS}/mcp", transport=asgi) as client,
        ):
            found = await client.call_tool("search", json.loads(search.text))
            ran = await client.call_tool("execute", {"code": script.text})
    found_text = found.content[0].text  # type: ignore[union-attr]
    assert signature.text.strip() in found_text
    assert ran.is_error is False, ran.content
    assert ran.structured_content == json.loads(answer.text)
