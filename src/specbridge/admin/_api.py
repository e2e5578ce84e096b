"""The admin HTTP API: people answer approvals with an admin key (never a client key).

    GET  /admin/approvals?status=pending[&limit=100][&client=C][&order=oldest][&after=CURSOR]
                                                        {"approvals": [approval_json with `repeat`, …], "next": CURSOR|null}
    GET  /admin/approvals/clients?status=pending        {"total": N, "clients": [{"client", "count", "oldest_at"}, …]}
    GET  /admin/approvals/{id}                          approval_json, with `repeat` (a repeat's note)
    POST /admin/approvals/{id}/approve                  approval_json (who answered: the admin's id)
    POST /admin/approvals/{id}/reject  {"reason": "…"}  approval_json

The key comes as `Authorization: Bearer <key>` or `X-Api-Key: <key>` and is compared as SHA-256
against every admin's in constant time. Refusals are JSON `{"error": {"code", "message"}}`: 401
(`key-missing`, `admin-key-invalid`), 403 (`host-refused`), 404 (`approval-not-found`), 409
(`approval-answered`, `approval-expired`), 400 (`request-invalid`, `approval-reason-missing`), 503
(`store-unavailable`), 413 (`request-invalid`: a body over 64 KB). An id that cannot be an approval's
(not 1-64 of `A-Za-z0-9_-`) is 404 before the store is asked. Each use of an admin key (and each key
refused) and each answer is a line of the gateway's log and of the audit log (`_guard.log_admin`).

A listing is a page: `next` is the cursor of its last approval while the page is full, and `after=next`
gives the following one, so every approval is reachable however many another client makes; `client=`
keeps one client's, and `/admin/approvals/clients` counts every client's, the longest wait first.

The web page (`_page`) sits beside it under `/admin/`. The two GET paths above are the page too for a
browser's navigation (`wants_page`: no key sent, `Accept` preferring `text/html`); anything that sends
a key, or does not ask for HTML, gets the JSON.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import orjson
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from .._errors import ErrorCode, SpecbridgeError
from ..access import Admission
from ..approvals import approval_json, iso
from ..config import AdminConfig
from ..service import Desk
from ..store import Approval, Cursor, Page, Status
from ._form import read_body
from ._guard import Refused, admitted, check_host, check_id, error_json, log_admin, log_answer, refusal_of

MAX_LIST = 1000
MAX_BODY = 65_536  # a reject's JSON body
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


def parse_client(text: str | None) -> str | None:
    if text is not None and ("\x00" in text or len(text) > 256):
        raise Refused(400, ErrorCode.REQUEST_INVALID, "client must be a client's id")
    return text


def parse_after(text: str | None) -> Cursor | None:
    if text is None:
        return None
    cursor = Cursor.parse(text)
    if cursor is None:
        raise Refused(400, ErrorCode.REQUEST_INVALID, "after must be the `next` of a page this API gave")
    return cursor


def wants_page(request: Request) -> bool:
    """A browser's navigation: no admin key sent, and `Accept` names `text/html` at least as high as
    `application/json` (`*/*` alone, as curl sends, is the API)."""
    headers = request.headers
    if "authorization" in headers or "x-api-key" in headers:
        return False
    weights = {"text/html": 0.0, "application/json": 0.0}
    for entry in headers.get("accept", "").split(","):
        media, *params = (part.strip() for part in entry.split(";"))
        if media.lower() in weights:
            weight = 1.0
            for param in params:
                name, _, value = param.partition("=")
                if name.strip().lower() == "q":
                    try:
                        weight = float(value)
                    except ValueError:
                        weight = 0.0
            weights[media.lower()] = weight
    return weights["text/html"] > 0 and weights["text/html"] >= weights["application/json"]


def negotiated(api: Handler, page: Handler | None) -> Handler:
    """`api`, or `page` for a browser's navigation (see `wants_page`)."""
    if page is None:
        return api

    async def endpoint(request: Request) -> Response:
        response = await (page if wants_page(request) else api)(request)
        response.headers["Vary"] = "Accept, Authorization, X-Api-Key, Cookie"
        return response

    return endpoint


