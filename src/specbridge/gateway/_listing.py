"""One caller's `tools/list`: the tools of the API it may use (`service.ToolRules`: its client's
`tools.<api>` and its token's scopes), each as it sees it (its bindings left out of the schemas), or
search mode's two tools telling of those only; then `get_call_result` where long calls are on.

A listing is kept in the API's state per `ToolRules` (which name the client, whose bindings shape the
schemas, and the tools the token's scopes give), in a bounded cache: tokens with other scopes get
other listings, and no set of scopes can grow the cache past its bound.
"""

from __future__ import annotations

import mcp_types as types

from .._json import dumps
from ..access import Identity
from ..config import ClientConfig
from ..service import GET_CALL_RESULT, ToolRules, get_call_result_tool, offers_approval_results, tool_rules
from ._gateway import ApiState
from ._mcp import tool_entry

Listing = tuple[list[types.Tool], list[int]]  # the tools, and each one's size in bytes


def rules_of(state: ApiState, client: ClientConfig | None, identity: Identity | None) -> ToolRules:
    token = identity.token if identity is not None else None
    return tool_rules(state.api, client, token.scopes if token is not None else None)


def listing(state: ApiState, client: ClientConfig | None, rules: ToolRules) -> Listing:
    """This caller's tools and each one's size in bytes (made once per rules, then kept)."""
    if state.search is not None:
        state.search.warm()  # its index, in the background: the first search need not build it
    cached: Listing | None = state.listings.get(rules)
    if cached is not None:
        return cached
    bindings = client.bindings.get(state.api.name) if client is not None else None
    entries = (
        state.code.tools(rules)  # code mode: `search` and `execute`, nothing else (codemode/)
        if state.code is not None
        else state.search.tools(rules)
        if state.search is not None
        else [tool_entry(state.caller, tool, bindings) for tool in state.toolset.tools if rules.allows(tool)]
    )
    if offers_results(state) and state.code is None:
        entries = [*entries, get_call_result_tool()]
    made = ([types.Tool.model_validate(entry) for entry in entries], [len(dumps(entry)) for entry in entries])
    state.listings.put(rules, made)
    return made


def offers_results(state: ApiState) -> bool:
    """`get_call_result` is listed where long calls are on, or approved calls are sent by the gateway
    (`approvals.send: on_answer`), and the document has no tool of that name."""
    later = state.api.calls.long or offers_approval_results(state.api)
    return later and state.toolset.get(GET_CALL_RESULT) is None
