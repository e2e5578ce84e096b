"""Headers no argument may set: the gateway owns them (credentials, framing, tracing, our own)."""

from __future__ import annotations

FORBIDDEN_HEADERS = frozenset(
    {
        "authorization",
        "proxy-authorization",
        "cookie",
        "set-cookie",
        "host",
        "content-length",
        "content-type",
        "accept",
        "accept-encoding",
        "connection",
        "transfer-encoding",
        "x-api-key",
        "api-key",
        "x-forwarded-for",
        "forwarded",
        "x-request-id",
        "traceparent",
        "tracestate",
        "user-agent",
        "x-real-ip",
        "x-payment",
    }
)
FORBIDDEN_HEADER_PREFIXES = ("x-specbridge-", "x-agentify-", "mcp-", "payment-")


def is_forbidden_header(name: str, credential_names: frozenset[str] = frozenset()) -> bool:
    lowered = name.strip().lower()
    return (
        lowered in FORBIDDEN_HEADERS
        or lowered in credential_names
        or lowered.startswith(FORBIDDEN_HEADER_PREFIXES)
    )


# Gateway-owned headers a document may still fix to one value (a versioned `Accept`, a `Content-Type`):
# the gateway sends the document's value. Credentials, Host, framing and our own never take one.
FIXABLE_HEADERS = frozenset({"accept", "content-type", "accept-encoding"})
