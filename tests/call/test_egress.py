"""`call/_egress.py`: requests go to public addresses only, unless an explicit exception says so.
Address forms as written in a base URL, names checked after resolution (a fake resolver where the
address form is the point), redirects to non-public addresses, DNS failures, and the log of exceptions used."""

from __future__ import annotations

import anyio
import httpx
import pytest

from specbridge._errors import ErrorCode, RequestRefused
from specbridge.call import Caller, check_base_url
from tests.call._caller import SECRET, MakeCaller, api_config, toolset_for
from tests.call._caller import call as _call
from tests.support.upstream import (
    Upstream,
    redirect,
)

# -- address forms: refused in a base URL as written ---------------------------------------------

REFUSED_HOSTS = [
    # odd IPv4 spellings of 127.0.0.1 and friends
    "2130706433",
    "0177.0.0.1",
    "0x7f.1",
    "0x7f000001",
    "127.1",
    "017700000001",
    "0x7f.0.0.1",
    "127.0.0.1.",
    "0",
    # loopback, private, link-local, metadata, CGNAT, special ranges
    "127.0.0.1",
    "127.255.255.254",
    "10.0.0.1",
    "172.16.5.4",
    "192.168.1.1",
    "169.254.169.254",
    "169.254.170.2",
    "100.100.100.200",
    "100.64.0.1",
    "0.0.0.0",
    "255.255.255.255",
    "224.0.0.1",
    "240.0.0.1",
    "192.0.0.192",
    "198.18.0.1",
    "192.0.2.1",
    "198.51.100.7",
    "203.0.113.9",
    # IPv6 forms
    "[::1]",
    "[::]",
    "[::ffff:127.0.0.1]",
    "[::ffff:7f00:1]",
    "[::ffff:169.254.169.254]",
    "[::127.0.0.1]",
    "[64:ff9b::7f00:1]",
    "[64:ff9b::a9fe:a9fe]",
    "[64:ff9b:1::a00:1]",
    "[2002:7f00:1::]",
    "[2002:a9fe:a9fe::1]",
    "[2001:0:4136:e378:8000:63bf:3fff:fdd2]",
    "[fd00:ec2::254]",
    "[fc00::1]",
    "[fec0::1]",
    "[fe80::1]",
    "[fe80::1%25eth0]",
    "[ff02::1]",
    "[2001:db8::1]",
    # internal names
    "localhost",
    "LOCALHOST",
    "localhost.",
    "api.localhost",
    "metadata.google.internal",
    "metadata.google.internal.",
    "printer.local",
    "box.localdomain",
    "nas.home.arpa",
    "intranet",
    "intranet.",
    "ip6-localhost",
]


@pytest.mark.parametrize("host", REFUSED_HOSTS)
def test_a_non_public_host_in_the_base_url_is_refused(host: str) -> None:
    with pytest.raises(RequestRefused) as caught:
        check_base_url(f"http://{host}/v1")
    assert caught.value.code == ErrorCode.EGRESS_REFUSED


@pytest.mark.parametrize(
    "host", ["api.example.com", "93.184.216.34", "[2606:4700:4700::1111]", "example.com."]
)
def test_a_public_host_in_the_base_url_is_accepted(host: str) -> None:
    check_base_url(f"https://{host}/v1")


@pytest.mark.parametrize(
    "url", ["ftp://api.example.com/", "https://user:pw@api.example.com/", "https://api.example.com/?a=1"]
)
def test_a_base_url_with_another_scheme_user_info_or_query_is_refused(url: str) -> None:
    with pytest.raises(RequestRefused):
        check_base_url(url)


# -- address forms: refused at call time, after resolution ----------------------------------------

RESOLVED_TO = [
    ["10.0.0.5"],
    ["127.0.0.1"],
    ["169.254.169.254"],
    ["fd00:ec2::254"],
    ["::ffff:169.254.169.254"],
    ["100.100.100.200"],
    ["93.184.216.34", "127.0.0.1"],  # a public and a private address: refused as a whole
    ["2606:4700:4700::1111", "fe80::1"],
    ["64:ff9b::a00:1"],
    ["not-an-address"],
]


