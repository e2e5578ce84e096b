"""The stored credential: which secret, where it goes, and every form it might come back in."""

from __future__ import annotations

import base64
import json
import logging
import re
from dataclasses import dataclass
from urllib.parse import quote, quote_plus

from .._errors import CallError, ConfigError, ErrorCode
from ..config import AuthConfig, AuthType

log = logging.getLogger("specbridge.call")
MIN_REDACTED = 4  # shorter fragments are not hunted for in answers (they would match everywhere)


@dataclass(frozen=True, slots=True)
class Credential:
    kind: AuthType
    name: str  # header, query or cookie name for those kinds
    value: str

    def __repr__(self) -> str:
        return f"Credential({self.kind}, {self.name!r}, …)"

    def header(self) -> tuple[str, str] | None:
        if self.kind == "bearer":
            return ("Authorization", f"Bearer {self.value}")
        if self.kind == "basic":
            token = base64.b64encode(self.value.encode("utf-8")).decode("ascii")
            return ("Authorization", f"Basic {token}")
        if self.kind == "header":
            if self.name.lower() == "authorization" and " " not in self.value:
                return (self.name, f"Bearer {self.value}")
            return (self.name, self.value)
        return None

    def owned_names(self) -> dict[str, str]:
        """location -> lower-case name the credential occupies (no argument may set these)."""
        if self.kind in ("bearer", "basic"):
            return {"header": "authorization"}
        if self.kind in ("header", "query", "cookie"):
            return {self.kind: self.name.lower()}
        return {}

    def variants(self) -> list[str]:
        """The forms in which the secret might be echoed back, longest first: raw, URL-encoded (upper-
        and lower-case hex, `+` for spaces), JSON-escaped (`\\/`, `\\u0073`), and base64 (standard,
        URL-safe, unpadded, and the part that is the same wherever the secret sits in a longer
        base64-encoded text, such as `Authorization: Bearer <secret>`)."""
        values = {self.value}
        if self.kind == "basic":
            _user, _, password = self.value.partition(":")
            values.add(password)
        forms: set[str] = set()
        for value in values:
            if len(value) < MIN_REDACTED:
                continue
            raw = value.encode("utf-8")
            encoded = {quote(value, safe=""), quote_plus(value, safe=""), quote(value)}
            forms.update(encoded)
            forms.update(_HEX.sub(lambda match: match.group().lower(), form) for form in encoded)
            forms.add(value)
            forms.update(_json_forms(value))
            forms.update(
                {
                    base64.b64encode(raw).decode("ascii"),
                    base64.urlsafe_b64encode(raw).decode("ascii"),
                    base64.b64encode(raw).decode("ascii").rstrip("="),
                }
            )
            forms.update(_base64_cores(raw))
        return sorted((form for form in forms if len(form) >= MIN_REDACTED), key=len, reverse=True)


_HEX = re.compile(r"%[0-9A-F]{2}")


def _json_forms(value: str) -> set[str]:
    """How JSON encoders write the string: minimal escapes, `/` escaped (PHP), every character or
    every non-ASCII character as `\\uXXXX` (either case)."""
    plain = json.dumps(value, ensure_ascii=False)[1:-1]
    ascii_only = json.dumps(value)[1:-1]
    forms = {plain, ascii_only, plain.replace("/", "\\/"), ascii_only.replace("/", "\\/")}
    every = "".join(f"\\u{unit:04x}" for unit in _utf16_units(value))
    forms.update({every, every.upper().replace("\\U", "\\u")})
    return forms


def _utf16_units(value: str) -> list[int]:
    data = value.encode("utf-16-be")
    return [int.from_bytes(data[i : i + 2], "big") for i in range(0, len(data), 2)]


def _base64_cores(raw: bytes) -> set[str]:
    """For the secret at each offset modulo 3 inside a longer base64-encoded text: the characters that
    depend on the secret's bytes alone (standard and URL-safe alphabets)."""
    cores: set[str] = set()
    for offset in range(3):
        padded = bytes(offset) + raw
        start = -(-8 * offset // 6)  # the first character with no bits of what comes before
        end = 8 * len(padded) // 6  # the last character with no bits of what comes after
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            core = encode(padded).decode("ascii")[start:end]
            if len(core) >= 2 * MIN_REDACTED:
                cores.add(core)
    return cores


def credential_for(auth: AuthConfig, secret_id: str | None) -> Credential | None:
    """The credential for one call; unknown secret ids and unreadable secrets are refused. A token the
    gateway fetches (`oauth2_*`) is had by the call service (grants/), not here."""
    if auth.grant is not None:
        raise CallError(
            f"this API's token is fetched by the gateway (auth.type {auth.type}); call its tools through "
            "`specbridge serve`; nothing was sent",
            code=ErrorCode.SECRET_UNAVAILABLE,
        )
    if secret_id is not None:
        secret = auth.secrets.get(secret_id)
        if secret is None:
            raise CallError(
                "no credential is configured for this client; nothing was sent", code=ErrorCode.SECRET_UNKNOWN
            )
    elif auth.type == "none":
        return None
    else:
        secret = auth.secret
        if secret is None:
            raise CallError(
                "this API needs a per-client credential and none was chosen; nothing was sent",
                code=ErrorCode.SECRET_UNKNOWN,
            )
    if auth.type == "none":
        return None
    try:
        value = secret.reveal()
    except ConfigError as error:
        # debug: every call says it; the gateway warns once per API and client (gateway/_outages.py)
        log.debug("credential unavailable: %s", error.message)
        raise CallError(
            "the API's credential is not available to the gateway; nothing was sent",
            code=ErrorCode.SECRET_UNAVAILABLE,
        ) from None
    if not value or any(ch in value for ch in "\r\n\0"):
        raise CallError(
            "the API's credential is empty or malformed; nothing was sent", code=ErrorCode.SECRET_UNAVAILABLE
        )
    return Credential(auth.type, auth.name, value)
