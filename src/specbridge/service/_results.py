"""A call's result read back from the store (`_once.result_json` writes it), and the results the store
itself can cause."""

from __future__ import annotations

import base64
import logging
from typing import Any

from .._errors import ErrorCode
from .._logging import log_event
from ..call import CallResult, ImageContent, KeptFile
from ..store import StoreError, StoreLost

Json = Any


def result_from_json(data: Json) -> CallResult:
    image = data.get("image")
    return CallResult(
        text=data["text"],
        is_error=bool(data.get("is_error")),
        code=None if data.get("code") is None else ErrorCode(data["code"]),
        status=data.get("status"),
        structured=data.get("structured"),
        image=None if image is None else ImageContent(base64.b64decode(image["data"]), image["mime_type"]),
        file=KeptFile(**data["file"]) if isinstance(data.get("file"), dict) else None,
    )


def store_unavailable(
    error: StoreError, *, sent: CallResult | None = None, alone: bool = False
) -> CallResult:
    """What the agent gets when the store fails during its call. Before a send: the call did not go on,
    and whether it was sent before (the same key, an approval someone else sent) cannot be read until
    the store is back, so it never says "nothing was sent" unless the call is one of its own (`alone`:
    no key, no approval, no long call, so no earlier call can be it). After a send: the request went
    out and its outcome could not be recorded, with the API's answer as it came (so the model does not
    redo what already happened)."""
    log_event("store unavailable", level=logging.ERROR, code=str(error.code), reason=error.message)
    if isinstance(error, StoreLost):  # refused before any claim, for every call alike until acknowledged
        return CallResult(error.message, is_error=True, code=ErrorCode.STORE_UNAVAILABLE)
    if sent is None and alone:
        return CallResult(
            "the gateway's store cannot be reached now, and this call needs it; nothing was sent. Try "
            "again later.",
            is_error=True,
            code=ErrorCode.STORE_UNAVAILABLE,
        )
    if sent is None:
        return CallResult(
            "the gateway's store cannot be reached now, and this call needs it, so it did not go on. "
            "Whether it was sent before (the same idempotency key, or an approval of it) cannot be read "
            "until the store is back: call again later with the same arguments to get its outcome.",
            is_error=True,
            code=ErrorCode.STORE_UNAVAILABLE,
        )
    answered = f"the API answered {sent.status}" if sent.status is not None else "it ended"
    return CallResult(
        f"the request was sent ({answered}), but its outcome could not be recorded: the gateway's store "
        "cannot be reached. Do not send it again as a new call before checking whether it took effect. "
        f"What came back: {sent.text}",
        is_error=True,
        code=ErrorCode.STORE_UNAVAILABLE,
        status=sent.status,
    )


def store_too_slow(*, alone: bool = False) -> CallResult:
    """The store did not answer within what is left of the call's deadline (its pool waiting for a
    connection, say): said before the deadline, as `store_unavailable` says it."""
    return store_unavailable(StoreError("the store did not answer within the call's deadline"), alone=alone)


def too_slow_to_resolve() -> CallResult:
    """What the call needs (its OAuth token, most likely: another instance may be fetching it) could
    not be had within the call's deadline: nothing was sent."""
    return CallResult(
        "what this call needs (the API's access token) could not be had within the call's deadline; "
        "nothing was sent. Call again in a moment.",
        is_error=True,
        code=ErrorCode.UPSTREAM_AUTH_FAILED,
    )
