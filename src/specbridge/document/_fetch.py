"""Documents where they live: one `GET` of an `http(s)://` URL under the egress rules calls obey.

`spec: https://…` in the config and `specbridge lint|tools https://…` read a document from the web
once. The same rules as a call (`_network`): public addresses only unless an `egress.allow` entry names
the host and port; every address the name resolves to is checked, and the connection goes to the
address that was checked (no DNS-rebinding window); redirects only when `egress.redirects` allows,
each hop checked again and never from https down to http; the same size bound as a file; no
credential, no cookie, no proxy from the environment. Synchronous on purpose: a document is read
when a command starts or (in the gateway) in a worker thread, never on the event loop.

Bounded in total, not per read: one fetch (every redirect hop, connecting, the headers and the body)
ends at its deadline whatever the server does (a watchdog closes the socket under a server dripping a
byte a second); and a document with the `$ref`s fetched for it share one `FetchBudget`, the rules'
time and size for all of them together.

Lives in `document/`, the lowest layer, because `$ref`s of a fetched document are fetched here too,
and `config/` (which may not import `call/`) names the documents to read; `call/`'s pinned transport
is asynchronous, built for the gateway's event loop and its per-call deadline.
"""

from __future__ import annotations

import contextlib
import http.client
import socket
import ssl
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin, urlsplit

from .._errors import DocumentError, ErrorCode, RequestRefused
from .._files import MAX_DOCUMENT_BYTES
from .._network import AllowEntry, blocked_reason, check_host, default_port, is_allowed, parse_ip
from .._version import __version__

DEFAULT_FETCH_TIMEOUT = 30.0
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
ACCEPT = "application/json, application/yaml, application/x-yaml, text/yaml, text/plain;q=0.9, */*;q=0.5"


@dataclass(slots=True)
class FetchBudget:
    """What one document and every `$ref` fetched for it may still take, together: seconds spent
    fetching and bytes read."""

    seconds: float
    bytes: int


@dataclass(frozen=True, slots=True)
class FetchRules:
    """How a document may be fetched: the API's `egress.allow` entries and `egress.redirects`, the
    seconds one fetch may take in all, and its size. `budget`: shared by a document and the `$ref`s
    fetched for it (`with_budget`); without one, each fetch has the whole time and size."""

    allow: tuple[AllowEntry, ...] = ()
    redirects: int = 0
    timeout: float = DEFAULT_FETCH_TIMEOUT
    max_bytes: int = MAX_DOCUMENT_BYTES
    budget: FetchBudget | None = field(default=None, compare=False)

    def with_budget(self) -> FetchRules:
        """These rules with a budget of their own time and size, for a document and its `$ref`s."""
        if self.budget is not None:
            return self
        return FetchRules(
            self.allow,
            self.redirects,
            self.timeout,
            self.max_bytes,
            FetchBudget(self.timeout, self.max_bytes),
        )


def is_url(source: str) -> bool:
    return source.lstrip().lower().startswith(("http://", "https://"))


def origin_of(url: str) -> tuple[str, str, int]:
    parts = urlsplit(url)
    return parts.scheme.lower(), (parts.hostname or "").lower(), parts.port or default_port(parts.scheme)


def fetch(url: str, rules: FetchRules, *, source: str | None = None) -> tuple[bytes, str]:
    """The bytes at `url` and the URL they finally came from (after redirects the rules allow); a
    DocumentError naming `source` (the URL as given) otherwise. Whatever the server does, it ends
    within the rules' timeout (or what is left of their budget)."""
    named = source or url
    started = time.monotonic()
    budget = rules.budget
    if budget is not None and (budget.seconds <= 0 or budget.bytes <= 0):
        raise _over_budget(rules, named, time_left=budget.seconds > 0)
    limit = _Limit(
        deadline=started + (min(rules.timeout, budget.seconds) if budget is not None else rules.timeout),
        max_bytes=min(rules.max_bytes, budget.bytes) if budget is not None else rules.max_bytes,
    )
    try:
        body, final = _fetch(url.strip(), rules, named, limit)
    except DocumentError as error:
        if budget is not None and error.code is ErrorCode.DOCUMENT_TOO_LARGE:
            budget.bytes = 0  # read up to what was left
        raise
    finally:
        if budget is not None:
            budget.seconds -= time.monotonic() - started
    if budget is not None:
        budget.bytes -= len(body)
    return body, final


