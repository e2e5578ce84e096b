"""`call/_caller.py`: the entry point: unknown tools, the base URL (configured or the document's first
public server), the per-tool timeout."""

from __future__ import annotations

from pathlib import Path

import httpx
import pytest

from specbridge._errors import CallError, ConfigError, ErrorCode
from specbridge.call import Caller
from specbridge.config import ApiConfig, ToolConfig, config_from_data
from tests.call._caller import MakeCaller, api_config, toolset_for
from tests.call._caller import call as _call


async def test_an_unknown_tool_raises_tool_unknown(make_caller: MakeCaller) -> None:
    with pytest.raises(CallError) as caught:
        await make_caller().call("noSuchTool", {})
    assert caught.value.code == ErrorCode.TOOL_UNKNOWN


async def test_a_per_tool_timeout_overrides_the_api_timeout(make_caller: MakeCaller) -> None:
    caller = make_caller(timeout=30, tools={"ping": ToolConfig(timeout=2)})
    tool = caller.toolset.get("ping")
    assert tool is not None and caller.timeout(tool) == 2


async def test_an_api_without_a_base_url_is_an_error_result() -> None:
    caller = Caller(ApiConfig(name="x", spec="x.yaml"), toolset_for())
    result = await caller.call("ping", {})
    await caller.aclose()
    assert result.code == ErrorCode.BASE_URL_MISSING


def _with_servers(*urls: str) -> dict[str, object]:
    from tests.call._caller import DOCUMENT

    return {**DOCUMENT, "servers": [{"url": url} for url in urls]}


async def test_without_a_base_url_the_documents_first_public_server_is_used() -> None:
    seen: list[httpx.Request] = []

    async def resolve(host: str, port: int) -> list[str]:
        return ["93.184.216.34"]

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"ok": True})

    toolset = toolset_for(_with_servers("http://localhost:8080", "/relative", "https://api.example.com/v2"))
    caller = Caller(
        ApiConfig(name="x", spec="x.yaml"), toolset, transport=httpx.MockTransport(handler), resolve=resolve
    )
    result = await _call(caller, "ping", {})
    await caller.aclose()
    assert not result.is_error  # type: ignore[attr-defined]
    assert str(seen[0].url) == "https://api.example.com/v2/ping"


async def test_a_document_whose_only_server_is_internal_gives_no_base_url() -> None:
    caller = Caller(ApiConfig(name="x", spec="x.yaml"), toolset_for(_with_servers("http://localhost:8080")))
    result = await _call(caller, "ping", {})
    await caller.aclose()
    assert result.code == ErrorCode.BASE_URL_MISSING  # type: ignore[attr-defined]
    assert "no public server" in result.text  # type: ignore[attr-defined]


def test_a_caller_refuses_a_non_public_base_url() -> None:
    with pytest.raises(ConfigError):
        Caller(api_config("http://127.0.0.1:8080"), toolset_for())


def test_loading_a_config_refuses_a_non_public_base_url_unless_allowed(tmp_path: Path) -> None:
    data = {"apis": {"a": {"spec": "x.yaml", "base_url": "http://10.0.0.5/v1"}}}
    with pytest.raises(ConfigError) as caught:
        config_from_data(data, source="s.yaml", base_dir=tmp_path)
    assert "apis.a.base_url" in str(caught.value)
    data["apis"]["a"]["egress"] = {"allow": ["10.0.0.5"]}  # type: ignore[index]
    config_from_data(data, source="s.yaml", base_dir=tmp_path)
