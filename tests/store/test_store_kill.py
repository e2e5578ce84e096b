"""`kill -9` at the store level: a process that claimed a call dies before storing its outcome.

After the "restart" (a new process's store on the same data) nothing is lost and nothing runs twice:
pending approvals are still pending, the interrupted call is never claimed again, and once its lease
has passed it reads as outcome unknown.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time
from typing import Any

import anyio
import pytest

from specbridge import ErrorCode
from specbridge.approvals import ApprovalError, Approvals, ApprovalSettings
from specbridge.store import ClaimState, Status, open_store

LEASE = 60.0

DOOMED = """
import asyncio, sys, time
from specbridge.approvals import Approvals, ApprovalSettings
from specbridge.store import open_store

async def main(url):
    async with open_store(url) as store:
        approvals = Approvals(store, ApprovalSettings(wait=0), lease=60.0, owner="doomed")
        waiting = await approvals.request("shop", "refundOrder", "agent-1", {"orderId": "o-1"}, {})
        chosen = await approvals.request("shop", "refundOrder", "agent-1", {"orderId": "o-2"}, {})
        await approvals.approve(chosen.id, by="alice")
        claim = await store.claim("idempotency-1", "doomed", "args", 60.0, 3600.0, time.time())
        assert claim.won

        async def send():
            print(waiting.id, chosen.id, flush=True)  # "the request is on the wire": now kill me
            await asyncio.Event().wait()

        await approvals.execute(chosen, send)

asyncio.run(main(sys.argv[1]))
"""


async def test_a_killed_process_leaves_pending_approvals_and_never_gets_its_call_run_twice(
    store_url: str,
) -> None:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-c", DOOMED, store_url, stdout=asyncio.subprocess.PIPE, env={**os.environ}
    )
    assert process.stdout is not None
    try:
        with anyio.fail_after(30):
            line = (await process.stdout.readline()).decode()
    finally:
        process.send_signal(signal.SIGKILL)
        await process.wait()
    assert process.returncode == -signal.SIGKILL
    waiting_id, chosen_id = line.split()

    sent = 0

    async def send() -> Any:
        nonlocal sent
        sent += 1
        return {"resent": True}

    later = time.time() + LEASE + 1
    async with open_store(store_url) as store:
        restarted = Approvals(store, ApprovalSettings(wait=0))
        assert [a.id for a in await restarted.list(Status.PENDING)] == [waiting_id]
        assert (await restarted.get(chosen_id)).status is Status.EXECUTING  # within its lease: hands off
        with pytest.raises(ApprovalError) as caught:
            await restarted.call("shop", "refundOrder", "agent-1", {"orderId": "o-2"}, {}, send)
        assert caught.value.code is ErrorCode.APPROVAL_PENDING

        after_lease = Approvals(store, ApprovalSettings(wait=0), clock=lambda: later)
        assert (
            await after_lease.execute(await after_lease.get(chosen_id), send)
        ).status is Status.OUTCOME_UNKNOWN
        with pytest.raises(ApprovalError) as caught:
            await after_lease.call("shop", "refundOrder", "agent-1", {"orderId": "o-2"}, {}, send)
        assert caught.value.code is ErrorCode.APPROVAL_OUTCOME_UNKNOWN
        assert sent == 0

        claim = await store.claim("idempotency-1", "restarted", "args", LEASE, 3600.0, later)
        assert (claim.won, claim.owner, claim.state) == (False, "doomed", ClaimState.UNKNOWN)
