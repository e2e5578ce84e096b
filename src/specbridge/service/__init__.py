"""The call service: the life of one call of a document tool between the adapter and `call/`, around
the store, with no MCP: access, plan, check, look up (the ledger), limits, resolve, approve, claim,
send, store, audit (`_service`); the ledger, the one owner of the store for calls (`Ledger`); which
tools a caller may use (`tool_rules`), for the adapter's listings too.

Modules:

- `_service`: `CallService`, the line read top to bottom: access, plan, check, look up, limits,
  resolve, approve, claim, send, store, audit.
- `_request`: the values passed from step to step (`CallRequest`, `Planned`, `Ready`, `Question`, …)
  and the call's `Trail` for its audit line.
- `_planning`: step 1, the plan, once; the agent's idempotency key taken out of the arguments.
- `_access`: `allowed` first (the caller's tool access) and `audit` last; the rate limits of a new call.
- `_tool_access`: `ToolRules`, which tools one caller may use; the adapter's listings use them too
  (`Allowed`: their positions, kept per rules).
- `_rate_limits`: which limits a call meets, counted in the store; the `rate-limited` result.
- `_resolving`: the check, once; then files, bindings and the credential.
- `_ledger`: `Ledger`, the one owner of the store for calls, and the one record of each logical call.
- `_look_up`: what one logical call is now, read from the store before anything else of the call.
- `_fingerprint`: the one fingerprint of a call, its tool's operation included.
- `_approval`, `_approving`, `_asking`: the approval as a value; the config's `approvals:` on the store
  (`ApprovalGate`, `Desk`); what the client's user reads.
- `_once`: claim, send, store: the one step every way into the API sends a call by.
- `_renewing`: a fetched token the API refused (401) had anew once, and the call sent once more.
- `_idempotency`, `_key_fit`: the `idempotency_key` argument and the derived key made to fit the
  document's own key field.
- `_long_calls`: `LongCalls`, claim, send and store in the background.
- `_sending`: `ApprovedSender`, an approved call sent by the gateway as soon as it is approved.
- `_stopping`: `Stopping`, no new call at SIGTERM; waits that send nothing cut.
- `_waits`: every wait cut to the call's deadline, in one place.
- `_results`: a call's result read back from the store; `store-unavailable`.
"""

from __future__ import annotations

from ._approval import Approved as Approved
from ._approval import outcome as outcome
from ._approving import ApprovalGate as ApprovalGate
from ._approving import Desk as Desk
from ._approving import announcer as announcer
from ._approving import config_store as config_store
from ._asking import question as question
from ._fingerprint import fingerprint as fingerprint
from ._fingerprint import operation_digest as operation_digest
from ._idempotency import KEY_ARGUMENT as KEY_ARGUMENT
from ._idempotency import derived_key as derived_key
from ._idempotency import key_plan as key_plan
from ._idempotency import served_bindings as served_bindings
from ._idempotency import store_key as store_key
from ._idempotency import with_key_argument as with_key_argument
from ._key_fit import fit_key as fit_key
from ._ledger import Ledger as Ledger
from ._long_calls import GET_CALL_RESULT as GET_CALL_RESULT
from ._long_calls import call_key as call_key
from ._long_calls import get_call_result_tool as get_call_result_tool
from ._once import result_json as result_json
from ._request import NOBODY as NOBODY
from ._request import Answer as Answer
from ._request import Asking as Asking
from ._request import CallRequest as CallRequest
from ._request import Question as Question
from ._request import Trail as Trail
from ._results import result_from_json as result_from_json
from ._sending import ApprovedSender as ApprovedSender
from ._sending import offers_approval_results as offers_approval_results
from ._service import CallService as CallService
from ._tool_access import Allowed as Allowed
from ._tool_access import ToolRules as ToolRules
from ._tool_access import tool_rules as tool_rules
from ._waits import Deadline as Deadline
