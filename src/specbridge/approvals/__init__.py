"""Human approval of risky calls, on the store: no MCP here, so the gateway, the admin API and the
command line share it (`specbridge approvals …` works with no gateway running).

Modules:

- `_approvals`: `Approvals`, the approval record's life on the store, one store step each (request,
  wait, approve, reject, claim, finish, abandon, settle); `ApprovalError`.
- `_view`: `approval_json`, one JSON shape of an approval for people (the admin API, `approvals show`).
- `_log`: `log_answer`, who answered what and when: one line wherever the answer was given.
"""

from __future__ import annotations

from ._approvals import FINISHED as FINISHED
from ._approvals import OPERATORS as OPERATORS
from ._approvals import Announcer as Announcer
from ._approvals import ApprovalError as ApprovalError
from ._approvals import Approvals as Approvals
from ._approvals import approval_event as approval_event
from ._approvals import client_receiver as client_receiver
from ._log import log_admin as log_admin
from ._log import log_answer as log_answer
from ._view import ago as ago
from ._view import approval_json as approval_json
from ._view import client_approval_json as client_approval_json
from ._view import iso as iso
from ._view import repeat_note as repeat_note
from ._view import status_text as status_text

__all__ = [
    "FINISHED",
    "OPERATORS",
    "Announcer",
    "ApprovalError",
    "Approvals",
    "ago",
    "approval_event",
    "approval_json",
    "client_approval_json",
    "client_receiver",
    "iso",
    "log_admin",
    "log_answer",
    "repeat_note",
    "status_text",
]
