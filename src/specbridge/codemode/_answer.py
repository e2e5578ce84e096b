"""What the model is handed of a script: its last line's value and what it printed, shaped by an
answers budget as any answer is (`call.json_result`: whole items of the largest list, a note saying what
was left out); its pause, with the script's id to go on with; or why it ended, with its code.

    {"result": <the last line's value>, "printed": "<what it printed>"}     ("printed" only if any)

A value JSON cannot carry (a set, bytes, a date, a function) is given as JSON can: a set or tuple as a
list, bytes as text, anything else as its `repr`.
"""

from __future__ import annotations

import datetime
from typing import Any

from .._errors import ErrorCode
from ..call import AnswerPolicy, CallResult, json_result
from ._sandbox import Done, Failed

Json = Any
PRINTED_IN_ERROR = 4000  # characters of a failed script's output shown with its error
DEPTH = 64


def jsonable(value: Any, depth: int = 0) -> Json:
    """`value` as JSON can carry it (see the module)."""
    if value is None or isinstance(value, str | bool | int | float):
        return value
    if depth > DEPTH:
        return repr(value)[:200]
    if isinstance(value, dict):
        return {
            key if isinstance(key, str) else repr(key): jsonable(item, depth + 1)
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return [jsonable(item, depth + 1) for item in value]
    if isinstance(value, set | frozenset):
        items = [jsonable(item, depth + 1) for item in value]
        try:
            return sorted(items)
        except TypeError:
            return items
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    return repr(value)[:1000]


def done(end: Done, max_tokens: int, printed_before: str = "") -> CallResult:
    """A finished script's result, within the answers budget `max_tokens` (the API's `answers`)."""
    answer: dict[str, Json] = {"result": jsonable(end.value)}
    printed = printed_before + end.printed
    if printed:
        answer["printed"] = printed
    return json_result(answer, 200, AnswerPolicy(max_tokens=max_tokens))


def failed(end: Failed, printed_before: str = "") -> CallResult:
    """A script that ended before its last line: why (its code), and what it printed until then."""
    printed = printed_before + end.printed
    text = end.message
    if printed:
        cut = printed[-PRINTED_IN_ERROR:]
        more = "the last part of " if len(cut) < len(printed) else ""
        text += f"\n[{more}what the script printed before it ended:]\n{cut}"
    return CallResult(text, is_error=True, code=end.code)


def paused(script: str, tool: str, approval: str | None, waiting: CallResult, line: int | None) -> CallResult:
    """The script paused at a call that waits (a person's approval, a long call): how to go on."""
    where = f" at line {line}" if line is not None else ""
    what = (
        f"awaits a person's approval (approval {approval})"
        if waiting.code is ErrorCode.APPROVAL_PENDING
        else "is still running"
    )
    return CallResult(
        f"the script paused{where}: its call of {tool} {what}; nothing of that call was sent by the script "
        f"yet. Call execute again with resume {script!r} later to go on from there: the calls it made before "
        "are not made again, and the call it paused on gets its outcome (a rejection raises in the script "
        "with the person's reason).",
        is_error=True,
        code=waiting.code or ErrorCode.APPROVAL_PENDING,
    )
