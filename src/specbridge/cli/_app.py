"""The `specbridge` command group and the one place errors become messages and exit codes."""

from __future__ import annotations

import functools
import gc
import importlib
import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from .._errors import ConfigError, DocumentError, ErrorCode, SpecbridgeError, StartError
from .._version import __version__

F = TypeVar("F", bound=Callable[..., Any])

# Exit statuses shared by every command.
EXIT_OK = 0
EXIT_FINDINGS = 1  # lint --strict found something at or above --fail-on; call returned an error result
EXIT_USAGE = 2  # click's own status for a bad command line
EXIT_UNREADABLE = 3  # a document or config that cannot be read
EXIT_CANNOT_START = 4  # a port in use, an address not of this machine, an output file that cannot be written
EXIT_INTERNAL = 70  # a fault of ours (sysexits' EX_SOFTWARE); the one-line message says what to report
EXIT_INTERRUPTED = 130  # Ctrl-C
DEBUG_ENV = "SPECBRIDGE_DEBUG"
PROCESS: list[
    bool
] = []  # [True] once `main()` runs: the process is this one command  # set to 1 to see the Python traceback of an internal error


# Each command lives in its own module, imported only when that command runs: `specbridge tools`
# should not pay for importing the MCP SDK and the HTTP stack.
COMMAND_MODULES = {
    "call": "_call",
    "demo": "_demo",
    "install": "_install",
    "keys": "_keys",
    "lint": "_lint",
    "serve": "_serve",
    "tools": "_tools",
    "approvals": "_approvals",
    "webhooks": "_webhooks",
    "store": "_store",
}


# What each optional extra installs, by import name: a command that imports one of these without the
# extra says which extra to install (`extra-missing`, exit 3) instead of failing on an ImportError.
EXTRA_OF_MODULE = {
    **dict.fromkeys(
        (
            "mcp", "mcp_types", "httpx", "httpcore", "h11", "starlette", "uvicorn", "anyio", "sniffio",
            "multipart", "python_multipart", "httptools", "uvloop", "psycopg", "psycopg_pool",
            "psycopg_binary", "redis", "Stemmer", "sse_starlette", "pydantic", "pydantic_core", "jwt",
            "cryptography",
        ),
        "gateway",
    ),
    **dict.fromkeys(("numpy", "tokenizers", "huggingface_hub", "threadpoolctl"), "semantic"),
    "pydantic_monty": "code",
}  # fmt: skip


def missing_extra(error: BaseException) -> tuple[str, str] | None:
    """(extra, module) when `error` is the import of a module that an extra installs, else None."""
    if not isinstance(error, ModuleNotFoundError) or not error.name:
        return None
    top = error.name.partition(".")[0]
    extra = EXTRA_OF_MODULE.get(top)
    return (extra, top) if extra is not None else None


def exit_for_missing_extra(error: BaseException, command: str | None) -> None:
    """One line and exit 3 when `error` is a missing extra's module; nothing otherwise."""
    found = missing_extra(error)
    if found is None:
        return
    extra, module = found
    what = f"`specbridge {command}`" if command else "this command"
    click.echo(
        f"error [{ErrorCode.EXTRA_MISSING}]: {what} needs the {extra} extra ({module} is not installed): "
        f"pip install 'specbridge[{extra}]'",
        err=True,
    )
    sys.exit(EXIT_UNREADABLE)


def _command_name() -> str | None:
    context = click.get_current_context(silent=True)
    if context is None:
        return None
    return context.command_path.partition(" ")[2] or None


class LazyGroup(click.Group):
    def main(self, *args: Any, **kwargs: Any) -> Any:
        """The last guard: whatever escapes a command ends as one coded line, never a traceback."""
        try:
            return super().main(*args, **kwargs)
        except SystemExit:
            raise
        except KeyboardInterrupt:
            sys.exit(EXIT_INTERRUPTED)
        except Exception as error:
            exit_for_missing_extra(error, _failed_command(args, kwargs))
            if os.environ.get(DEBUG_ENV) == "1":
                raise
            # The type only: an exception's text may carry a secret or an argument value.
            click.echo(
                f"error [{ErrorCode.INTERNAL_ERROR}]: specbridge failed unexpectedly "
                f"({type(error).__name__}); run again with {DEBUG_ENV}=1 to see where, and report it",
                err=True,
            )
            sys.exit(EXIT_INTERNAL)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(COMMAND_MODULES))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMAND_MODULES:
            try:
                importlib.import_module(f"{__package__}.{COMMAND_MODULES[cmd_name]}")  # registers on `app`
            except ModuleNotFoundError as error:
                found = missing_extra(error)
                if found is None:
                    raise
                return _needs_extra(cmd_name, error, found[0])
        return super().get_command(ctx, cmd_name)