@dataclass(frozen=True, slots=True)
class _Limit:
    deadline: float  # time.monotonic() by which the whole fetch ends
    max_bytes: int

    def seconds_left(self) -> float:
        return self.deadline - time.monotonic()


def _over_budget(rules: FetchRules, named: str, *, time_left: bool) -> DocumentError:
    if time_left:
        return DocumentError(
            f"is not read: the document and the $refs fetched for it may hold {_mb(rules.max_bytes)} together",
            code=ErrorCode.DOCUMENT_TOO_LARGE,
            source=named,
        )
    return DocumentError(
        f"could not be fetched: the document and the $refs fetched for it may take {rules.timeout:g} s together",
        code=ErrorCode.DOCUMENT_NOT_FOUND,
        source=named,
    )


def _mb(size: int) -> str:
    return f"{size // (1024 * 1024)} MB" if size >= 1024 * 1024 else f"{size:,} bytes"


def _fetch(url: str, rules: FetchRules, named: str, limit: _Limit) -> tuple[bytes, str]:
    current = url
    for hop in range(rules.redirects + 1):
        status, location, body = _get(current, rules, named, limit)
        if status in _REDIRECTS and location:
            target = urljoin(current, location)
            if hop == rules.redirects:
                raise DocumentError(
                    f"answered {status}, a redirect to {target[:200]}, which is not followed "
                    f"(egress.redirects allows {rules.redirects})",
                    code=ErrorCode.DOCUMENT_NOT_FOUND,
                    source=named,
                )
            if urlsplit(current).scheme == "https" and urlsplit(target).scheme != "https":
                raise DocumentError(
                    f"answered {status}, a redirect from https down to {target[:200]}, which is never followed",
                    code=ErrorCode.DOCUMENT_NOT_FOUND,
                    source=named,
                )
            current = target
            continue
        if status != 200:
            raise DocumentError(
                f"could not be fetched: the server answered {status}",
                code=ErrorCode.DOCUMENT_NOT_FOUND,
                source=named,
            )
        return body, current
    raise AssertionError("unreachable")  # pragma: no cover


def _get(url: str, rules: FetchRules, named: str, limit: _Limit) -> tuple[int, str, bytes]:
    parts = urlsplit(url)
    try:
        port = parts.port
    except ValueError:
        raise DocumentError("is not a valid URL", code=ErrorCode.DOCUMENT_NOT_FOUND, source=named) from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise DocumentError(
            "must be an http:// or https:// URL", code=ErrorCode.DOCUMENT_NOT_FOUND, source=named
        )
    if parts.username is not None or parts.password is not None:
        raise DocumentError(
            "must not carry a user name or password", code=ErrorCode.DOCUMENT_NOT_FOUND, source=named
        )
    host, port = parts.hostname, port or default_port(parts.scheme.lower())
    address = _checked_address(host, port, rules, named)
    left = limit.seconds_left()
    if left <= 0:
        raise _late(rules, named)
    watchdog = _Watchdog(left)
    connection = _connection(parts.scheme.lower(), host, port, address, left, watchdog)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    headers = {"Accept": ACCEPT, "Accept-Encoding": "identity", "User-Agent": f"specbridge/{__version__}"}
    try:
        connection.request("GET", target, headers=headers)
        response = connection.getresponse()
        if response.status != 200:
            result: tuple[int, str, bytes] = (response.status, response.getheader("Location") or "", b"")
        else:
            result = (200, "", response.read(limit.max_bytes + 1))
    except (OSError, http.client.HTTPException) as error:
        if watchdog.fired:
            raise _late(rules, named) from None
        raise DocumentError(
            f"could not be fetched ({_reason(error)})", code=ErrorCode.DOCUMENT_NOT_FOUND, source=named
        ) from None
    finally:
        watchdog.cancel()
        connection.close()
    if watchdog.fired:  # the socket was closed under a read that then ended short
        raise _late(rules, named)
    if len(result[2]) > limit.max_bytes:
        if limit.max_bytes < rules.max_bytes:  # what the document and its other $refs left
            raise _over_budget(rules, named, time_left=True)
        raise DocumentError(
            f"is larger than {_mb(rules.max_bytes)}: not read",
            code=ErrorCode.DOCUMENT_TOO_LARGE,
            source=named,
        )
    return result


