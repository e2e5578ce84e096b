"""Turning the answer into a result: text, JSON (compact beside structuredContent, else indented), both
within the tool's answer budget (`_answers`), an image as image content, other non-text described,
errors with the status and the start of the body, and the credential replaced by `[credential]`
wherever it comes back.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, AnyStr
from urllib.parse import unquote

import orjson

from .._errors import ErrorCode
from .._json import dumps
from ._answers import DEFAULT_POLICY, AnswerPolicy, json_result, text_result
from ._credential import MIN_REDACTED, Credential
from ._escapes import escaped_pattern
from ._result import BinaryContent, CallResult, ImageContent
from ._salvage import salvage
from ._send import READ_LIMIT, Answer

Json = Any
IMAGE_LIMIT = READ_LIMIT  # an image read whole (up to 1 MB) is image content
ERROR_BODY_CHARS = 2000
SALVAGE_BYTES_PER_TOKEN = 8  # items read past the cap's cut: enough for the budget at any token rate
REDACTED = "[credential]"
_TEXT_TYPES = (
    "application/xml",
    "application/javascript",
    "application/x-www-form-urlencoded",
    "application/yaml",
    "application/x-yaml",
)
_TEXT_SUFFIXES = ("+xml", "+yaml")
# The image types the main model APIs take (a client that hands a model another type fails the whole
# request), each with the bytes its files start with: an answer that only says it is an image is not one.
_IMAGE_MAGIC = {
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/gif": (b"GIF87a", b"GIF89a"),
    "image/webp": (b"RIFF",),
}


class Redactor:
    """Replaces every form of the secret (raw, URL-encoded, JSON-escaped, base64, and the secret written
    with any mix of per-character escapes: JSON `\\u`, HTML entities, percent) with `[credential]`:
    in the raw bytes before they are decoded (a declared charset such as UTF-16 or EBCDIC cannot hide
    them), in the decoded text, in parsed JSON (strings, keys and numbers), and at the end of an answer
    that was cut (a secret cut in half does not show its start). `secrets` are the plain values whose
    escaped spellings are hunted (see `_escapes`)."""

    def __init__(self, variants: Sequence[str] = (), *, secrets: Sequence[str] = ()) -> None:
        self.variants = tuple(variants)
        self._raw = tuple(dict.fromkeys(variant.encode("utf-8") for variant in self.variants))
        hunted = tuple(secret for secret in secrets if len(secret) >= MIN_REDACTED)
        self._escaped = escaped_pattern(hunted) if hunted else None

    @classmethod
    def for_credential(cls, credential: Credential) -> Redactor:
        """The redactor of `credential`'s every form, made once for the last few credentials (their
        forms and patterns cost 20-60 µs, which each call of an API paid; a redactor never changes)."""
        return _credential_redactor(credential)

    def text(self, value: str) -> str:
        for variant in self.variants:
            if variant in value:
                value = value.replace(variant, REDACTED)
        if self._escaped is not None:
            value = self._escaped[0].sub(REDACTED, value)
        return value

    def data(self, value: bytes, *, cut: bool = False) -> bytes:
        """The raw bytes with every form replaced; `cut`: they end where the answer was cut."""
        for variant in self._raw:
            if variant in value:
                value = value.replace(variant, REDACTED.encode("ascii"))
        if self._escaped is not None:
            value = self._escaped[1].sub(REDACTED.encode("ascii"), value)
        if cut:
            value = _cut_tail(value, self._raw, REDACTED.encode("ascii"))
        return value

    def cut(self, value: str) -> str:
        """`value` ends where the answer was cut: hide a trailing start of any form of the secret."""
        value = self.text(value)
        bare = value.rstrip("\ufffd")
        trimmed = _cut_tail(bare, self.variants, REDACTED)
        return value if trimmed == bare else trimmed

    def value(self, value: Json) -> Json:
        if not self.variants:
            return value
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.text(str(key)): self.value(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.value(item) for item in value]
        if isinstance(value, int | float) and not isinstance(value, bool):
            shown = str(value)
            if self.text(shown) != shown:
                return REDACTED
        return value


@functools.lru_cache(maxsize=64)  # a few APIs' credentials, and the access tokens of a few persons
def _credential_redactor(credential: Credential) -> Redactor:
    secrets = [credential.value]
    if credential.kind == "basic":
        secrets.append(credential.value.partition(":")[2])
    return Redactor(credential.variants(), secrets=secrets)


def _cut_tail(value: AnyStr, variants: Sequence[AnyStr], replacement: AnyStr) -> AnyStr:
    """`value` without a trailing start (at least MIN_REDACTED long) of any variant."""
    for variant in variants:
        for length in range(len(variant) - 1, MIN_REDACTED - 1, -1):
            if value.endswith(variant[:length]):
                return value[:-length] + replacement
    return value


def shown(answer: Answer, charset: str, redactor: Redactor) -> str:
    """The answer's body as the agent may see it: redacted as bytes, decoded, redacted as text."""
    text = decode(redactor.data(answer.body, cut=answer.truncated), charset)
    return redactor.cut(text) if answer.truncated else redactor.text(text)


