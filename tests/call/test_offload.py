"""Large checks in a worker process (call/_offload.py): the same answers as a check in place, a worker
stuck past the deadline is killed and the next call works, a worker that died is replaced."""

from __future__ import annotations

import importlib
import math
import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from specbridge._errors import ArgumentError, CallError
from specbridge.call import Caller
from specbridge.call._bindings import EMPTY
from specbridge.call._check import Checker
from specbridge.call._checked import checked
from specbridge.call._limits import CallLimits
from specbridge.call._offload import NICE, CheckPool, check_pool
from tests.call._caller import api_config, toolset_for
from tests.support.upstream import Upstream

ITEM = {
    "anyOf": [
        {
            "type": "object",
            "required": ["a"],
            "properties": {"a": {"type": "string", "maxLength": 4}, "n": {"type": "integer"}},
        },
        {
            "type": "object",
            "required": ["b"],
            "properties": {"b": {"type": "integer", "minimum": 0}, "m": {"enum": ["x", "y"]}},
            "additionalProperties": False,
        },
    ]
}
SCHEMA = {
    "type": "object",
    "properties": {
        "xs": {"type": "array", "items": ITEM, "maxItems": 40},
        "name": {"type": "string", "format": "date"},
        "big": {"type": "object", "properties": {"ys": {"type": "array", "items": ITEM}}},
    },
    "required": ["xs"],
    "additionalProperties": False,
}
CHECKER = Checker(SCHEMA)
LIMITS = CallLimits(max_items=60, max_nodes=2_000, max_depth=6, max_string=64, max_bytes=20_000)

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.sampled_from(["x", "y", "2026-11-30", "\ud800"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(["a", "b", "n", "k"]), inner),
    max_leaves=12,
)
ITEMS = st.dictionaries(st.sampled_from(["a", "b", "n", "m", "z"]), SCALARS | VALUES, max_size=4)
ARGUMENTS = st.fixed_dictionaries(
    {},
    optional={
        "xs": st.lists(ITEMS, max_size=70),
        "name": SCALARS,
        "big": st.fixed_dictionaries({}, optional={"ys": st.lists(ITEMS, max_size=10)}),
        "other": VALUES,
    },
)


def _answer(run: Any) -> tuple[Any, ...]:
    try:
        value = run()
    except ArgumentError as error:
        return ("arguments", str(error.code), error.problems)
    except CallError as error:
        return ("refused", str(error.code), error.message)
    return ("ok", _comparable(value))


