"""The store: approvals, execute-once claims and an outbox that survive restarts and are shared.

    store = open_store("sqlite:///.specbridge/state.db", base=config_dir)
    async with store:
        approval, created = await store.attach_or_create(record, now)

`open_store` picks the backend from the URL: `sqlite:///PATH` (relative paths are taken from `base`),
`postgresql://…` (tables in the schema named by `namespace`) or `redis://…` / `rediss://…` (keys
under the prefix `namespace:`). Query parameters of the URL that are the store's own, not the driver's:
`?namespace=NAME` sets the namespace; `?timeout=5s` how long any one operation may take (seconds, or
with `s`/`ms`; default 5 s) before it fails with `StoreError`; `?connections=10` how many connections
one instance may hold (PostgreSQL's pool, Redis's; SQLite has one).

Modules:

- `_base`: `Store`, the interface: each step atomic across processes; every backend passes one contract
  suite.
- `_bounded`: what every backend's operations share, put around them once: a time bound, impossible ids
  answered "not found".
- `_model`, `_records`: the frozen records the store keeps, and records to flat fields and back.
- `_sqlite`, `_postgres`, `_redis`: the backends (sqlite3 on one worker thread; psycopg 3's pool;
  redis.asyncio with `_redis_lua`'s scripts and `_redis_pool`'s bounded pool).
- `_sql`: the schema's migrations and statements both SQL backends share.
- `_polling`: `poll`, the one loop of every waiter that reads the store again until a deadline.
- `_parts`: what each backend hands its topics' mixins.
- `_listing` (+ `_sqlite_listing`, `_postgres_listing`, `_redis_listing`): approvals listed in pages
  and per client.
- `_marker` (+ `_sql_marker`, `_sqlite_marker`, `_postgres_marker`, `_redis_marker`): the store's own
  guarantees and the marker that tells a store lost its data.
- `_rates` (+ `_sqlite_rates`, `_postgres_rates`, `_redis_rates`): rate-limit counters.
- `_sql_sealed`, `_sqlite_sealed`, `_postgres_sealed`, `_redis_sealed`: sealed values.
- `_sql_sessions`, `_sqlite_sessions`, `_postgres_sessions`, `_redis_sessions`: sessions any instance
  serves, by the SHA-256 of their id.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ._base import ANY as ANY
from ._base import Store as Store
from ._base import StoreError as StoreError
from ._base import StoreLost as StoreLost
from ._bounded import DEFAULT_TIMEOUT as DEFAULT_TIMEOUT
from ._listing import FIRST as FIRST
from ._listing import ClientApprovals as ClientApprovals
from ._listing import Cursor as Cursor
from ._listing import Page as Page
from ._marker import Guarantees as Guarantees
from ._marker import Marker as Marker
from ._marker import MarkerKind as MarkerKind
from ._marker import persistence_warning as persistence_warning
from ._model import Announcement as Announcement
from ._model import Approval as Approval
from ._model import Claim as Claim
from ._model import ClaimState as ClaimState
from ._model import Condition as Condition
from ._model import Delivery as Delivery
from ._model import Status as Status
from ._model import StoredFile as StoredFile
from ._model import StoredSession as StoredSession
from ._polling import poll as poll
from ._rates import RateLimit as RateLimit

# The store next to the config, when `store:` is not set.
DEFAULT_STORE = "sqlite:///.specbridge/state.db"
DEFAULT_NAMESPACE = "specbridge"
DEFAULT_CONNECTIONS = 10
_NAMESPACE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,47}")
_TIMEOUT = re.compile(r"(\d+(?:\.\d+)?)\s*(ms|s)?")
_OWN = ("namespace", "timeout", "connections")  # query parameters the store reads, never sent on
MAX_TIMEOUT, MAX_CONNECTIONS = 300.0, 1000

__all__ = [
    "ANY",
    "DEFAULT_CONNECTIONS",
    "DEFAULT_NAMESPACE",
    "DEFAULT_STORE",
    "DEFAULT_TIMEOUT",
    "Announcement",
    "Approval",
    "Claim",
    "ClaimState",
    "ClientApprovals",
    "Condition",
    "Cursor",
    "Delivery",
    "Guarantees",
    "Marker",
    "MarkerKind",
    "RateLimit",
    "Status",
    "Store",
    "StoreError",
    "StoreLost",
    "StoredFile",
    "StoredSession",
    "open_store",
    "persistence_warning",
    "store_connections",
    "store_folder",
    "store_timeout",
]


def open_store(url: str, *, base: Path | None = None, namespace: str | None = None) -> Store:
    """The store a URL names, not yet started (`async with store:` or `await store.start()`)."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    own = {key: value for key, value in query if key in _OWN}  # the last of each wins
    namespace = namespace or own.get("namespace", DEFAULT_NAMESPACE)
    if not _NAMESPACE.fullmatch(namespace):
        raise StoreError(
            "the store's namespace: use letters, digits and _ (at most 48, not starting with a digit)"
        )
    timeout = store_timeout(own["timeout"]) if "timeout" in own else DEFAULT_TIMEOUT
    connections = store_connections(own["connections"]) if "connections" in own else DEFAULT_CONNECTIONS
    plain = urlunsplit(parts._replace(query=urlencode([(k, v) for k, v in query if k not in _OWN])))
    scheme = parts.scheme.lower()
    if scheme == "sqlite":
        from ._sqlite import SqliteStore

        if not url.startswith("sqlite:///") or len(url) == len("sqlite:///"):
            raise StoreError(f"store {url!r}: write sqlite:///PATH (sqlite:////abs/path for an absolute one)")
        path = Path(url[len("sqlite:///") :].partition("?")[0])
        if str(path) != ":memory:" and not path.is_absolute() and base is not None:
            path = base / path
        return SqliteStore(path, timeout=timeout)
    if scheme in ("postgresql", "postgres"):
        from ._postgres import PostgresStore

        return PostgresStore(plain, schema=namespace, max_connections=connections, timeout=timeout)
    if scheme in ("redis", "rediss"):
        from ._redis import RedisStore

        return RedisStore(plain, prefix=namespace, max_connections=connections, timeout=timeout)
    raise StoreError(
        f"store {parts.scheme}://…: the store must be a sqlite:///PATH, postgresql://… or redis://… URL"
    )


def store_timeout(text: str) -> float:
    """`?timeout=`: seconds (`5`, `2.5`, `5s`, `500ms`), above 0 and at most 300."""
    found = _TIMEOUT.fullmatch(text.strip())
    seconds = 0.0 if found is None else float(found.group(1)) / (1000 if found.group(2) == "ms" else 1)
    if not 0 < seconds <= MAX_TIMEOUT:
        raise StoreError(
            f"store timeout {text[:32]!r}: give seconds above 0 and at most 300 (5, 2.5s, 500ms)"
        )
    return seconds


def store_connections(text: str) -> int:
    """`?connections=`: a whole number from 1 to 1000."""
    if not (text.strip().isascii() and text.strip().isdigit()) or not 1 <= int(text) <= MAX_CONNECTIONS:
        raise StoreError(f"store connections {text[:32]!r}: give a whole number from 1 to 1000")
    return int(text)


def store_folder(url: str) -> Path | None:
    """The folder of a SQLite store's file (what else the gateway keeps on disk goes beside it), or None
    for a store with no folder of its own: PostgreSQL, Redis, an in-memory SQLite."""
    if not url.lower().startswith("sqlite:///"):
        return None
    path = url[len("sqlite:///") :].partition("?")[0]
    return Path(path).parent if path and path != ":memory:" else None
