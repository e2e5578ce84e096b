"""The life of one call around the store, with no MCP: approvals, idempotency keys, long calls."""

from __future__ import annotations

from ._approving import SEND_MARGIN as SEND_MARGIN
from ._approving import ApprovalGate as ApprovalGate
from ._approving import ApprovalService as ApprovalService
from ._approving import Desk as Desk
from ._approving import announcer as announcer
from ._approving import approval_settings as approval_settings
from ._approving import config_store as config_store
from ._approving import result_from_json as result_from_json
from ._approving import result_json as result_json
from ._idempotency import KEY_ARGUMENT as KEY_ARGUMENT
from ._idempotency import Idempotency as Idempotency
from ._idempotency import derived_key as derived_key
from ._idempotency import fingerprint as fingerprint
from ._idempotency import key_plan as key_plan
from ._idempotency import served_bindings as served_bindings
from ._idempotency import store_key as store_key
from ._idempotency import with_key_argument as with_key_argument
from ._key_fit import fit_key as fit_key
from ._long_calls import GET_CALL_RESULT as GET_CALL_RESULT
from ._long_calls import CallService as CallService
from ._long_calls import call_key as call_key
from ._long_calls import get_call_result_tool as get_call_result_tool
