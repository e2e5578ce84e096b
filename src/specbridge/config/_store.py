"""`store:`: the store's URL as every command opens it. A relative `sqlite:///PATH` is made absolute
against the config's folder, so every command (and the gateway) opens the same file whatever its
working directory; the store's own query parameters `?timeout=` and `?connections=` are checked here, so
a mistyped one is a config error at load, not a store failure at first use (the store reads them with
the same rules when it opens: `specbridge.store.open_store`; config/ may not import store/)."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

_TIMEOUT = re.compile(r"(\d+(?:\.\d+)?)\s*(ms|s)?")


def _timeout_ok(text: str) -> bool:
    found = _TIMEOUT.fullmatch(text.strip())
    seconds = 0.0 if found is None else float(found.group(1)) / (1000 if found.group(2) == "ms" else 1)
    return 0 < seconds <= 300


def _connections_ok(text: str) -> bool:
    text = text.strip()
    return text.isascii() and text.isdigit() and 1 <= int(text) <= 1000


def store_url(url: str, base_dir: Path) -> str:
    """`url` ready to open (see the module); ValueError, with what is valid, for a bad parameter."""
    url = url.strip()
    for key, value in parse_qsl(urlsplit(url).query, keep_blank_values=True):
        if key == "timeout" and not _timeout_ok(value):
            raise ValueError("?timeout= must be seconds above 0 and at most 300 (5, 2.5s, 500ms)")
        if key == "connections" and not _connections_ok(value):
            raise ValueError("?connections= must be a whole number from 1 to 1000")
    if not url.startswith("sqlite:///"):
        return url
    path, mark, query = url[len("sqlite:///") :].partition("?")
    if path and path != ":memory:" and not Path(path).is_absolute():
        path = str(base_dir / path)
    return f"sqlite:///{path}{mark}{query}"


def sessions_mode(value: object, store: str) -> str:
    """`sessions:`: `store` (handshake-era MCP sessions kept in the store, served by any instance) or
    `memory` (kept by the instance that opened them). Unset: `store` on a PostgreSQL or Redis store (one
    that several instances share), `memory` on SQLite. ValueError for anything else."""
    if value is None:
        return "memory" if store.lower().startswith("sqlite:") else "store"
    if value not in ("store", "memory"):
        raise ValueError("must be store or memory")
    return str(value)
