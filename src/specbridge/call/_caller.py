"""`Caller`: one API's tools, callable. Check → bind → build → egress → send once → render."""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import anyio
import httpx
import orjson

from .._errors import ArgumentError, CallError, ConfigError, ErrorCode, RequestRefused
from ..config import DEFAULT_TIMEOUT, ApiConfig
from ..tools import Tool, ToolSet
from ._bindings import BindingPlan, apply_bindings, bound_values, plan_bindings, refuse_bound, strip_schema
from ._body import Attachment
from ._build import build_request
from ._check import Checker
from ._credential import credential_for
from ._egress import EgressPolicy, check_base_url
from ._limits import DEFAULT_LIMITS, CallLimits, enforce_limits
from ._lru import Lru
from ._render import Redactor, render
from ._result import CallResult
from ._send import send
from ._transport import EgressTransport

log = logging.getLogger("specbridge.call")
Json = Any
CHECKERS = 256  # compiled checks kept per API (tool x binding plan), the least recently used dropped
INLINE_BYTES = 4096  # arguments up to this size (as JSON) are checked on the event loop itself


class Caller:
    """Calls the tools of one API. `transport` lets tests inject one (the egress check still applies);
    `resolve` replaces DNS resolution (host, port) -> address strings."""

    def __init__(
        self,
        api: ApiConfig,
        toolset: ToolSet,
        *,
        transport: httpx.AsyncBaseTransport | None = None,
        resolve: Callable[[str, int], Awaitable[list[str]]] | None = None,
        limits: CallLimits = DEFAULT_LIMITS,
    ) -> None:
        self.api = api
        self.limits = limits
        self.toolset = toolset
        if api.base_url is not None:
            try:
                check_base_url(api.base_url, api.egress.allow)
            except RequestRefused as error:
                raise ConfigError(error.message, source=api.name, key="base_url") from None
        self.base_url = api.base_url or _document_server(toolset, api.egress.allow)
        self._policy = EgressPolicy(allow=api.egress.allow, resolve=resolve)
        self._transport = EgressTransport(self._policy, transport)
        self._checkers: Lru[tuple[str, tuple[tuple[str, ...], ...]], Checker] = Lru(CHECKERS)

    # -- schemas -----------------------------------------------------------------------------------

    def _plan(self, tool: Tool, client_bindings: Mapping[str, Any] | None) -> BindingPlan:
        config = self.api.tool_settings(tool)
        bindings = dict(config.bindings) if config is not None else {}
        bindings.update(client_bindings or {})
        return plan_bindings(tool, bindings)

    def input_schema(self, tool: Tool, client_bindings: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The tool's input schema with every bound argument (tool bindings from
        api.tools[name].bindings and client bindings) removed."""
        schema = strip_schema(tool.input_schema, self._plan(tool, client_bindings))
        return dict(schema) if isinstance(schema, dict) else {"type": "object"}

    def _checker(self, tool: Tool, plan: BindingPlan) -> Checker:
        key = (tool.name, plan.key)
        cached = self._checkers.get(key)
        if cached is None:
            cached = Checker(strip_schema(tool.input_schema, plan))
            self._checkers.put(key, cached)
        return cached

    # -- the call ----------------------------------------------------------------------------------

    async def call(
        self,
        tool_name: str,
        arguments: Mapping[str, Any],
        *,
        client_bindings: Mapping[str, Any] | None = None,
        secret_id: str | None = None,
        attachments: Mapping[str, Attachment] | None = None,
        approved: bool = False,
    ) -> CallResult:
        """Raises CallError(code=TOOL_UNKNOWN) for an unknown tool (by MCP name or portable name);
        every other failure is a CallResult(is_error=True, code=...). A tool configured with
        `requires_approval` is only called with `approved=True`: a person said yes to this very call."""
        tool = self.toolset.get(tool_name)
        if tool is None:
            raise CallError(f"no tool named {tool_name[:128]!r}", code=ErrorCode.TOOL_UNKNOWN)
        redactor = Redactor()
        try:
            settings = self.api.tool_settings(tool)
            if settings is not None and settings.requires_approval and not approved:
                raise CallError(
                    "this tool needs a person's approval for each call, and none was given; nothing was sent. "
                    "Ask the user to run it themselves or to approve it.",
                    code=ErrorCode.APPROVAL_REQUIRED,
                )
            prepared = await self._prepare_off_loop(tool, arguments, client_bindings)
            if self.base_url is None:
                raise CallError(
                    "this API has no base_url configured and its document names no public server; "
                    "nothing was sent",
                    code=ErrorCode.BASE_URL_MISSING,
                )
            credential = credential_for(self.api.auth, secret_id)
            if credential is not None:
                redactor = Redactor.for_credential(credential)
            plan = self._plan(tool, client_bindings)
            built = build_request(
                tool,
                prepared,
                base_url=self.base_url,
                credential=credential,
                extras=plan.extras,
                attachments=attachments,
            )
            answer = await send(
                built,
                self._transport,
                timeout=self.timeout(tool),
                redirects=self.api.egress.redirects,
                configured=(*bound_values(plan), *redactor.variants),
            )
            result = render(answer, redactor)
        except CallError as error:
            log.info("call %s refused or failed: %s", tool.name, error.code)
            return CallResult(redactor.text(error.message), is_error=True, code=error.code)
        log.info("call %s answered %s", tool.name, result.status)
        return result

    async def _prepare_off_loop(
        self, tool: Tool, arguments: Mapping[str, Any], client_bindings: Mapping[str, Any] | None
    ) -> dict[str, Json]:
        """`prepare`, in a worker thread when the arguments are large, so a big call does not hold up
        the calls of others on the event loop; a caller's deadline (cancellation) stops waiting for it."""
        if _small(arguments):
            return self.prepare(tool, arguments, client_bindings=client_bindings)
        return await anyio.to_thread.run_sync(
            functools.partial(self.prepare, tool, arguments, client_bindings=client_bindings),
            abandon_on_cancel=True,  # the thread ends by itself: the limits bound its work
        )

    def prepare(
        self, tool: Tool, arguments: Mapping[str, Any], *, client_bindings: Mapping[str, Any] | None = None
    ) -> dict[str, Json]:
        """The checked arguments with bindings applied (raises ArgumentError; nothing is sent)."""
        if not isinstance(arguments, Mapping):
            raise ArgumentError(["arguments: must be an object"])
        enforce_limits(arguments, self.limits)
        plan = self._plan(tool, client_bindings)
        refuse_bound(arguments, plan)
        checker = self._checker(tool, plan)
        present = checker.drop_nulls(arguments)  # OpenAI strict mode sends null for optional arguments
        checker.check(present)
        return apply_bindings(present, plan)

    def timeout(self, tool: Tool) -> float:
        config = self.api.tool_settings(tool)
        if config is not None and config.timeout is not None:
            return config.timeout
        return self.api.timeout or DEFAULT_TIMEOUT

    async def aclose(self) -> None:
        await self._transport.aclose()


def _small(arguments: Any) -> bool:
    """Whether checking `arguments` is cheaper than handing it to a thread (about 100 µs): a few hundred
    bytes of JSON, measured by orjson in C; anything it cannot encode goes the careful way."""
    try:
        return len(orjson.dumps(arguments)) <= INLINE_BYTES
    except (TypeError, ValueError):
        return False


def _document_server(toolset: ToolSet, allow: tuple[str, ...]) -> str | None:
    """Without a configured base_url, the document's first absolute server that the egress policy
    accepts (a document's `http://localhost:8080` is skipped, not trusted)."""
    for url in toolset.document.servers:
        if not url.startswith(("https://", "http://")):
            continue
        try:
            check_base_url(url, allow)
        except RequestRefused:
            continue
        return url
    return None