class AdminApi:
    """The JSON endpoints over one `Desk`."""

    def __init__(self, desk: Desk, admins: Mapping[str, AdminConfig], allowed_hosts: Sequence[str]) -> None:
        self.desk = desk
        self.admins = admins
        self.allowed_hosts = tuple(allowed_hosts)

    def routes(self, pages: Mapping[str, Handler] | None = None) -> list[BaseRoute]:
        """The API's routes; `pages` (by path) answers a browser's GET of the same path instead."""
        pages = pages or {}
        return [
            Route(
                "/admin/approvals", negotiated(self._guarded(self.list), pages.get("list")), methods=["GET"]
            ),
            Route("/admin/approvals/clients", self._guarded(self.clients), methods=["GET"]),
            Route(
                "/admin/approvals/{id}",
                negotiated(self._guarded(self.show), pages.get("show")),
                methods=["GET"],
            ),
            Route("/admin/approvals/{id}/approve", self._guarded(self.approve), methods=["POST"]),
            Route("/admin/approvals/{id}/reject", self._guarded(self.reject), methods=["POST"]),
        ]

    def _guarded(self, handler: Callable[[Request, AdminConfig], Awaitable[Any]]) -> Handler:
        async def endpoint(request: Request) -> Response:
            where = {"method": request.method, "path": request.url.path, "via": "admin-api"}
            try:
                check_host(request, self.allowed_hosts)
                admin = admitted(Admission.admin_key(request.headers, self.admins))
                log_admin("admin key used", admin=admin.id, **where)
                try:
                    answer = await handler(request, admin)
                except SpecbridgeError as error:
                    raise refusal_of(error) from None
            except Refused as refused:
                if refused.code is ErrorCode.ADMIN_KEY_INVALID:
                    log_admin("admin key refused", code=str(refused.code), status=refused.status, **where)
                return error_json(refused.status, refused.code, refused.message)
            return JSONResponse(answer)

        return endpoint

    async def list(self, request: Request, admin: AdminConfig) -> Any:
        query = request.query_params
        status = parse_status(query.get("status"))
        limit = parse_limit(query.get("limit"))
        order = query.get("order", "newest")
        if order not in ("newest", "oldest"):
            raise Refused(400, ErrorCode.REQUEST_INVALID, "order must be newest or oldest")
        page = Page(parse_client(query.get("client")), parse_after(query.get("after")), order == "oldest")
        found = await self.desk.list(status, limit, page)
        following = Cursor.after(found[-1]).text() if len(found) == limit else None
        return {"approvals": [await self._shown(approval) for approval in found], "next": following}

    async def clients(self, request: Request, admin: AdminConfig) -> Any:
        status = parse_status(request.query_params.get("status")) or Status.PENDING
        groups = await self.desk.groups(status, 0)
        return {
            "status": str(status),
            "total": sum(group.count for group in groups),
            "clients": [
                {"client": group.client, "count": group.count, "oldest_at": iso(group.oldest_at)}
                for group in groups
            ],
        }

    async def show(self, request: Request, admin: AdminConfig) -> Any:
        return await self._shown(await self.desk.get(check_id(request.path_params["id"])))

    async def _shown(self, approval: Approval) -> dict[str, Any]:
        """An approval's JSON, a repeat saying which approval of the same call came before (`repeat`)."""
        return {**approval_json(approval), "repeat": await self.desk.repeat(approval)}

    async def approve(self, request: Request, admin: AdminConfig) -> Any:
        answered = await self.desk.approve(check_id(request.path_params["id"]), admin.id)
        log_answer(answered, admin.id, "approve", "admin-api")
        return approval_json(answered)

    async def reject(self, request: Request, admin: AdminConfig) -> Any:
        approval_id = check_id(request.path_params["id"])
        try:
            body = orjson.loads(await read_body(request, MAX_BODY))
        except orjson.JSONDecodeError:
            body = None
        reason = body.get("reason") if isinstance(body, dict) else None
        if not isinstance(reason, str):
            raise Refused(
                400, ErrorCode.REQUEST_INVALID, 'send a JSON body {"reason": "…"}: the agent reads it'
            )
        answered: Approval = await self.desk.reject(approval_id, admin.id, reason)
        log_answer(answered, admin.id, "reject", "admin-api")
        return approval_json(answered)
