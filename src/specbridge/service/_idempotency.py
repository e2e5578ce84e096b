"""Idempotency keys (PRODUCT §5.1): the gateway's own `idempotency_key` argument, deduplicated on the
store's atomic claim, so a retried call is sent at most once. No MCP here: `ApiServer._call` hooks it in.

    plan = key_plan(api, tool)                       # None: this tool takes no key
    schema = with_key_argument(schema, plan)         # what the agent sees
    key, rest = split_key(arguments, plan)           # the agent's key out of the arguments
    binding = plan.binding(client, api, tool, key)   # the derived key for the API's own field, if any
    result = await Idempotency(store, ttl=…).run(scope, key, rest, send, budget=…)

What the store keeps per key (`idem:` + SHA-256 of api, client, tool and key): a claim whose
fingerprint is the arguments' hash. Same key and arguments: the stored result. Other arguments:
`idempotency-key-reused`. Held by another caller: wait for it (the call deadline bounds the wait).
Owner died: `idempotency-outcome-unknown`, never sent again.
"""

from __future__ import annotations

import dataclasses
import hashlib
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

import anyio

from .._errors import ErrorCode
from .._json import dumps_bytes
from ..call import CallResult
from ..config import ApiConfig
from ..store import ClaimState, Store
from ..tools import Tool
from ._approving import result_from_json, result_json
from ._key_fit import fit_key

Json = Any
KEY_ARGUMENT = "idempotency_key"
MAX_KEY = 255
# The names under which a document declares its own idempotency key: a header or query parameter
# (compared without case), a body field.
PARAMETER_NAMES = frozenset({"idempotency-key", "idempotency_key", "idempotencykey"})
BODY_NAMES = ("idempotency_key", "idempotencyKey")
KEY_SCHEMA: dict[str, Json] = {
    "type": "string",
    "minLength": 1,
    "maxLength": MAX_KEY,
    "pattern": "^[\\x20-\\x7e]+$",
    "description": "Optional. A key of your choosing (1-255 printable characters) that makes this call "
    "safe to retry: the same key with the same arguments returns the first call's result instead of "
    "calling the API again. Use a new key for each new action.",
}
# Results that say the API answered (stored: a retry gets the same answer) ...
_ANSWERED = frozenset({ErrorCode.UPSTREAM_REDIRECT, ErrorCode.REDIRECT_LIMIT})
# ... and results after which the request may have had an effect without an answer (never sent again).
_MAYBE_SENT = frozenset(
    {ErrorCode.UPSTREAM_TIMEOUT, ErrorCode.UPSTREAM_UNREACHABLE, ErrorCode.APPROVAL_OUTCOME_UNKNOWN}
)


@dataclass(frozen=True, slots=True)
class KeyPlan:
    """How one tool takes a key: `target` is the binding (`header.Idempotency-Key`, `body.idempotency_key`)
    for the document's own key field, `field` the argument the agent would have set it through."""

    target: str | None = None
    field: str | None = None
    required: bool = False
    schema: Json = dataclasses.field(
        default=None, compare=False
    )  # the field's own schema: the derived key fits it

    def binding(self, scope: tuple[str, str, str], key: str) -> dict[str, str]:
        """The derived key for the API's own field: a hash of (api, client, tool, key), so the API
        deduplicates too, one client's key never collides with another's, and the agent's value is
        never what is sent."""
        fitted = fit_key(derived_key(scope, key), self.schema) if self.target is not None else None
        return {} if fitted is None or self.target is None else {self.target: fitted}


def derived_key(scope: tuple[str, str, str], key: str) -> str:
    return hashlib.sha256("\0".join(("specbridge-idempotency", *scope, key)).encode()).hexdigest()


def offers_key(api: ApiConfig, tool: Tool) -> bool:
    return key_plan(api, tool) is not None


def key_plan(api: ApiConfig, tool: Tool) -> KeyPlan | None:
    """None when `tool` takes no `idempotency_key` (`idempotency.tools` of its API)."""
    mode = api.idempotency.tools
    if mode == "none":
        return None
    own = _declared_key(tool)
    if mode == "auto" and tool.hints.idempotent and own is None:
        return None
    return own or KeyPlan()


