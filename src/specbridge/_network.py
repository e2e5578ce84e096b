"""Network rules shared by `config` and `call/`: which hosts and addresses count as public, how an
`egress.allow` entry is read, and what a base URL may look like. Pure functions, no DNS, no logging.

`ipaddress` flags alone are not trusted (`is_global` changed between Python patch releases and misses
NAT64, 6to4, 192.0.0.0/24 ...): the blocked ranges are listed here explicitly. Host names are checked as
written (internal names, odd IPv4 spellings); `call/_egress` checks every resolved address again.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

from ._errors import ErrorCode, RequestRefused

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
DEFAULT_PORTS = {"http": 80, "https": 443}
MAX_PORT = 65535

_BLOCKED_V4 = tuple(
    ipaddress.IPv4Network(net)
    for net in (
        "0.0.0.0/8",  # "this network", unspecified
        "10.0.0.0/8",  # private
        "100.64.0.0/10",  # CGNAT (100.100.100.200 Alibaba metadata lives here)
        "127.0.0.0/8",  # loopback
        "169.254.0.0/16",  # link-local, cloud metadata 169.254.169.254
        "172.16.0.0/12",  # private
        "192.0.0.0/24",  # IETF protocol assignments (192.0.0.192 Oracle metadata)
        "192.0.2.0/24",  # documentation TEST-NET-1
        "192.31.196.0/24",  # AS112
        "192.52.193.0/24",  # AMT
        "192.88.99.0/24",  # 6to4 relay anycast
        "192.168.0.0/16",  # private
        "192.175.48.0/24",  # AS112 direct delegation
        "198.18.0.0/15",  # benchmarking
        "198.51.100.0/24",  # documentation TEST-NET-2
        "203.0.113.0/24",  # documentation TEST-NET-3
        "224.0.0.0/4",  # multicast
        "240.0.0.0/4",  # reserved, and 255.255.255.255 broadcast
    )
)
_BLOCKED_V6 = tuple(
    ipaddress.IPv6Network(net)
    for net in (
        "::/128",  # unspecified
        "::1/128",  # loopback
        "::/96",  # IPv4-compatible (deprecated)
        "::ffff:0:0/96",  # IPv4-mapped
        "::ffff:0:0:0/96",  # IPv4-translated
        "64:ff9b::/96",  # NAT64
        "64:ff9b:1::/48",  # local-use NAT64
        "100::/64",  # discard-only
        "2001::/32",  # Teredo
        "2001:2::/48",  # benchmarking
        "2001:db8::/32",  # documentation
        "2001:10::/28",  # ORCHID
        "2001:20::/28",  # ORCHIDv2
        "2002::/16",  # 6to4 (embeds an IPv4 address)
        "3fff::/20",  # documentation (RFC 9637)
        "5f00::/16",  # SRv6 SIDs
        "fc00::/7",  # unique local (fd00:ec2::254 AWS metadata lives here)
        "fe80::/10",  # link-local
        "fec0::/10",  # site-local (deprecated)
        "ff00::/8",  # multicast
    )
)
_INTERNAL_SUFFIXES = (".localhost", ".internal", ".local", ".localdomain", ".home.arpa", ".lan", ".intranet")
_INTERNAL_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})
_LABEL = re.compile(r"^(?!-)[a-z0-9_-]{1,63}(?<!-)$")
_IPV4_PART = re.compile(r"^(0x[0-9a-f]*|0[0-7]*|[1-9][0-9]*)$")


def refused(message: str) -> RequestRefused:
    return RequestRefused(message, code=ErrorCode.EGRESS_REFUSED)


def parse_ipv4_loose(host: str) -> ipaddress.IPv4Address | None:
    """The address an inet_aton-style spelling means (`2130706433`, `0177.0.0.1`, `0x7f.1`, `127.1`), or
    None when `host` is not numeric. Such spellings are refused by `check_host`, never reinterpreted."""
    parts = host.split(".")
    if host.endswith(".") and len(parts) > 1:
        parts = parts[:-1]
    if not 1 <= len(parts) <= 4 or not all(_IPV4_PART.match(part) for part in parts):
        return None
    try:
        values = [
            int(part, 0) if not part.startswith("0") or part.startswith("0x") else int(part, 8)
            for part in parts
        ]
    except ValueError:
        return None
    *head, last = values
    if any(value > 255 for value in head) or last >= 256 ** (5 - len(parts)):
        return None
    number = 0
    for value in head:
        number = number * 256 + value
    number = number * 256 ** (5 - len(parts)) + last
    return ipaddress.IPv4Address(number)


def blocked_reason(address: IPAddress) -> str:
    """Why `address` is not a public address, or "" when it is."""
    if isinstance(address, ipaddress.IPv6Address):
        if address.scope_id:
            return "a scoped (zone) IPv6 address"
        embedded = address.ipv4_mapped or address.sixtofour
        if embedded is not None:
            return "an IPv6 address embedding an IPv4 address"
        if address.teredo is not None:
            return "a Teredo address"
        for network in _BLOCKED_V6:
            if address in network:
                return f"in the blocked range {network}"
        if not address.is_global:
            return "not a public address"
        return ""
    for network4 in _BLOCKED_V4:
        if address in network4:
            return f"in the blocked range {network4}"
    if not address.is_global:
        return "not a public address"
    return ""


def parse_ip(host: str) -> IPAddress | None:
    text = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def normalise_host(host: str) -> str:
    return host.strip().lower()


def check_host(host: str) -> None:
    """Refuse internal names, non-canonical address spellings and non-public literal addresses."""
    name = normalise_host(host)
    if not name:
        raise refused("the URL has no host")
    literal = parse_ip(name)
    if literal is not None:
        if isinstance(literal, ipaddress.IPv6Address) and "%" in name:
            raise refused("the host is a scoped (zone) IPv6 address, which is never public")
        reason = blocked_reason(literal)
        if reason:
            raise refused(f"the host {name} is {reason}; only public addresses are allowed")
        return
    if "%" in name or "\\" in name or any(ord(ch) < 0x21 or ord(ch) == 0x7F for ch in name):
        raise refused("the host name contains characters no host name has")
    bare = name[:-1] if name.endswith(".") else name
    loose = parse_ipv4_loose(bare)
    if loose is not None:
        raise refused(
            f"the host {name} is a non-standard spelling of the address {loose}; write addresses as a.b.c.d"
        )
    if bare in _INTERNAL_NAMES or bare.endswith(_INTERNAL_SUFFIXES):
        raise refused(f"the host {name} is an internal name; only public hosts are allowed")
    labels = bare.split(".")
    if len(labels) < 2:
        raise refused(f"the host {name} is a single-label name, which only resolves inside a network")
    if not all(_LABEL.match(label) for label in labels):
        raise refused(f"the host {name} is not a valid host name")
    if labels[-1].isdigit():
        raise refused(f"the host {name} looks like an address but is not one")


def default_port(scheme: str) -> int:
    return DEFAULT_PORTS.get(scheme, 443)


@dataclass(frozen=True, slots=True)
class AllowEntry:
    """One `egress.allow` exception: a host (name or address) and a port, or every port when None."""

    host: str
    port: int | None

    def matches(self, host: str, port: int) -> bool:
        return self.host == allow_host(host) and self.port in (None, port)


def allow_host(host: str) -> str:
    """A host as `egress.allow` entries are compared: lower case, no brackets, no trailing dot."""
    return normalise_host(host).strip("[]").rstrip(".")


def parse_allow(entry: str) -> AllowEntry:
    """`"127.0.0.1:8080"`, `"10.0.0.5"`, `"[::1]:8080"`, `"::1"`, `"internal.example:443"`. A port that
    is written must be a number from 1 to 65535: a typo never widens an exception to every port.
    Raises ValueError saying what is wrong (the entry itself is not secret)."""
    text = entry.strip().lower()
    if text.startswith("["):
        host, closed, rest = text[1:].partition("]")
        if not closed or (rest and not rest.startswith(":")):
            raise ValueError("an IPv6 address is written [address] or [address]:port")
        has_port, port = bool(rest), rest[1:]
    elif text.count(":") == 1:
        host, _, port = text.partition(":")
        has_port = True
    else:
        host, has_port, port = text, False, ""
    host = host.rstrip(".")
    if not host or any(ch in host for ch in "/@?#[] \t"):
        raise ValueError("needs a host name or address, e.g. 127.0.0.1:8080 or internal.example")
    if not has_port:
        return AllowEntry(host, None)
    if not port.isascii() or not port.isdigit() or not 1 <= int(port) <= MAX_PORT:
        raise ValueError(
            f"has a port that is not a number from 1 to {MAX_PORT} (leave it out for every port)"
        )
    return AllowEntry(host, int(port))


def is_allowed(entries: Iterable[AllowEntry], host: str, port: int) -> bool:
    return any(entry.matches(host, port) for entry in entries)


def base_url_host(url: str) -> tuple[str, int]:
    """The host and port a base URL names; refuses a scheme other than http(s), user info, a query or
    a fragment (the host itself is checked by the caller, against its exceptions)."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise refused("the base URL is not a valid URL") from None
    if parts.scheme not in ("http", "https"):
        raise refused("the base URL must be an http:// or https:// URL")
    if parts.username is not None or parts.password is not None:
        raise refused("the base URL must not carry a user name or password; use `auth`")
    if parts.query or parts.fragment:
        raise refused("the base URL must not have a query or fragment")
    return parts.hostname or "", port or default_port(parts.scheme)


def check_base_url(url: str, allow: Iterable[AllowEntry] = ()) -> None:
    """Refuse a base URL that is malformed (see `base_url_host`) or whose host is not public as
    written, unless an `egress.allow` entry names its host and port."""
    host, port = base_url_host(url)
    if not is_allowed(allow, host, port):
        check_host(host)
