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
    from ._body import Attachment as Attachment
    from ._build import BuiltRequest as BuiltRequest
    from ._build import build_request as build_request
    from ._caller import Caller as Caller
    from ._check import Checker as Checker
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
    from ._readiness import Unready as Unready
    from ._readiness import readiness as readiness
    from ._result import BinaryContent as BinaryContent
    from ._result import CallResult as CallResult
    from ._result import ImageContent as ImageContent
    from ._tokens import estimate_tokens as estimate_tokens
    from ._transport import EgressTransport as EgressTransport

_LAZY = {
    "Attachment": "._body",
    "BuiltRequest": "._build",
    "build_request": "._build",
    "Caller": "._caller",
    "Checker": "._check",
    "EgressPolicy": "._egress",
    "check_base_url": "._egress",
    "answer_tools": "._fields",
    "estimate_tokens": "._tokens",
    "DEFAULT_LIMITS": "._limits",
    "CallLimits": "._limits",
    "Lru": "._lru",
    "browser_media_type": "._media",
    "is_media_type": "._media",
    "safe_filename": "._media",
    "check_pool": "._offload",
    "Unready": "._readiness",
    "readiness": "._readiness",
    "BinaryContent": "._result",
    "CallResult": "._result",
    "ImageContent": "._result",
    "EgressTransport": "._transport",
}


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)


__all__ = [
    "DEFAULT_LIMITS",
    "Attachment",
    "BinaryContent",
    "BuiltRequest",
    "CallLimits",
    "CallResult",
    "Caller",
    "Checker",
    "EgressPolicy",
    "EgressTransport",
    "ImageContent",
    "Lru",
    "Unready",
    "answer_tools",
    "browser_media_type",
    "build_request",
    "check_base_url",
    "check_pool",
    "estimate_tokens",
    "is_media_type",
    "readiness",
    "safe_filename",
]