def _declared_key(tool: Tool) -> KeyPlan | None:
    for argument in tool.arguments:
        if argument.location in ("header", "query") and argument.original.lower() in PARAMETER_NAMES:
            return KeyPlan(
                f"{argument.location}.{argument.original}", argument.name, argument.required, argument.schema
            )
        if argument.location == "body" and argument.original in BODY_NAMES:
            return KeyPlan(f"body.{argument.original}", argument.name, argument.required, argument.schema)
    if tool.body is not None and tool.body.whole:
        body = tool.argument("body")
        schema = body.schema if body is not None else None
        if isinstance(schema, dict) and isinstance(schema.get("$ref"), str):  # a large body in `$defs`
            defs = tool.input_schema.get("$defs") if isinstance(tool.input_schema, dict) else None
            schema = (defs or {}).get(schema["$ref"].rsplit("/", 1)[-1])
        properties = schema.get("properties") if isinstance(schema, dict) else None
        for name in BODY_NAMES:
            if isinstance(properties, dict) and name in properties:
                required = isinstance(schema, dict) and name in (schema.get("required") or [])
                return KeyPlan(f"body.{name}", None, bool(required), properties[name])
    return None


def served_bindings(plan: KeyPlan | None, bindings: Mapping[str, Json] | None) -> Mapping[str, Json] | None:
    """The bindings to strip the tool's input schema with: the client's, and the document's own key
    field (the gateway fills it), so it is not offered to the agent."""
    if plan is None or plan.target is None:
        return bindings
    return {**(bindings or {}), plan.target: ""}


def with_key_argument(schema: Mapping[str, Json], plan: KeyPlan) -> dict[str, Json]:
    """The tool's input schema (stripped with `served_bindings`) as the gateway serves it:
    `idempotency_key` added, required where the document required its own key field."""
    out = dict(schema)
    out["properties"] = {**(out.get("properties") or {}), KEY_ARGUMENT: KEY_SCHEMA}
    required = [name for name in out.get("required") or [] if name != KEY_ARGUMENT]
    if plan.required:
        required.append(KEY_ARGUMENT)
    if required:
        out["required"] = required
    else:
        out.pop("required", None)
    return out


def split_key(
    arguments: Mapping[str, Json], plan: KeyPlan
) -> tuple[str | None, dict[str, Json]] | CallResult:
    """The agent's key and the arguments without it (nor the document's own key field, whose value is
    never trusted: without `idempotency_key` it is taken as the key); an error result for a bad key."""
    rest = dict(arguments)
    key = rest.pop(KEY_ARGUMENT, None)
    own: Json = None
    if plan.field is not None and plan.field != KEY_ARGUMENT:
        own = rest.pop(plan.field, None)
    elif plan.field is None and plan.target is not None and isinstance(rest.get("body"), dict):
        body = dict(rest["body"])
        own = body.pop(plan.target.partition(".")[2], None)
        rest["body"] = body
    if key is None:
        key = own
    if key is None:
        if plan.required:
            return _invalid("is required by this operation (1-255 printable characters)")
        return None, rest
    if not isinstance(key, str) or not 1 <= len(key) <= MAX_KEY or not key.isascii() or not key.isprintable():
        return _invalid("must be a string of 1-255 printable ASCII characters")
    return key, rest


def _invalid(problem: str) -> CallResult:
    return CallResult(
        f"invalid arguments: {KEY_ARGUMENT}: {problem}", is_error=True, code=ErrorCode.ARGUMENTS_INVALID
    )


def fingerprint(arguments: Mapping[str, Json]) -> str:
    return hashlib.sha256(dumps_bytes(_canonical(arguments))).hexdigest()


def _canonical(value: Json) -> Json:
    if isinstance(value, Mapping):
        return {str(key): _canonical(value[key]) for key in sorted(value, key=str)}
    if isinstance(value, list | tuple):
        return [_canonical(item) for item in value]
    return value


