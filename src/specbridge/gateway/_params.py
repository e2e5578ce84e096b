"""Malformed request params (the SDK's pydantic check failed) as JSON-RPC -32602 naming what was wrong.

The message names each wrong field and the shape it should have, never the value that was sent.
"""

from __future__ import annotations

import mcp_types as types
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

from .._errors import ErrorCode

_SHOWN = 5  # fields named in one message
_SHAPES = {
    "missing": "is required",
    "dict_type": "must be an object",
    "model_type": "must be an object",
    "model_attributes_type": "must be an object",
    "string_type": "must be a string",
    "int_type": "must be an integer",
    "int_parsing": "must be an integer",
    "float_type": "must be a number",
    "bool_type": "must be true or false",
    "list_type": "must be an array",
    "literal_error": "must be one of the values MCP defines",
    "union_tag_invalid": "must be one of the values MCP defines",
    "extra_forbidden": "is not a field of this request",
}


def about_params(error: ValidationError) -> bool:
    """Whether the error is the SDK's check of an incoming request (the whole request, or its params),
    not a model our own code built badly (a Tool, a result: those are faults of the gateway)."""
    return error.title.endswith(("Request", "Params"))


def invalid_params(error: ValidationError) -> MCPError:
    problems: list[str] = []
    for detail in error.errors(include_input=False, include_url=False):
        loc = [str(part) for part in detail["loc"]]
        if error.title.endswith("Request") and loc[:1] == ["params"]:
            loc = loc[1:]  # the whole request was checked: its `params` is our prefix already
        where = ".".join(["params", *loc])
        problem = f"{where}: {_SHAPES.get(detail['type'], 'does not have the shape MCP defines')}"
        if problem not in problems:
            problems.append(problem)
    shown = "; ".join(problems[:_SHOWN]) or "params: do not have the shape MCP defines"
    more = f" (and {len(problems) - _SHOWN} more)" if len(problems) > _SHOWN else ""
    return MCPError(
        types.INVALID_PARAMS, f"invalid params: {shown}{more}", data={"code": str(ErrorCode.PARAMS_INVALID)}
    )
