"""The approvals web page under `/admin/`: server-rendered HTML, plain forms, no JavaScript.

- `/admin/` lists pending approvals fairly per client (see `_views`), says when it was loaded, and
  reloads itself every 30 s with a `<meta>` refresh; each approval has its own page,
  `/admin/approvals/<id>` (a browser's `Accept: text/html`; the same path with an admin key is the JSON
  API), where the answer is given, so a reload of the list never eats a reason being typed.
- Sign-in takes an admin key (a client key is refused) and opens a session (`_sessions`) in a random id
  in an `HttpOnly; SameSite=Strict; Path=/admin` cookie (`Secure` over https). Every request checks the
  session's admin is still in the config with the key it signed in with.
- Every form carries a CSRF token checked on every POST: the session's own once signed in; before that
  (the sign-in form) a double-submit token, a cookie that must equal the form field. Forms are read
  through `_form` (Host, Origin, 16 KB whatever the framing).
- Everything shown is HTML-escaped, invisible characters marked (`_reveal`); the page sends a strict
  Content-Security-Policy (`_html`). Each answer and sign-in is a JSON log line (who, what, never
  argument values).
"""

from __future__ import annotations

import hmac
import re
import secrets
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any
from urllib.parse import quote, urlencode

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from .._errors import ErrorCode, SpecbridgeError
from ..config import AdminConfig
from ..service import Desk
from ..store import Approval, Cursor, Page, Status
from ._facts import ToolLookup, no_lookup
from ._form import read_form
from ._guard import Refused, check_host, check_id, find_admin, log_admin, log_answer, refusal_of
from ._html import document, e, redirect, when
from ._oidc import BROWSER_COOKIE as OIDC_COOKIE
from ._oidc import CALLBACK as OIDC_CALLBACK
from ._oidc import AdminSignIn
from ._sessions import DEFAULT_SESSION_TTL, PageSessions, Session, Sessions
from ._views import (
    PAGE_SIZE,
    PER_CLIENT,
    approval_view,
    banner,
    client_view,
    pending_view,
    recent_view,
    sign_in_view,
)

SESSION_COOKIE = "specbridge_admin"
SIGNIN_COOKIE = "specbridge_signin"
RECENT = 10
# Where a sign-in may return to: the list or one approval's page, nothing else (no open redirect).
NEXT_PATH = re.compile(r"/admin/(approvals/[A-Za-z0-9_-]{1,64})?")


