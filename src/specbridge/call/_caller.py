"""`Caller`: one API's tools, callable. Check → bind → build → egress → send once → render: each a step the
gateway's call service runs in its own place (`check`, `bind`, `credential`, `build`, `send`), and `call`
runs them one after another (the `call` command, a library user)."""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import anyio
import httpx
import orjson

from .._errors import ArgumentError, CallError, ConfigError, ErrorCode, RequestRefused
from .._network import base_url_host
from ..config import ApiConfig
from ..tools import Tool, ToolSet
from ._answers import AnswerPolicy
from ._bindings import apply_bindings, plan_bindings
from ._body import Attachment
from ._build import BuiltRequest, build_request
from ._checked import checked
from ._credential import Credential, credential_for
from ._egress import EgressPolicy
from ._fields import split_fields
from ._limits import DEFAULT_LIMITS, CallLimits
from ._offload import check_pool
from ._plan import CallPlan, Plans
from ._render import Redactor, render
from ._result import CallResult
from ._select import Selection
from ._send import send
from ._transport import EgressTransport

log = logging.getLogger("specbridge.call")
Json = Any
INLINE_BYTES = 4096  # arguments up to this size (as JSON) are checked on the event loop itself
# An answer over this size that `fields` selects from is rendered (parsed, redacted, selected, shaped) in a
# worker thread: the selection is Python work of up to a few hundred milliseconds on a hostile megabyte.
RENDER_INLINE_BYTES = 65_536


@dataclass(frozen=True, slots=True)
class Outgoing:
    """One request ready to send (`Caller.build`): the request, what its answer is cleaned of, its
    upstream timeout, the configured values a redirect may not carry away, and how its answer is
    handed over (the budget, the call's `fields`)."""

    tool: str
    request: BuiltRequest
    redactor: Redactor
    timeout: float
    bound: tuple[str, ...]
    answers: AnswerPolicy


