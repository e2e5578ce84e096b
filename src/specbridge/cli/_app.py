"""The `specbridge` command group and the one place errors become messages and exit codes."""

from __future__ import annotations

import functools
import importlib
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import click

from .. import __version__
from .._errors import ConfigError, DocumentError, SpecbridgeError

F = TypeVar("F", bound=Callable[..., Any])

# Exit statuses shared by every command.
EXIT_OK = 0
EXIT_FINDINGS = 1  # lint --strict found something at or above --fail-on; call returned an error result
EXIT_USAGE = 2  # click's own status for a bad command line
EXIT_UNREADABLE = 3  # a document or config that cannot be read


# Each command lives in its own module, imported only when that command runs: `specbridge tools`
# should not pay for importing the MCP SDK and the HTTP stack.
COMMAND_MODULES = {
    "call": "_call",
    "demo": "_demo",
    "keys": "_keys",
    "lint": "_lint",
    "serve": "_serve",
    "tools": "_tools",
}


class LazyGroup(click.Group):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(COMMAND_MODULES))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self.commands and cmd_name in COMMAND_MODULES:
            importlib.import_module(f"{__package__}.{COMMAND_MODULES[cmd_name]}")  # registers on `app`
        return super().get_command(ctx, cmd_name)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="specbridge")
def app() -> None:
    """Turn an OpenAPI document into safe, checked tools for AI agents."""


def friendly_errors(command: F) -> F:
    """No stack trace reaches a terminal user: known errors print their message and code."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except (DocumentError, ConfigError) as error:
            click.echo(f"error [{error.code}]: {error}", err=True)
            sys.exit(EXIT_UNREADABLE)
        except SpecbridgeError as error:
            click.echo(f"error [{error.code}]: {error}", err=True)
            sys.exit(EXIT_FINDINGS)
        except KeyboardInterrupt:
            sys.exit(130)

    return wrapper  # type: ignore[return-value]
