"""What a config reload changed, said once in the log (`config reloaded`, with the keys) and counted
(`specbridge_reloads_total{api="*config*",outcome="ok"}`), whatever it changed: a reload that changes
only `limits`, `admins` or `approvals` rebuilds no API, yet it is a reload. What a reload does not
apply (it is read at start) is one warning saying so (`config reloaded in part`)."""

from __future__ import annotations

import dataclasses
import logging

from .._logging import log_event
from ..config import Config
from ._metrics import Metrics

# Config fields by the key they are written under (`rate_limits` is `limits.per_client/per_tool`).
_KEYS = {"rate_limits": "limits.per_client/per_tool", "limits": "limits"}
# What the gateway reads once, at start, and why a reload leaves it.
AT_START = {
    "limits": "limits (max_bytes, max_items, max_nodes, max_string, max_depth, sessions_per_client) "
    "apply from the next start (per_client and per_tool apply now)",
    "store": "the store opens at start: a new `store` applies from the next start",
    "sessions": "`sessions` applies from the next start",
}


def config_changes(old: Config, new: Config) -> list[str]:
    """The config keys whose values differ (`apis.<name>` for an API), in the config's order."""
    changed: list[str] = []
    for field in dataclasses.fields(Config):
        if field.name == "source":
            continue
        before, after = getattr(old, field.name), getattr(new, field.name)
        if before == after:
            continue
        if field.name == "apis":
            names = [*before, *(name for name in after if name not in before)]
            changed += [f"apis.{name}" for name in names if before.get(name) != after.get(name)]
        else:
            changed.append(_KEYS.get(field.name, field.name))
    return changed


def said_reloaded(old: Config, new: Config, apis: list[str], metrics: Metrics) -> None:
    """One line for a config reload that changed anything (`apis`: the APIs rebuilt), and its count."""
    changed = config_changes(old, new)
    if not changed:
        return  # a document reload alone: each API rebuilt said `api reloaded`
    metrics.reload("*config*", "ok")
    log_event("config reloaded", changed=changed, apis=apis)
    later = [why for key, why in AT_START.items() if key in changed]
    if later:
        log_event("config reloaded in part", level=logging.WARNING, reason="; ".join(later))