def _refused_sign_in(failure: SpecbridgeError) -> Refused:
    """A sign-in with OpenID Connect that went no further, as the page shows it."""
    if failure.code in (ErrorCode.STORE_UNAVAILABLE, ErrorCode.SECRET_UNAVAILABLE):
        return refusal_of(failure)
    status = 403 if failure.code in (ErrorCode.SIGNIN_UNMAPPED, ErrorCode.CSRF_INVALID) else 400
    return Refused(status, failure.code, failure.message)


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
        tools: ToolLookup = no_lookup,
        wall: Callable[[], float] = time.time,
        sessions: PageSessions | None = None,
        oidc: AdminSignIn | None = None,
    ) -> None:
        self.desk = desk
        self.admins = admins
        self.allowed_hosts = tuple(allowed_hosts)
        self.sessions = sessions if sessions is not None else Sessions(session_ttl, clock)
        self.tools = tools
        self.wall = wall
        self.oidc = oidc  # sign-in with OpenID Connect (`oauth_server.admins`), beside admin keys

    def routes(self) -> list[BaseRoute]:
        """The page's routes; `/admin/approvals/<id>` is `approval`, routed beside the API by `_routes`."""
        return [
            Route("/admin/", self.home, methods=["GET"]),
            Route("/admin/sign-in", self.sign_in_form, methods=["GET"]),
            Route("/admin/sign-in", self.sign_in, methods=["POST"]),
            Route("/admin/sign-out", self.sign_out, methods=["POST"]),
            Route("/admin/sign-in/oidc", self.oidc_start, methods=["GET"]),
            Route(OIDC_CALLBACK, self.oidc_finish, methods=["GET"]),
            Route("/admin/page/{id}/approve", self.approve, methods=["POST"]),
            Route("/admin/page/{id}/reject", self.reject, methods=["POST"]),
        ]

    async def _session(self, request: Request) -> Session | None:
        """The request's signed-in session, or None; `Refused` (503) when the store cannot say."""
        rules = self.oidc.rules() if self.oidc is not None else ()
        try:
            return await self.sessions.get(request.cookies.get(SESSION_COOKIE), self.admins, rules)
        except SpecbridgeError as failure:
            raise refusal_of(failure) from None

    def _signed_out(self, request: Request) -> Response:
        path = request.url.path
        return redirect("/admin/sign-in" + (f"?{urlencode({'next': path})}" if path != "/admin/" else ""))

    # Pages (GET)

    async def home(self, request: Request) -> Response:
        session = await self._signed_in(request)
        if not isinstance(session, Session):
            return session
        query = request.query_params
        client = query.get("client")
        after = Cursor.parse(query.get("after", "")) if client is not None else None
        if client is not None and "\x00" in client:
            client = None
        try:
            groups = await self.desk.groups(Status.PENDING, PER_CLIENT)
            items = (
                await self.desk.list(Status.PENDING, PAGE_SIZE, Page(client, after, oldest_first=True))
                if client is not None
                else []
            )
            recent = [a for a in await self.desk.list(None, 50) if a.answered_at is not None][:RECENT]
            answered = await self._answered(query.get("answered"))
        except SpecbridgeError as failure:
            return self._error_page(refusal_of(failure), session)
        loaded = (
            f'<p class="muted loaded">Loaded {when(self.wall())}; this list reloads itself every 30 s.</p>'
        )
        sends = answered is not None and self.desk.for_api(answered.api).settings.send == "on_answer"
        parts = [banner(answered, sends=sends) if answered is not None else ""]
        if client is None:
            parts.append(pending_view(groups, self.tools, loaded=loaded))
        else:
            group = next((found for found in groups if found.client == client), None)
            total = sum(found.count for found in groups)
            parts.append(
                client_view(group, client, items, self.tools, total=total, loaded=loaded, after=after)
            )
        parts.append(recent_view(recent))
        keep = (
            {"client": client} | ({"after": after.text()} if after is not None else {})
            if client is not None
            else {}
        )
        refresh = "/admin/" + (f"?{urlencode(keep)}" if keep else "")
        return document("".join(parts), signed_in=(session.admin, session.csrf), refresh=refresh)

    async def _signed_in(self, request: Request) -> Session | Response:
        """The admin's session of a page request, else the page to answer instead: the error of a Host
        not served, or the sign-in page."""
        try:
            check_host(request, self.allowed_hosts)
            session = await self._session(request)
        except Refused as refused:
            return self._error_page(refused, None)
        return self._signed_out(request) if session is None else session

    async def _answered(self, approval_id: str | None) -> Approval | None:
        if approval_id is None or not NEXT_PATH.fullmatch(f"/admin/approvals/{approval_id}"):
            return None
        try:
            approval = await self.desk.get(approval_id)
        except SpecbridgeError as error:
            if error.code is ErrorCode.APPROVAL_NOT_FOUND:
                return None
            raise
        return approval if approval.answered_at is not None else None

    async def approval(self, request: Request) -> Response:
        """`GET /admin/approvals/<id>` from a browser: the approval and, while pending, its answers."""
        session = await self._signed_in(request)
        if not isinstance(session, Session):
            return session
        try:
            approval = await self.desk.get(check_id(request.path_params["id"]))
            repeat = await self.desk.repeat(approval)
        except Refused as refused:
            return self._error_page(refused, session)
        except SpecbridgeError as failure:
            return self._error_page(refusal_of(failure), session)
        return self._approval_page(approval, session, repeat=repeat)

    def _approval_page(
        self,
        approval: Approval,
        session: Session,
        error: Refused | None = None,
        reason: str = "",
        *,
        repeat: str | None = None,
    ) -> Response:
        facts = self.tools(approval.api, approval.tool)
        body = approval_view(approval, facts, session.csrf, reason=reason, repeat=repeat)
        if error is not None:
            body = f'<p class="error">{e(error.message)} <code>{e(error.code)}</code></p>' + body
        return document(body, signed_in=(session.admin, session.csrf), status=error.status if error else 200)

    async def sign_in_form(self, request: Request, message: str = "", status: int = 200) -> Response:
        try:
            check_host(request, self.allowed_hosts)
        except Refused as refused:
            return self._error_page(refused, None)
        token = secrets.token_urlsafe(32)
        next_path = request.query_params.get("next", "")
        next_path = next_path if NEXT_PATH.fullmatch(next_path) else ""
        offered = self.oidc is not None and self.oidc.offered()
        response = document(
            sign_in_view(token, message, next_path, oidc=offered), signed_in=None, status=status
        )
        self._cookie(response, request, SIGNIN_COOKIE, token, max_age=3600)
        return response

    # Actions (POST)

    async def sign_in(self, request: Request) -> Response:
        try:
            form = await read_form(request, self.allowed_hosts)
            if not _same(form.get("csrf"), request.cookies.get(SIGNIN_COOKIE)):
                raise Refused(403, ErrorCode.CSRF_INVALID, "the form is stale; load the sign-in page again")
            admin = find_admin(form.get("key") or None, self.admins)
            sid, _ = await self._open(admin)
        except Refused as refused:
            log_admin(
                "admin sign-in refused", code=str(refused.code), via="admin-page", status=refused.status
            )
            if refused.status == 401:
                return await self.sign_in_form(request, f"{refused.message} [{refused.code}]", 401)
            return self._error_page(refused, None)
        log_admin("admin signed in", admin=admin.id, via="admin-page")
        next_path = form.get("next", "")
        response = redirect(next_path if NEXT_PATH.fullmatch(next_path) else "/admin/")
        self._cookie(response, request, SESSION_COOKIE, sid, max_age=int(self.sessions.ttl))
        response.delete_cookie(SIGNIN_COOKIE, path="/admin")
        return response

    async def oidc_start(self, request: Request) -> Response:
        """Sign-in with OpenID Connect begun (`_oidc`): the browser goes to the provider."""
        next_path = request.query_params.get("next", "")
        try:
            check_host(request, self.allowed_hosts)
            if self.oidc is None:
                raise Refused(
                    404, ErrorCode.SIGNIN_FAILED, "this page signs no admins in with OpenID Connect"
                )
            return await self.oidc.start(request, next_path if NEXT_PATH.fullmatch(next_path) else "")
        except Refused as refused:
            return self._error_page(refused, None)
        except SpecbridgeError as failure:
            return self._error_page(_refused_sign_in(failure), None)

    async def oidc_finish(self, request: Request) -> Response:
        """Back from the provider: a session for the admin a rule maps the person to."""

        async def opened(admin: AdminConfig, claims: dict[str, Any]) -> str:
            return (await self.sessions.open(admin, claims))[0]

        try:
            check_host(request, self.allowed_hosts)
            if self.oidc is None:
                raise Refused(
                    404, ErrorCode.SIGNIN_FAILED, "this page signs no admins in with OpenID Connect"
                )
            page, sid = await self.oidc.finish(request, opened)
        except Refused as refused:
            return self._error_page(refused, None)
        except SpecbridgeError as failure:
            return self._error_page(_refused_sign_in(failure), None)
        self._cookie(page, request, SESSION_COOKIE, sid, max_age=int(self.sessions.ttl))
        page.delete_cookie(OIDC_COOKIE, path="/admin")
        return page

    async def sign_out(self, request: Request) -> Response:
        sid = request.cookies.get(SESSION_COOKIE)
        try:
            session, _ = await self._session_form(request)
        except Refused as refused:
            return self._error_page(refused, None)
        try:
            await self.sessions.close(sid)
        except SpecbridgeError as failure:
            return self._error_page(refusal_of(failure), session)
        log_admin("admin signed out", admin=session.admin, via="admin-page")
        response = redirect("/admin/sign-in")
        response.delete_cookie(SESSION_COOKIE, path="/admin")
        return response

    async def approve(self, request: Request) -> Response:
        return await self._answer(request, reject=False)

    async def reject(self, request: Request) -> Response:
        return await self._answer(request, reject=True)

    async def _answer(self, request: Request, *, reject: bool) -> Response:
        try:
            session, form = await self._session_form(request)
            approval_id = check_id(request.path_params["id"])
        except Refused as refused:
            if refused.status == 401:
                return redirect("/admin/sign-in")
            return self._error_page(refused, None if refused.status != 404 else await self._quiet(request))
        reason = form.get("reason", "")
        try:
            if reject:
                answered = await self.desk.reject(approval_id, session.admin, reason)
            else:
                answered = await self.desk.approve(approval_id, session.admin)
        except SpecbridgeError as error:
            return await self._answer_refused(approval_id, session, refusal_of(error), reason)
        log_answer(answered, session.admin, "reject" if reject else "approve", "admin-page")
        return redirect(f"/admin/?answered={quote(approval_id, safe='')}")

    async def _answer_refused(
        self, approval_id: str, session: Session, refused: Refused, reason: str
    ) -> Response:
        """The approval's page again with the refusal on top, the reason typed kept in its box."""
        try:
            current = await self.desk.get(approval_id)
        except SpecbridgeError:
            return self._error_page(refused, session)
        return self._approval_page(current, session, refused, reason)

    # Pieces

    async def _session_form(self, request: Request) -> tuple[Session, dict[str, str]]:
        form = await read_form(request, self.allowed_hosts)
        session = await self._session(request)
        if session is None:
            raise Refused(401, ErrorCode.KEY_MISSING, "signed out")
        if not _same(form.get("csrf"), session.csrf):
            raise Refused(
                403, ErrorCode.CSRF_INVALID, "the form's CSRF token is missing or wrong; reload the page"
            )
        return session, form

    async def _open(self, admin: AdminConfig) -> tuple[str, Session]:
        try:
            return await self.sessions.open(admin)
        except SpecbridgeError as failure:
            raise refusal_of(failure) from None

    async def _quiet(self, request: Request) -> Session | None:
        try:
            return await self._session(request)
        except Refused:
            return None

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

    def _error_page(self, refused: Refused, signed_in: Session | None) -> Response:
        body = f'<h1>Refused</h1><p class="error">{e(refused.message)} <code>{e(refused.code)}</code></p>'
        body += '<p><a href="/admin/">Back to the approvals</a></p>'
        who = (signed_in.admin, signed_in.csrf) if signed_in is not None else None
        return document(body, signed_in=who, status=refused.status)
