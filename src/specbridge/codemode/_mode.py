"""Code mode of one API or toolset: its two tools and what a call of each does, free of MCP. Made with
the API's (or toolset's) state and replaced with it on reload (the sandbox's workers are the process's,
`_sandbox`). What one caller may use, and where each of its calls goes, is its `Reach` (`_reach`):
an API's own tools, or a toolset's each on its own API.

    mode.tools(reach)                       the listing: `search` and `execute`, telling of the
                                            operations this caller may use
    await mode.search(arguments, reach, schema_of)    signatures of the best-matching operations
    await mode.execute(arguments, context)            run a script, or go on with a paused one

A script's calls are calls of the call service (`_calls`); a call that waits for a person pauses the
script, which is kept in the store (`_paused`) and goes on, on any instance, when `execute` is called
with `resume`: the call it paused on is made again (it attaches to its approval or long call, and is
not sent twice), and the calls before it are not made again (their answers are in the snapshot).
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any

import anyio

from .._errors import ErrorCode
from .._logging import log_event
from ..call import CallResult, Checker, Lru, argument_problem
from ..config import ApiConfig, CodeModeConfig
from ..search import SearchIndex
from ..store import ClaimState, StoreError
from ..tools import Tool, ToolSet
from . import _answer
from ._calls import Context, ServiceCalls
from ._names import Names
from ._paused import PausedScript, Scripts, is_script_id, new_script_id
from ._reach import Reach
from ._sandbox import Done, Failed, Paused, Script, Snapshot, api_module, sandbox
from ._signatures import signature
from ._tools import DEFAULT_RESULTS, EXECUTE, EXECUTE_SCHEMA, NAMES, SEARCH, SEARCH_SCHEMA, code_mode_tools

LEASE_MARGIN = 10.0  # what the claim of going on with a script adds to the call's deadline
RULES_KEPT = 256  # callers' reaches (`Reach.key`) whose positions and `api` module are kept
SchemaOf = Callable[[Tool], Mapping[str, Any]]  # a tool's input schema as the caller sees it
_SEARCH_CHECK = Checker(SEARCH_SCHEMA)
_EXECUTE_CHECK = Checker(EXECUTE_SCHEMA)


def _store_failed(error: StoreError) -> CallResult:
    log_event("store unavailable", code=str(error.code), reason=error.message)
    return CallResult(
        "the gateway's store cannot be reached now, and paused scripts live there; try again later",
        is_error=True,
        code=ErrorCode.STORE_UNAVAILABLE,
    )


class CodeMode:
    """Code mode of one API or toolset: its tools as functions of `api`, their index, the two tools.

    `name`: the API's or toolset's (log lines, and the store's keys of its paused scripts); `title`:
    what the two tools call it; `tools`: the tools it serves, in order, by the names a script calls
    them (`index` is of these); `keep`: seconds a paused script is kept (as long as its approval could
    wait); `max_tokens`: the answers budget of what a script hands back."""

    def __init__(
        self,
        name: str,
        title: str,
        tools: Sequence[Tool],
        index: SearchIndex,
        limits: CodeModeConfig,
        *,
        keep: float,
        max_tokens: int,
    ) -> None:
        self.name = name
        self.title = title
        self.tools_by_name: Mapping[str, Tool] = {tool.name: tool for tool in tools}
        self.index = index
        self.limits = limits
        self.keep = keep
        self.max_tokens = max_tokens
        self.names = Names(self.tools_by_name)
        self._positions: Lru[Hashable, frozenset[int]] = Lru(RULES_KEPT)
        self._modules: Lru[Hashable, Any] = Lru(RULES_KEPT)

    @classmethod
    def of_api(cls, api: ApiConfig, toolset: ToolSet, index: SearchIndex) -> CodeMode:
        """One API's code mode: its tools, under its own settings."""
        return cls(
            api.name,
            toolset.document.title,
            toolset.tools,
            index,
            api.code_mode,
            keep=api.approvals.expire,
            max_tokens=api.answers.max_tokens,
        )

    # -- listing -----------------------------------------------------------------------------------

    def positions(self, reach: Reach) -> frozenset[int] | None:
        """The index positions of the tools this caller may use (None: every tool)."""
        if reach.everything:
            return None
        found = self._positions.get(reach.key)
        if found is None:
            found = frozenset(i for i, tool in enumerate(self.index.tools) if reach.target(tool) is not None)
            self._positions.put(reach.key, found)
        return found

    def tools(self, reach: Reach) -> list[dict[str, Any]]:
        only = self.positions(reach)
        count = len(self.tools_by_name) if only is None else len(only)
        return code_mode_tools(self.title, count, self.limits, self.index.tags_of(only))

    def owns(self, name: str) -> bool:
        return name in NAMES

    def input_schema(self, name: str) -> Mapping[str, Any] | None:
        return SEARCH_SCHEMA if name == SEARCH else EXECUTE_SCHEMA if name == EXECUTE else None

    def _module(self, reach: Reach) -> Any:
        """The `api` module of this caller: a function for each operation it may use, no other."""
        module = self._modules.get(reach.key)
        if module is None:
            allowed = [name for name, tool in self.tools_by_name.items() if reach.target(tool) is not None]
            module = api_module([self.names.of(name) for name in allowed])
            self._modules.put(reach.key, module)
        return module

    # -- search ------------------------------------------------------------------------------------

    async def search(self, arguments: Mapping[str, Any], reach: Reach, schema_of: SchemaOf) -> CallResult:
        """The operations that best match `query` (or a tag's), as Python signatures."""
        problem = argument_problem(_SEARCH_CHECK, arguments)
        if problem is not None:
            return problem
        query, tag = str(arguments.get("query", "")), arguments.get("tag")
        if not query and tag is None:
            return CallResult(
                "invalid arguments: query: is missing; say what the script should do, or give a tag",
                is_error=True,
                code=ErrorCode.ARGUMENTS_INVALID,
            )
        limit = int(arguments.get("limit", DEFAULT_RESULTS))
        index, only = self.index, self.positions(reach)
        if index.semantic:  # encoding the query takes milliseconds of CPU: not on the event loop
            answer = await anyio.to_thread.run_sync(lambda: index.search(query, limit, tag, only))
        else:
            answer = index.search(query, limit, tag, only)
        parts = [signature(self.names.of(tool.name), tool, schema_of(tool)) for tool in answer.tools]
        notes = []
        if answer.unknown_tag is not None:
            notes.append(f"# No tag is named {answer.unknown_tag[:200]!r}; every operation was searched.")
        if answer.weak:
            notes.append(
                "# Nothing matches these words well; these are only the nearest. Try the API's own words."
            )
        tags = index.tags_of(only)
        if tags:
            notes.append("# Tags: " + ", ".join(f"{name} ({count})" for name, count in tags[:40]))
        head = f"# api functions of {' '.join(self.title.split())[:100]}, for execute scripts"
        return CallResult("\n\n".join([head, *parts, *notes]) + "\n")

    # -- execute -----------------------------------------------------------------------------------

    async def execute(self, arguments: Mapping[str, Any], context: Context) -> CallResult:
        """Run the script in `code`, or go on with the paused script `resume`."""
        problem = argument_problem(_EXECUTE_CHECK, arguments)
        if problem is not None:
            return problem
        code, resume = arguments.get("code"), arguments.get("resume")
        if (code is None) == (resume is None):
            return CallResult(
                "invalid arguments: give either code (a script) or resume (a paused script's id)",
                is_error=True,
                code=ErrorCode.ARGUMENTS_INVALID,
            )
        if code is not None:
            return await self._run(str(code), context)
        return await self._resume(str(resume), context)

    def _host(self, script: str, context: Context) -> ServiceCalls:
        return ServiceCalls(self.tools_by_name, self.names, context, script)

    async def _run(self, code: str, context: Context) -> CallResult:
        script = new_script_id()
        host = self._host(script, context)
        end = await sandbox().run(Script(code), self.limits, self._module(context.reach), host)
        log_event("script ran", api=self.name, script=script, calls=len(host.made), end=_kind(end))
        if isinstance(end, Done):
            return _answer.done(end, self.max_tokens)
        if isinstance(end, Failed):
            return _answer.failed(end)
        try:
            return await self._pause(
                PausedScript(script, code, "", 0, "", None, end.blob, -1), host, end, context
            )
        except StoreError as error:
            return _store_failed(error)

    async def _pause(
        self, kept: PausedScript, host: ServiceCalls, end: Paused, context: Context
    ) -> CallResult:
        """Keep the paused script in the store (its next generation); tell the model how to go on."""
        calls = kept.calls + len(host.made) - 1  # the call it paused on is made again when it goes on
        printed = kept.printed + end.printed  # what it printed before it paused, and since it went on
        paused = PausedScript(
            kept.id, kept.source, printed, calls, host.tool, host.approval, end.blob, kept.generation + 1
        )
        until = context.clock() + self.keep
        await Scripts(await context.store(), self.name, context.client_id, context.clock()).keep(
            paused, until
        )
        assert host.waiting is not None
        return _answer.paused(kept.id, host.tool, host.approval, host.waiting, end.line)

    async def _claimed(
        self, script: str, scripts: Scripts, owner: str, context: Context
    ) -> PausedScript | CallResult:
        """The paused script, claimed to go on with; or what a caller who may not go on with it gets."""
        for _ in range(3):  # paused again meanwhile by the one who went on: its next generation
            kept = await scripts.get(script)
            if kept is None:
                return _not_found(script)
            lease = context.deadline.left() + LEASE_MARGIN
            claim = await scripts.claim(kept, owner, lease=lease, keep=self.keep)
            if claim.won:
                return kept
            if claim.state is ClaimState.HELD:
                return _running(script)
            if claim.state is ClaimState.UNKNOWN:
                return _lost(script)
            if isinstance(claim.result, Mapping) and "text" in claim.result:
                return _from_json(claim.result)
        return _running(script)

    async def _resume(self, script: str, context: Context) -> CallResult:
        if not is_script_id(script):
            return _not_found(script)
        owner = secrets.token_hex(8)
        try:
            scripts = Scripts(await context.store(), self.name, context.client_id, context.clock())
            kept = await self._claimed(script, scripts, owner, context)
        except StoreError as error:
            return _store_failed(error)
        if isinstance(kept, CallResult):
            return kept
        host = self._host(script, context)
        try:
            end = await sandbox().run(
                Snapshot(kept.blob), self.limits, self._module(context.reach), host, calls=kept.calls,
                source=kept.source,
            )  # fmt: skip
            log_event("script resumed", api=self.name, script=script, calls=len(host.made), end=_kind(end))
            if isinstance(end, Paused):
                result = await self._pause(kept, host, end, context)
                await scripts.complete(kept, owner, {"paused": kept.generation + 1})
                return result
            printed = kept.printed
            result = (
                _answer.done(end, self.max_tokens, printed)
                if isinstance(end, Done)
                else _answer.failed(end, printed)
            )
            await scripts.complete(kept, owner, _to_json(result))
            return result
        except BaseException as error:  # cut off, or the store failed: its calls may have been made
            with anyio.CancelScope(shield=True), contextlib.suppress(StoreError):
                await scripts.abandon(kept, owner)
            if isinstance(error, StoreError):
                return _store_failed(error)
            raise


def _kind(end: Done | Paused | Failed) -> str:
    return "done" if isinstance(end, Done) else "paused" if isinstance(end, Paused) else str(end.code)


def _not_found(script: str) -> CallResult:
    return CallResult(
        f"no paused script of yours has the id {script[:64]!r} (it ended, expired, or is another caller's); "
        "run a new script",
        is_error=True,
        code=ErrorCode.SCRIPT_NOT_FOUND,
    )


def _running(script: str) -> CallResult:
    return CallResult(
        f"the script {script!r} is going on now, resumed by another call; call again with resume later for "
        "how it ended",
        is_error=True,
        code=ErrorCode.SCRIPT_RUNNING,
    )


def _lost(script: str) -> CallResult:
    return CallResult(
        f"the script {script!r} was going on when the gateway running it stopped; the calls it made then "
        "are not made again, and it does not go on. Run a new script, checking first what was done",
        is_error=True,
        code=ErrorCode.SCRIPT_CRASHED,
    )


def _to_json(result: CallResult) -> dict[str, Any]:
    return {
        "text": result.text,
        "is_error": result.is_error,
        "code": None if result.code is None else str(result.code),
    }


def _from_json(data: Mapping[str, Any]) -> CallResult:
    code = data.get("code")
    return CallResult(
        str(data.get("text", "")), is_error=bool(data.get("is_error")), code=ErrorCode(code) if code else None
    )
