"""The sandbox on its own, with a host that answers a script's `api` calls as a test says: values in
and out, exceptions raised where the script called, a pause dumped and gone on with, and each way a
script ends with its own code."""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping
from typing import Any

import anyio
import pytest

from specbridge._errors import ErrorCode
from specbridge.codemode._sandbox import (
    Done,
    Failed,
    Pause,
    Paused,
    Raise,
    Reply,
    Return,
    Sandbox,
    Script,
    Snapshot,
    api_module,
)
from specbridge.config import CodeModeConfig

LIMITS = CodeModeConfig(time=2, memory=16_000_000, calls=4, output=2000, depth=40, workers=2)
MODULE_NAMES = ["get", "fail", "wait", "hold"]


class Host:
    """Answers `api.get` with its arguments, `api.fail` with a rate limit, `api.wait` with a pause
    (once, unless `pause_again`), `api.hold` once `release` is set."""

    def __init__(self, *, pause_again: bool = False) -> None:
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.pause_again = pause_again
        self.held = anyio.Event()
        self.release = anyio.Event()

    async def call(self, name: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Reply:
        self.calls.append((name, dict(kwargs)))
        if name == "fail":
            return Raise("RuntimeError", "[rate-limited] too many calls", ErrorCode.RATE_LIMITED)
        if name == "wait" and (self.pause_again or len([c for c in self.calls if c[0] == "wait"]) == 1):
            return Pause()
        if name == "hold":
            self.held.set()
            await self.release.wait()
        return Return({"name": name, "kwargs": dict(kwargs), "items": [1, 2, 3]})


@pytest.fixture
async def sandbox() -> AsyncIterator[Sandbox]:
    own = Sandbox(checkout_wait=0.5)
    yield own
    await own.aclose()


async def run(sandbox: Sandbox, code: str, host: Host | None = None) -> Done | Paused | Failed:
    return await sandbox.run(Script(code), LIMITS, api_module(MODULE_NAMES), host or Host())


async def test_a_script_gets_each_answer_and_ends_with_its_last_value_and_what_it_printed(
    sandbox: Sandbox,
) -> None:
    host = Host()
    end = await run(sandbox, 'x = api.get(a=1)\nprint(x["name"])\n[i for i in x["items"] if i > 1]', host)
    assert end == Done([2, 3], "get\n")
    assert host.calls == [("get", {"a": 1})]


async def test_api_imported_under_another_name_is_the_same_module(sandbox: Sandbox) -> None:
    assert await run(
        sandbox, "import api as shop\nfrom api import get\n[shop.get()['name'], get()['name']]"
    ) == Done(["get", "get"], "")


async def test_an_error_of_a_call_raises_where_it_was_called_and_ends_the_script_with_its_code(
    sandbox: Sandbox,
) -> None:
    end = await run(sandbox, 'print("before")\napi.fail()')
    assert isinstance(end, Failed) and end.code is ErrorCode.RATE_LIMITED
    assert end.message.startswith("[rate-limited] too many calls (line 2") and end.printed == "before\n"
    caught = await run(
        sandbox, "try:\n    api.fail()\nexcept RuntimeError as error:\n    said = str(error)\nsaid"
    )
    assert caught == Done("[rate-limited] too many calls", "")


async def test_a_pause_keeps_the_script_and_going_on_makes_only_the_call_it_paused_on_again(
    sandbox: Sandbox,
) -> None:
    host = Host()
    code = 'first = api.get(n=1)\nprint("got", first["name"])\nsecond = api.wait(after=first["name"])\n[first["name"], second["name"]]'
    end = await run(sandbox, code, host)
    assert isinstance(end, Paused) and end.line == 3 and end.printed == "got get\n"
    again = Host()
    again.calls.append(("wait", {}))  # it paused once already: now it answers
    resumed = await sandbox.run(Snapshot(end.blob), LIMITS, api_module(MODULE_NAMES), again, calls=1)
    assert resumed == Done(["get", "wait"], "")
    assert again.calls[1:] == [("wait", {"after": "get"})]  # the first call was not made again


@pytest.mark.parametrize(
    ("code", "ends"),
    [
        ("while True:\n    pass", ErrorCode.SCRIPT_TIMEOUT),
        ("x = [0] * 100\nwhile True:\n    x = x + x", ErrorCode.SCRIPT_MEMORY),
        ("def f(n):\n    return f(n + 1)\nf(0)", ErrorCode.SCRIPT_RECURSION),
        ('while True:\n    print("y" * 100)', ErrorCode.SCRIPT_OUTPUT_TOO_LARGE),
        ("for n in range(9):\n    api.get(n=n)", ErrorCode.SCRIPT_CALLS_EXCEEDED),
        ("import http.client", ErrorCode.SCRIPT_IMPORT_REFUSED),
        ('open("/etc/shadow")', ErrorCode.SCRIPT_OS_REFUSED),
        ('import os\nos.getenv("PATH")', ErrorCode.SCRIPT_OS_REFUSED),
        ("api.nothing()", ErrorCode.TOOL_UNKNOWN),
        ("x = {}\nx['missing']", ErrorCode.SCRIPT_FAILED),
        ("undefined_name + 1", ErrorCode.SCRIPT_FAILED),
        ("x = (", ErrorCode.SCRIPT_INVALID),
        ("class Mine(dict):\n    pass", ErrorCode.SCRIPT_INVALID),
    ],
)
async def test_each_way_a_script_is_stopped_has_its_own_code(
    sandbox: Sandbox, code: str, ends: ErrorCode
) -> None:
    end = await run(sandbox, code)
    assert isinstance(end, Failed) and end.code is ends, end


async def test_refusals_a_script_catches_end_it_after_a_hundred(sandbox: Sandbox) -> None:
    end = await run(sandbox, 'while True:\n    try:\n        open("/x")\n    except OSError:\n        pass')
    assert isinstance(end, Failed) and end.code is ErrorCode.SCRIPT_OS_REFUSED


async def test_a_script_that_finds_no_free_worker_is_told_the_sandbox_is_busy(sandbox: Sandbox) -> None:
    one = CodeModeConfig(workers=1)
    host = Host()
    ended: list[Done | Paused | Failed] = []
    async with anyio.create_task_group() as tasks:

        async def holding() -> None:
            ended.append(await sandbox.run(Script("api.hold()['name']"), one, api_module(MODULE_NAMES), host))

        tasks.start_soon(holding)
        with anyio.fail_after(20):
            await host.held.wait()
        busy = await sandbox.run(Script("1"), one, api_module(MODULE_NAMES), Host())
        host.release.set()
    assert isinstance(busy, Failed) and busy.code is ErrorCode.SCRIPT_BUSY
    assert ended == [Done("hold", "")]
