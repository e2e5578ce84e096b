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


def store_unavailable(error: StoreError, *, sent: CallResult | None = None) -> CallResult:
    """What the agent gets when the store fails during its call: nothing was sent (try again later),
    or, after a send, that the request went out and its outcome could not be recorded, with the API's
    answer as it came (so the model does not redo what already happened)."""
    log_event("store unavailable", level=logging.ERROR, code=str(error.code), reason=error.message)
    if isinstance(error, StoreLost):  # nothing was sent: the check comes before any claim
        return CallResult(error.message, is_error=True, code=ErrorCode.STORE_UNAVAILABLE)
    if sent is None:
        return CallResult(
            "the gateway's store cannot be reached now, and this call needs it; nothing was sent. Try "
            "again later.",
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