def media_type(answer: Answer) -> tuple[str, str]:
    """(lower-case type, charset) of the answer."""
    header = answer.headers.get("content-type", "")
    kind, _, params = header.partition(";")
    charset = "utf-8"
    for param in params.split(";"):
        key, _, value = param.strip().partition("=")
        if key.lower() == "charset" and value:
            charset = value.strip('"').lower()
    return kind.strip().lower(), charset


def is_json(kind: str) -> bool:
    return kind == "application/json" or kind.endswith("+json")


def is_text(kind: str) -> bool:
    return kind.startswith("text/") or kind in _TEXT_TYPES or kind.endswith(_TEXT_SUFFIXES) or is_json(kind)


def decode(data: bytes, charset: str) -> str:
    try:
        return data.decode(charset, "replace")
    except LookupError:
        return data.decode("utf-8", "replace")


def render(answer: Answer, redactor: Redactor, policy: AnswerPolicy = DEFAULT_POLICY) -> CallResult:
    if 200 <= answer.status < 300:
        return _success(answer, redactor, policy)
    return _failure(answer, redactor)


def _cut_note() -> str:
    return f"\n\n[The answer was longer than {READ_LIMIT // (1024 * 1024)} MB and was cut here.]"


def _success(answer: Answer, redactor: Redactor, policy: AnswerPolicy) -> CallResult:
    kind, charset = media_type(answer)
    link = answer.headers.get("link", "")
    status = answer.status
    if answer.undecoded:
        return CallResult(
            f"The API answered {status} with a body in an encoding specbridge does not decode "
            f"({answer.undecoded}).",
            status=status,
        )
    if not answer.body and not answer.truncated:
        return CallResult(f"The API answered {status} with no content.", status=status)
    if is_json(kind) or (not kind and answer.body[:1] in (b"{", b"[")):
        if not answer.truncated:
            parsed = _parse_json(answer.body)
            if parsed is not _INVALID:
                result = json_result(redactor.value(parsed), status, policy, link=link, body=answer.body)
                return replace(result, text=redactor.text(result.text))
        text = shown(answer, charset, redactor)
        if answer.truncated and policy.max_tokens < READ_LIMIT // 2:  # whole values before the cut
            found = salvage(text, policy.max_tokens * SALVAGE_BYTES_PER_TOKEN)
            if found is not None and found.open_list is not None:  # a list went on past the cut
                return json_result(redactor.value(found.value), status, policy, link=link, read_cut=found)
        return text_result(text, status, policy, truncated=answer.truncated, cut_note=_cut_note(), link=link)
    if is_text(kind) or not kind:
        if not kind and b"\0" in answer.body[:1024]:
            return CallResult(_describe(answer, "application/octet-stream"), status=status)
        text = shown(answer, charset, redactor)
        return text_result(text, status, policy, truncated=answer.truncated, cut_note=_cut_note(), link=link)
    if (
        _is_image(kind, answer.body)
        and not answer.truncated
        and len(answer.body) <= IMAGE_LIMIT
        and redactor.data(answer.body) == answer.body  # an image carrying the credential is only described
    ):
        return CallResult(
            f"The API answered {status} with an image ({kind}, {len(answer.body)} bytes).",
            status=status,
            image=ImageContent(answer.body, kind),
            binary=BinaryContent(answer.body, kind, _filename(answer)),
        )
    # Whole bytes that carry no credential travel on, so a gateway can keep them as a file.
    whole = not answer.truncated and redactor.data(answer.body) == answer.body
    binary = BinaryContent(answer.body, kind, _filename(answer)) if whole else None
    return CallResult(_describe(answer, kind), status=status, binary=binary)


