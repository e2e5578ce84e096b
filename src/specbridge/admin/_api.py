"""The admin HTTP API: people answer approvals with an admin key (never a client key).

    GET  /admin/approvals?status=pending[&limit=100]    {"approvals": [approval_json, …]}
    GET  /admin/approvals/{id}                          approval_json
    POST /admin/approvals/{id}/approve                  approval_json (who answered: the admin's id)
    POST /admin/approvals/{id}/reject  {"reason": "…"}  approval_json

The key comes as `Authorization: Bearer <key>` or `X-Api-Key: <key>` and is compared as SHA-256
against every admin's in constant time. Refusals are JSON `{"error": {"code", "message"}}`: 401
(`key-missing`, `admin-key-invalid`), 403 (`host-refused`), 404 (`approval-not-found`), 409
(`approval-answered`, `approval-expired`), 400 (`request-invalid`, `approval-reason-missing`), 503
(`store-unavailable`). The web page (`_page`) sits beside it under `/admin/`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from .._errors import ErrorCode, SpecbridgeError
from ..access import presented_key
from ..approvals import approval_json
from ..config import AdminConfig
from ..service import Desk
from ..store import Approval, Status
from ._guard import Refused, check_host, error_json, find_admin, refusal_of

MAX_LIST = 1000
Handler = Callable[[Request], Awaitable[Response]]


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
