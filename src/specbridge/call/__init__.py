"""One tool call done right: check the arguments, build one safe request, apply the egress policy,
send it once, and turn the answer into a result.

    caller = Caller(api_config, toolset)
    result = await caller.call("getOrder", {"orderId": "42"})
    await caller.aclose()

The names load on first use (module `__getattr__`): the argument check's worker process
(`python -m specbridge.call._check_worker`) imports this package first and needs none of httpx.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from ._answers import AnswerPolicy as AnswerPolicy
    from ._answers import json_result as json_result
    from ._answers import shortened_error as shortened_error
    from ._body import Attachment as Attachment
    from ._build import BuiltRequest as BuiltRequest
    from ._build import build_request as build_request
    from ._caller import Caller as Caller
    from ._caller import Outgoing as Outgoing
    from ._check import Checker as Checker
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
    from ._offload import check_pool as check_pool
    from ._plan import CallPlan as CallPlan
    from ._readiness import Unready as Unready
    from ._readiness import readiness as readiness
    from ._result import BinaryContent as BinaryContent
    from ._result import CallResult as CallResult
    from ._result import ImageContent as ImageContent
    from ._result import KeptFile as KeptFile
    from ._select import Selection as Selection
    from ._tokens import estimate_tokens as estimate_tokens
    from ._transport import EgressTransport as EgressTransport


__getattr__, __dir__ = lazy_exports(__name__)
