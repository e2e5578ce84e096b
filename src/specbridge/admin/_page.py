"""The approvals web page at `/admin/`: server-rendered HTML, plain forms, no JavaScript.

- Sign-in takes an admin key (a client key is refused) and opens a session kept in this process: a
  random id in an `HttpOnly; SameSite=Strict; Path=/admin` cookie (`Secure` over https) that expires
  (`session_ttl`, default 8 h). Signed out, or expired, every page redirects to the sign-in form.
- Every form carries a CSRF token checked on every POST: the session's own token once signed in; before
  that (the sign-in form) a double-submit token, a cookie that must equal the form field. A POST whose
  `Origin` is not this page's origin is refused too.
- Everything shown (tool, client, arguments, bound values, reasons) is HTML-escaped; the page sends a
  Content-Security-Policy without scripts, and may not be framed.
"""

from __future__ import annotations

import hmac
import html
import json
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from .._errors import ErrorCode, SpecbridgeError
from ..approvals import approval_json
from ..config import AdminConfig
from ..service import Desk
from ..store import Approval, Status
from ._guard import Refused, check_host, find_admin, refusal_of

SESSION_COOKIE = "specbridge_admin"
SIGNIN_COOKIE = "specbridge_signin"
DEFAULT_SESSION_TTL = 8 * 3600.0
MAX_SESSIONS = 10_000
MAX_FORM = 16_384
HEADERS = {
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'",
    "X-Frame-Options": "DENY",
    # `same-origin`, not `no-referrer`: with no-referrer Chromium posts our own forms with `Origin: null`.
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
}
STYLE = """body{font:15px/1.4 system-ui,sans-serif;margin:2rem auto;max-width:60rem;padding:0 1rem}
pre{background:#f4f4f4;padding:.5rem;overflow:auto;white-space:pre-wrap}
article{border:1px solid #ccc;border-radius:6px;padding:1rem;margin:1rem 0}
.error{background:#fde8e8;padding:.5rem}.note{background:#e8f4fd;padding:.5rem}
textarea{width:100%}form.inline{display:inline}header{display:flex;justify-content:space-between}"""


@dataclass(slots=True)
class Session:
    admin: str
    csrf: str
    expires: float


