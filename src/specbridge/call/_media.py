"""What a file's name and type may be where they become header values: the one filename rule (uploads,
files kept from answers, multipart parts sent upstream), one well-formed media type, and the type a
browser reads from a `Content-Type` that is a list.

- `safe_filename`: the last path segment (`/` and `\\` both separate), printable characters only (no
  control, format, bidi or zero-width characters), trimmed, at most 255 characters; `.` and `..` are
  no name. None when nothing is left.
- `is_media_type`: the whole value is one `type/subtype` with well-formed `; name=value` parameters
  (RFC 9110 tokens and quoted strings, ASCII only), matched with `fullmatch`, so a value ending in a
  newline is not one.
- `browser_media_type`: a list such as `application/octet-stream, text/html` is read as browsers read
  it (the Fetch standard's "extract a MIME type": the last item that parses and is not `*/*` wins),
  so a file is never labelled with a harmless type while a browser would render it as another.
"""

from __future__ import annotations

import re

_TOKEN = r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+"
_QUOTED = r'"(?:[\t !#-\[\]-~]|\\[\t -~])*"'
_PARAMETER = rf"[ \t]*;[ \t]*{_TOKEN}=(?:{_TOKEN}|{_QUOTED})"
_MEDIA_TYPE = re.compile(rf"{_TOKEN}/{_TOKEN}(?:{_PARAMETER})*")
_ESSENCE = re.compile(rf"({_TOKEN})/({_TOKEN})")
_ONE_PARAMETER = re.compile(rf"[ \t]*({_TOKEN})=({_TOKEN}|{_QUOTED})[ \t]*")
MAX_LENGTH = 255


def safe_filename(name: str | None) -> str | None:
    """The name a file may carry into a header or a record (see the module's rule), or None."""
    if not name:
        return None
    segment = name.replace("\\", "/").rsplit("/", 1)[-1]
    plain = "".join(ch for ch in segment if ch.isprintable()).strip()
    if plain in ("", ".", ".."):
        return None
    return plain[:MAX_LENGTH].rstrip() or None


def is_media_type(value: str | None) -> bool:
    """Whether `value` is exactly one well-formed media type, fit to be a header value."""
    return value is not None and len(value) <= MAX_LENGTH and _MEDIA_TYPE.fullmatch(value) is not None


def _items(value: str) -> list[str]:
    """A header list split at commas outside quoted strings."""
    items: list[str] = []
    current: list[str] = []
    quoted = escaped = False
    for ch in value:
        if escaped:
            escaped = False
        elif quoted and ch == "\\":
            escaped = True
        elif ch == '"':
            quoted = not quoted
        elif ch == "," and not quoted:
            items.append("".join(current))
            current = []
            continue
        current.append(ch)
    items.append("".join(current))
    return items


def _parsed(item: str) -> str | None:
    """One list item as a media type (lower-case essence, its well-formed parameters), or None."""
    essence, *parameters = item.strip(" \t\r\n").split(";")
    found = _ESSENCE.fullmatch(essence.strip(" \t"))
    if found is None:
        return None
    kept = [
        f"{match.group(1).lower()}={match.group(2)}"
        for parameter in parameters
        if (match := _ONE_PARAMETER.fullmatch(parameter)) is not None
    ]
    return ";".join([f"{found.group(1)}/{found.group(2)}".lower(), *kept])


def browser_media_type(value: str | None) -> str | None:
    """The media type a browser takes from a `Content-Type` value: of its comma-separated items the
    last that parses and is not `*/*`; None when none does. Returned as one well-formed media type."""
    if not value or len(value) > 4 * MAX_LENGTH:
        return None
    found = None
    for item in _items(value):
        parsed = _parsed(item)
        if parsed is not None and not parsed.startswith("*/*"):
            found = parsed
    return found if found is not None and is_media_type(found) else None
