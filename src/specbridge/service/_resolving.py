"""Steps 2-4 of a call: the arguments checked once, then everything the request needs resolved, and the
call's one fingerprint. Each step ends in a value: the next step's input, or a result that says why
nothing was sent.

    checked = await check(planned)                 # 2: once; large arguments in the check worker
    ready = await resolve(planned, checked, files, grants)  # 3: files, bindings, the credential
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._errors import CallError, ErrorCode
from ..call import CallResult, Credential, Selection
from ..files import Files, file_references
from ..grants import Grants
from ..store import StoreError
from ._request import Planned, Ready
from ._results import store_unavailable

Json = Any
# the arguments checked, the file references, the call's `fields` selection (the gateway's argument)
Checked = tuple[dict[str, Json], dict[str, Mapping[str, Json]], Selection | None]


async def check(planned: Planned) -> Checked | CallResult:
    """Step 2: the arguments against the plan's schema (a file reference stands in as empty text, as
    the document's schema has it; `fields`, the gateway's own argument, is taken out first), its
    bindings applied; `Caller.check` checks large ones in the check worker, never on the event loop."""
    request = planned.request
    try:
        selection, arguments = request.caller.split_fields(planned.plan, planned.arguments)
        arguments, refs = file_references(request.tool, arguments)
        return await request.caller.check(planned.plan, arguments), refs, selection
    except CallError as error:
        return CallResult(error.message, is_error=True, code=error.code)


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


async def resolve(
    planned: Planned, checked: Checked, files: Files, grants: Grants | None = None
) -> Ready | CallResult:
    """Step 3: the files' bytes (the caller's own files only), the derived idempotency key bound in,
    the caller's credential had; the call's fingerprint (step 4) follows from them. The request is built
    from them right before it is sent (`_once.send`): a value that cannot be sent there (a header value,
    say) is refused naming the field, and nothing is sent."""
    request = planned.request
    caller, plan = request.caller, planned.plan
    arguments, refs, selection = checked
    try:
        attachments = await files.read(request.owner, refs) if refs else None
        bound_arguments = caller.bind(request.tool, arguments, planned.key_binding)
        secret = await credential(planned, grants)
    except CallError as error:
        return CallResult(error.message, is_error=True, code=error.code)
    except StoreError as error:
        return store_unavailable(error)
    if isinstance(secret, CallResult):
        return secret
    bound = {**plan.binding_values, **planned.key_binding}
    return Ready(planned, bound_arguments, secret, attachments, bound, selection)
