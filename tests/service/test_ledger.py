"""The ledger (service/_ledger.py): the one owner of the gateway's store for calls: when it opens the
store, and the approvals it builds on it."""

from __future__ import annotations

from pathlib import Path

from specbridge.config import config_from_data
from specbridge.service import Ledger
from specbridge.service._ledger import store_needed

CONFIG = {
    "apis": {"shop": {"spec": "shop.yaml", "tools": {"refundOrder": {"requires_approval": True}}}},
}


def test_the_store_opens_at_start_only_where_the_config_needs_it() -> None:
    assert store_needed(config_from_data(CONFIG, source="specbridge.yaml"))
    plain = config_from_data({"apis": {"shop": {"spec": "shop.yaml"}}}, source="specbridge.yaml")
    assert not store_needed(plain)
    long = config_from_data({"apis": {"shop": {"spec": "s.yaml", "calls": {"long": True}}}}, source="x.yaml")
    assert store_needed(long)


async def test_a_gateway_without_a_store_opens_it_on_first_need_and_keeps_it(tmp_path: Path) -> None:
    plain = config_from_data(
        {"apis": {"shop": {"spec": "shop.yaml"}}, "store": f"sqlite:///{tmp_path / 'state.db'}"},
        source="specbridge.yaml",
    )
    ledger = Ledger(lambda: plain)
    await ledger.start()
    assert ledger.store is None
    try:
        opened = await ledger.open()
        assert await ledger.open() is opened
        assert ledger.current().desk.for_api("shop").store is opened
    finally:
        await ledger.aclose()
