"""A secret as an escaping encoder may have written it: each character raw or escaped, escapes mixed.

A server that echoes a credential in an error page or a JSON body rarely echoes it verbatim: Go's
encoder writes `&` `<` `>` as `\\u0026` `\\u003c` `\\u003e`, HTML templates write `&amp;` or `&#38;`,
form and URL encoders write `%26` or `%2b`. Listing every mix of escapes for a secret is exponential,
so `escaped_pattern` builds one regular expression in which each character of the secret matches any
of its forms:

- itself;
- JSON: `\\uXXXX` (hex in either case; a surrogate pair beyond U+FFFF) and the short escapes
  (`\\/`, `\\"`, `\\\\`, `\\t`, `\\b`, `\\f`);
- HTML/XML: a named entity (every HTML5 name for the character, `&amp;`, `&AMP;`, `&sol;` …), a decimal
  (`&#38;`, leading zeros allowed) or hex reference (`&#x26;`, `&#X26;`), always with its `;`;
- percent-encoding of its UTF-8 bytes (hex in either case), `+` for a space.

One layer of escaping per character: a JSON escape inside an HTML entity, or a secret percent-encoded
twice, is not matched here (the parsed JSON of a body is redacted separately, and the literal variants
of `Credential.variants` cover the common whole-value encodings, base64 included). Only the secret's
own characters are matched this way, not its base64 or percent-encoded forms: with every variant the
pattern cost about a second per megabyte of answer; with the secret alone about 0.1 s.
"""

from __future__ import annotations

import functools
import html.entities
import re

_JSON_SHORT = {"/": "\\/", '"': '\\"', "\\": "\\\\", "\t": "\\t", "\b": "\\b", "\f": "\\f"}


@functools.cache
def _entity_names() -> dict[str, tuple[str, ...]]:
    names: dict[str, list[str]] = {}
    for name, char in html.entities.html5.items():
        if name.endswith(";") and len(char) == 1:
            names.setdefault(char, []).append(name)
    return {char: tuple(sorted(found)) for char, found in names.items()}


def _hex(text: str) -> str:
    """A regex for hex digits `text` in either case."""
    return "".join(f"[{ch.lower()}{ch.upper()}]" if ch.isalpha() else ch for ch in text)


def _forms(char: str) -> list[str]:
    """Regex alternatives (ASCII only, except the character itself) for one character."""
    code = ord(char)
    forms = [re.escape(char)]
    units = char.encode("utf-16-be")
    forms.append("".join(f"\\\\u{_hex(units[i : i + 2].hex())}" for i in range(0, len(units), 2)))
    if char in _JSON_SHORT:
        forms.append(re.escape(_JSON_SHORT[char]))
    forms.append(f"&#0*{code};")
    forms.append(f"&#[xX]0*{_hex(format(code, 'x'))};")
    forms += [re.escape(f"&{name}") for name in _entity_names().get(char, ())]
    forms.append("".join(f"%{_hex(format(byte, '02x'))}" for byte in char.encode("utf-8")))
    if char == " ":
        forms.append(r"\+")
    return forms


@functools.lru_cache(maxsize=256)
def escaped_pattern(secrets: tuple[str, ...]) -> tuple[re.Pattern[str], re.Pattern[bytes]] | None:
    """Patterns (text, UTF-8 bytes) matching any of `secrets` written with mixed escapes; None for none."""
    texts: list[str] = []
    raws: list[bytes] = []
    for secret in sorted(set(secrets), key=len, reverse=True):
        if not secret:
            continue
        groups = [_forms(char) for char in secret]
        texts.append("".join("(?:" + "|".join(group) + ")" for group in groups))
        # In bytes, the character itself is its UTF-8 bytes; every escape is ASCII already.
        raws.append(
            b"".join(
                b"(?:"
                + b"|".join([re.escape(char.encode("utf-8")), *(form.encode("ascii") for form in group[1:])])
                + b")"
                for char, group in zip(secret, groups, strict=True)
            )
        )
    if not texts:
        return None
    return re.compile("|".join(texts)), re.compile(b"|".join(raws))
