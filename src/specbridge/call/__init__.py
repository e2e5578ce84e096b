"""One tool call done right: check the arguments, build one safe request, apply the egress policy,
send it once, and turn the answer into a result.

    caller = Caller(api_config, toolset)
    result = await caller.call("getOrder", {"orderId": "42"})
    await caller.aclose()

The names load on first use (module `__getattr__`): the argument check's worker process
(`python -m specbridge.call._check_worker`) imports this package first and needs none of httpx.

Modules:

- `_caller`: `Caller`, one API's tools callable: check, bind, build, egress, send once, render; the base
  URL decided and checked once, when it is made.
- `_plan`: `CallPlan`, what the config decides for one tool and one client's bindings, made once and kept
  in a bounded `Plans` cache.
- `_limits`: `CallLimits`, what one call's arguments may carry, checked before any schema work.
- `_check`: the argument check against a shaped schema (jsonschema-rs); messages name paths, never values.
- `_checked`: `checked()`, the one check sequence, and the worker's side of the exchange.
- `_check_worker`: the check worker's `python -m` entry.
- `_offload`: `CheckPool`, large argument checks in a worker process, so they never hold the GIL against
  the event loop.
- `_explain`: why arguments fail: at most 20 problems, found in time linear in their size.
- `_paths`: argument paths as messages show them (`body.items[2].qty`).
- `_lru`: the small bounded cache under plans and compiled checks.
- `_bindings`: fixed values the model never sees, filled in after the check.
- `_url`: the URL of one request: percent-encoded path segments, nothing that climbs out of the base URL.
- `_build`: the rest of one request from the argument map: query, header and cookie values, the
  document's fixed headers, Accept, the body, the credential last.
- `_body`: request bodies: JSON, form-urlencoded, multipart, raw bytes.
- `_media`: the one filename rule, one well-formed media type, the type a browser reads from a list.
- `_encode`: small encoders the request builder and the body encoders share.
- `_credential`: the stored credential: which secret, where it goes, every form it may come back in.
- `_egress`: `EgressPolicy`: public addresses only unless an `egress.allow` entry says otherwise, every
  resolved address checked.
- `_transport`: resolve, check and connect in one step (the pinned network backend under httpx); the
  process's one TLS context.
- `_asking`: `ask_small`, a request the gateway makes for itself (a token endpoint, an authorization
  server), read whole within a time and a size bound.
- `_readiness`: `readiness()`, what will fail for every call of an API, known at start.
- `_send`: sending once: one deadline, redirects by policy, capped reads.
- `_render`: the answer as a result (text, JSON, image), the credential redacted wherever it comes back.
- `_escapes`: a secret under mixed per-character escapes (JSON, HTML, percent), for the redaction.
- `_result`: `CallResult`, the outcome of one call.
- `_answers`: `AnswerPolicy`, what a model is handed of an answer: `fields`, then the token budget.
- `_tokens`: the token estimate without a tokenizer (byte classes, fitted against o200k_base).
- `_budget`: an answer cut to the budget without cutting a value in half.
- `_salvage`: the whole values before the 1 MB read cap's cut.
- `_paging`: the operation's paging arguments and the answer's own next link, for the note.
- `_select`: the `fields` paths compiled to one automaton, each answer node looked at once.
- `_fields`: which tools take `fields`, its schema, the split before the check; `answer_tools`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from ._answers import AnswerPolicy as AnswerPolicy
    from ._answers import json_result as json_result
    from ._answers import shortened_error as shortened_error
    from ._asking import ask_small as ask_small
    from ._body import Attachment as Attachment
    from ._build import BuiltRequest as BuiltRequest
    from ._build import build_request as build_request
    from ._caller import Caller as Caller
    from ._caller import Outgoing as Outgoing
    from ._check import Checker as Checker
    from ._check import argument_problem as argument_problem
    from ._checked import checked as checked
    from ._credential import Credential as Credential
    from ._egress import EgressPolicy as EgressPolicy
    from ._egress import check_base_url as check_base_url
    from ._fields import answer_tools as answer_tools
    from ._limits import DEFAULT_LIMITS as DEFAULT_LIMITS
    from ._limits import CallLimits as CallLimits
    from ._lru import Lru as Lru
    from ._media import browser_media_type as browser_media_type
    from ._media import is_media_type as is_media_type
    from ._media import safe_filename as safe_filename
    from ._offload import CheckPool as CheckPool
    from ._offload import check_pool as check_pool
    from ._plan import CHECKERS as CHECKERS
    from ._plan import CallPlan as CallPlan
    from ._plan import Plans as Plans
    from ._readiness import Unready as Unready
    from ._readiness import readiness as readiness
    from ._result import BinaryContent as BinaryContent
    from ._result import CallResult as CallResult
    from ._result import ImageContent as ImageContent
    from ._result import KeptFile as KeptFile
    from ._select import Selection as Selection
    from ._tokens import estimate_tokens as estimate_tokens
    from ._transport import EgressTransport as EgressTransport
    from ._transport import tls_context as tls_context


__getattr__, __dir__ = lazy_exports(__name__)
