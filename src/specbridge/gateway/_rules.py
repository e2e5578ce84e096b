"""The access rules a config brings to a gateway, applied when it is served (at start, on every reload):
every tool name its rules give checked against the tools the APIs serve (`config.check_access_names`),
and the audit log pointed where `audit.path` says. A config that fails either is not served."""

from __future__ import annotations

from collections.abc import Mapping

from .._audit import audit_to
from .._errors import SpecbridgeError
from ..config import Config, check_access_names
from ..tools import ToolSet


def apply_rules(config: Config, toolsets: Mapping[str, ToolSet]) -> SpecbridgeError | None:
    """None once `config`'s rules hold for the APIs' `toolsets` and its audit log is open; else why not."""
    try:
        check_access_names(config, toolsets)
        audit_to(config.audit.path)
    except SpecbridgeError as error:
        return error
    return None