def _needs_extra(name: str, error: ModuleNotFoundError, extra: str) -> click.Command:
    """A stand-in for a command whose extra is not installed: listed in `--help` with the extra to
    install, and ending in `extra-missing` when run (with any arguments)."""

    def run() -> None:
        exit_for_missing_extra(error, name)

    return click.Command(
        name,
        callback=run,
        short_help=f"(needs the {extra} extra: pip install 'specbridge[{extra}]')",
        add_help_option=False,
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
    )


def _failed_command(args: tuple[Any, ...], kwargs: dict[str, Any]) -> str | None:
    words = kwargs.get("args", args[0] if args else None)
    if words is None:
        words = sys.argv[1:]
    return next((word for word in words if word in COMMAND_MODULES), None)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="specbridge")
def app() -> None:
    """Turn an OpenAPI document into safe, checked tools for AI agents."""


def store_config_option(help: str) -> Callable[[F], F]:
    """`--config FILE` (default `specbridge.yaml`) of a command that works on the config's store."""
    return click.option(
        "--config",
        "config_path",
        type=click.Path(dir_okay=False),
        default="specbridge.yaml",
        show_default=True,
        help=help,
    )


def one_shot_gc() -> None:
    """For a command that reads one document and ends (`lint`, `tools`): the objects it makes live until
    it ends and hold almost no cycles, so the collector's passes over the growing heap are pure cost
    (about a tenth of `lint` on Stripe's 4 MB document). Collect rarely instead, and never the objects
    imported before now. Only in the command's own process (`main`), not where `app` runs in a longer-lived
    one (tests, a library user's program)."""
    if not PROCESS:
        return
    gc.freeze()
    gc.set_threshold(100_000, 50, 100)


def friendly_errors(command: F) -> F:
    """No stack trace reaches a terminal user: known errors print their message and code."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except BaseException as error:
            exit_for_missing_extra(error, _command_name())
            known = coded(error)
            if known is None:
                raise
            status, code, message = known
            if code:
                click.echo(f"error [{code}]: {message}", err=True)
            sys.exit(status)

    return wrapper  # type: ignore[return-value]


def coded(error: BaseException) -> tuple[int, str, str] | None:
    """(exit status, code, message) for an error of ours (the one error inside a task group's group
    too); code "" for Ctrl-C; None for anything else."""
    if isinstance(error, BaseExceptionGroup):
        sole = _sole(error)
        if sole is None:
            return None
        error = sole
    if isinstance(error, KeyboardInterrupt):
        return EXIT_INTERRUPTED, "", ""
    if not isinstance(error, SpecbridgeError):
        return None
    if error.code in USAGE_CODES:
        status = EXIT_USAGE
    elif isinstance(error, DocumentError | ConfigError) or error.code in CONFIG_CODES:
        status = EXIT_UNREADABLE
    elif isinstance(error, StartError):
        status = EXIT_CANNOT_START
    else:
        status = EXIT_FINDINGS
    return status, str(error.code), str(error)


def _sole(group: BaseExceptionGroup[BaseException]) -> BaseException | None:
    leaves: list[BaseException] = []
    pending: list[BaseException] = [group]
    while pending:
        current = pending.pop()
        if isinstance(current, BaseExceptionGroup):
            pending.extend(current.exceptions)
        else:
            leaves.append(current)
    return leaves[0] if len(leaves) == 1 else None


# A value on the command line that the command refuses (click's own are exit 2 too, without a code).
USAGE_CODES = frozenset({ErrorCode.INSTALL_INVALID})

# Errors that are a config's (or the store it names) whatever part of the code finds them: exit 3.
CONFIG_CODES = frozenset(
    {code for code in ErrorCode if code.value.startswith("config-")}
    | {ErrorCode.SERVE_UNSAFE_BIND, ErrorCode.STORE_UNAVAILABLE, ErrorCode.EXTRA_MISSING}
    | {ErrorCode.AUDIT_UNWRITABLE}
)
