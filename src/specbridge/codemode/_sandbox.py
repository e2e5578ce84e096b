"""The sandbox a script runs in: pydantic-monty, a Python interpreter written for code a model wrote,
run in worker processes of its own (a crash, a memory error or a kill ends that worker, never the
gateway), driven here one suspension at a time.

    end = await sandbox.run(Script(code), limits, module, host)      # or Snapshot(blob) to go on
    Done(value, printed) | Paused(blob, printed, line) | Failed(code, message, printed)

The script sees one module of ours, `api`, and Monty's own standard modules (json, re, math, datetime
and so on, written inside the interpreter: nothing of them reaches the machine). Each `api.<name>(…)`
stops the interpreter and is answered by `host.call` — a value, an exception raised in the script, or a
pause (the snapshot dumped, to go on later from the store). Everything else that would leave the
interpreter is refused inside the script: any other import (`ModuleNotFoundError`), files, network
and the environment (`PermissionError`); a sleep returns at once. Monty's own limits bound time (only
while the script runs: waits for API calls do not count), heap memory and call depth; the print output and the number of API
calls are counted here. Each limit ends the script with its own code; so does an import or an access
the script was refused and did not catch. The event loop is never blocked: the interpreter runs in its
worker process and the pool's I/O is asynchronous.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

import anyio

from .._errors import ErrorCode
from ..config import CodeModeConfig

if TYPE_CHECKING:
    import pydantic_monty as monty

Json = Any
MODULE = "api"
REFUSALS = 100  # refused imports and accesses a script may catch and go on after, before it is ended
CHECKOUT_WAIT = 10.0  # seconds a script waits for a free worker
BACKSTOP = 5.0  # seconds past the time limit after which the pool kills a worker that did not stop
REQUEST_TIMEOUT = 3600.0  # the pool's last backstop on one turn of a worker (APIs set their own `time`)
MONTY_ERROR = ("The monty syntax parser does not yet support",)


@dataclass(frozen=True, slots=True)
class Return:
    """A call's answer, handed to the script as the function's value."""

    value: Json


@dataclass(frozen=True, slots=True)
class Raise:
    """An exception raised in the script where it called; `code` is the script's if it is not caught."""

    kind: str  # a Python exception type Monty knows: RuntimeError, AttributeError, TypeError, …
    message: str
    code: ErrorCode


@dataclass(frozen=True, slots=True)
class Pause:
    """The call waits for something outside (a person's approval, a long call): the script is kept."""


Reply = Return | Raise | Pause


