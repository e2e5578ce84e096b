"""The config's `approvals:` on the store (service/_approving.py): one `Approvals` per API with that API's
own `ApprovalsConfig`, and the desk people answer at."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from specbridge.config import config_from_data
from specbridge.service import ApprovalGate
from specbridge.store import Status, Store, open_store

CONFIG = {
    "apis": {
        "shop": {
            "spec": "shop.yaml",
            "approvals": {"wait": "60s", "expire": "1h"},
            "tools": {"refundOrder": {"requires_approval": True}},
        },
        "other": {"spec": "other.yaml"},
    },
    "approvals": {"wait": 0},
}


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[Store]:
    async with open_store(f"sqlite:///{tmp_path / 'state.db'}") as opened:
        yield opened


def test_each_api_answers_with_its_own_settings_the_config_s_own_object(store: Store) -> None:
    config = config_from_data(CONFIG, source="specbridge.yaml")
    gate = ApprovalGate(store, config)
    assert gate.desk.for_api("shop").settings is config.apis["shop"].approvals  # read once, not copied
    assert (gate.desk.for_api("shop").settings.wait, gate.desk.for_api("shop").settings.expire) == (
        60.0,
        3600.0,
    )
    assert gate.desk.for_api("other").settings.wait == 0.0
    assert gate.desk.for_api("unknown").settings.wait == 0.0  # the top level's


async def test_the_desk_answers_through_the_approvals_of_the_call_s_api(store: Store) -> None:
    gate = ApprovalGate(store, config_from_data(CONFIG, source="specbridge.yaml"))
    shop = gate.desk.for_api("shop")
    approval = await shop.request("shop", "refundOrder", "bot", {"orderId": "o-1"}, {}, fingerprint="f")
    answered = await gate.desk.approve(approval.id, "alice")
    assert (answered.status, answered.answered_by) == (Status.APPROVED, "alice")
    assert [found.id for found in await gate.desk.list(Status.APPROVED)] == [approval.id]
