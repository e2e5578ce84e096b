"""The `specbridge` command group and the one place errors become messages and exit codes."""

from __future__ import annotations

import functools
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


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
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