@pytest.mark.parametrize("addresses", RESOLVED_TO)
async def test_a_name_that_resolves_to_a_non_public_address_is_refused_and_nothing_is_sent(
    addresses: list[str],
) -> None:
    seen: list[httpx.Request] = []

    async def resolve(host: str, port: int) -> list[str]:
        return addresses

    transport = httpx.MockTransport(lambda request: seen.append(request) or httpx.Response(200))
    caller = Caller(
        api_config("https://api.example.com/v1"), toolset_for(), transport=transport, resolve=resolve
    )
    with anyio.fail_after(10):
        result = await caller.call("ping", {})
    await caller.aclose()
    assert result.is_error and result.code == ErrorCode.EGRESS_REFUSED
    assert seen == []


async def test_a_name_that_resolves_to_a_public_address_is_called() -> None:
    seen: list[httpx.Request] = []

    async def resolve(host: str, port: int) -> list[str]:
        return ["93.184.216.34"]

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"ok": True})

    caller = Caller(
        api_config("https://api.example.com/v1"),
        toolset_for(),
        transport=httpx.MockTransport(handler),
        resolve=resolve,
    )
    result = await caller.call("ping", {})
    await caller.aclose()
    assert not result.is_error and result.structured == {"ok": True}
    assert str(seen[0].url) == "https://api.example.com/v1/ping"


async def test_an_allowed_address_does_not_let_a_name_that_resolves_to_it_through() -> None:
    async def resolve(host: str, port: int) -> list[str]:
        return ["127.0.0.1"]

    seen: list[httpx.Request] = []
    transport = httpx.MockTransport(lambda request: seen.append(request) or httpx.Response(200))
    api = api_config("http://attacker.example:8080/v1", allow=("127.0.0.1:8080",))
    caller = Caller(api, toolset_for(), transport=transport, resolve=resolve)
    with anyio.fail_after(10):
        result = await caller.call("ping", {})
    await caller.aclose()
    assert result.is_error and result.code == ErrorCode.EGRESS_REFUSED
    assert seen == []


# -- hostile answers ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "location",
    [
        "http://169.254.169.254/latest/meta-data/",
        "http://[fd00:ec2::254]/",
        "http://100.100.100.200/",
        "http://localhost/admin",
        "http://2130706433/",
        "http://metadata.google.internal/",
        "file:///etc/passwd",
        "gopher://127.0.0.1:6379/",
    ],
)
async def test_a_followed_redirect_to_a_non_public_address_is_refused(
    make_caller: MakeCaller, upstream: Upstream, location: str
) -> None:
    upstream.route("/v1/ping", redirect(location))
    with anyio.fail_after(10):
        result = await make_caller(redirects=3).call("ping", {})
    assert result.is_error and result.code == ErrorCode.EGRESS_REFUSED
    assert len(upstream.requests) == 1


async def test_using_an_egress_exception_is_logged(
    make_caller: MakeCaller, upstream: Upstream, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("INFO", logger="specbridge.call")
    await _call(make_caller(), "ping", {})
    assert f"egress exception used: 127.0.0.1:{upstream.port}" in caplog.text
    assert SECRET not in caplog.text


# -- a DNS failure is not a policy refusal -----------------------------------------------------------


async def test_a_host_that_does_not_resolve_is_reported_as_a_dns_failure_not_a_refusal() -> None:
    # `.invalid` never resolves (RFC 6761), with or without a network.
    caller = Caller(api_config("https://specbridge-test.invalid/v1"), toolset_for())
    try:
        result = await _call(caller, "ping", {})
    finally:
        await caller.aclose()
    assert result.is_error and result.code == ErrorCode.UPSTREAM_DNS_FAILED, result.text
    assert "specbridge-test.invalid" in result.text


async def test_a_name_that_resolves_to_no_address_is_a_dns_failure() -> None:
    async def resolve(host: str, port: int) -> list[str]:
        return []

    caller = Caller(api_config("https://api.example.com/v1"), toolset_for(), resolve=resolve)
    try:
        result = await _call(caller, "ping", {})
    finally:
        await caller.aclose()
    assert result.is_error and result.code == ErrorCode.UPSTREAM_DNS_FAILED, result.text
