"""Reading the access rules (`_rules`): `clients.<id>.tools`, `apis.<name>.oauth.scopes`, `limits.per_client`
and `limits.per_tool` (top level, per API, per client) and `audit`, after the rest of the config
(`read_access`); and, once the APIs' tools are converted, every tool name they give checked
(`check_access_names`): a name or pattern that names no tool is a config error with the closest name, as
for `tools.<name>` (a typo would silently leave a tool open or unlimited)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import replace
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from .._errors import ConfigError
from ..tools import ToolSet
from ._model import ApiConfig, ClientConfig, Config, LimitsConfig
from ._rules import AuditConfig, Rate, RateLimits, ToolAccess, parse_rate
from ._schema import key_path
from ._tool_names import no_such_tool, tool_keys

Fail = Callable[[list[str | int], str], ConfigError]
RATE_KEYS = ("per_client", "per_tool")  # the keys of `limits:` read here (the rest are one call's limits)
GLOB = frozenset("*?[")
STDERR = "stderr"


def is_pattern(name: str) -> bool:
    return not GLOB.isdisjoint(name)


def read_access(top: Mapping[str, Any], config: Config, fail: Fail, base_dir: Path) -> Config:
    """`config` with the access rules of `top` (the config's data, checked by the schema) read in."""
    raw_apis = top.get("apis") or {}
    apis = {name: _api(name, raw_apis.get(name) or {}, api, fail) for name, api in config.apis.items()}
    raw_clients = top.get("clients") or {}
    clients = {
        name: _client(name, raw_clients.get(name) or {}, client, fail)
        for name, client in config.clients.items()
    }
    return replace(
        config,
        apis=apis,
        clients=clients,
        rate_limits=rate_limits(top.get("limits") or {}, ["limits"], fail),
        audit=audit(top.get("audit"), base_dir),
    )


def one_call_limits(raw: Mapping[str, Any]) -> LimitsConfig:
    """`limits:` but for its rates: what one call's arguments may carry, the sessions of one client."""
    return LimitsConfig(**{key: value for key, value in raw.items() if key not in RATE_KEYS})


def rate_limits(raw: Mapping[str, Any], key: list[str | int], fail: Fail) -> RateLimits:
    def rate(text: str, at: list[str | int]) -> Rate:
        try:
            return parse_rate(text)
        except ValueError:
            raise fail(at, "must be a number of calls over more than 0 seconds, e.g. 600/minute") from None

    per_client = raw.get("per_client")
    per_tool = {
        name: rate(text, [*key, "per_tool", name]) for name, text in (raw.get("per_tool") or {}).items()
    }
    return RateLimits(None if per_client is None else rate(per_client, [*key, "per_client"]), per_tool)


def audit(raw: Mapping[str, Any] | None, base_dir: Path) -> AuditConfig:
    if raw is None:
        return AuditConfig()
    path = raw["path"].strip()
    if path == STDERR:
        return AuditConfig(STDERR)
    target = Path(path).expanduser()
    return AuditConfig(str(target if target.is_absolute() else (base_dir / target).resolve()))


def _api(name: str, raw: Mapping[str, Any], api: ApiConfig, fail: Fail) -> ApiConfig:
    limits = rate_limits(raw.get("limits") or {}, ["apis", name, "limits"], fail)
    scopes = (raw.get("oauth") or {}).get("scopes") or {}
    if not scopes or api.oauth is None:
        return replace(api, rate_limits=limits)
    given = {scope: tuple(dict.fromkeys(names or ())) for scope, names in scopes.items()}
    return replace(api, rate_limits=limits, oauth=replace(api.oauth, scopes=given))


def _client(name: str, raw: Mapping[str, Any], client: ClientConfig, fail: Fail) -> ClientConfig:
    key: list[str | int] = ["clients", name]
    tools = {}
    for api, entry in (raw.get("tools") or {}).items():
        if api not in client.apis:
            listed = ", ".join(client.apis) or "none"
            raise fail([*key, "tools", api], f"is not one of this client's `apis` ({listed})")
        entry = entry or {}
        allow = entry.get("allow")
        tools[api] = ToolAccess(
            allow=None if allow is None else tuple(dict.fromkeys(allow)),
            deny=tuple(dict.fromkeys(entry.get("deny") or ())),
        )
    limits = rate_limits(raw.get("limits") or {}, [*key, "limits"], fail)
    return replace(client, tools=tools, rate_limits=limits)


# -- the names, once the tools are known ---------------------------------------------------------------


def check_access_names(config: Config, toolsets: Mapping[str, ToolSet]) -> None:
    """Every tool name and pattern of the access rules names a tool of the APIs it applies to (those in
    `toolsets`; an API not served is not checked): `apis.<name>.oauth.scopes` and `apis.<name>.limits`
    that API's, `clients.<id>.tools.<api>` that API's, `clients.<id>.limits` one of the client's APIs',
    and the top level's `limits.per_tool` one of any API's. A ConfigError on the first that does not."""
    keys = {name: tool_keys(toolset) for name, toolset in toolsets.items()}
    source = config.source
    for name, api in config.apis.items():
        known = keys.get(name)
        if known is None:
            continue
        if api.oauth is not None:
            for scope, patterns in api.oauth.scopes.items():
                for index, pattern in enumerate(patterns):
                    _check(pattern, known, ["apis", name, "oauth", "scopes", scope, index], source)
        for tool in api.rate_limits.per_tool:
            _check(tool, known, ["apis", name, "limits", "per_tool", tool], source, patterns=False)
    for client in config.clients.values():
        for api_name, access in client.tools.items():
            known = keys.get(api_name)
            if known is None:
                continue
            for field, patterns in (("allow", access.allow or ()), ("deny", access.deny)):
                for index, pattern in enumerate(patterns):
                    at: list[str | int] = ["clients", client.id, "tools", api_name, field, index]
                    _check(pattern, known, at, source)
        served = [keys[api] for api in client.apis if api in keys]
        theirs = _union(served)
        for tool in client.rate_limits.per_tool if served else ():
            at = ["clients", client.id, "limits", "per_tool", tool]
            _check(tool, theirs, at, source, patterns=False, where="of this client's APIs")
    every = _union(keys.values())
    for tool in config.rate_limits.per_tool if keys else ():
        _check(tool, every, ["limits", "per_tool", tool], source, patterns=False, where="of any API")


def _union(sets: Iterable[set[str]]) -> set[str]:
    found: set[str] = set()
    for one in sets:
        found |= one
    return found


def _check(
    name: str,
    known: Collection[str],
    at: list[str | int],
    source: str,
    *,
    patterns: bool = True,
    where: str = "of this API",
) -> None:
    if patterns and is_pattern(name):
        if not any(fnmatchcase(tool, name) for tool in known):
            raise ConfigError(
                f"matches no tool {where}; see `specbridge tools` for the names",
                source=source,
                key=key_path(at),
            )
        return
    if name not in known:
        raise no_such_tool(name, known, source, at, where, "a rule")
