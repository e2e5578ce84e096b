"""`toolsets:`: one MCP endpoint composed of tools picked from several APIs, each optionally renamed,
re-titled and re-described. Read here, after the APIs: what a clash is can be told from the config
alone (a tool is picked by its name as its API serves it, and served as `name`, else that name), so a
clash is refused at load (`toolset-clash`), never found later. Whether each picked tool exists is
known once its API's document is read (`check_toolset_tools`, where the APIs are converted)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Literal

from .._errors import ConfigError, ErrorCode
from ..tools import ToolSet, portable_name
from ._code import CodeModeConfig
from ._schema import closest, key_path

if TYPE_CHECKING:
    from ._model import Config

# The gateway's own tools: search mode's two and long calls' `get_call_result`.
RESERVED = frozenset({"search_tools", "call_tool", "get_call_result"})
_MCP_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,128}$")
Fail = Callable[[list[str | int], str], ConfigError]


@dataclass(frozen=True, slots=True)
class ToolsetTool:
    """One tool of a toolset: `tool` of API `api` (as that API serves it), served as `name`."""

    api: str
    tool: str
    name: str
    title: str | None = None
    description: str | None = None


@dataclass(frozen=True, slots=True)
class ToolsetConfig:
    """`toolsets.<name>`: served at /<name>/mcp. Every per-API rule (credentials, approvals, limits,
    access, bindings) stays its API's: a call of one of its tools is a call of that API's tool, in code
    mode too (`code_mode`: a script's call of a function is a call of the picked tool)."""

    name: str
    tools: tuple[ToolsetTool, ...]
    title: str | None = None
    search: Literal["on", "off", "auto"] = "auto"
    code_mode: CodeModeConfig = field(default_factory=CodeModeConfig)  # read with the APIs' (`_code`)

    @property
    def apis(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(tool.api for tool in self.tools))


def read_toolsets(top: Mapping[str, Any], config: Config, fail: Fail) -> Config:
    """The config with its `toolsets:`; a toolset named like an API, or two tools served under one name
    (or one portable name), is refused with `toolset-clash`."""
    found: dict[str, ToolsetConfig] = {}
    for name, raw in (top.get("toolsets") or {}).items():
        key: list[str | int] = ["toolsets", name]
        if name in config.apis:
            raise _clash(config, key, "is also an API's name; each is served at /<name>/mcp, so rename one")
        tools: list[ToolsetTool] = []
        served: dict[str, int] = {}
        portable: dict[str, str] = {}
        for index, item in enumerate(raw.get("tools") or []):
            where: list[str | int] = [*key, "tools", index]
            if item["api"] not in config.apis:
                known = ", ".join(config.apis) or "there are none"
                raise fail([*where, "api"], f"names {item['api']!r}, which is not under `apis` ({known})")
            picked = ToolsetTool(
                api=item["api"],
                tool=item["tool"],
                name=item.get("name") or item["tool"],
                title=item.get("title"),
                description=item.get("description"),
            )
            if not _MCP_NAME.match(picked.name):
                raise fail([*where, "name"], "must be 1 to 128 of `A-Z a-z 0-9 _ . -` (an MCP tool name)")
            if picked.name in RESERVED:
                raise _clash(
                    config, where, f"serves {picked.name!r}, the name of one of the gateway's own tools"
                )
            if picked.name in served:
                raise _clash(
                    config,
                    where,
                    f"serves {picked.name!r}, as {key_path([*key, 'tools', served[picked.name]])} does; "
                    "give one of them another `name`",
                )
            other = portable.get(portable_name(picked.name))
            if other is not None:
                raise _clash(
                    config,
                    where,
                    f"serves {picked.name!r}, which OpenAI and Anthropic would see as {other!r}'s name "
                    f"({portable_name(picked.name)!r}); give one of them another `name`",
                )
            served[picked.name] = index
            portable[portable_name(picked.name)] = picked.name
            tools.append(picked)
        found[name] = ToolsetConfig(name, tuple(tools), raw.get("title"), raw.get("search") or "auto")
    return replace(config, toolsets=found)


def _clash(config: Config, key: list[str | int], message: str) -> ConfigError:
    return ConfigError(message, source=config.source, key=key_path(key), code=ErrorCode.TOOLSET_CLASH)


def check_toolset_tools(config: Config, toolset: ToolsetConfig, served: Mapping[str, ToolSet]) -> None:
    """Every tool a toolset picks is served by its API (`served`: each API's tools as served)."""
    for index, picked in enumerate(toolset.tools):
        tools = served.get(picked.api)
        if tools is not None and tools.get(picked.tool) is None:
            guess = closest(picked.tool, [tool.name for tool in tools.tools])
            hint = f"did you mean `{guess}`?" if guess else "see `specbridge tools` for the names"
            raise ConfigError(
                f"names no tool of API {picked.api!r}; {hint}",
                source=config.source,
                key=key_path(["toolsets", toolset.name, "tools", index, "tool"]),
            )
