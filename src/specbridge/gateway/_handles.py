"""How long the handles a tool hands out last, said in the description of the tool that makes them (as
it is served): a kept answer's `file_id` (`files.ttl`), an approval's id (`approvals.expire`), and the
call and approval ids `get_call_result` takes (`idempotency.ttl`, the time a long call's result is kept).
A model that is told a handle's lifetime does not hold on to one that has gone."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..config import ApiConfig
from ..tools import Tool

_TEXT = ("text/", "application/xml", "application/javascript", "application/x-www-form-urlencoded")


def duration(seconds: float) -> str:
    """`seconds` as a person says it: 90 s, 15 min, 24 h, 7 days."""
    for unit, size in (("days", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size and seconds % size == 0:
            count = int(seconds // size)
            return f"{count} {'day' if unit == 'days' and count == 1 else unit}"
    return f"{seconds:g} s"


def answers_binary(tool: Tool) -> bool:
    """Whether a success of the tool may be bytes the gateway keeps as a file (not JSON, not text)."""
    for response in tool.operation.responses:
        if not response.status.startswith("2"):
            continue
        for media in response.content:
            kind = media.content_type.lower().split(";")[0].strip()
            json = kind == "application/json" or kind.endswith("+json")
            if (
                kind
                and not json
                and not kind.startswith(_TEXT)
                and not kind.endswith(("+xml", "+yaml", "yaml"))
            ):
                return True
    return False


def with_lifetimes(entry: dict[str, Any], tool: Tool, api: ApiConfig, files_ttl: float) -> dict[str, Any]:
    """The served entry of `tool`, its description ending with how long the handles it makes last."""
    said: list[str] = []
    settings = api.tool_settings(tool)
    if settings is not None and settings.requires_approval:
        said.append(f"An approval id lasts {duration(api.approvals.expire)} while nobody answers it.")
    if answers_binary(tool):
        said.append(f"A binary answer is kept as a file whose file_id lasts {duration(files_ttl)}.")
    if said:
        entry["description"] = f"{entry.get('description') or ''}\n\n{' '.join(said)}".lstrip()
    return entry


def get_call_result_lifetime(entry: Mapping[str, Any], api: ApiConfig) -> dict[str, Any]:
    """`get_call_result`'s entry, saying how long the ids it takes last."""
    said = f" A call id lasts {duration(api.idempotency.ttl)} from its call (idempotency.ttl)."
    return {**entry, "description": str(entry.get("description", "")) + said}
