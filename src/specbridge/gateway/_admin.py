"""The admin HTTP API: people answer approvals with an admin key (never a client key).

    GET  /admin/approvals?status=pending[&limit=100]    {"approvals": [approval_json, …]}
    GET  /admin/approvals/{id}                          approval_json
    POST /admin/approvals/{id}/approve                  approval_json (who answered: the admin's id)
    POST /admin/approvals/{id}/reject  {"reason": "…"}  approval_json

The key comes as `Authorization: Bearer <key>` or `X-Api-Key: <key>` and is compared as SHA-256
against every admin's in constant time. Refusals are JSON `{"error": {"code", "message"}}`: 401
(`key-missing`, `admin-key-invalid`), 403 (`host-refused`), 404 (`approval-not-found`), 409
(`approval-answered`, `approval-expired`), 400 (`request-invalid`, `approval-reason-missing`), 503
(`store-unavailable`). The web page (`_admin_page`) sits beside it under `/admin/`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import orjson
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from .._errors import ErrorCode, SpecbridgeError
from ..approvals import approval_json
from ..config import AdminConfig
from ..store import Approval, Status, StoreError
from ._approving import Desk
from ._clients import find_client, presented_key

# Hosts a browser or client may name in `Host` on a gateway bound to loopback (any port); a gateway
# served under a public name passes that name (DNS rebinding cannot point it at us then).
LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")
MAX_LIST = 1000
STATUS_OF = {
    ErrorCode.APPROVAL_NOT_FOUND: 404,
    ErrorCode.APPROVAL_ANSWERED: 409,
    ErrorCode.APPROVAL_EXPIRED: 409,
    ErrorCode.APPROVAL_REASON_MISSING: 400,
    ErrorCode.REQUEST_INVALID: 400,
    ErrorCode.STORE_UNAVAILABLE: 503,
}
Handler = Callable[[Request], Awaitable[Response]]


class Refused(Exception):
    """An admin request refused with an HTTP status and a stable code."""

    def __init__(self, status: int, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


def error_json(status: int, code: ErrorCode, message: str) -> Response:
    headers = {"WWW-Authenticate": 'Bearer realm="specbridge-admin"'} if status == 401 else None
    return JSONResponse(
        {"error": {"code": str(code), "message": message}}, status_code=status, headers=headers
    )


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


def find_admin(key: str | None, admins: Mapping[str, AdminConfig]) -> AdminConfig:
    if key is None:
        raise Refused(
            401,
            ErrorCode.KEY_MISSING,
            "send an admin key as `Authorization: Bearer <key>` or `X-Api-Key: <key>`",
        )
    admin = find_client(key, admins)
    if admin is None:
        raise Refused(
            401,
            ErrorCode.ADMIN_KEY_INVALID,
            "this is not an admin key (client keys are not admin keys; `specbridge keys new --admin`)",
        )
    return admin


def refusal_of(error: SpecbridgeError) -> Refused:
    """An approval or store error as an HTTP refusal."""
    if isinstance(error, StoreError):
        return Refused(503, ErrorCode.STORE_UNAVAILABLE, "the store cannot be reached; try again shortly")
    return Refused(STATUS_OF.get(error.code, 400), error.code, error.message)


def parse_status(text: str | None) -> Status | None:
    if text is None or text == "all":
        return None
    try:
        return Status(text)
    except ValueError:
        valid = ", ".join(status.value for status in Status)
        raise Refused(400, ErrorCode.REQUEST_INVALID, f"status must be one of: all, {valid}") from None


def parse_limit(text: str | None) -> int:
    if text is None:
        return 100
    if not text.isdigit() or not 1 <= int(text) <= MAX_LIST:
        raise Refused(400, ErrorCode.REQUEST_INVALID, f"limit must be a whole number from 1 to {MAX_LIST}")
    return int(text)


class AdminApi:
    """The JSON endpoints over one `Desk`."""

    def __init__(self, desk: Desk, admins: Mapping[str, AdminConfig], allowed_hosts: Sequence[str]) -> None:
        self.desk = desk
        self.admins = admins
        self.allowed_hosts = tuple(allowed_hosts)

    def routes(self) -> list[BaseRoute]:
        return [
            Route("/admin/approvals", self._guarded(self.list), methods=["GET"]),
            Route("/admin/approvals/{id}", self._guarded(self.show), methods=["GET"]),
            Route("/admin/approvals/{id}/approve", self._guarded(self.approve), methods=["POST"]),
            Route("/admin/approvals/{id}/reject", self._guarded(self.reject), methods=["POST"]),
        ]

    def _guarded(self, handler: Callable[[Request, AdminConfig], Awaitable[Any]]) -> Handler:
        async def endpoint(request: Request) -> Response:
            try:
                check_host(request, self.allowed_hosts)
                admin = find_admin(presented_key(request.headers), self.admins)
                try:
                    answer = await handler(request, admin)
                except SpecbridgeError as error:
                    raise refusal_of(error) from None
            except Refused as refused:
                return error_json(refused.status, refused.code, refused.message)
            return JSONResponse(answer)

        return endpoint

    async def list(self, request: Request, admin: AdminConfig) -> Any:
        status = parse_status(request.query_params.get("status"))
        found = await self.desk.list(status, parse_limit(request.query_params.get("limit")))
        return {"approvals": [approval_json(approval) for approval in found]}

    async def show(self, request: Request, admin: AdminConfig) -> Any:
        return approval_json(await self.desk.get(request.path_params["id"]))

    async def approve(self, request: Request, admin: AdminConfig) -> Any:
        return approval_json(await self.desk.approve(request.path_params["id"], admin.id))

    async def reject(self, request: Request, admin: AdminConfig) -> Any:
        try:
            body = orjson.loads(await request.body())
        except orjson.JSONDecodeError:
            body = None
        reason = body.get("reason") if isinstance(body, dict) else None
        if not isinstance(reason, str):
            raise Refused(
                400, ErrorCode.REQUEST_INVALID, 'send a JSON body {"reason": "…"}: the agent reads it'
            )
        answered: Approval = await self.desk.reject(request.path_params["id"], admin.id, reason)
        return approval_json(answered)


def admin_routes(
    desk: Desk,
    admins: Mapping[str, AdminConfig],
    *,
    allowed_hosts: Sequence[str] = LOOPBACK_HOSTS,
    page: bool = True,
    session_ttl: float | None = None,
) -> list[BaseRoute]:
    """The admin API's routes, and the web page's unless `page=False`, to add to the gateway's app."""
    routes = AdminApi(desk, admins, allowed_hosts).routes()
    if page:
        from ._admin_page import DEFAULT_SESSION_TTL, AdminPage

        ttl = DEFAULT_SESSION_TTL if session_ttl is None else session_ttl
        routes += AdminPage(desk, admins, allowed_hosts, session_ttl=ttl).routes()
    return routes


def admin_app(
    desk: Desk,
    admins: Mapping[str, AdminConfig],
    *,
    allowed_hosts: Sequence[str] = LOOPBACK_HOSTS,
    page: bool = True,
    session_ttl: float | None = None,
) -> Starlette:
    """The admin API (and page) as an app of its own; the gateway adds `admin_routes` to its app."""
    return Starlette(
        routes=admin_routes(desk, admins, allowed_hosts=allowed_hosts, page=page, session_ttl=session_ttl)
    )
