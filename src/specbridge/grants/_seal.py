"""What grants/ keeps in the store, sealed: AES-256-GCM under a key derived (HKDF-SHA256) from the
config's `store_key`, with the record's own store key as associated data.

    sealer = sealer_for(grant)                 # the store_key read and derived once per value
    blob = sealer.seal("account:shop:…:bot-1", data)
    data = sealer.open("account:shop:…:bot-1", blob)   # raises Unreadable

So a store read without the key yields nothing usable (tokens, refresh tokens, PKCE verifiers), a
record copied under another key of the store (one client's account under another client's name) does
not open, and a record changed in the store is refused rather than used. A blob names the key that
sealed it (8 bytes of a hash of the derived key), so a gateway holding another `store_key` says so
instead of calling the record damaged.
"""

from __future__ import annotations

import hashlib
import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from .._errors import CallError, ConfigError, ErrorCode
from ..config import MIN_STORE_KEY, GrantConfig, Secret

MAGIC = b"sb1"
NONCE = 12
KEY_ID = 8
INFO = b"specbridge sealed values v1"


class Unreadable(Exception):
    """A sealed record this gateway cannot open: `why` says so in words (never any of its content)."""

    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


class Sealer:
    def __init__(self, secret: str) -> None:
        key = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=INFO).derive(secret.encode("utf-8"))
        self._aead = AESGCM(key)
        self.key_id = hashlib.sha256(b"specbridge key id\0" + key).digest()[:KEY_ID]

    def seal(self, slot: str, data: bytes) -> bytes:
        nonce = os.urandom(NONCE)
        return MAGIC + self.key_id + nonce + self._aead.encrypt(nonce, data, slot.encode("utf-8"))

    def open(self, slot: str, blob: bytes) -> bytes:
        head = len(MAGIC) + KEY_ID + NONCE
        if len(blob) < head + 16 or not blob.startswith(MAGIC):
            raise Unreadable("it is not a record this version of specbridge writes")
        if blob[len(MAGIC) : len(MAGIC) + KEY_ID] != self.key_id:
            raise Unreadable("it was sealed with another store_key than this gateway's")
        nonce = blob[len(MAGIC) + KEY_ID : head]
        try:
            return self._aead.decrypt(nonce, blob[head:], slot.encode("utf-8"))
        except InvalidTag:
            raise Unreadable("it was changed in the store, or moved there from another record") from None


_SEALERS: dict[str, Sealer] = {}  # by a hash of the key's value: deriving costs a few microseconds, not 0


def sealer_for(grant: GrantConfig) -> Sealer:
    """The sealer of `store_key` as it reads now (raises CallError `secret-unavailable`: nothing is sent)."""
    return sealer_of(grant.store_key)


def sealer_of(store_key: Secret | None) -> Sealer:
    """The sealer of `store_key` as it reads now (raises CallError `secret-unavailable`)."""
    if store_key is None:  # the reader puts it in every grant, and in `oauth_server`
        raise CallError("the gateway has no store_key; nothing was sent", code=ErrorCode.SECRET_UNAVAILABLE)
    try:
        secret = store_key.reveal()
    except ConfigError as error:
        raise CallError(
            f"the gateway's store_key is not available ({error.message.removeprefix('secret: ')}); "
            "nothing was sent",
            code=ErrorCode.SECRET_UNAVAILABLE,
        ) from None
    if len(secret) < MIN_STORE_KEY:
        raise CallError(
            f"the gateway's store_key is shorter than {MIN_STORE_KEY} characters; nothing was sent",
            code=ErrorCode.SECRET_UNAVAILABLE,
        )
    digest = hashlib.sha256(secret.encode("utf-8")).hexdigest()
    found = _SEALERS.get(digest)
    if found is None:
        found = _SEALERS[digest] = Sealer(secret)
    return found
