"""What one call may carry: each limit refuses with its own code before any schema work, names the limit
and never the value, and sends nothing."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from typing import Any

import anyio
import pytest

from specbridge._errors import CallError, ErrorCode
from specbridge.call import Caller
from specbridge.call._limits import CallLimits, enforce_limits
from tests.call._caller import api_config, toolset_for
from tests.support.upstream import Upstream

SMALL = CallLimits(max_bytes=5_000, max_items=50, max_nodes=200, max_string=300, max_depth=6)
MakeLimited = Callable[[CallLimits], Caller]


@pytest.fixture
async def limited(upstream: Upstream) -> AsyncIterator[MakeLimited]:
    callers: list[Caller] = []

    def make(limits: CallLimits) -> Caller:
        api = api_config(upstream.url, allow=(upstream.address,))
        caller = Caller(api, toolset_for(), limits=limits)
        callers.append(caller)
        return caller

    yield make
    for caller in callers:
        await caller.aclose()


def _deep(levels: int) -> Any:
    value: Any = "leaf-value"
    for _ in range(levels):
        value = {"k": value}
    return value


CASES: list[tuple[str, dict[str, Any], ErrorCode, str]] = [
    ("one long string", {"name": "secret-value-" * 30}, ErrorCode.ARGUMENT_STRING_TOO_LONG, "max_string"),
    ("one long key", {"k" * 400 + "secret": 1}, ErrorCode.ARGUMENT_STRING_TOO_LONG, "max_string"),
    ("a long array", {"colors": ["secret-value"] * 51}, ErrorCode.ARGUMENTS_TOO_MANY_ITEMS, "max_items"),
    (
        "a wide object",
        {f"secret-value{i}": 1 for i in range(51)},
        ErrorCode.ARGUMENTS_TOO_MANY_ITEMS,
        "max_items",
    ),
    ("many values", {"a": [[1] * 40] * 10}, ErrorCode.ARGUMENTS_TOO_MANY_VALUES, "max_nodes"),
    ("a large body", {"a": ["secret-value-" * 20] * 30}, ErrorCode.ARGUMENTS_TOO_LARGE, "max_bytes"),
    ("deep nesting", {"name": _deep(10)}, ErrorCode.ARGUMENTS_TOO_DEEP, "max_depth"),
]


@pytest.mark.parametrize(("case", "arguments", "code", "limit"), CASES, ids=[c[0] for c in CASES])
async def test_arguments_past_a_limit_are_refused_with_its_code_naming_the_limit_not_the_value(
    limited: MakeLimited,
    upstream: Upstream,
    case: str,
    arguments: dict[str, Any],
    code: ErrorCode,
    limit: str,
) -> None:
    with anyio.fail_after(10):
        result = await limited(SMALL).call("sendForm", arguments)
    assert result.is_error and result.code == code, (case, result.text)
    assert f"limits.{limit}" in result.text
    assert "secret-value" not in result.text and "leaf-value" not in result.text
    assert "nothing was sent" in result.text
    assert upstream.requests == []


async def test_arguments_within_the_limits_are_checked_and_sent(
    limited: MakeLimited, upstream: Upstream
) -> None:
    with anyio.fail_after(10):
        result = await limited(SMALL).call("sendForm", {"name": "n", "colors": ["red"] * 50})
    assert not result.is_error, result.text
    assert len(upstream.requests) == 1


async def test_the_limits_come_before_the_schema_so_an_unknown_huge_argument_is_a_limit_error(
    limited: MakeLimited, upstream: Upstream
) -> None:
    with anyio.fail_after(10):
        result = await limited(SMALL).call("sendForm", {"unknown": list(range(1_000))})
    assert result.code == ErrorCode.ARGUMENTS_TOO_MANY_ITEMS


def test_the_default_limits_take_ten_thousand_items_and_count_every_value() -> None:
    assert enforce_limits({"xs": [{}] * 10_000}) == 10_002
    with pytest.raises(CallError) as raised:
        enforce_limits({"xs": [{}] * 10_001})
    assert raised.value.code == ErrorCode.ARGUMENTS_TOO_MANY_ITEMS
    assert raised.value.message.startswith("xs: holds more items")


def test_a_deep_path_is_shown_cut_in_the_message() -> None:
    with pytest.raises(CallError) as raised:
        enforce_limits({"a": _deep(100)})
    assert raised.value.code == ErrorCode.ARGUMENTS_TOO_DEEP
    assert raised.value.message.startswith("a.k.k.k.k.k.k.k…: is nested deeper")


@pytest.mark.parametrize("value", [0, -1, True, 1.5])
def test_a_limit_must_be_a_positive_integer(value: Any) -> None:
    with pytest.raises(ValueError, match=r"limits\.max_items must be a positive integer"):
        CallLimits(max_items=value)


def test_the_compiled_check_cache_forgets_the_least_recently_used_past_its_bound() -> None:
    from specbridge.call._lru import Lru

    cache: Lru[str, int] = Lru(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # "b" is now the least recently used
    cache.put("c", 3)
    assert (cache.get("a"), cache.get("b"), cache.get("c"), len(cache)) == (1, None, 3, 2)
