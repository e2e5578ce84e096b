"""`Tokens`: what a token endpoint handed out (RFC 6749 §5.1), as grants/ keeps it sealed in the store.

A token is used until shortly before it expires (`EARLY`: a tenth of its life, at most a minute), so
a call never sets out with a token that runs out on the way. An answer without `expires_in` is kept for
`UNKNOWN_LIFE` (the API's 401 ends it sooner: it is then fetched again).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import orjson

EARLY = 60.0
UNKNOWN_LIFE = 3600.0
MAX_TOKEN = 16 * 1024  # characters of one token: a JWT with many claims is a few KB
_HEADER_SAFE = re.compile(r"[\x21-\x7e]+")  # what may follow `Bearer ` in a header, and in a form


@dataclass(frozen=True, slots=True)
class Tokens:
    access: str
    obtained_at: float
    expires_at: float
    refresh: str | None = None

    def __repr__(self) -> str:
        return f"Tokens(…, expires_at={self.expires_at}, refresh={'…' if self.refresh else None})"

    @property
    def usable_until(self) -> float:
        return self.expires_at - min(EARLY, (self.expires_at - self.obtained_at) / 10)

    def usable(self, now: float) -> bool:
        return now < self.usable_until

    def data(self) -> bytes:
        return orjson.dumps(
            {"a": self.access, "o": self.obtained_at, "e": self.expires_at, "r": self.refresh}
        )

    @classmethod
    def from_data(cls, data: bytes) -> Tokens:
        found = orjson.loads(data)
        return cls(str(found["a"]), float(found["o"]), float(found["e"]), found.get("r"))


def from_answer(answer: Any, now: float, previous_refresh: str | None = None) -> Tokens | str:
    """The tokens of a 200 answer of a token endpoint, or why it cannot be used (words, never a value).
    A refresh answer without a new refresh token keeps the one that was used (RFC 6749 §6)."""
    if not isinstance(answer, dict):
        return "its answer is not a JSON object"
    access = answer.get("access_token")
    if not isinstance(access, str) or not 0 < len(access) <= MAX_TOKEN or not _HEADER_SAFE.fullmatch(access):
        return "its answer has no usable access_token"
    kind = answer.get("token_type")
    if not isinstance(kind, str) or kind.lower() != "bearer":
        return "its answer's token_type is not Bearer (the only kind the gateway sends)"
    life = answer.get("expires_in", UNKNOWN_LIFE)
    try:
        seconds = float(life)
    except (TypeError, ValueError):
        return "its answer's expires_in is not a number"
    if not 0 < seconds <= 10 * 365 * 86400:
        return "its answer's expires_in is not a positive number of seconds"
    refresh = answer.get("refresh_token", previous_refresh)
    if refresh is not None and (
        not isinstance(refresh, str)
        or not 0 < len(refresh) <= MAX_TOKEN
        or not _HEADER_SAFE.fullmatch(refresh)
    ):
        return "its answer's refresh_token is not usable"
    return Tokens(access, now, now + seconds, refresh)
