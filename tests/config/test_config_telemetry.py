"""`telemetry:` in specbridge.yaml: off by default, an OTLP/HTTP base URL, headers only as secret
references, and what is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from specbridge import ConfigError, ErrorCode
from specbridge.config import Config, TelemetryConfig, config_from_data
from specbridge.config._secrets import Secret


def read(data: object) -> Config:
    return config_from_data(data, source="specbridge.yaml", base_dir=Path("/srv/conf"))


def test_without_the_key_nothing_is_configured() -> None:
    assert read({"apis": {"orders": {"spec": "o.yaml"}}}).telemetry == TelemetryConfig()


def test_an_endpoint_headers_name_and_sample_are_read() -> None:
    found = read(
        {
            "telemetry": {
                "endpoint": "https://otel.internal:4318",
                "headers": {"authorization": "env:OTLP_AUTH", "x-key": "file:otlp.key"},
                "service_name": "orders-gw",
                "sample": 0.25,
                "metrics": False,
            }
        }
    ).telemetry
    assert found == TelemetryConfig(
        endpoint="https://otel.internal:4318",
        headers={"authorization": Secret("env:OTLP_AUTH"), "x-key": Secret("file:/srv/conf/otlp.key")},
        service_name="orders-gw",
        sample=0.25,
        metrics=False,
    )


@pytest.mark.parametrize(
    ("telemetry", "key"),
    [
        ({"endpoint": "grpc://otel:4317"}, "endpoint"),
        ({"endpoint": "http://otel:4318/?q=1"}, "endpoint"),
        ({"headers": {"authorization": "Bearer abc123"}}, "headers"),  # a secret written in the config
        ({"sample": 2}, "sample"),
        ({"exporter": "grpc"}, "exporter"),
    ],
)
def test_what_cannot_be_used_is_a_config_error_naming_the_key(telemetry: object, key: str) -> None:
    with pytest.raises(ConfigError) as caught:
        read({"telemetry": telemetry})
    assert caught.value.code is ErrorCode.CONFIG_INVALID
    assert key in str(caught.value) and "abc123" not in str(caught.value)
