"""Who the MCP clients are: registered by a Client ID Metadata Document (CIMD: the client id is an
https URL whose document the front fetches) or, for older clients, by dynamic client registration (DCR,
RFC 7591: off by default, a few per hour).

CIMD (the MCP specification's recommended registration): the document is fetched through the egress
policy of `oauth_server.egress` (public addresses only unless listed; `https://` unless its host is
listed; no redirects; bounded in size and time by `access`'s fetcher), kept ten minutes, and taken
only if it is a JSON object whose `client_id` is exactly its URL, with `redirect_uris`, a public client
(`token_endpoint_auth_method` none: nothing is a secret in a document anyone reads). DCR: the metadata
is checked the same way, the client gets a random id (and a secret, when it asks for one; only its
SHA-256 is kept), and the record lives in the store, so every instance knows it.

Redirect URIs are compared exactly, character for character, with the registered ones: no prefix, no
pattern, no port left open.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from .._errors import ErrorCode, SpecbridgeError, TokenError
from ..access import Fetcher
from ..call import Lru
from ..config import OAuthServerConfig
from ._records import Records

KEEP_DOCUMENT = 600.0  # a metadata document is fetched again after ten minutes
KEEP_REGISTRATION = 400 * 86400.0
MAX_REDIRECT_URIS = 10
MAX_NAME = 200
AUTH_METHODS = ("none", "client_secret_basic", "client_secret_post")
LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")


class ClientError(SpecbridgeError):
    """A client id, or a registration, that cannot be used (the page or the JSON error says why)."""

    code = ErrorCode.CLIENT_METADATA_INVALID


@dataclass(frozen=True, slots=True)
class Client:
    """A client of the front: its id, the redirect URIs it registered, what the consent page names it
    by (`name`, and `host`: where its id or its redirect URIs live), and how it signs in at the token
    endpoint (`secret_sha256` for a confidential client of DCR)."""

    client_id: str
    redirect_uris: tuple[str, ...]
    name: str
    host: str
    by: str  # "document" (CIMD) or "registration" (DCR)
    auth_method: str = "none"
    secret_sha256: str = ""

    def secret_ok(self, secret: str | None) -> bool:
        if self.auth_method == "none":
            return True
        given = hashlib.sha256((secret or "").encode("utf-8", "surrogatepass")).hexdigest()
        return secret is not None and hmac.compare_digest(given, self.secret_sha256)


def is_document_id(client_id: str) -> bool:
    """A client id that is a metadata document's URL: https, a host, a path other than `/`."""
    parts = urlsplit(client_id)
    return parts.scheme == "https" and bool(parts.hostname) and parts.path not in ("", "/")


def redirect_uri_ok(uri: str) -> bool:
    """A redirect URI a client may register: https, http on loopback, or a private-use scheme (a
    native app's `com.example.app:/callback`); never a fragment, never `javascript:`/`data:`."""
    parts = urlsplit(uri)
    if not parts.scheme or parts.fragment or len(uri) > 2000 or any(ch in uri for ch in ' "<>\\\r\n\t'):
        return False
    if parts.scheme == "https":
        return bool(parts.hostname)
    if parts.scheme == "http":
        return (parts.hostname or "") in LOOPBACK
    return "." in parts.scheme and parts.scheme not in ("javascript", "data", "file", "vbscript")


