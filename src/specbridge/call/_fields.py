"""The `fields` argument as a tool carries it: which tools take it (`answers.select`), its schema, and the
split that takes it out of a call's arguments before the check and the request (it is never sent).

`answer_tools` gives an API's tools as a model sees them: a tool that takes `fields` has it in its input
schema, and no `outputSchema` (a selected or shortened answer is not the object such a schema promises,
and MCP clients reject a success without it). The gateway and `specbridge tools --config` both use it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ..config import AnswersConfig, ApiConfig, ToolConfig
from ..tools import Tool, ToolSet, with_approval_note
from ._select import MAX_PATHS, Selection, parse_fields

Json = Any
FIELDS = "fields"
FIELDS_SCHEMA: dict[str, Json] = {
    "type": "array",
    "items": {"type": "string"},
    "maxItems": MAX_PATHS,
    "description": (
        "Only these parts of the JSON answer, as paths with * for every item of a list, e.g. "
        '["data/*/id", "data/*/name"]; leave out to get the whole answer.'
    ),
}


def answers_of(api: ApiConfig, tool: Tool, settings: ToolConfig | None = None) -> AnswersConfig:
    """`tools.<name>.answers` (the API's with the tool's keys on top), else the API's `answers`;
    `settings`: the tool's, when the caller has read them already."""
    settings = settings if settings is not None else api.tool_settings(tool)
    return settings.answers if settings is not None and settings.answers is not None else api.answers


def answers_json(tool: Tool) -> bool:
    """Whether the operation documents a JSON success answer."""
    for response in tool.operation.responses:
        if not (response.status.startswith("2") or response.status == "default"):
            continue
        for media in response.content:
            kind = media.content_type.split(";")[0].strip().lower()
            if kind == "application/json" or kind.endswith("+json"):
                return True
    return False


def takes_fields(tool: Tool, answers: AnswersConfig) -> bool:
    """`answers.select` is on, the answer is JSON, and the operation has no `fields` argument of its own
    (then that one is the API's own selection, and it is sent)."""
    return answers.select and answers_json(tool) and tool.argument(FIELDS) is None


def with_fields(schema: Mapping[str, Json]) -> dict[str, Json]:
    """`schema` (an input schema) with the optional `fields` argument."""
    out = dict(schema)
    properties = out.get("properties")
    out["properties"] = {**(properties if isinstance(properties, dict) else {}), FIELDS: dict(FIELDS_SCHEMA)}
    return out


def split_fields(arguments: Mapping[str, Json]) -> tuple[Selection | None, Mapping[str, Json]]:
    """This call's selection (raises ArgumentError for a bad one) and the arguments without `fields`."""
    if not isinstance(arguments, Mapping) or FIELDS not in arguments:
        return None, arguments
    selection = parse_fields(arguments[FIELDS])
    return selection, {name: value for name, value in arguments.items() if name != FIELDS}


def answer_tools(api: ApiConfig | None, toolset: ToolSet) -> ToolSet:
    """The API's tools as a model is handed them: `fields` on those that take it, without outputSchema;
    a tool a person approves (`requires_approval`) says so in its description's last sentence."""
    if api is None:
        return toolset
    changed = False
    tools: list[Tool] = []
    for tool in toolset.tools:
        settings = api.tool_settings(tool)
        if takes_fields(tool, answers_of(api, tool, settings)):
            tool = replace(
                tool, input_schema=with_fields(tool.input_schema), output_schema=None, answer_schema=None
            )
            changed = True
        if settings is not None and settings.requires_approval:
            tool = replace(tool, description=with_approval_note(tool.description))
            changed = True
        tools.append(tool)
    return replace(toolset, tools=tuple(tools)) if changed else toolset
