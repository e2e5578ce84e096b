"""Fixtures: one store per test on each backend: SQLite in tmp_path, a fresh PostgreSQL schema, a fresh Redis prefix.

The servers are the real ones the machine runs (PostgreSQL 127.0.0.1:5432 database `test`, Redis
127.0.0.1:6379; override with SPECBRIDGE_TEST_POSTGRES / SPECBRIDGE_TEST_REDIS). A backend is
skipped only when its server refuses the connection. Every schema and key a session made is dropped
when it ends.
"""

from __future__ import annotations

import itertools
import os
import secrets
import socket
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
import redis

from specbridge.store import Store, open_store
from tests.support.proxy import Proxy
from tests.support.required import lacking

POSTGRES = os.environ.get("SPECBRIDGE_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
REDIS = os.environ.get("SPECBRIDGE_TEST_REDIS", "redis://127.0.0.1:6379/0")
BACKENDS = ("sqlite", "postgresql", "redis")
SESSION = secrets.token_hex(4)
# One counter for the whole run: folders that import these fixtures each get their own `namespaces`.
_NUMBERS = itertools.count()


def refused(url: str) -> str | None:
    parts = urlsplit(url)
    try:
        socket.create_connection((parts.hostname or "127.0.0.1", parts.port or 0), timeout=5).close()
    except ConnectionRefusedError:
        return lacking(parts.scheme, f"not running at {parts.hostname}:{parts.port} (connection refused)")
    return None


@pytest.fixture(scope="session")
def namespaces() -> Iterator[Callable[[str], str]]:
    """Hands out namespaces for this session and drops them all at its end."""
    made: dict[str, list[str]] = {"postgresql": [], "redis": []}

    def make(backend: str) -> str:
        name = f"t_{SESSION}_{next(_NUMBERS)}"
        made[backend].append(name)
        return name

    yield make
    if made["postgresql"]:
        with psycopg.connect(POSTGRES, autocommit=True) as conn:
            for schema in made["postgresql"]:
                conn.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE'.encode())
    if made["redis"]:
        client = redis.Redis.from_url(REDIS)
        for prefix in made["redis"]:
            keys = list(client.scan_iter(match=f"{prefix}:*", count=1000))
            if keys:
                client.delete(*keys)
        client.close()


def server_store(backend: str, namespaces: Callable[[str], str]) -> str:
    """The URL of an empty store on the machine's PostgreSQL or Redis (`backend`, a fresh namespace);
    the test is skipped, saying why, where the server refuses the connection."""
    url = POSTGRES if backend == "postgresql" else REDIS
    reason = refused(url)
    if reason:
        pytest.skip(reason)
    return f"{url}?namespace={namespaces(backend)}"


@pytest.fixture(params=["postgresql", "redis"])
def shared_store(request: pytest.FixtureRequest, namespaces: Callable[[str], str]) -> str:
    """An empty store several gateway processes can share: PostgreSQL, then Redis."""
    return server_store(request.param, namespaces)


@pytest.fixture(params=BACKENDS)
def store_url(request: pytest.FixtureRequest, tmp_path: Path, namespaces: Callable[[str], str]) -> str:
    """The URL of an empty store of the backend this test runs on (namespace in the query)."""
    backend = request.param
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'state.db'}"
    return server_store(backend, namespaces)


@pytest.fixture
async def store(store_url: str) -> AsyncIterator[Store]:
    async with open_store(store_url) as opened:
        yield opened


def through(proxy: Proxy, url: str) -> str:
    """`url` with its host and port replaced by the proxy's (user and path kept)."""
    parts = urlsplit(url)
    user = parts.netloc.rpartition("@")[0]
    return urlunsplit(parts._replace(netloc=f"{user}@{proxy.address}" if user else proxy.address))