class Host(Protocol):
    async def call(self, name: str, args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> Reply:
        """The answer to the script's call `api.<name>(*args, **kwargs)`."""


@dataclass(frozen=True, slots=True)
class Script:
    code: str


@dataclass(frozen=True, slots=True)
class Snapshot:
    """A paused script, to go on with: its call that paused is made again first."""

    blob: bytes


@dataclass(frozen=True, slots=True)
class Done:
    value: Json
    printed: str


@dataclass(frozen=True, slots=True)
class Paused:
    blob: bytes
    printed: str
    line: int | None  # where the script paused, when its source is at hand


@dataclass(frozen=True, slots=True)
class Failed:
    code: ErrorCode
    message: str
    printed: str


End = Done | Paused | Failed


class _OutputOver(Exception):
    pass


@dataclass(slots=True)
class _Run:
    """What one run of a script counts: its print output, its API calls, what it was refused."""

    limits: CodeModeConfig
    calls: int = 0
    parts: list[str] = field(default_factory=list)
    size: int = 0
    over: bool = False
    refused: list[Raise] = field(default_factory=list)
    raised: list[Raise] = field(default_factory=list)  # what the host raised in the script

    def printed(self, stream: str, text: str) -> None:
        self.size += len(text.encode("utf-8", "replace"))
        if self.size > self.limits.output:
            self.over = True
            raise _OutputOver("over the output limit")
        self.parts.append(text)

    @property
    def output(self) -> str:
        return "".join(self.parts)


def _never(*args: Any, **kwargs: Any) -> Any:
    """The host function behind every `api.<name>`: each call is answered by `Host.call`, not here."""
    raise AssertionError("a code-mode call is answered from its snapshot")


def _monty() -> Any:
    """pydantic-monty, loaded by the first script (the `code` extra: `sandbox_available()` tells)."""
    import pydantic_monty

    return pydantic_monty


def sandbox_available() -> bool:
    """Whether the sandbox is installed (`pip install 'specbridge[code]'`)."""
    return importlib.util.find_spec("pydantic_monty") is not None


def api_module(names: Collection[str]) -> monty.ExternalModule:
    """The module `api` a script imports: one function per name it may call."""
    module: monty.ExternalModule = _monty().ExternalModule(dict.fromkeys(names, _never))
    return module


def _line(source: str | None, start: int) -> int | None:
    if source is None:
        return None
    return source.encode("utf-8")[:start].count(b"\n") + 1


class Sandbox:
    """The process's sandbox workers: started on first use, each running one script at a time."""

    def __init__(self, *, checkout_wait: float = CHECKOUT_WAIT) -> None:
        self.checkout_wait = checkout_wait
        self._pool: monty.AsyncMonty | None = None
        self._workers = 0
        self._lock = anyio.Lock()

    async def _started(self, workers: int) -> monty.AsyncMonty:
        async with self._lock:
            if self._pool is None:
                pool = _monty().AsyncMonty(
                    min_processes=0,
                    max_processes=workers,
                    checkout_timeout=self.checkout_wait,
                    # Each script's own `time` is its limit; past it by BACKSTOP, the pool kills its worker.
                    feed_duration_limit_grace=BACKSTOP,
                    request_timeout=REQUEST_TIMEOUT,
                    max_checkouts_per_worker=200,
                )
                await pool.__aenter__()
                self._pool, self._workers = pool, workers
            return self._pool

    async def aclose(self) -> None:
        async with self._lock:
            pool, self._pool = self._pool, None
            if pool is not None:
                await pool.__aexit__(None, None, None)

    async def run(
        self,
        start: Script | Snapshot,
        limits: CodeModeConfig,
        module: monty.ExternalModule,
        host: Host,
        *,
        calls: int = 0,
        source: str | None = None,
    ) -> End:
        """Run `start` to its end or its pause; `calls`: API calls the script made before (a resumed
        one); `source`: its code, for the line where it paused."""
        run = _Run(limits, calls=calls)
        monty = _monty()
        source = start.code if isinstance(start, Script) else source
        try:
            pool = await self._started(limits.workers)
            checkout = pool.checkout(
                script_name="script.py",
                limits={
                    "max_feed_duration_secs": limits.time,
                    "max_memory": limits.memory,
                    "max_recursion_depth": limits.depth,
                    "max_suspensions": limits.calls + REFUSALS + 10,
                },
                external_modules={MODULE: module},
                os_policy={"sleep": "zero"},
            )
            async with checkout as session:
                if isinstance(start, Script):
                    await session.feed_run(f"import {MODULE}")
                    snapshot = await session.feed_start(start.code, print_callback=run.printed)
                else:
                    snapshot = await session.load_snapshot(start.blob, print_callback=run.printed)
                return await _drive(snapshot, run, host, source)
        except TimeoutError:
            return Failed(
                ErrorCode.SCRIPT_BUSY, "every sandbox worker is busy; try again shortly", run.output
            )
        except monty.MontyError as error:
            return _failed(error, run)


async def _drive(snapshot: Any, run: _Run, host: Host, source: str | None) -> End:
    """Answer each suspension of the script until it completes, pauses or is ended."""
    monty = _monty()
    while not isinstance(snapshot, monty.MontyComplete):
        if isinstance(snapshot, monty.AsyncNameLookupSnapshot):
            snapshot = await snapshot.resume()  # a name nothing defines: NameError in the script
            continue
        if not isinstance(snapshot, monty.AsyncFunctionSnapshot):  # futures: several calls at once
            return Failed(
                ErrorCode.SCRIPT_FAILED,
                "the script awaited several things at once; call the API's functions one at a time",
                run.output,
            )
        name = str(snapshot.function_name)
        if snapshot.is_os_function and name == "import" and snapshot.args[:1] == (MODULE,):
            snapshot = await snapshot.resume_auto()  # `import api as a`, `from api import f`
            continue
        if snapshot.is_os_function or not name.startswith(MODULE + "."):
            refused = _refusal(name, tuple(snapshot.args), os=snapshot.is_os_function)
            run.refused.append(refused)
            if len(run.refused) > REFUSALS:
                return Failed(refused.code, refused.message, run.output)
            reply: Reply = refused
        else:
            run.calls += 1
            if run.calls > run.limits.calls:
                return Failed(
                    ErrorCode.SCRIPT_CALLS_EXCEEDED,
                    f"the script made more than {run.limits.calls} API calls, the limit on one script; "
                    "do the rest in another script",
                    run.output,
                )
            reply = await host.call(name[len(MODULE) + 1 :], tuple(snapshot.args), dict(snapshot.kwargs))
        if isinstance(reply, Pause):
            return Paused(snapshot.dump(), run.output, _line(source, snapshot.position.start))
        if isinstance(reply, Return):
            snapshot = await snapshot.resume({"return_value": reply.value})
            continue
        run.raised.append(reply)
        snapshot = await snapshot.resume({"exc_type": reply.kind, "message": reply.message})
    return Done(snapshot.output, run.output)


def _refusal(name: str, args: tuple[Any, ...], *, os: bool) -> Raise:
    if os and name == "import":
        module = str(args[0]) if args else "?"
        return Raise(
            "ModuleNotFoundError",
            f"No module named {module[:100]!r}: a script imports only `api` and the interpreter's standard modules",
            ErrorCode.SCRIPT_IMPORT_REFUSED,
        )
    if os:
        return Raise(
            "PermissionError",
            f"{name[:100]}: a script has no files, network or environment; only the functions of `api`",
            ErrorCode.SCRIPT_OS_REFUSED,
        )
    return Raise("NameError", f"name {name[:100]!r} is not defined", ErrorCode.SCRIPT_FAILED)


def _where(error: Any) -> str:
    frames = error.traceback() if hasattr(error, "traceback") else []
    if not frames:
        return ""
    frame = frames[-1]
    code = (frame.source_line or "").strip()
    return f" (line {frame.line}{': ' + code[:200] if code else ''})"


def _failed(error: monty.MontyError, run: _Run) -> Failed:
    """The script's end as one of our codes."""
    monty = _monty()
    printed = run.output
    if isinstance(error, monty.MontyCrashedError):
        if error.timed_out:
            return Failed(
                ErrorCode.SCRIPT_TIMEOUT,
                f"the script ran past {run.limits.time:g} s and was stopped",
                printed,
            )
        return Failed(
            ErrorCode.SCRIPT_CRASHED,
            "the sandbox worker running the script ended; nothing more of it ran",
            printed,
        )
    if isinstance(error, monty.MontySyntaxError):
        return Failed(ErrorCode.SCRIPT_INVALID, error.display("type-msg")[:1000] + _where(error), printed)
    if not isinstance(error, monty.MontyRuntimeError):
        return Failed(ErrorCode.SCRIPT_FAILED, str(error)[:1000], printed)
    if run.over:
        return Failed(
            ErrorCode.SCRIPT_OUTPUT_TOO_LARGE,
            f"the script printed more than {run.limits.output:,} bytes, the limit on one script; print less, "
            "or return only what is needed",
            printed,
        )
    inner = error.exception()
    kind, text = type(inner).__name__, str(inner)
    where = _where(error)
    if isinstance(inner, TimeoutError) and "limit exceeded" in text:
        return Failed(
            ErrorCode.SCRIPT_TIMEOUT,
            f"the script ran past {run.limits.time:g} s, the limit on one script{where}",
            printed,
        )
    if isinstance(inner, MemoryError) and "limit exceeded" in text:
        return Failed(
            ErrorCode.SCRIPT_MEMORY,
            f"the script used more than {run.limits.memory:,} bytes of memory{where}",
            printed,
        )
    if isinstance(inner, RecursionError):
        return Failed(
            ErrorCode.SCRIPT_RECURSION,
            f"the script's calls nested deeper than {run.limits.depth}{where}",
            printed,
        )
    for raised in (*run.raised, *run.refused):  # an exception of ours the script did not catch
        if raised.message == text and raised.kind == kind:
            return Failed(raised.code, f"{text}{where}", printed)
    if isinstance(inner, AttributeError) and text.startswith(f"module {MODULE!r} has no attribute"):
        # a function `api` does not have: no operation has the name, or this caller may not use it
        return Failed(ErrorCode.TOOL_UNKNOWN, f"{text}; find its functions with search{where}", printed)
    if isinstance(inner, NotImplementedError) and text.startswith(MONTY_ERROR):
        return Failed(ErrorCode.SCRIPT_INVALID, f"{text} in the sandbox{where}", printed)
    return Failed(ErrorCode.SCRIPT_FAILED, f"{kind}: {text[:1000]}{where}", printed)


_sandbox = Sandbox()


def sandbox() -> Sandbox:
    """The process's one sandbox (its workers are started by the first script)."""
    return _sandbox