class Caller:
    """Calls the tools of one API. `transport` lets tests inject one (the egress check still applies);
    `resolve` replaces DNS resolution (host, port) -> address strings. `check_workers=False` checks
    large arguments in a thread of this process instead of a worker process (call/_offload.py): for a
    one-off call, where starting a process costs more than it spares."""

    def __init__(
        self,
        api: ApiConfig,
        toolset: ToolSet,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        resolve: Callable[[str, int], Awaitable[list[str]]] | None = None,
        limits: CallLimits = DEFAULT_LIMITS,
        check_workers: bool = True,
    ) -> None:
        self.api = api
        self.limits = limits
        self._pool = check_pool() if check_workers else None
        self.toolset = toolset
        self._policy = EgressPolicy(allow=api.egress.allow, resolve=resolve)
        self.base_url = _base_url(api, toolset, self._policy)
        self._transport = EgressTransport(self._policy, transport)
        self._plans = Plans(api)

    # -- plans -------------------------------------------------------------------------------------

    def plan(self, tool: Tool, client_bindings: Mapping[str, Any] | None = None) -> CallPlan:
        """What the config decides for calls of `tool` by a client with `client_bindings` (cached)."""
        return self._plans.plan(tool, client_bindings)

    def input_schema(self, tool: Tool, client_bindings: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The tool's input schema with every bound argument (tool bindings from
        api.tools[name].bindings and client bindings) removed."""
        return self._plans.plan(tool, client_bindings, keep=False).input_schema()

    # -- the call, step by step (the gateway's call service runs them apart; `call` runs them all) -----

    async def call(
        self,
        tool_name: str,
        arguments: Mapping[str, Any],
        *,
        client_bindings: Mapping[str, Any] | None = None,
        secret_id: str | None = None,
        attachments: Mapping[str, Attachment] | None = None,
        approved: bool = False,
        credential: Credential | None = None,
    ) -> CallResult:
        """Raises CallError(code=TOOL_UNKNOWN) for an unknown tool (by MCP name or portable name);
        every other failure is a CallResult(is_error=True, code=...). A tool configured with
        `requires_approval` is only called with `approved=True`: a person said yes to this very call.
        `credential`: one had beforehand (an OAuth token, grants/) instead of the API's secret."""
        tool = self.toolset.get(tool_name)
        if tool is None:
            raise CallError(f"no tool named {tool_name[:128]!r}", code=ErrorCode.TOOL_UNKNOWN)
        try:
            plan = self._plans.plan(tool, client_bindings)
            if plan.requires_approval and not approved:
                raise CallError(
                    "this tool needs a person's approval for each call, and none was given; nothing was sent. "
                    "Ask the user to run it themselves or to approve it.",
                    code=ErrorCode.APPROVAL_REQUIRED,
                )
            selection, arguments = self.split_fields(plan, arguments)
            checked = await self.check(plan, arguments)
            secret = credential if credential is not None else self.credential(secret_id)
            outgoing = self.build(plan, checked, secret, attachments, selection=selection)
        except CallError as error:
            log.info("call %s refused: %s", tool.name, error.code)
            return CallResult(error.message, is_error=True, code=error.code)
        return await self.send(outgoing)

    def split_fields(
        self, plan: CallPlan, arguments: Mapping[str, Any]
    ) -> tuple[Selection | None, Mapping[str, Any]]:
        """The call's `fields` selection, where the tool takes one, and the arguments without it (raises
        ArgumentError for a bad one): the gateway's argument, never checked against the document's
        schema nor sent."""
        return split_fields(arguments) if plan.answers.select else (None, arguments)

    async def check(self, plan: CallPlan, arguments: Mapping[str, Any]) -> dict[str, Json]:
        """The arguments checked against the plan's schema, its bindings applied (raises CallError;
        nothing is sent). Large arguments are checked in a worker process, so a big call does not hold
        up the calls of others on the event loop (call/_offload.py); a caller's deadline (cancellation)
        kills the worker. Arguments that cannot be pickled, or all with `check_workers=False`, go to a
        thread."""
        if not isinstance(arguments, Mapping) or _small(arguments):
            return self._prepare(plan, arguments)
        if self._pool is not None:
            present = await self._pool.check(plan.checker, plan.bindings, self.limits, arguments)
            if present is not None:
                return apply_bindings(present, plan.bindings)
        return await anyio.to_thread.run_sync(
            functools.partial(self._prepare, plan, arguments),
            abandon_on_cancel=True,  # the thread ends by itself: the limits bound its work
        )

    def bind(self, tool: Tool, arguments: Mapping[str, Json], values: Mapping[str, Json]) -> dict[str, Json]:
        """Checked arguments with more bound values put in (targets the plan already leaves out of the
        schema, such as the derived idempotency key of the document's own key field)."""
        return apply_bindings(arguments, plan_bindings(tool, values)) if values else dict(arguments)

    def credential(self, secret_id: str | None) -> Credential | None:
        """The API's credential for this call (the client's own secret by id); raises CallError for an
        unknown id or an unreadable secret."""
        return credential_for(self.api.auth, secret_id)

    def build(
        self,
        plan: CallPlan,
        arguments: Mapping[str, Json],
        credential: Credential | None,
        attachments: Mapping[str, Attachment] | None = None,
        *,
        selection: Selection | None = None,
        also_bound: tuple[str, ...] = (),
    ) -> Outgoing:
        """The one request of this call, ready to send (raises CallError: nothing can be sent)."""
        if self.base_url is None:
            raise CallError(
                "this API has no base_url configured and its document names no public server; "
                "nothing was sent",
                code=ErrorCode.BASE_URL_MISSING,
            )
        redactor = Redactor.for_credential(credential) if credential is not None else Redactor()
        try:
            built = build_request(
                plan.tool,
                arguments,
                base_url=self.base_url,
                credential=credential,
                extras=plan.bindings.extras,
                attachments=attachments,
            )
        except CallError as error:
            error.message = redactor.text(error.message)
            raise
        return Outgoing(
            plan.tool.name,
            built,
            redactor,
            plan.timeout,
            (*plan.bound, *also_bound),
            plan.answers.for_call(selection),
        )

    async def send(self, outgoing: Outgoing) -> CallResult:
        """Send once and render the answer; every failure is an error result (never raises CallError)."""
        redactor = outgoing.redactor
        try:
            answer = await send(
                outgoing.request,
                self._transport,
                timeout=outgoing.timeout,
                redirects=self.api.egress.redirects,
                configured=(*outgoing.bound, *redactor.variants),
            )
            if outgoing.answers.selection is not None and len(answer.body) > RENDER_INLINE_BYTES:
                result = await anyio.to_thread.run_sync(
                    render, answer, redactor, outgoing.answers, abandon_on_cancel=True
                )  # the thread ends by itself: the selection's bounds bound its work
            else:
                result = render(answer, redactor, outgoing.answers)
        except CallError as error:
            log.info("call %s failed: %s", outgoing.tool, error.code)
            return CallResult(redactor.text(error.message), is_error=True, code=error.code)
        log.info("call %s answered %s", outgoing.tool, result.status)
        return result

    def prepare(
        self, tool: Tool, arguments: Mapping[str, Any], *, client_bindings: Mapping[str, Any] | None = None
    ) -> dict[str, Json]:
        """The checked arguments with bindings applied, `fields` taken out where the tool takes it (raises
        ArgumentError; nothing is sent)."""
        plan = self._plans.plan(tool, client_bindings)
        return self._prepare(plan, self.split_fields(plan, arguments)[1])

    def _prepare(self, plan: CallPlan, arguments: Mapping[str, Any]) -> dict[str, Json]:
        if not isinstance(arguments, Mapping):
            raise ArgumentError(["arguments: must be an object"])
        present = checked(plan.checker, plan.bindings, self.limits, arguments)
        return apply_bindings(present, plan.bindings)

    def timeout(self, tool: Tool) -> float:
        """The upstream timeout of one call of `tool`: `tools.<name>.timeout`, else the API's `timeout`
        (docs/calls.md, "Deadlines")."""
        return self._plans.plan(tool, None).timeout

    async def aclose(self) -> None:
        await self._transport.aclose()


def _small(arguments: Any) -> bool:
    """Whether checking `arguments` is cheaper than handing it to a thread (about 100 µs): a few hundred
    bytes of JSON, measured by orjson in C; anything it cannot encode goes the careful way."""
    try:
        return len(orjson.dumps(arguments)) <= INLINE_BYTES
    except (TypeError, ValueError):
        return False


def _base_url(api: ApiConfig, toolset: ToolSet, policy: EgressPolicy) -> str | None:
    """The one base URL every call of this API goes under, checked here once: the configured one (a
    non-public host without an `egress.allow` entry is a config error), else the document's first
    absolute server the policy accepts (a document's `http://localhost:8080` is skipped, not trusted).
    None: no call can be sent (each says `base-url-missing`)."""
    if api.base_url is not None:
        try:
            policy.check_host(*base_url_host(api.base_url))
        except RequestRefused as error:
            raise ConfigError(error.message, source=api.name, key="base_url") from None
        return api.base_url
    for url in toolset.document.servers:
        if not url.startswith(("https://", "http://")):
            continue
        try:
            policy.check_host(*base_url_host(url))
        except RequestRefused:
            continue
        return url
    return None
