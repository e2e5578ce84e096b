"""What one call's arguments may carry, checked before any schema work.

A tool call's arguments arrive as parsed JSON; checking them against a schema costs time in proportion to
their size (and more for unions). These limits bound that size first, with one walk that stops at the
first limit passed. Each limit has its own error code, and the message names the limit (and the path),
never the value.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._errors import CallError, ErrorCode
from ._paths import format_path

# Bytes counted per value besides its text: quotes, a comma, a colon, brackets (JSON's punctuation).
_OVERHEAD = 3
_SCALAR = 4  # a number, true, false or null, about (not `len(str(n))`: quadratic for huge integers)


@dataclass(frozen=True, slots=True, kw_only=True)
class CallLimits:
    """Bounds on one call's arguments (config key `limits:`). The defaults are generous: far above what
    any tool of the 43-document corpus needs, and low enough that checking a call at the limit takes
    milliseconds (docs/benchmarks-gateway.md)."""

    max_bytes: int = 4 * 1024 * 1024  # the arguments as JSON text, about (strings, keys, punctuation)
    max_items: int = 10_000  # in one array or one object
    max_nodes: int = 100_000  # values in all (every object, array, string, number, true/false/null)
    max_string: int = 1024 * 1024  # characters in one string or key
    max_depth: int = 64  # objects and arrays nested in each other

    def __post_init__(self) -> None:
        for name in ("max_bytes", "max_items", "max_nodes", "max_string", "max_depth"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"limits.{name} must be a positive integer")


DEFAULT_LIMITS = CallLimits()


def _refuse(code: ErrorCode, where: str, what: str, limit: str, value: int) -> CallError:
    return CallError(
        f"{where}: {what} than this gateway accepts in one call (limits.{limit} = {value:,}); nothing was sent",
        code=code,
    )


def _where(path: tuple[str | int, ...]) -> str:
    """The path, its first levels only when it is deep (a message stays short)."""
    return format_path(path) if len(path) <= 8 else format_path(path[:8]) + "…"


def enforce_limits(arguments: Mapping[str, Any], limits: CallLimits = DEFAULT_LIMITS) -> int:
    """Raise CallError (one of the `arguments-too-*` codes) for the first limit passed; else return the
    number of values counted. No path is built on the way (a tuple per value was most of the cost); the
    offending value's path is looked up only for the message."""
    nodes, size = 0, 0
    stack: list[tuple[Any, int]] = [(arguments, 0)]

    def refuse(code: ErrorCode, value: Any, what: str, limit: str) -> CallError:
        return _refuse(code, _where(_path_to(arguments, value)), what, limit, getattr(limits, limit))

    while stack:
        value, depth = stack.pop()
        nodes += 1
        if nodes > limits.max_nodes:
            raise _refuse(
                ErrorCode.ARGUMENTS_TOO_MANY_VALUES,
                "arguments",
                "hold more values",
                "max_nodes",
                limits.max_nodes,
            )
        if isinstance(value, str):
            if len(value) > limits.max_string:
                raise refuse(ErrorCode.ARGUMENT_STRING_TOO_LONG, value, "is a longer string", "max_string")
            size += len(value) + _OVERHEAD
        elif isinstance(value, (dict, list, tuple, Mapping)):  # dict first: an ABC check is slow
            if depth >= limits.max_depth:
                raise refuse(ErrorCode.ARGUMENTS_TOO_DEEP, value, "is nested deeper", "max_depth")
            if len(value) > limits.max_items:
                raise refuse(ErrorCode.ARGUMENTS_TOO_MANY_ITEMS, value, "holds more items", "max_items")
            size += _OVERHEAD
            if isinstance(value, list | tuple):
                stack.extend((item, depth + 1) for item in value)
            else:
                for key, item in value.items():
                    if isinstance(key, str):
                        if len(key) > limits.max_string:
                            raise refuse(
                                ErrorCode.ARGUMENT_STRING_TOO_LONG, value, "has a longer key", "max_string"
                            )
                        size += len(key) + _OVERHEAD
                    stack.append((item, depth + 1))
        else:
            size += _SCALAR
        if size > limits.max_bytes:
            raise _refuse(
                ErrorCode.ARGUMENTS_TOO_LARGE,
                "arguments",
                "are larger as JSON",
                "max_bytes",
                limits.max_bytes,
            )
    return nodes


def _path_to(root: Any, target: Any) -> tuple[str | int, ...]:
    """The path of the first value that is `target` (by identity), depth first."""
    stack: list[tuple[Any, tuple[str | int, ...]]] = [(root, ())]
    while stack:
        value, path = stack.pop()
        if value is target:
            return path
        if isinstance(value, Mapping):
            stack.extend((item, (*path, str(key))) for key, item in reversed(list(value.items())))
        elif isinstance(value, list | tuple):
            stack.extend((item, (*path, index)) for index, item in reversed(list(enumerate(value))))
    return ()