def _is_image(kind: str, body: bytes) -> bool:
    """`body` is an image of a type models take, as its first bytes show (not only its Content-Type)."""
    starts = _IMAGE_MAGIC.get(kind)
    return starts is not None and body.startswith(starts) and (kind != "image/webp" or body[8:12] == b"WEBP")


def _filename(answer: Answer) -> str | None:
    """The file name a `Content-Disposition` gives (`filename*=UTF-8''…` first), without any folder."""
    header = answer.headers.get("content-disposition", "")
    found: str | None = None
    for part in header.split(";"):
        key, _, value = part.strip().partition("=")
        key, value = key.strip().lower(), value.strip()
        if key == "filename*" and "''" in value:
            found = unquote(value.split("''", 1)[1])
            break
        if key == "filename" and value:
            found = value.strip('"')
    if not found:
        return None
    name = found.replace("\\", "/").rsplit("/", 1)[-1].strip()
    return name[:255] or None


def _describe(answer: Answer, kind: str) -> str:
    size = f"more than {len(answer.body)}" if answer.truncated else str(len(answer.body))
    return f"The API answered {answer.status} with {size} bytes of {kind} (not text, so not shown)."


_INVALID = object()


# A number of 19 digits or more may be an integer past 64 bits, which orjson reads as a float (an id
# of 20 digits would reach the model rounded); the standard library keeps such integers exact.
_LONG_NUMBER = re.compile(rb"(?:^|[:\[,])\s*-?\d{19}")


def _parse_json(data: bytes) -> Json:
    if _LONG_NUMBER.search(data) is None:
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return _INVALID


def _failure(answer: Answer, redactor: Redactor) -> CallResult:
    kind, charset = media_type(answer)
    reason = _reason(answer.status)
    head = f"The API answered {answer.status}{' ' + reason if reason else ''}."
    if answer.body and not answer.undecoded and (is_text(kind) or not kind):
        start = _json_shown(answer, kind, redactor) or shown(answer, charset, redactor)
        if len(start) > ERROR_BODY_CHARS or answer.truncated:
            start = start[:ERROR_BODY_CHARS] + " […]"
        head += "\n" + start
    elif answer.body:
        head += f" The body was {len(answer.body)} bytes of {kind or 'unknown type'}."
    return CallResult(head, is_error=True, code=ErrorCode.UPSTREAM_STATUS, status=answer.status)


def _json_shown(answer: Answer, kind: str, redactor: Redactor) -> str | None:
    """A JSON error body redacted in its decoded strings (where no escaping can hide the secret),
    written back compactly; None when it is not whole, parseable JSON."""
    if not is_json(kind) or answer.truncated:
        return None
    parsed = _parse_json(answer.body)
    if parsed is _INVALID:
        return None
    return redactor.text(dumps(redactor.value(parsed)))


def _reason(status: int) -> str:
    from http import HTTPStatus

    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return ""
