"""Step 7's one exception to "sent once": a fetched OAuth token the API refused.

A call whose credential is a token the gateway fetched (`grants.Fetched`) and whose answer is 401 had
its request refused: nothing of it took effect. The token is then had anew, once (`Fetched.renew`: by
one caller and one instance at a time, so many calls refused together fetch one token), and the call
is built with it and sent once more. A second 401, or no other token to be had, is the call's result
as the API gave it.
"""

from __future__ import annotations

from .._errors import CallError
from ..call import CallResult, Outgoing
from ..grants import Fetched
from ._request import Ready

UNAUTHORIZED = 401


async def sent(ready: Ready, outgoing: Outgoing) -> CallResult:
    """`outgoing` sent (`Caller.send`), and once more with a new token when the API refused the one the
    gateway fetched."""
    caller, planned = ready.request.caller, ready.planned
    result = await caller.send(outgoing)
    credential = ready.credential
    if result.status != UNAUTHORIZED or not isinstance(credential, Fetched) or credential.renew is None:
        return result
    fresh = await credential.renew()
    if fresh is None:
        return result
    try:
        again = caller.build(
            planned.plan,
            ready.arguments,
            fresh,
            ready.attachments,
            selection=ready.selection,
            also_bound=tuple(planned.key_binding.values()),
        )
    except CallError:  # it was built once with these arguments: only the credential changed
        return result
    return await caller.send(again)
