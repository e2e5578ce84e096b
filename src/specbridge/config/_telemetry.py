"""`telemetry:` read: an OTLP/HTTP endpoint, headers as secret references, the service's name, the share
of traces sampled and whether metrics are exported (docs/configuration.md, "telemetry")."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .._errors import ConfigError
from ._model import TelemetryConfig
from ._secrets import secret_reference

Fail = Callable[[list[str | int], str], ConfigError]


def read_telemetry(raw: Mapping[str, Any] | None, fail: Fail, base_dir: Path) -> TelemetryConfig:
    if not raw:
        return TelemetryConfig()
    endpoint = raw.get("endpoint")
    if endpoint is not None:
        parts = urlsplit(str(endpoint))
        if parts.scheme not in ("http", "https") or not parts.hostname or parts.query or parts.fragment:
            raise fail(
                ["telemetry", "endpoint"], "must be an OTLP/HTTP base URL such as http://127.0.0.1:4318"
            )
    headers = {
        str(name): secret_reference(str(value), base_dir)
        for name, value in (raw.get("headers") or {}).items()
    }
    return TelemetryConfig(
        endpoint=endpoint,
        headers=headers,
        service_name=raw.get("service_name"),
        sample=float(raw.get("sample", 1.0)),
        metrics=bool(raw.get("metrics", True)),
    )
