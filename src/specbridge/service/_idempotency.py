"""Idempotency keys (PRODUCT §5.1): the gateway's own `idempotency_key` argument, deduplicated on the
store's atomic claim, so a retried call is sent at most once. No MCP here; the call service runs it:

    plan = key_plan(api, tool)                       # None: this tool takes no key
    schema = with_key_argument(schema, plan)         # what the agent sees
    keyed(api, tool, scope, arguments, bindings)     # step 1: the agent's key apart, its derived key
    name = store_key(scope, key)                     # the key as the store names it (`idem:…`)
    await look_up(store, name, fingerprint, now)     # the ledger's look-up: a stored result, or why not
    await claim_key(store, name, owner, fingerprint, ...)  # the claim: this call sends
    await record(store, name, owner, result, data, now)    # the store step

What the store keeps per key (`idem:` + SHA-256 of api, client, tool and key): a claim whose
fingerprint is the call's (`_fingerprint`). Same key and call: the stored result. Another call:
`idempotency-key-reused`. Held by another caller: wait for it (the call deadline bounds the wait).
Owner died: `idempotency-outcome-unknown`, never sent again.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from .._errors import ErrorCode
from ..call import CallResult
from ..config import ApiConfig
from ..store import Claim, ClaimState, Store, poll
from ..tools import Tool
from ._key_fit import fit_key
from ._results import result_from_json
from ._waits import Deadline

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


@dataclass(frozen=True, slots=True)
class Keyed:
    """One call's arguments with its key apart (`keyed`): `binding` is the derived key for the
    document's own key field, and `bindings` what the call's plan is made for (the client's bindings,
    and that field left to the gateway, as the listing serves it: one plan for every key)."""

    key: str | None
    arguments: Mapping[str, Json]
    binding: Mapping[str, str]
    bindings: Mapping[str, Json] | None


def keyed(
    api: ApiConfig,
    tool: Tool,
    scope: tuple[str, str, str],
    arguments: Mapping[str, Json],
    bindings: Mapping[str, Json] | None,
) -> Keyed | CallResult:
    """The agent's key out of `arguments` (an error result for a malformed one), with what follows
    from it for the call's plan."""
    plan = key_plan(api, tool)
    if plan is None:
        return Keyed(None, arguments, {}, bindings)
    split = split_key(arguments, plan)
    if isinstance(split, CallResult):
        return split
    key, rest = split
    binding = plan.binding(scope, key) if key is not None else {}
    return Keyed(key, rest, binding, served_bindings(plan, bindings) if binding else bindings)


def _invalid(problem: str) -> CallResult:
    return CallResult(
        f"invalid arguments: {KEY_ARGUMENT}: {problem}", is_error=True, code=ErrorCode.ARGUMENTS_INVALID
    )


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


_KEY_REFUSALS = frozenset(
    {ErrorCode.IDEMPOTENCY_KEY_REUSED, ErrorCode.IDEMPOTENCY_OUTCOME_UNKNOWN, ErrorCode.CALL_PENDING}
)


def replayed(result: CallResult) -> bool:
    """Whether what a key gave a call (`look_up`, `claim_key`) is an earlier call's stored result (an
    idempotency hit, for the audit line) rather than why the key cannot be used."""
    return result.code not in _KEY_REFUSALS


def _known(claim: Claim, wanted: str) -> CallResult | None:
    """What a claim someone else holds or finished means for the call `wanted`; None: still running."""
    if claim.fingerprint != wanted:
        return CallResult(
            f"the {KEY_ARGUMENT} was used before with other arguments; nothing was sent. Use a new key for "
            "a new action, or repeat the first call's arguments exactly to get its result.",
            is_error=True,
            code=ErrorCode.IDEMPOTENCY_KEY_REUSED,
        )
    if claim.state is ClaimState.DONE:
        return result_from_json(claim.result)
    if claim.state is ClaimState.UNKNOWN:
        return CallResult(
            f"a call with this {KEY_ARGUMENT} was sent, but its outcome was never recorded (the gateway "
            "stopped or the API did not answer); it is not sent again. Check with the API whether it took "
            "effect before using a new key.",
            is_error=True,
            code=ErrorCode.IDEMPOTENCY_OUTCOME_UNKNOWN,
        )
    return None


async def look_up(store: Store, name: str, wanted: str, now: float) -> CallResult | None:
    """The key `name` (a store name, `store_key`) for the call `wanted`, without taking it: its stored
    result, or why it cannot be used; None when it is free or still held (see `wait_key`)."""
    claim = await store.get_claim(name, now)
    return None if claim is None else _known(claim, wanted)


def _still_running() -> CallResult:
    return CallResult(
        f"a call with this {KEY_ARGUMENT} is still running; call again with the same key and "
        "arguments to get its result (it is not sent twice).",
        is_error=True,
        code=ErrorCode.CALL_PENDING,
    )


async def claim_key(
    store: Store,
    name: str,
    owner: str,
    wanted: str,
    *,
    lease: float,
    ttl: float,
    until: Deadline,
    clock: Callable[[], float],
) -> str | CallResult:
    """The claim's name when this call took the key `name` (it sends, then `record`s); else what it
    gets instead: the stored result, the running call's once there (waited for until `until`, less the
    answer's margin, polling, so another instance's result is seen too), or why not."""

    async def look() -> tuple[bool, str | CallResult]:
        claim = await store.claim(name, owner, wanted, lease, ttl, clock())
        known = name if claim.won else _known(claim, wanted)
        return (False, _still_running()) if known is None else (True, known)

    return await poll(look, seconds=until.wait(math.inf), first=0.02, most=0.5)


async def wait_key(
    store: Store, name: str, wanted: str, *, until: Deadline, clock: Callable[[], float]
) -> CallResult | None:
    """The key `name` as `look_up` reads it, a held one read again until it is settled or `until`
    (less the answer's margin) comes: its outcome, `call-pending`, or None when it is free."""

    async def look() -> tuple[bool, CallResult | None]:
        claim = await store.get_claim(name, clock())
        if claim is None:
            return True, None
        known = _known(claim, wanted)
        return (False, _still_running()) if known is None else (True, known)

    return await poll(look, seconds=until.wait(math.inf), first=0.02, most=0.5)


async def record(store: Store, name: str, owner: str, result: CallResult, data: Json, now: float) -> None:
    """Step 8: the result kept under the key (`data`, its stored form), or the key given up: never to
    be sent again when the request may have had an effect, free again when nothing was sent."""
    kind = outcome(result)
    if kind == "answered":
        await store.complete(name, owner, data, now)
    else:
        await store.abandon(name, owner, sent=kind == "unknown")
