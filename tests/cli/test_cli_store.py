"""`specbridge store check [--acknowledge]`, run as the real command on a config whose SQLite store sits
next to it, while gateways (stores opened and marked in this process) use the same store."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from specbridge.cli import app
from specbridge.config import load_config
from specbridge.service import config_store
from specbridge.store import ANY, Marker, MarkerKind, StoreLost
from tests.support.stores import namespaces, store_url

__all__ = ["namespaces", "store_url"]  # fixtures: one empty store per backend, its namespace dropped after


@pytest.fixture
def config_path(tmp_path: Path) -> Path:
    path = tmp_path / "specbridge.yaml"
    path.write_text("apis: {shop: {spec: shop.yaml}}\nstore: sqlite:///state/state.db\n", encoding="utf-8")
    return path


def run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


async def command(*args: str) -> tuple[int, str]:
    """The command in a process of its own (the gateways' stores stay open in this one)."""
    done = await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "specbridge", *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    return done.returncode, done.stdout + done.stderr


def test_a_store_no_gateway_opened_reports_its_backend_and_no_marker(config_path: Path) -> None:
    result = run("store", "check", "--config", str(config_path))
    assert result.exit_code == 0, result.output
    assert "backend: sqlite, schema version" in result.output
    assert "persistence: keeps its data across a restart (journal_mode 'wal'" in result.output
    assert "marker: none" in result.output


def test_a_lost_store_exits_1_until_acknowledged_and_then_a_gateway_goes_on(config_path: Path) -> None:
    config = load_config(config_path)

    async def scenario() -> None:
        async with config_store(config) as gateway, config_store(config) as other:
            await gateway.mark(1.0)
            assert "marker: present" in (await command("store", "check", "--config", str(config_path)))[1]
            await other.write_marker(Marker.new(MarkerKind.STARTED, 2.0), replace=ANY)  # emptied, re-marked
            with pytest.raises(StoreLost):
                await gateway.hold_once(3.0)
            status, said = await command("store", "check", "--config", str(config_path))
            assert status == 1 and "marker: lost" in said
            status, said = await command("store", "check", "--acknowledge", "--config", str(config_path))
            assert status == 0 and "acknowledged: new marker" in said
            await gateway.hold_once(4.0)
            assert "marker: present" in (await command("store", "check", "--config", str(config_path)))[1]

    asyncio.run(scenario())


def test_store_check_names_the_namespace_it_reads_on_every_backend(store_url: str, tmp_path: Path) -> None:
    path = tmp_path / "specbridge.yaml"
    path.write_text(f"apis: {{shop: {{spec: shop.yaml}}}}\nstore: '{store_url}'\n", encoding="utf-8")
    result = run("store", "check", "--config", str(path))
    assert result.exit_code == 0, result.output
    first = result.output.splitlines()[0]
    if store_url.startswith("sqlite"):
        assert first.endswith("(a file of its own: no namespace)")
    else:
        namespace = store_url.rpartition("namespace=")[2]
        where = "schema" if store_url.startswith("postgres") else "key prefix"
        assert first.endswith(f" (namespace {namespace}: its {where})"), first
        assert "namespace=" not in first.partition(" (")[0]
