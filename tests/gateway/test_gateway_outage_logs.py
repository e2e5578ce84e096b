"""What the log says of failures that break every call and of reloads (issue 38): a failure that breaks
every call of an API (or client) is one warning with what fixes it, the same failure again is debug, and
the first call that goes through again one info line; every config reload that changed anything is a
`config reloaded` line naming the keys and a `specbridge_reloads_total{api="*config*"}` sample, one that
changed only `limits` included."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from specbridge.config import load_config
from specbridge.gateway import Gateway
from tests.support.gateway import IN_PROCESS, http_client, in_process_gateway, write_config
from tests.support.upstream import Upstream, json_response


def events(caplog: pytest.LogCaptureFixture, name: str) -> list[logging.LogRecord]:
    return [record for record in caplog.records if record.getMessage() == name]


async def test_an_unset_secret_is_one_warning_then_debug_then_one_recovered_line(
    tmp_path: Path, upstream: Upstream, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("SPECBRIDGE_TEST_OUTAGE", raising=False)
    upstream.route("/products/p1", json_response({"id": "p1", "name": "Pen"}))
    config = write_config(
        tmp_path, upstream, extra="auth: {type: bearer, secret: env:SPECBRIDGE_TEST_OUTAGE}\n"
    )
    with caplog.at_level(logging.DEBUG, logger="specbridge.gateway"):
        async with (
            in_process_gateway(config) as (transport, _),
            http_client(f"{IN_PROCESS}/mcp", transport=transport) as client,
        ):
            for _ in range(3):
                result = await client.call_tool("getProduct", {"id": "p1"})
                assert result.is_error
            monkeypatch.setenv("SPECBRIDGE_TEST_OUTAGE", "t0ken")
            assert not (await client.call_tool("getProduct", {"id": "p1"})).is_error
            assert not (await client.call_tool("getProduct", {"id": "p1"})).is_error
    failed = events(caplog, "calls of an API fail")
    assert [record.levelno for record in failed] == [logging.WARNING, logging.DEBUG, logging.DEBUG]
    fields = failed[0].fields  # type: ignore[attr-defined]
    assert fields["code"] == "secret-unavailable" and fields["api"] == "shop"
    assert "SPECBRIDGE_TEST_OUTAGE" in fields["reason"] and "no restart is needed" in fields["fix"]
    [back] = events(caplog, "calls of an API go through again")
    assert back.levelno == logging.INFO and back.fields["code"] == "secret-unavailable"  # type: ignore[attr-defined]
    assert "t0ken" not in caplog.text


@pytest.mark.parametrize(
    ("change", "changed", "in_part"),
    [
        ("limits: {max_depth: 20}\n", ["limits"], True),
        ("limits: {per_client: 5/minute}\n", ["limits.per_client/per_tool"], False),
        ("lint: {disable: [width]}\n", ["lint"], False),
    ],
)
async def test_a_reload_that_changes_only_top_level_settings_is_logged_and_counted(
    tmp_path: Path,
    upstream: Upstream,
    caplog: pytest.LogCaptureFixture,
    change: str,
    changed: list[str],
    in_part: bool,
) -> None:
    path = write_config(tmp_path, upstream)
    gateway = Gateway(load_config(path), config_path=str(path))
    await gateway.start()
    try:
        path.write_text(path.read_text(encoding="utf-8") + change, encoding="utf-8")
        with caplog.at_level(logging.INFO, logger="specbridge.gateway"):
            assert await gateway.reload_changed() == []
            assert await gateway.reload_changed() == []  # nothing changed since: no line, no count
        [line] = events(caplog, "config reloaded")
        assert line.fields == {"changed": changed, "apis": []}  # type: ignore[attr-defined]
        partly = events(caplog, "config reloaded in part")
        assert bool(partly) is in_part
        if in_part:
            assert partly[0].levelno == logging.WARNING and "next start" in partly[0].getMessage() + str(
                partly[0].fields
            )  # type: ignore[attr-defined]
        assert 'specbridge_reloads_total{api="*config*",outcome="ok"} 1' in gateway.metrics.render()
    finally:
        await gateway.aclose()
