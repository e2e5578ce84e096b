"""One caller's `tools/list`: the tools of the API it may use (`service.ToolRules`: its client's
`tools.<api>` and its token's scopes), each as it sees it (its bindings left out of the schemas), or
search mode's two tools telling of those only; then `get_call_result` where long calls are on.

A listing is kept in the API's state per `ToolRules` (which name the client, whose bindings shape the
schemas, and the tools the token's scopes give), in a bounded cache: tokens with other scopes get
other listings, and no set of scopes can grow the cache past its bound.

Cache hints (MCP 2026-07-28, SEP-2549): a listing may be kept by the client for `LIST_TTL_MS`; it is
`private` where it can differ between callers (a client's bindings or tool rules for this API, scopes
that give tools), else `public`. A reload still tells listening clients at once (`listChanged`).
"""

from __future__ import annotations

import base64
import binascii
from typing import Literal

import mcp_types as types
from mcp.shared.exceptions import MCPError

from .._errors import ErrorCode
from .._json import dumps
from ..access import Identity
from ..codemode import ApiReach
from ..config import ClientConfig, Config, FilesConfig
from ..service import GET_CALL_RESULT, ToolRules, get_call_result_tool, offers_approval_results, tool_rules
from ._gateway import ApiState
from ._handles import get_call_result_lifetime, with_lifetimes
from ._mcp import tool_entry

Listing = tuple[list[types.Tool], list[int]]  # the tools, and each one's size in bytes
DEFAULT_FILES_TTL = FilesConfig().ttl
LIST_TTL_MS = 300_000  # how long a client may keep a listing (a reload tells listening clients at once)


def rules_of(state: ApiState, client: ClientConfig | None, identity: Identity | None) -> ToolRules:
    token = identity.token if identity is not None else None
    return tool_rules(state.api, client, token.scopes if token is not None else None)


def api_reach(state: ApiState, rules: ToolRules) -> ApiReach:
    """What a caller with `rules` reaches of the API's code mode: its own tools, under those rules."""
    return ApiReach(state.api, state.caller, rules)


def listing(
    state: ApiState,
    client: ClientConfig | None,
    rules: ToolRules,
    *,
    modern: bool = False,
    files_ttl: float = DEFAULT_FILES_TTL,
) -> Listing:
    """This caller's tools and each one's size in bytes (made once per rules, era and files' lifetime,
    then kept); `modern`: for a 2026-07-28 client, whose tools may declare a list's `outputSchema` too.
    Each description ends with how long the handles its tool makes last (`_handles`)."""
    key = (rules, modern, files_ttl)
    cached: Listing | None = state.listings.get(key)
    if state.search is not None:
        state.search.warm()  # its index, in the background: the first search need not build it
    if cached is not None:
        return cached
    api, bindings = state.api, client.bindings.get(state.api.name) if client is not None else None
    entries = (
        state.code.tools(api_reach(state, rules))  # code mode: `search` and `execute` only (codemode/)
        if state.code is not None
        else state.search.tools(rules)
        if state.search is not None
        else [
            with_lifetimes(tool_entry(state.caller, tool, bindings, modern=modern), tool, api, files_ttl)
            for tool in state.toolset.tools
            if rules.allows(tool)
        ]
    )
    if offers_results(state) and state.code is None:
        entries = [*entries, get_call_result_lifetime(get_call_result_tool(), api)]
    made = ([types.Tool.model_validate(entry) for entry in entries], [len(dumps(entry)) for entry in entries])
    state.listings.put(key, made)
    return made


def offers_results(state: ApiState) -> bool:
    """`get_call_result` is listed where long calls are on, or approved calls are sent by the gateway
    (`approvals.send: on_answer`), and the document has no tool of that name."""
    later = state.api.calls.long or offers_approval_results(state.api)
    return later and state.toolset.get(GET_CALL_RESULT) is None


def cache_scope(config: Config, state: ApiState) -> Literal["public", "private"]:
    """`private` when two callers of this API may be handed different listings (a client's bindings
    or tool rules for it, scopes that give tools); `public` when every caller gets the same one."""
    name = state.api.name
    if state.api.oauth is not None and state.api.oauth.scopes:
        return "private"
    for client in config.clients.values():
        if name in client.apis and (client.bindings.get(name) or name in client.tools):
            return "private"
    return "public"


def encode_cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(f"o:{offset}".encode()).decode()


def decode_cursor(cursor: str) -> int:
    kind, offset = "", -1
    try:
        kind, _, number = base64.urlsafe_b64decode(cursor.encode()).decode().partition(":")
        offset = int(number)
    except (ValueError, binascii.Error, UnicodeDecodeError):
        pass
    if kind != "o" or offset < 0:
        raise MCPError(
            types.INVALID_PARAMS,
            "invalid cursor; list the tools again from the start",
            data={"code": str(ErrorCode.CURSOR_INVALID)},
        )
    return offset
