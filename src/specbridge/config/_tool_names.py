"""`apis.<api>.tools.<name>` must name a tool: a typo would silently leave a tool unguarded. And
`api_toolset`, the one way from an API's document to its tools (`lint`, `tools`, `call`, `serve`)."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from .._errors import ConfigError
from ..document import ApiDocument
from ..tools import ToolSet, base_name, convert
from ._document import api_document
from ._model import ApiConfig
from ._schema import closest, key_path


def tool_keys(toolset: ToolSet) -> set[str]:
    """Every key a `tools.<name>` entry may use for this toolset: each tool's derived and final name and
    operationId, tools the config disabled, and deprecated operations that were left out."""
    keys = set(toolset.disabled)
    for tool in toolset.tools:
        keys.update((tool.default_name, tool.name, tool.operation.operation_id or ""))
    for operation in toolset.skipped_deprecated:
        keys.update((base_name(operation), operation.operation_id or ""))
    keys.discard("")
    return keys


def check_tool_names(api: ApiConfig | None, toolset: ToolSet) -> ToolSet:
    """`toolset`, once every `tools.<name>` of `api` names one of its tools; otherwise a ConfigError on
    that key naming the closest tool. Returns the toolset so a call site can wrap `convert(...)`."""
    if api is None or not api.tools:
        return toolset
    known = tool_keys(toolset)
    for name in api.tools:
        if name not in known:
            at = ["apis", api.name, "tools", name]
            raise no_such_tool(name, known, api.source, at, "of this API", "a setting")
    return toolset


def no_such_tool(
    name: str, known: Collection[str], source: str, at: Sequence[str | int], where: str, what: str
) -> ConfigError:
    """The error of a key `at` whose tool `name` is none of `known` (`where`: of which API), naming the
    closest: `what` (a setting, a rule) for a tool that does not exist would be ignored."""
    guess = closest(name, known)
    hint = f"did you mean `{guess}`?" if guess else "see `specbridge tools` for the names"
    return ConfigError(
        f"names no tool {where} ({hint}); {what} for a tool that does not exist would be ignored",
        source=source,
        key=key_path(at),
    )


def api_toolset(api: ApiConfig, document: ApiDocument | None = None) -> ToolSet:
    """The tools of `api`'s document (`api_document`, or `document` read apart) converted under its
    settings, once every `tools.<name>` of it names one of them."""
    return check_tool_names(
        api, convert(api_document(api) if document is None else document, api.convert_options())
    )