def _late(rules: FetchRules, named: str) -> DocumentError:
    if rules.budget is not None and rules.budget.seconds < rules.timeout:
        return _over_budget(rules, named, time_left=False)
    return DocumentError(
        f"could not be fetched: no whole answer within {rules.timeout:g} s",
        code=ErrorCode.DOCUMENT_NOT_FOUND,
        source=named,
    )


class _Watchdog:
    """Shuts the connection's socket down at the fetch's deadline, whatever it is waiting for: a
    socket timeout bounds one read, and a server sending a byte a second never lets one run out."""

    def __init__(self, seconds: float) -> None:
        self.fired = False
        self._socket: socket.socket | None = None
        self._lock = threading.Lock()
        self._timer = threading.Timer(seconds, self._fire)
        self._timer.daemon = True
        self._timer.start()

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._socket = sock
            if self.fired:
                self._shut()

    def cancel(self) -> None:
        self._timer.cancel()

    def _fire(self) -> None:
        with self._lock:
            self.fired = True
            self._shut()

    def _shut(self) -> None:
        if self._socket is not None:
            with contextlib.suppress(OSError):  # the plain socket's own, under TLS too: the read returns
                socket.socket.shutdown(self._socket, socket.SHUT_RDWR)


def _reason(error: BaseException) -> str:
    if isinstance(error, TimeoutError | socket.timeout):
        return "no answer in time"
    if isinstance(error, ssl.SSLError):
        return f"TLS: {error.reason or 'handshake failed'}"
    return getattr(error, "strerror", None) or type(error).__name__


def _checked_address(host: str, port: int, rules: FetchRules, named: str) -> str:
    """The address to connect to: every address `host` resolves to is public (or the host:port is an
    `egress.allow` entry), and the first is used."""
    allowed = is_allowed(rules.allow, host, port)
    try:
        if not allowed:
            check_host(host)
        literal = parse_ip(host)
        if literal is not None:
            return str(literal)
        try:
            found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError):
            raise DocumentError(
                f"could not be fetched: the name {host} does not resolve",
                code=ErrorCode.DOCUMENT_NOT_FOUND,
                source=named,
            ) from None
        addresses = list(dict.fromkeys(str(item[4][0]) for item in found))
        for address in addresses if not allowed else ():
            ip = parse_ip(address)
            reason = blocked_reason(ip) if ip is not None else "not an address"
            if reason:
                raise RequestRefused(f"the host {host} resolves to {address}, {reason}")
        return addresses[0]
    except RequestRefused as error:
        why = f"{error.message}; only public addresses are fetched (an API's egress.allow may list the host:port)"
        raise DocumentError(why, code=ErrorCode.EGRESS_REFUSED, source=named) from None


class _PinnedHTTP(http.client.HTTPConnection):
    """An HTTP connection to `address`, speaking to `host` (its Host header)."""

    def __init__(self, host: str, port: int, address: str, timeout: float, watchdog: _Watchdog) -> None:
        super().__init__(host, port, timeout=timeout)
        self.address = address
        self.watchdog = watchdog

    def connect(self) -> None:
        self.sock = socket.create_connection((self.address, self.port), self.timeout)
        self.watchdog.watch(self.sock)


class _PinnedHTTPS(http.client.HTTPSConnection):
    """An HTTPS connection to `address`, checking the certificate of `host` (its SNI and Host)."""

    def __init__(self, host: str, port: int, address: str, timeout: float, watchdog: _Watchdog) -> None:
        super().__init__(host, port, timeout=timeout, context=_tls_context())
        self.address = address
        self.watchdog = watchdog

    def connect(self) -> None:
        raw = socket.create_connection((self.address, self.port), self.timeout)
        self.watchdog.watch(raw)  # the handshake too
        self.sock = self._context.wrap_socket(raw, server_hostname=self.host)  # type: ignore[attr-defined]


def _connection(scheme: str, host: str, port: int, address: str, timeout: float, watchdog: _Watchdog) -> Any:
    kind = _PinnedHTTPS if scheme == "https" else _PinnedHTTP
    return kind(host, port, address, timeout, watchdog)


_tls: ssl.SSLContext | None = None


def _tls_context() -> ssl.SSLContext:
    """Certificates checked against certifi's bundle when it is installed (as the gateway's calls do),
    else the system's."""
    global _tls
    if _tls is None:
        try:
            import certifi

            _tls = ssl.create_default_context(cafile=certifi.where())
        except ImportError:
            _tls = ssl.create_default_context()
    return _tls
