"""Two steps of a call: the arguments checked once (before the ledger's look-up), and everything the
request needs resolved (after it, only for a call that will be sent or newly asked of a person). Each
ends in a value: the next step's input, or a result that says why nothing was sent.

    checked = await check(planned)                # once; large arguments in the check worker
    ready = await resolve(checked, files, grants)  # files, bindings, the credential
"""

from __future__ import annotations

from typing import Any

from .._errors import CallError, ErrorCode
from ..call import CallResult, Credential
from ..files import Files, file_references
from ..grants import Grants
from ..store import StoreError
from ._request import Checked, Planned, Ready
from ._results import store_unavailable

Json = Any


async def check(planned: Planned, key_name: str | None = None) -> Checked | CallResult:
    """The arguments against the plan's schema (a file reference stands in as empty text, as the
    document's schema has it; `fields`, the gateway's own argument, is taken out first), its bindings
    applied; `Caller.check` checks large ones in the check worker, never on the event loop. `key_name`:
    the key's store name, for a call made again from its approval (the agent's own key is not kept)."""
    request = planned.request
    try:
        selection, arguments = request.caller.split_fields(planned.plan, planned.arguments)
        arguments, refs = file_references(request.tool, arguments)
        checked = await request.caller.check(planned.plan, arguments)
    except CallError as error:
        return CallResult(error.message, is_error=True, code=error.code)
    return Checked(planned, checked, refs, selection, key_name)


async def credential(planned: Planned, grants: Grants | None) -> Credential | CallResult | None:
    """The credential this call sends: the API's, or the client's own secret by id (raises CallError
    for an unknown id or an unreadable secret). OAuth tokens toward the API (PRODUCT §5.2: `oauth2_*`
    types) are had here, from the store or the token endpoint (`grants/`): before the claim, so a
    token that cannot be had (`upstream-auth-failed`), or a client's account not connected yet
    (`account-not-connected`, with the connect link), is a refusal, never an outcome unknown."""
    request = planned.request
    if request.api.auth.grant is not None:
        if grants is None:  # a caller of this step alone that has no use for OAuth tokens
            raise CallError(
                "this API's token is fetched by the gateway; nothing was sent",
                code=ErrorCode.SECRET_UNAVAILABLE,
            )
        return await grants.credential(request.api, request.client_id, request.identity)
    return request.caller.credential(request.secret_id)


async def resolve(checked: Checked, files: Files, grants: Grants | None = None) -> Ready | CallResult:
    """The files' bytes (the caller's own files only), the derived idempotency key bound in, the
    caller's credential had. The request is built from them right before it is sent (`_once.send`): a
    value that cannot be sent there (a header value, say) is refused naming the field, and nothing is
    sent. Only a call the ledger found new, or approved for this call to send, comes here: a call that
    attaches to an approval, a running call or a stored result never needs a file, a token or an
    account."""
    planned = checked.planned
    request = planned.request
    try:
        attachments = await files.read(request.owner, checked.references) if checked.references else None
        bound_arguments = request.caller.bind(request.tool, checked.arguments, planned.key_binding)
        secret = await credential(planned, grants)
    except CallError as error:
        return CallResult(error.message, is_error=True, code=error.code)
    except StoreError as error:
        return store_unavailable(error)
    if isinstance(secret, CallResult):
        return secret
    return Ready(checked, bound_arguments, secret, attachments)
