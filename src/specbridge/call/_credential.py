"""The stored credential: which secret, where it goes, and every form it might come back in."""

from __future__ import annotations

import base64
import logging
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
        """The forms in which the secret might be echoed back, longest first."""
        values = {self.value}
        if self.kind == "basic":
            _user, _, password = self.value.partition(":")
            values.add(password)
        forms: set[str] = set()
        for value in values:
            if len(value) < MIN_REDACTED:
                continue
            raw = value.encode("utf-8")
            forms.update(
                {
                    value,
                    quote(value, safe=""),
                    quote_plus(value, safe=""),
                    quote(value),
                    base64.b64encode(raw).decode("ascii"),
                    base64.urlsafe_b64encode(raw).decode("ascii"),
                    base64.b64encode(raw).decode("ascii").rstrip("="),
                }
            )
        return sorted((form for form in forms if len(form) >= MIN_REDACTED), key=len, reverse=True)


def credential_for(auth: AuthConfig, secret_id: str | None) -> Credential | None:
    """The credential for one call; unknown secret ids and unreadable secrets are refused."""
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
        log.warning("credential unavailable: %s", error.message)
        raise CallError(
            "the API's credential is not available to the gateway; nothing was sent",
            code=ErrorCode.SECRET_UNAVAILABLE,
        ) from None
    if not value or any(ch in value for ch in "\r\n\0"):
        raise CallError(
            "the API's credential is empty or malformed; nothing was sent", code=ErrorCode.SECRET_UNAVAILABLE
        )
    return Credential(auth.type, auth.name, value)
