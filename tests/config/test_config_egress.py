"""`egress.allow`: a port that is written must be a port; a typo is an error, never "every port"."""

from __future__ import annotations

import pytest

from specbridge import ConfigError
from specbridge.call import Caller
from specbridge.config import ApiConfig, EgressConfig, config_from_data
from specbridge.document import parse_document
from specbridge.tools import convert


def load(allow: list[str], base_url: str = "http://127.0.0.1:8080/v1") -> object:
    return config_from_data(
        {"apis": {"a": {"spec": "/a.yaml", "base_url": base_url, "egress": {"allow": allow}}}},
        source="c.yaml",
    )


@pytest.mark.parametrize(
    "entry", ["127.0.0.1:8o80", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536", "[::1]:", "[::1]x", ":8080"]
)
def test_a_mistyped_egress_exception_is_a_config_error_on_that_entry(entry: str) -> None:
    with pytest.raises(ConfigError) as caught:
        load(["127.0.0.1:8080", entry])
    assert caught.value.key == "apis.a.egress.allow[1]"
    assert "port" in str(caught.value) or "host" in str(caught.value)


@pytest.mark.parametrize(
    ("entry", "base_url"),
    [
        ("127.0.0.1:8080", "http://127.0.0.1:8080/v1"),
        ("127.0.0.1", "http://127.0.0.1:9999/v1"),
        ("[::1]:8080", "http://[::1]:8080/v1"),
        ("::1", "http://[::1]:1/v1"),
        ("internal.example:443", "https://internal.example/v1"),
        ("Internal.Example.", "https://internal.example:8443/v1"),
    ],
)
def test_well_formed_exceptions_permit_the_base_url_they_name(entry: str, base_url: str) -> None:
    load([entry], base_url)


def test_an_exception_for_one_port_does_not_permit_another() -> None:
    with pytest.raises(ConfigError) as caught:
        load(["127.0.0.1:8080"], "http://127.0.0.1:8081/v1")
    assert caught.value.key == "apis.a.base_url"


def test_a_caller_built_without_the_config_reader_refuses_a_mistyped_exception_too() -> None:
    document = parse_document("openapi: 3.1.0\ninfo: {title: t, version: '1'}\npaths: {}\n", source="t.yaml")
    api = ApiConfig(
        name="a",
        spec="t.yaml",
        base_url="http://127.0.0.1:8080",
        egress=EgressConfig(allow=("127.0.0.1:8o80",)),
    )
    with pytest.raises(ConfigError, match="port"):
        Caller(api, convert(document))
