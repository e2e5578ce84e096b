"""The store: approvals, execute-once claims and an outbox that survive restarts and are shared.

    store = open_store("sqlite:///.specbridge/state.db", base=config_dir)
    async with store:
        approval, created = await store.attach_or_create(record, now)

`open_store` picks the backend from the URL: `sqlite:///PATH` (relative paths are taken from `base`),
`postgresql://…` (tables in the schema named by `namespace`) or `redis://…` / `rediss://…` (keys
under the prefix `namespace:`). A `?namespace=NAME` query parameter in the URL sets it too.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ._base import Store as Store
from ._base import StoreError as StoreError
from ._model import Announcement as Announcement
from ._model import Approval as Approval
from ._model import Claim as Claim
from ._model import ClaimState as ClaimState
from ._model import Condition as Condition
from ._model import Delivery as Delivery
from ._model import Status as Status
from ._model import StoredFile as StoredFile

# The store next to the config, when `store:` is not set.
DEFAULT_STORE = "sqlite:///.specbridge/state.db"
DEFAULT_NAMESPACE = "specbridge"
_NAMESPACE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,47}")

__all__ = [
    "DEFAULT_NAMESPACE",
    "DEFAULT_STORE",
    "Announcement",
    "Approval",
    "Claim",
    "ClaimState",
    "Condition",
    "Delivery",
    "Status",
    "Store",
    "StoreError",
    "StoredFile",
    "open_store",
    "store_folder",
]


def open_store(url: str, *, base: Path | None = None, namespace: str | None = None) -> Store:
    """The store a URL names, not yet started (`async with store:` or `await store.start()`)."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    from_url = [value for key, value in query if key == "namespace"]
    namespace = namespace or (from_url[-1] if from_url else DEFAULT_NAMESPACE)
    if not _NAMESPACE.fullmatch(namespace):
        raise StoreError(
            f"store namespace {namespace!r}: use letters, digits and _ (at most 48, not starting with a digit)"
        )
    plain = urlunsplit(parts._replace(query=urlencode([(k, v) for k, v in query if k != "namespace"])))
    scheme = parts.scheme.lower()
    if scheme == "sqlite":
        from ._sqlite import SqliteStore

        if not url.startswith("sqlite:///") or len(url) == len("sqlite:///"):
            raise StoreError(f"store {url!r}: write sqlite:///PATH (sqlite:////abs/path for an absolute one)")
        path = Path(url[len("sqlite:///") :].partition("?")[0])
        if str(path) != ":memory:" and not path.is_absolute() and base is not None:
            path = base / path
        return SqliteStore(path)
    if scheme in ("postgresql", "postgres"):
        from ._postgres import PostgresStore

        return PostgresStore(plain, schema=namespace)
    if scheme in ("redis", "rediss"):
        from ._redis import RedisStore

        return RedisStore(plain, prefix=namespace)
    raise StoreError(
        f"store {parts.scheme}://…: the store must be a sqlite:///PATH, postgresql://… or redis://… URL"
    )


def store_folder(url: str) -> Path | None:
    """The folder of a SQLite store's file (what else the gateway keeps on disk goes beside it), or None
    for a store with no folder of its own: PostgreSQL, Redis, an in-memory SQLite."""
    if not url.lower().startswith("sqlite:///"):
        return None
    path = url[len("sqlite:///") :].partition("?")[0]
    return Path(path).parent if path and path != ":memory:" else None
