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

import anyio

from specbridge import ErrorCode
from specbridge.approvals import Approvals
from specbridge.config import ApprovalsConfig
from specbridge.service import outcome
from specbridge.store import ClaimState, Status, open_store

LEASE = 60.0

DOOMED = """
import asyncio, sys, time
from specbridge.approvals import Approvals
from specbridge.config import ApprovalsConfig
from specbridge.store import open_store

async def main(url):
    async with open_store(url) as store:
        approvals = Approvals(store, ApprovalsConfig(wait=0), lease=60.0, owner="doomed")
        waiting = await approvals.request(
            "shop", "refundOrder", "agent-1", {"orderId": "o-1"}, {}, fingerprint="call-o-1"
        )
        chosen = await approvals.request(
            "shop", "refundOrder", "agent-1", {"orderId": "o-2"}, {}, fingerprint="call-o-2"
        )
        chosen = await approvals.approve(chosen.id, by="alice")
        claim = await store.claim("idempotency-1", "doomed", "args", 60.0, 3600.0, time.time())
        assert claim.won
        assert await approvals.claim(chosen) is not None
        print(waiting.id, chosen.id, flush=True)  # "the request is on the wire": now kill me
        await asyncio.Event().wait()

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

    later = time.time() + LEASE + 1
    async with open_store(store_url) as store:
        restarted = Approvals(store, ApprovalsConfig(wait=0))
        assert [a.id for a in await restarted.list(Status.PENDING)] == [waiting_id]
        again = await restarted.request(
            "shop", "refundOrder", "agent-1", {"orderId": "o-2"}, {}, fingerprint="call-o-2"
        )
        assert (again.id, again.status) == (chosen_id, Status.EXECUTING)  # within its lease: hands off
        assert await restarted.claim(again) is None
        assert (await outcome(restarted, again)).code is ErrorCode.APPROVAL_PENDING

        after_lease = Approvals(store, ApprovalsConfig(wait=0), clock=lambda: later)
        lost = await after_lease.get(chosen_id)
        assert lost.status is Status.OUTCOME_UNKNOWN
        assert await after_lease.claim(lost) is None  # never sent again
        assert (await outcome(after_lease, lost)).code is ErrorCode.APPROVAL_OUTCOME_UNKNOWN

        claim = await store.claim("idempotency-1", "restarted", "args", LEASE, 3600.0, later)
        assert (claim.won, claim.owner, claim.state) == (False, "doomed", ClaimState.UNKNOWN)