class Sessions:
    """Sessions of this process, by a random id; the oldest go first past `MAX_SESSIONS`."""

    def __init__(self, ttl: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.ttl = ttl
        self.clock = clock
        self._open: dict[str, Session] = {}

    def open(self, admin: str) -> tuple[str, Session]:
        while len(self._open) >= MAX_SESSIONS:
            del self._open[next(iter(self._open))]
        sid = secrets.token_urlsafe(32)
        session = self._open[sid] = Session(admin, secrets.token_urlsafe(32), self.clock() + self.ttl)
        return sid, session

    def get(self, sid: str | None) -> Session | None:
        session = self._open.get(sid or "")
        if session is not None and session.expires <= self.clock():
            del self._open[sid or ""]
            return None
        return session

    def close(self, sid: str | None) -> None:
        self._open.pop(sid or "", None)


def _e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def _json_block(value: Any) -> str:
    return f"<pre>{_e(json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True))}</pre>"


def _same(a: str | None, b: str | None) -> bool:
    return bool(a) and bool(b) and hmac.compare_digest(str(a).encode(), str(b).encode())


class AdminPage:
    def __init__(
        self,
        desk: Desk,
        admins: Mapping[str, AdminConfig],
        allowed_hosts: Sequence[str],
        *,
        session_ttl: float = DEFAULT_SESSION_TTL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.desk = desk
        self.admins = admins
        self.allowed_hosts = tuple(allowed_hosts)
        self.sessions = Sessions(session_ttl, clock)

    def routes(self) -> list[BaseRoute]:
        return [
            Route("/admin/", self.home, methods=["GET"]),
            Route("/admin/sign-in", self.sign_in_form, methods=["GET"]),
            Route("/admin/sign-in", self.sign_in, methods=["POST"]),
            Route("/admin/sign-out", self.sign_out, methods=["POST"]),
            Route("/admin/page/{id}/approve", self.approve, methods=["POST"]),
            Route("/admin/page/{id}/reject", self.reject, methods=["POST"]),
        ]

    # Pages

    async def home(self, request: Request) -> Response:
        try:
            check_host(request, self.allowed_hosts)
        except Refused as refused:
            return self._error_page(refused, signed_in=None)
        session = self.sessions.get(request.cookies.get(SESSION_COOKIE))
        if session is None:
            return RedirectResponse("/admin/sign-in", status_code=303, headers=HEADERS)
        return await self._home(session, request.query_params.get("answered"))

    async def _home(self, session: Session, answered: str | None, error: Refused | None = None) -> Response:
        try:
            pending = await self.desk.list(Status.PENDING, 100)
            recent = [a for a in await self.desk.list(None, 50) if a.answered_at is not None][:10]
        except SpecbridgeError as failure:
            return self._error_page(refusal_of(failure), signed_in=session)
        parts = [f'<p class="error">{_e(error.message)} <code>{_e(error.code)}</code></p>' if error else ""]
        done = next((a for a in recent if a.id == answered), None)
        if done is not None:
            parts.append(f'<p class="note">Approval <code>{_e(done.id)}</code> is now {_e(done.status)}.</p>')
        parts.append(f"<h1>Pending approvals ({len(pending)})</h1>")
        if not pending:
            parts.append("<p>Nothing waits for an answer.</p>")
        parts += [self._pending(approval, session) for approval in pending]
        parts.append("<h2>Recently answered</h2>")
        parts.append(
            "<table><tr><th>id</th><th>tool</th><th>status</th><th>by</th><th>reason</th></tr>"
            + "".join(
                f"<tr><td><code>{_e(a.id)}</code></td><td>{_e(a.api)} / {_e(a.tool)}</td><td>{_e(a.status)}</td>"
                f"<td>{_e(a.answered_by or '')}</td><td>{_e(a.reason or '')}</td></tr>"
                for a in recent
            )
            + "</table>"
        )
        return self._page("".join(parts), signed_in=session, status=error.status if error else 200)

    def _pending(self, approval: Approval, session: Session) -> str:
        shown = approval_json(approval)
        token = f'<input type="hidden" name="csrf" value="{_e(session.csrf)}">'
        ident = quote(approval.id, safe="")
        return (
            f'<article id="approval-{_e(approval.id)}">'
            f"<h2>{_e(approval.api)} / {_e(approval.tool)}</h2>"
            f"<p>Client <strong>{_e(approval.client or '(none)')}</strong> · approval <code>{_e(approval.id)}</code>"
            f" · asked {_e(shown['created_at'])} · expires {_e(shown['expires_at'])}</p>"
            f"<h3>Arguments (from the model)</h3>{_json_block(approval.arguments)}"
            f"<h3>Bound values (from the config; the model never saw them)</h3>{_json_block(approval.bound)}"
            f'<form class="inline" method="post" action="/admin/page/{ident}/approve">{token}'
            '<button type="submit" name="answer" value="approve">Approve</button></form>'
            f'<form method="post" action="/admin/page/{ident}/reject">{token}'
            f'<label>Reason (the agent reads it)<textarea name="reason" required maxlength="2000" rows="2">'
            '</textarea></label><button type="submit" name="answer" value="reject">Reject</button></form>'
            "</article>"
        )

    async def sign_in_form(self, request: Request, message: str = "", status: int = 200) -> Response:
        token = secrets.token_urlsafe(32)
        body = (
            "<h1>Sign in</h1>"
            + (f'<p class="error">{_e(message)}</p>' if message else "")
            + '<form method="post" action="/admin/sign-in">'
            f'<input type="hidden" name="csrf" value="{_e(token)}">'
            '<label>Admin key <input type="password" name="key" autocomplete="off" required></label> '
            '<button type="submit">Sign in</button></form>'
        )
        response = self._page(body, signed_in=None, status=status)
        self._cookie(response, request, SIGNIN_COOKIE, token, max_age=3600)
        return response

    # Actions (POST)

    async def sign_in(self, request: Request) -> Response:
        try:
            form = await self._form(request)
            if not _same(form.get("csrf"), request.cookies.get(SIGNIN_COOKIE)):
                raise Refused(403, ErrorCode.CSRF_INVALID, "the form is stale; load the sign-in page again")
            admin = find_admin(form.get("key") or None, self.admins)
        except Refused as refused:
            if refused.status == 401:
                return await self.sign_in_form(request, f"{refused.message} [{refused.code}]", 401)
            return self._error_page(refused, signed_in=None)
        sid, _ = self.sessions.open(admin.id)
        response = RedirectResponse("/admin/", status_code=303, headers=HEADERS)
        self._cookie(response, request, SESSION_COOKIE, sid, max_age=int(self.sessions.ttl))
        response.delete_cookie(SIGNIN_COOKIE, path="/admin")
        return response

    async def sign_out(self, request: Request) -> Response:
        sid = request.cookies.get(SESSION_COOKIE)
        try:
            await self._session_form(request)
        except Refused as refused:
            return self._error_page(refused, signed_in=None)
        self.sessions.close(sid)
        response = RedirectResponse("/admin/sign-in", status_code=303, headers=HEADERS)
        response.delete_cookie(SESSION_COOKIE, path="/admin")
        return response

    async def approve(self, request: Request) -> Response:
        return await self._answer(request, reject=False)

    async def reject(self, request: Request) -> Response:
        return await self._answer(request, reject=True)

    async def _answer(self, request: Request, *, reject: bool) -> Response:
        try:
            session, form = await self._session_form(request)
        except Refused as refused:
            if refused.status == 401:
                return RedirectResponse("/admin/sign-in", status_code=303, headers=HEADERS)
            return self._error_page(refused, signed_in=None)
        approval_id = request.path_params["id"]
        try:
            if reject:
                await self.desk.reject(approval_id, session.admin, form.get("reason", ""))
            else:
                await self.desk.approve(approval_id, session.admin)
        except SpecbridgeError as error:
            return await self._home(session, None, refusal_of(error))
        return RedirectResponse(
            f"/admin/?answered={quote(approval_id, safe='')}", status_code=303, headers=HEADERS
        )

    # Pieces

    async def _form(self, request: Request) -> dict[str, str]:
        check_host(request, self.allowed_hosts)
        origin = request.headers.get("origin")
        if origin and origin != "null" and urlsplit(origin)[:2] != (request.url.scheme, request.url.netloc):
            raise Refused(403, ErrorCode.ORIGIN_REFUSED, "a form from another site was refused")
        if origin == "null":
            raise Refused(403, ErrorCode.ORIGIN_REFUSED, "a form from an opaque origin was refused")
        if int(request.headers.get("content-length") or 0) > MAX_FORM:
            raise Refused(400, ErrorCode.REQUEST_INVALID, "the form is too large")
        form = await request.form(max_files=0, max_fields=10)
        return {key: value for key, value in form.items() if isinstance(value, str)}

    async def _session_form(self, request: Request) -> tuple[Session, dict[str, str]]:
        form = await self._form(request)
        session = self.sessions.get(request.cookies.get(SESSION_COOKIE))
        if session is None:
            raise Refused(401, ErrorCode.KEY_MISSING, "signed out")
        if not _same(form.get("csrf"), session.csrf):
            raise Refused(
                403, ErrorCode.CSRF_INVALID, "the form's CSRF token is missing or wrong; reload the page"
            )
        return session, form

    def _cookie(self, response: Response, request: Request, name: str, value: str, *, max_age: int) -> None:
        response.set_cookie(
            name,
            value,
            max_age=max_age,
            path="/admin",
            httponly=True,
            samesite="strict",
            secure=request.url.scheme == "https",
        )

    def _error_page(self, refused: Refused, *, signed_in: Session | None) -> Response:
        body = f'<h1>Refused</h1><p class="error">{_e(refused.message)} <code>{_e(refused.code)}</code></p>'
        body += '<p><a href="/admin/">Back to the approvals</a></p>'
        return self._page(body, signed_in=signed_in, status=refused.status)

    def _page(self, body: str, *, signed_in: Session | None, status: int = 200) -> Response:
        out = ""
        if signed_in is not None:
            out = (
                f'<form class="inline" method="post" action="/admin/sign-out">Signed in as {_e(signed_in.admin)} '
                f'<input type="hidden" name="csrf" value="{_e(signed_in.csrf)}">'
                '<button type="submit">Sign out</button></form>'
            )
        document = (
            '<!doctype html><html lang="en"><head><meta charset="utf-8">'
            '<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>specbridge approvals</title><style>{STYLE}</style></head><body>"
            f"<header><strong>specbridge approvals</strong>{out}</header><main>{body}</main></body></html>"
        )
        return HTMLResponse(document, status_code=status, headers=HEADERS)
