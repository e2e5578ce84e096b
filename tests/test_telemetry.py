"""`_telemetry` when nothing asks for it (nothing is wrapped, nothing imported) and the settings the
config or the standard `OTEL_*` variables give."""

from __future__ import annotations

from specbridge import _telemetry as telemetry


async def _answer() -> int:
    return 42


async def test_off_a_step_is_the_work_itself_and_nothing_is_added_or_sent() -> None:
    assert not telemetry.enabled()
    work = _answer()
    assert telemetry.step("call.check", work) is work
    assert await work == 42
    assert telemetry.traced("call.plan", max, 1, 2) == 2
    headers: dict[str, str] = {}
    telemetry.inject(headers)
    telemetry.note(**{"gateway.outcome": "ok"})
    telemetry.count_call("shop", "getProduct")
    assert headers == {}
    with telemetry.server_span(
        "tools/call", {}, {"traceparent": "00-" + "1" * 32 + "-" + "2" * 16 + "-01"}, None
    ) as span:
        assert span is None


def test_nothing_is_exported_unless_the_config_or_an_otlp_variable_asks() -> None:
    assert telemetry.settings_from(None, None, env={}) is None
    assert telemetry.settings_from(None, None, env={"OTEL_SERVICE_NAME": "x"}) is None


def test_the_configs_endpoint_wins_and_gets_the_signal_paths() -> None:
    found = telemetry.settings_from(
        "http://127.0.0.1:4318/", {"k": "v"}, env={"OTEL_EXPORTER_OTLP_ENDPOINT": "http://elsewhere:4318"}
    )
    assert found is not None
    assert (found.traces_endpoint, found.metrics_endpoint) == (
        "http://127.0.0.1:4318/v1/traces",
        "http://127.0.0.1:4318/v1/metrics",
    )
    assert found.headers == {"k": "v"} and found.resource["service.name"] == "specbridge"


def test_the_standard_variables_turn_it_on_and_disabled_turns_it_off() -> None:
    env = {
        "OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318",
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://traces:4318/v1/traces",
        "OTEL_SERVICE_NAME": "gw",
        "OTEL_METRIC_EXPORT_INTERVAL": "2500",
    }
    found = telemetry.settings_from(None, None, metrics=True, env=env)
    assert found is not None
    assert (found.traces_endpoint, found.metrics_endpoint) == (
        "http://traces:4318/v1/traces",
        "http://collector:4318/v1/metrics",
    )
    assert found.service_name == "gw" and found.export_interval == 2.5
    assert telemetry.settings_from(None, None, metrics=False, env=env).metrics_endpoint is None  # type: ignore[union-attr]
    assert telemetry.settings_from("http://x:4318", None, env={**env, "OTEL_SDK_DISABLED": "true"}) is None
