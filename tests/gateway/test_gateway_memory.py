"""What the gateway keeps: the loaded documents are frozen out of the cyclic collector's way, the
compiled checks are bounded per API, and the check worker runs from the start only when asked."""

from __future__ import annotations

import gc
import os
from pathlib import Path

import anyio
import pytest

from specbridge.call import CHECKERS, CheckPool
from specbridge.config import load_config
from specbridge.gateway import Gateway
from tests.support.gateway import write_config
from tests.support.upstream import Upstream


async def test_after_start_the_loaded_tools_are_frozen_out_of_the_collectors_way(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = write_config(tmp_path, upstream)
    gateway = Gateway(load_config(config), config_path=str(config))
    gc.unfreeze()
    try:
        await gateway.start()
        frozen = gc.get_freeze_count()
        tool = gateway.state("shop").toolset.tools[0]
        assert frozen > 0
        assert not any(tool is item for item in gc.get_objects())  # the collector no longer walks it
    finally:
        await gateway.aclose()


async def test_compiled_checks_are_kept_for_a_bounded_number_of_tools(
    tmp_path: Path, upstream: Upstream
) -> None:
    config = write_config(tmp_path, upstream)
    gateway = Gateway(load_config(config), config_path=str(config))
    await gateway.start()
    try:
        caller = gateway.state("shop").caller
        caller._plans.checkers.size = 2
        for tool in gateway.state("shop").toolset.tools:
            await caller.call(tool.name, {"unexpected": 1})
        assert len(caller._plans.checkers) == 2 <= CHECKERS
    finally:
        await gateway.aclose()


async def test_a_gateway_starts_the_check_worker_with_its_apis_only_when_told(
    tmp_path: Path, upstream: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`specbridge serve` over HTTP tells it (docs/calls.md, "Limits on one call"); by default the
    first large call starts the worker, as for library use."""
    pool = CheckPool()
    monkeypatch.setattr("specbridge.call._offload._pool", pool)
    config = write_config(tmp_path, upstream)
    lazy = Gateway(load_config(config), config_path=str(config))
    eager = Gateway(load_config(config), config_path=str(config), check_worker_at_start=True)
    try:
        with anyio.fail_after(30):
            await lazy.start()
            assert pool.pids == []
            await eager.start()
        (worker,) = pool.pids
        assert worker != os.getpid()
    finally:
        await lazy.aclose()
        await eager.aclose()
        await pool.aclose()