def store_key(scope: tuple[str, str, str], key: str) -> str:
    return "idem:" + hashlib.sha256("\0".join((*scope, key)).encode()).hexdigest()


def outcome(result: CallResult) -> str:
    """`answered` (store it), `unknown` (it may have had an effect: never send again) or `refused`
    (the gateway's own refusal: nothing was sent, forget the claim)."""
    if result.status is not None or result.code in _ANSWERED:
        return "answered"
    if result.code in _MAYBE_SENT:
        return "unknown"
    return "answered" if not result.is_error else "refused"


class Idempotency:
    """Runs a call at most once per (api, client, tool, key) within `ttl` seconds, on the store.
    `lease`: how long the owner has to store the result before the key reads as outcome unknown (keep
    it above the upstream timeout)."""

    def __init__(
        self,
        store: Store,
        *,
        clock: Callable[[], float] = time.time,
        owner: str | None = None,
        lease: float = 120.0,
    ) -> None:
        self.store = store
        self.clock = clock
        self.owner = owner or secrets.token_hex(8)
        self.lease = lease

    async def run(
        self,
        scope: tuple[str, str, str],
        key: str,
        arguments: Mapping[str, Json],
        send: Callable[[], Awaitable[CallResult]],
        *,
        ttl: float,
        budget: float,
        lease: float | None = None,
        first: Callable[[CallResult], Awaitable[None]] | None = None,
    ) -> CallResult:
        """`send`'s result (sent once), the stored one, or an error result. `budget`: seconds this call
        may wait for another caller's result. `first`: given a fresh result before the key stores it (a
        long call stores its own result and `call.completed` first)."""
        name, wanted = store_key(scope, key), fingerprint(arguments)
        pause, give_up = 0.02, anyio.current_time() + max(0.0, budget)
        while True:
            claim = await self.store.claim(name, self.owner, wanted, lease or self.lease, ttl, self.clock())
            if claim.fingerprint != wanted:
                return CallResult(
                    f"the {KEY_ARGUMENT} was used before with other arguments; nothing was sent. Use a new "
                    "key for a new action, or repeat the first call's arguments exactly to get its result.",
                    is_error=True,
                    code=ErrorCode.IDEMPOTENCY_KEY_REUSED,
                )
            if claim.won:
                return await self._send(name, send, first)
            if claim.state is ClaimState.DONE:
                return result_from_json(claim.result)
            if claim.state is ClaimState.UNKNOWN:
                return CallResult(
                    f"a call with this {KEY_ARGUMENT} was sent, but its outcome was never recorded (the "
                    "gateway stopped or the API did not answer); it is not sent again. Check with the API "
                    "whether it took effect before using a new key.",
                    is_error=True,
                    code=ErrorCode.IDEMPOTENCY_OUTCOME_UNKNOWN,
                )
            left = give_up - anyio.current_time()
            if left <= 0:
                return CallResult(
                    f"a call with this {KEY_ARGUMENT} is still running; call again with the same key and "
                    "arguments to get its result (it is not sent twice).",
                    is_error=True,
                    code=ErrorCode.CALL_PENDING,
                )
            await anyio.sleep(min(pause, left))  # another instance's result is seen by polling
            pause = min(pause * 2, 0.5)

    async def _send(
        self,
        name: str,
        send: Callable[[], Awaitable[CallResult]],
        first: Callable[[CallResult], Awaitable[None]] | None = None,
    ) -> CallResult:
        try:
            result = await send()
        except BaseException:  # cancelled (the call deadline) or failed mid-send: maybe sent
            with anyio.CancelScope(shield=True):
                await self.store.abandon(name, self.owner, sent=True)
            raise
        with anyio.CancelScope(shield=True):  # a result that arrived is kept, whatever happens now
            if first is not None:
                await first(result)
            kind = outcome(result)
            if kind == "answered":
                await self.store.complete(name, self.owner, result_json(result), self.clock())
            else:
                await self.store.abandon(name, self.owner, sent=kind == "unknown")
        return result
