"""The ground network rules that `config` and `call/` share: `egress.allow` entries and base URLs."""

from __future__ import annotations

import pytest

from specbridge._errors import ErrorCode, RequestRefused
from specbridge._network import AllowEntry, check_base_url, default_port, parse_allow


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ("127.0.0.1:8080", AllowEntry("127.0.0.1", 8080)),
        (" 10.0.0.5 ", AllowEntry("10.0.0.5", None)),
        ("[::1]:8080", AllowEntry("::1", 8080)),
        ("[::1]", AllowEntry("::1", None)),
        ("fd00::5", AllowEntry("fd00::5", None)),
        ("Internal.Example.:443", AllowEntry("internal.example", 443)),
        ("h:65535", AllowEntry("h", 65535)),
    ],
)
def test_an_allow_entry_reads_as_a_host_and_an_optional_port(entry: str, expected: AllowEntry) -> None:
    assert parse_allow(entry) == expected


@pytest.mark.parametrize(
    "entry", ["h:8o80", "h:", "h:0", "h:65536", "h:-1", "h: 80", "h:\uff18\uff10", "[::1", "", ":80"]
)
def test_an_allow_entry_with_a_mistyped_port_or_no_host_is_refused(entry: str) -> None:
    with pytest.raises(ValueError, match=r"port|host|IPv6"):
        parse_allow(entry)


def test_an_entry_without_a_port_matches_every_port_and_one_with_a_port_only_that_one() -> None:
    assert AllowEntry("h", None).matches("H.", 1)
    assert AllowEntry("h", 80).matches("h", 80)
    assert not AllowEntry("h", 80).matches("h", 81)


def test_a_base_url_on_an_allowed_host_and_port_passes_and_others_are_refused() -> None:
    check_base_url("http://127.0.0.1:8080/v1", [AllowEntry("127.0.0.1", 8080)])
    with pytest.raises(RequestRefused) as caught:
        check_base_url("http://127.0.0.1/v1", [AllowEntry("127.0.0.1", 8080)])
    assert caught.value.code is ErrorCode.EGRESS_REFUSED


def test_default_ports_follow_the_scheme() -> None:
    assert (default_port("http"), default_port("https")) == (80, 443)
