"""What `specbridge install` checks before it writes an entry, so it never installs one that cannot start:
its values (`install-invalid`), and for a stdio entry the checks `serve` runs at start, in this process,
which is the one the entry starts (`sys.executable -m specbridge serve …`).

1. the gateway extra imports (`extra-missing`: the light form cannot serve);
2. the document loads and converts (its `document-*` or `config-*` error);
3. the base URL passes the egress policy (`config-invalid`, with the `--allow` that lets it through);
4. what `serve` warns of at start (`call.readiness`: a secret unset, a store key too short, no usable base
   URL) is a warning here too.

Every `env:` secret the served config reads is named, so the entry can pass it (`env_secrets`).
"""

from __future__ import annotations

import dataclasses
import importlib
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from .._errors import ErrorCode, SpecbridgeError
from ..config import Config, Secret

ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
SERVER_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


def invalid(message: str) -> SpecbridgeError:
    return SpecbridgeError(f"{message}; nothing was written", code=ErrorCode.INSTALL_INVALID)


def check_values(
    *,
    spec: str | None,
    config_path: str | None,
    base_url: str | None,
    allow: tuple[str, ...],
    api_name: str | None,
    name: str | None,
    transport: str,
    url: str | None,
    key_env: str,
    file_path: str | None,
    print_only: bool,
) -> None:
    """Refuse, before anything is read, what would make an entry that cannot be used."""
    if spec is not None and config_path is not None:
        raise invalid(
            "give either --config FILE or SPEC (with --base-url URL), not both: SPEC would be ignored"
        )
    if config_path is not None and (base_url is not None or allow):
        raise invalid(
            "--base-url and --allow go with SPEC; with --config, set `base_url` and `egress.allow` there"
        )
    if spec is not None and api_name is not None:
        raise invalid("--api names an API of --config FILE; with SPEC there is only one")
    if name is not None and not SERVER_NAME.fullmatch(name):
        raise invalid(
            "--name takes 1 to 64 letters, digits, `_` or `-` (what every client accepts as a name)"
        )
    if key_env and not ENV_NAME.fullmatch(key_env):
        raise invalid(
            "--key-env takes the name of an environment variable (letters, digits and `_`, not first a "
            "digit), or '' for a gateway without keys"
        )
    if file_path is not None and print_only:
        raise invalid("--print prints the entry and writes no file: leave out --file, or --print")
    if transport == "stdio":
        if url is not None:
            raise invalid("--url goes with --transport http")
        return
    if spec is not None or base_url is not None or allow:
        raise invalid(
            "--transport http connects to a running gateway: give --url, not SPEC, --base-url or --allow"
        )
    if url is not None:
        check_url(url)


def check_url(url: str) -> None:
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - a port that is not a number raises here
    except ValueError:
        parts = None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname:
        raise invalid(
            "--url takes the gateway's MCP URL, http:// or https:// with a host, e.g. "
            "https://mcp.example.com/orders/mcp"
        )


@dataclass
class Checked:
    """What the checks found: the sentences of what was checked, the warnings `serve` would log, and
    the `env:` variables the served config reads."""

    done: list[str] = field(default_factory=list)
    warnings: list[tuple[str, str]] = field(default_factory=list)  # (code, message)
    env: list[str] = field(default_factory=list)


def check_start(
    config: Config, api_name: str, *, command_line_base_url: str | None, allow: tuple[str, ...]
) -> Checked:
    """The checks of `serve` at start, for the stdio entry that serves `api_name` of `config`."""
    checked = Checked()
    try:  # what `serve` imports over stdio (the package's names load on first use)
        gateway = importlib.import_module("specbridge.gateway")
        _ = gateway.Gateway, gateway.serve_stdio
    except ModuleNotFoundError as error:
        from ._app import missing_extra

        found = missing_extra(error)
        if found is None:
            raise
        raise SpecbridgeError(
            f"the entry starts `specbridge serve`, which needs the {found[0]} extra ({found[1]} is not "
            f"installed): pip install 'specbridge[{found[0]}]'; nothing was written",
            code=ErrorCode.EXTRA_MISSING,
        ) from None
    checked.done.append("the gateway extra imports")
    from ..call import Caller, readiness
    from ._serve import check_command_line_base_url
    from ._sources import Source

    if command_line_base_url is not None:
        check_command_line_base_url(command_line_base_url, allow)
    api = config.api(api_name)
    toolset = Source(None, api).toolset()
    count = len(toolset.tools)
    checked.done.append(f"the document loads ({count} tool{'s' if count != 1 else ''})")
    caller = Caller(api, toolset, check_workers=False)
    if caller.base_url is not None:
        checked.done.append(f"the base URL {caller.base_url} passes the egress policy")
    for problem in readiness(api, caller.base_url, toolset.document.servers):
        checked.warnings.append((str(problem.code), problem.message))
    problems = len(checked.warnings)
    checked.done.append(
        f"{problems} thing{'s' if problems != 1 else ''} every call would fail on, which `serve` warns of "
        "at start (below)"
        if problems
        else "its secrets (and store key) are there, as `serve` reads them"
    )
    checked.env = env_secrets(config, api_name)
    return checked


def env_secrets(config: Config, api_name: str) -> list[str]:
    """The environment variables of every `env:` secret that serving `api_name` of `config` reads."""
    served = dataclasses.replace(config, apis={api_name: config.apis[api_name]})
    names: dict[str, None] = {}
    for secret in _secrets(served):
        kind, _, name = secret.reference.partition(":")
        if kind == "env":
            names[name] = None
    return list(names)


def _secrets(value: Any) -> Iterator[Secret]:
    if isinstance(value, Secret):
        yield value
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        for part in dataclasses.fields(value):
            yield from _secrets(getattr(value, part.name))
    elif isinstance(value, Mapping):
        for item in value.values():
            yield from _secrets(item)
    elif isinstance(value, tuple | list):
        for item in value:
            yield from _secrets(item)