def _comparable(value: Any) -> Any:
    """NaN is not equal to itself; everything else compares as it is."""
    if isinstance(value, float) and math.isnan(value):
        return "NaN"
    if isinstance(value, dict):
        return {key: _comparable(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_comparable(item) for item in value]
    return value


def _in_worker(arguments: Mapping[str, Any]) -> Any:
    async def run() -> Any:
        return await check_pool().check(CHECKER, EMPTY, LIMITS, arguments)

    return anyio.run(run)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(arguments=ARGUMENTS)
def test_a_check_in_the_worker_gives_the_same_answer_as_the_check_in_place(arguments: dict[str, Any]) -> None:
    in_place = _answer(lambda: checked(CHECKER, EMPTY, LIMITS, arguments))
    assert _answer(lambda: _in_worker(arguments)) == in_place


@pytest.fixture
async def caller(upstream: Upstream) -> AsyncIterator[Caller]:
    made = Caller(api_config(upstream.url, allow=(upstream.address,)), toolset_for())
    yield made
    await made.aclose()


def _large(valid: bool) -> dict[str, Any]:
    return {"name": "n", "colors": ["red" if valid else 7] * 3_000}  # past the inline size (4 KB)


async def _worker_pid(caller: Caller) -> int:
    """A large call (so a worker is up and idle afterwards); the idle worker's process id."""
    result = await caller.call("sendForm", _large(False))
    assert result.code == "arguments-invalid", result.text
    (pid,) = check_pool().pids
    return pid


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


async def test_large_arguments_are_checked_in_a_worker_process_and_answer_as_in_place(
    caller: Caller, upstream: Upstream
) -> None:
    with anyio.fail_after(30):
        pid = await _worker_pid(caller)
        refused = await caller.call("sendForm", _large(False))
        sent = await caller.call("sendForm", _large(True))
    assert pid != os.getpid() and check_pool().pids == [pid]  # one worker, kept for the next call
    assert os.getpriority(os.PRIO_PROCESS, pid) >= max(NICE, os.getpriority(os.PRIO_PROCESS, 0))
    assert refused.code == "arguments-invalid"
    assert "colors[0]: must be a string" in refused.text
    assert not sent.is_error, sent.text
    assert [request.path for request in upstream.requests] == ["/forms"]


async def test_a_worker_stuck_past_the_deadline_is_killed_and_the_next_call_gets_a_new_one(
    caller: Caller, upstream: Upstream
) -> None:
    with anyio.fail_after(30):
        stuck = await _worker_pid(caller)
        os.kill(stuck, signal.SIGSTOP)  # a check that would never end
        with anyio.move_on_after(0.3) as deadline:
            await caller.call("sendForm", _large(True))
        assert deadline.cancelled_caught
        assert _gone(stuck)  # killed and reaped when the deadline cancelled the call
        small = await caller.call("ping", {})
        after = await caller.call("sendForm", _large(True))
    assert not small.is_error and not after.is_error, after.text
    assert check_pool().pids not in ([], [stuck])
    assert [request.path for request in upstream.requests] == ["/ping", "/forms"]


async def test_a_worker_that_died_while_idle_is_replaced_and_the_call_answers(caller: Caller) -> None:
    with anyio.fail_after(30):
        dead = await _worker_pid(caller)
        os.kill(dead, signal.SIGKILL)
        result = await caller.call("sendForm", _large(False))
    assert result.code == "arguments-invalid", result.text
    assert check_pool().pids != [dead]


async def test_values_a_worker_cannot_be_sent_are_checked_in_place() -> None:
    class NotPicklable:
        def __reduce__(self) -> Any:
            raise TypeError("no")

    with anyio.fail_after(10):
        assert await CheckPool().check(CHECKER, EMPTY, LIMITS, {"xs": [], "other": NotPicklable()}) is None


async def test_a_waiting_call_gets_the_worker_the_one_before_it_releases() -> None:
    pool = CheckPool(size=1)
    arguments = {"xs": [{"a": "v"}] * 30}
    answers: list[Any] = []

    async def one() -> None:
        answers.append(await pool.check(CHECKER, EMPTY, LIMITS, arguments))

    try:
        with anyio.fail_after(30):
            async with anyio.create_task_group() as tasks:
                for _ in range(4):
                    tasks.start_soon(one)
        assert answers == [arguments] * 4
        assert len(pool.pids) == 1
    finally:
        await pool.aclose()


async def test_a_caller_without_check_workers_checks_large_arguments_in_its_own_process(
    upstream: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def no_worker(*args: Any) -> Any:
        raise AssertionError("a worker process was asked")

    monkeypatch.setattr(CheckPool, "check", no_worker)
    made = Caller(api_config(upstream.url, allow=(upstream.address,)), toolset_for(), check_workers=False)
    try:
        with anyio.fail_after(30):
            refused = await made.call("sendForm", _large(False))
            sent = await made.call("sendForm", _large(True))
    finally:
        await made.aclose()
    assert refused.code == "arguments-invalid" and "colors[0]: must be a string" in refused.text
    assert not sent.is_error, sent.text


async def test_values_the_worker_cannot_read_are_checked_in_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "only_in_this_process.py").write_text("class Local:\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))  # the worker's path does not have it
    local = importlib.import_module("only_in_this_process").Local()
    pool = CheckPool()
    try:
        with anyio.fail_after(30):
            assert await pool.check(CHECKER, EMPTY, LIMITS, {"xs": [], "other": local}) is None
            assert await pool.check(CHECKER, EMPTY, LIMITS, {"xs": []}) == {"xs": []}  # and it still works
    finally:
        await pool.aclose()


def test_the_worker_process_loads_what_a_check_needs_and_not_httpx_or_the_document_loader() -> None:
    """The worker's own command, its socket end /dev/null (it reads end-of-file and stops); what it
    imported, from `-X importtime`. The package `__init__`s load their names on first use."""
    finished = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "specbridge.call._check_worker", "0"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    loaded = {line.rsplit("|", 1)[-1].strip() for line in finished.stderr.splitlines() if "|" in line}
    assert {"jsonschema_rs", "specbridge.call._check", "specbridge.call._checked"} <= loaded
    heavy = {
        "httpx",
        "anyio",
        "mcp",
        "yaml_rs",
        "specbridge.tools",
        "specbridge.config",
        "specbridge.document._load",
    }
    assert loaded & heavy == set()


async def test_a_pool_started_ahead_has_a_worker_ready_and_the_first_check_uses_it() -> None:
    pool = CheckPool(size=1)
    try:
        with anyio.fail_after(30):
            await pool.start()
            (started,) = pool.pids
            await pool.start()  # one is up already: no second
            assert pool.pids == [started]
            assert await pool.check(CHECKER, EMPTY, LIMITS, {"xs": [{"a": "v"}]}) == {"xs": [{"a": "v"}]}
        assert pool.pids == [started]
    finally:
        await pool.aclose()


async def test_a_caller_starts_no_worker_until_a_large_call_comes(
    upstream: Upstream, monkeypatch: pytest.MonkeyPatch
) -> None:
    pool = CheckPool()
    monkeypatch.setattr("specbridge.call._offload._pool", pool)
    made = Caller(api_config(upstream.url, allow=(upstream.address,)), toolset_for())
    try:
        with anyio.fail_after(30):
            small = await made.call("ping", {})
            assert not small.is_error and pool.pids == []
            await made.call("sendForm", _large(False))
        assert len(pool.pids) == 1
    finally:
        await made.aclose()
        await pool.aclose()


async def test_a_worker_is_in_a_process_group_of_its_own_so_a_terminals_ctrl_c_reaches_only_the_gateway() -> (
    None
):
    pool = CheckPool(size=1)
    try:
        with anyio.fail_after(30):
            await pool.start()
            (worker,) = pool.pids
            assert os.getpgid(worker) != os.getpgid(0)
    finally:
        await pool.aclose()