def _uris(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not 0 < len(value) <= MAX_REDIRECT_URIS:
        raise ClientError(f"`redirect_uris` must be a list of 1 to {MAX_REDIRECT_URIS} URIs")
    if not all(isinstance(uri, str) and redirect_uri_ok(uri) for uri in value):
        raise ClientError("every redirect URI must be https://, http:// on loopback, or a private-use scheme")
    return tuple(value)


def _name(document: dict[str, Any], fallback: str) -> str:
    name = document.get("client_name")
    if isinstance(name, str) and name.strip():
        return "".join(ch for ch in name.strip() if ch.isprintable())[:MAX_NAME]
    return fallback


class Clients:
    """The front's clients: documents fetched and kept, registrations in the store."""

    def __init__(
        self,
        settings: Callable[[], OAuthServerConfig],
        records: Records,
        *,
        fetcher: Callable[[tuple[str, ...]], Fetcher] = Fetcher,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._settings = settings
        self._records = records
        self._fetcher = fetcher
        self._fetchers: dict[tuple[str, ...], Fetcher] = {}
        self._clock = clock
        self._documents: Lru[str, tuple[Client, float]] = Lru(1000)

    async def get(self, client_id: str) -> Client:
        """The client `client_id` names; ClientError when it names none that may be used."""
        settings = self._settings()
        if is_document_id(client_id):
            if not settings.metadata_documents:
                raise ClientError("this gateway takes no clients by metadata document (CIMD)")
            return await self._document(client_id)
        if len(client_id) <= 64 and client_id.startswith("dcr_"):
            found = await self._records.get("client", client_id)
            if found is not None:
                return Client(
                    client_id, tuple(found["redirect_uris"]), str(found["name"]), str(found["host"]),
                    "registration", str(found["auth_method"]), str(found.get("secret_sha256", "")),
                )  # fmt: skip
        raise ClientError("this client id is not registered here (use its metadata document URL)")

    async def _document(self, url: str) -> Client:
        kept = self._documents.get(url)
        now = self._clock()
        if kept is not None and kept[1] > now:
            return kept[0]
        allow = self._settings().allow
        host = urlsplit(url).hostname or ""
        try:
            status, document = await self._fetch(allow).get_json(url, f"the client's metadata document {url}")
        except TokenError as error:
            raise ClientError(f"the client's metadata document cannot be fetched: {error.message}") from None
        if status != 200 or not isinstance(document, dict):
            raise ClientError(f"the client's metadata document answered {status}, not a JSON object")
        if document.get("client_id") != url:
            raise ClientError("the client's metadata document names another client_id than its own URL")
        method = document.get("token_endpoint_auth_method", "none")
        if method != "none" or "client_secret" in document:
            raise ClientError(
                "a client by metadata document must be public (token_endpoint_auth_method: none)"
            )
        client = Client(url, _uris(document.get("redirect_uris")), _name(document, host), host, "document")
        self._documents.put(url, (client, now + KEEP_DOCUMENT))
        return client

    def _fetch(self, allow: tuple[str, ...]) -> Fetcher:
        found = self._fetchers.get(allow)
        if found is None:
            found = self._fetchers[allow] = self._fetcher(allow)
        return found

    async def register(self, metadata: Any) -> dict[str, Any]:
        """A client registered dynamically (RFC 7591 §3.2.1 answer); ClientError for bad metadata."""
        if not isinstance(metadata, dict):
            raise ClientError("the registration must be a JSON object of client metadata")
        uris = _uris(metadata.get("redirect_uris"))
        method = metadata.get("token_endpoint_auth_method", "client_secret_basic")
        if method not in AUTH_METHODS:
            raise ClientError(f"token_endpoint_auth_method must be one of {', '.join(AUTH_METHODS)}")
        for key, allowed in (
            ("grant_types", {"authorization_code", "refresh_token"}),
            ("response_types", {"code"}),
        ):
            given = metadata.get(key)
            if given is not None and (not isinstance(given, list) or not set(given) <= allowed):
                raise ClientError(f"{key} may only name {', '.join(sorted(allowed))}")
        client_id = "dcr_" + secrets.token_urlsafe(24)
        host = urlsplit(uris[0]).hostname or urlsplit(uris[0]).scheme
        record: dict[str, Any] = {"redirect_uris": list(uris), "name": _name(metadata, host), "host": host,
                                  "auth_method": method}  # fmt: skip
        answer: dict[str, Any] = {
            "client_id": client_id,
            "client_id_issued_at": int(time.time()),
            "redirect_uris": list(uris),
            "token_endpoint_auth_method": method,
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "client_name": record["name"],
        }
        if method != "none":
            secret = secrets.token_urlsafe(32)
            record["secret_sha256"] = hashlib.sha256(secret.encode()).hexdigest()
            answer |= {"client_secret": secret, "client_secret_expires_at": 0}
        await self._records.put("client", client_id, record, self._records.clock() + KEEP_REGISTRATION)
        return answer

    async def aclose(self) -> None:
        for fetcher in self._fetchers.values():
            await fetcher.aclose()
