"""The calls of one API that all fail for one cause, said once: a credential that cannot be had
(`secret-unavailable`: an `env:` variable unset, a short `store_key`; `upstream-auth-failed`: the token
endpoint refuses the gateway) or no base URL (`base-url-missing`). Each call still gets its error result
and its `tool called` line (info); the first of a kind, per client, is also one warning with what
fixes it, and the first call sent after it one info line that it recovered (`_logging.Outage`)."""

from __future__ import annotations

from typing import Any

from .._errors import ErrorCode
from .._logging import Outage
from ..call import CallResult, readiness

FIXES = {
    ErrorCode.SECRET_UNAVAILABLE: "every call of this API (for this client) fails until the secret is "
    "there: set the variable or file the reason names (a store_key of 32 characters or more), then "
    "call again; no restart is needed",
    ErrorCode.UPSTREAM_AUTH_FAILED: "every call of this API fails until its token endpoint gives the "
    "gateway a token: check `auth.token_url`, `client_id` and the secret or refresh token",
    ErrorCode.BASE_URL_MISSING: "every call of this API fails until it has a base URL: set `base_url` "
    "(and `egress.allow` for a host that is not public) and reload",
}


class CallOutages:
    """The outages of one API's calls, by (client, code)."""

    def __init__(self, api: str) -> None:
        self.api = api
        self._outages: dict[tuple[str | None, ErrorCode], Outage] = {}

    def after(self, client: str | None, result: CallResult, state: Any) -> None:
        """Record one call's result (on `state`, the API's `ApiState`): a breaking error, or a call that
        was sent (which ends them)."""
        code = result.code if result.is_error else None
        if code in FIXES:
            assert code is not None
            outage = self._outages.get((client, code))
            if outage is None:
                outage = self._outages[client, code] = Outage(
                    "calls of an API fail", fix=FIXES[code], recovered="calls of an API go through again"
                )
            outage.failed(api=self.api, client=client, code=str(code), reason=_reason(result, state, outage))
        elif result.status is not None and self._outages:  # sent: the credential and base URL were had
            for (owner, kind), outage in self._outages.items():
                if owner == client:
                    outage.recovered(api=self.api, client=client, code=str(kind))


def _reason(result: CallResult, state: Any, outage: Outage) -> str:
    """What the agent was told; for the warning, what start-up readiness finds now (which variable or
    file, a store key too short), which the agent is not told."""
    if outage.since is not None:  # a repeat (debug): the agent's words are enough
        return result.text[:500]
    found = readiness(state.api, state.caller.base_url, state.toolset.document.servers)
    return "; ".join(problem.message for problem in found) or result.text[:500]
