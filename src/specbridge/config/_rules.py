"""The access rules of PRODUCT §5.2 as frozen settings (read by `_access`): which tools a client may use,
how often, and where the audit log goes.

```yaml
limits: {per_client: 600/minute, per_tool: {refundOrder: 10/hour}}   # also apis.<name>.limits
clients:
  support-bot:
    tools: {orders: {allow: [get*, listOrders], deny: [deleteOrder]}}
    limits: {per_client: 6000/minute}
apis:
  orders:
    oauth: {issuer: https://auth.example.com, scopes: {orders:read: ["get*", "list*"]}}
audit: {path: ./audit.jsonl}                                           # or stderr
```
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

PERIODS = {"second": 1.0, "minute": 60.0, "hour": 3600.0, "day": 86400.0}
_UNITS = {"s": 1.0, "m": 60.0, "h": 3600.0, "d": 86400.0}
# `600/minute`, `10/hour`, `5/second`, `1000/day`, `100/15m`: what the schema's `rate` accepts.
RATE = re.compile(r"\s*([1-9][0-9]{0,8})\s*/\s*(second|minute|hour|day|[0-9]+(?:\.[0-9]+)?\s*[smhd])\s*")


@dataclass(frozen=True, slots=True)
class Rate:
    """At most `calls` calls in any `window` seconds (a sliding window: any stretch of that length,
    not a calendar minute). `text` is how the config wrote it, for messages."""

    calls: int
    window: float
    text: str

    def __str__(self) -> str:
        return self.text


def parse_rate(text: str) -> Rate:
    """A rate as the schema accepts it; ValueError for anything else (or a window of 0 seconds)."""
    found = RATE.fullmatch(text)
    if found is None:
        raise ValueError(f"not a rate: {text!r}")
    period = found.group(2).replace(" ", "")
    window = PERIODS.get(period) or float(period[:-1]) * _UNITS[period[-1]]
    if window <= 0:
        raise ValueError(f"not a rate over more than 0 seconds: {text!r}")
    return Rate(int(found.group(1)), window, f"{int(found.group(1))}/{period}")


@dataclass(frozen=True, slots=True)
class RateLimits:
    """`limits.per_client` and `limits.per_tool` of one place (the top level, `apis.<name>.limits` or
    `clients.<id>.limits`), as written there; a call meets the nearest place that sets each (the
    client's, then the API's, then the top level's). Every limit counts one caller's calls on one API."""

    per_client: Rate | None = None
    per_tool: Mapping[str, Rate] = field(default_factory=dict)  # by a `tools.<name>` key of the tool

    def __bool__(self) -> bool:
        return self.per_client is not None or bool(self.per_tool)


@dataclass(frozen=True, slots=True)
class ToolAccess:
    """`clients.<id>.tools.<api>`: the tools of that API the client may list and call. `allow`: names or
    glob patterns (`get*`), None for every tool; `deny`: taken out of what `allow` leaves."""

    allow: tuple[str, ...] | None = None
    deny: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class AuditConfig:
    """`audit:`: where the audit log's JSON lines go: an absolute file path (made from the config's
    folder), `stderr`, or None (no audit log)."""

    path: str | None = None
