"""What every admin request passes first, the JSON API's and the page's alike: the Host check, the admin
key, and how an approval or store error becomes an HTTP refusal; and `log_admin`, the one way an admin
action is recorded: a line of the gateway's log and, when `audit:` is set, of the audit log."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from starlette.requests import Request
from starlette.responses import Response

from .._errors import ErrorCode, SpecbridgeError
from ..access import Admission, Identity, Refusal, refused
from ..approvals import log_admin as log_admin
from ..approvals import log_answer as log_answer
from ..config import AdminConfig
from ..store import StoreError

# Hosts a browser or client may name in `Host` on a gateway bound to loopback (any port); a gateway
# served under a public name passes that name (DNS rebinding cannot point it at us then).
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
# What an approval id can look like (the store makes 32 hex digits): anything else is "not found" here,
# before the store sees it (a NUL or a 10,000-character id is not every backend's idea of a key).
APPROVAL_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
STATUS_OF = {
    ErrorCode.APPROVAL_NOT_FOUND: 404,
    ErrorCode.APPROVAL_ANSWERED: 409,
    ErrorCode.APPROVAL_EXPIRED: 409,
    ErrorCode.APPROVAL_REASON_MISSING: 400,
    ErrorCode.REQUEST_INVALID: 400,
    ErrorCode.STORE_UNAVAILABLE: 503,
}


class Refused(Exception):
    """An admin request refused with an HTTP status and a stable code."""

    def __init__(self, status: int, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def error_json(status: int, code: ErrorCode, message: str) -> Response:
    return refused(status, code, message, realm="specbridge-admin")


def host_allowed(host: str, allowed: Sequence[str]) -> bool:
    """`allowed` holds names (any port) or `name:port`; `*` allows every host (behind a proxy that checks)."""
    host = host.strip().lower()
    if "*" in allowed:
        return True
    name = host[: host.find("]") + 1] if host.startswith("[") else host.partition(":")[0]
    return bool(name) and any(entry.lower() in (host, name) for entry in allowed)


def check_host(request: Request, allowed: Sequence[str]) -> None:
    if not host_allowed(request.headers.get("host", ""), allowed):
        raise Refused(
            403, ErrorCode.HOST_REFUSED, "this gateway does not answer admin requests for that host"
        )


def check_id(approval_id: str) -> str:
    """`approval_id` if it can name an approval; else the 404 an unknown id gets."""
    if APPROVAL_ID.fullmatch(approval_id) is None:
        raise Refused(404, ErrorCode.APPROVAL_NOT_FOUND, "no approval has this id")
    return approval_id


def admitted(outcome: Identity | Refusal) -> AdminConfig:
    """The admin the gateway's admission step let in, or its refusal raised as `Refused`."""
    if isinstance(outcome, Refusal):
        raise Refused(outcome.status, outcome.code, outcome.message)
    if outcome.admin is None:  # the admission step gives admin identities only here
        raise Refused(401, ErrorCode.ADMIN_KEY_INVALID, "this is not an admin")
    return outcome.admin


def find_admin(key: str | None, admins: Mapping[str, AdminConfig]) -> AdminConfig:
    """The admin whose key the page's sign-in form was given (the admission step's rule for keys)."""
    return admitted(Admission.admin_key({"x-api-key": key} if key else {}, admins))


def refusal_of(error: SpecbridgeError) -> Refused:
    """An approval or store error as an HTTP refusal."""
    if isinstance(error, StoreError):
        return Refused(503, ErrorCode.STORE_UNAVAILABLE, "the store cannot be reached; try again shortly")
    return Refused(STATUS_OF.get(error.code, 400), error.code, error.message)
