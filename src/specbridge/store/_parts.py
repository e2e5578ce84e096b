"""What each backend hands the mixins of its topics (`SqliteSealed`, `PostgresSessions`, `RedisMarker`,
…): the one place these are declared, so a topic's module holds only its own steps. The backend class
takes the topics' mixins (`class RedisStore(RedisMarker, RedisSealed, …)`) and defines these."""

from __future__ import annotations

import sqlite3
from abc import abstractmethod
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

import redis.asyncio as aioredis

from ._base import Store

T = TypeVar("T")


class SqlitePart(Store):
    @abstractmethod
    async def _run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """`work` in the store's one worker thread, reading."""

    @abstractmethod
    async def _write(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """`work` in the store's one worker thread, in a write transaction."""


class PostgresPart(Store):
    @abstractmethod
    async def _one(self, statement: str, params: Any) -> dict[str, Any] | None:
        """The first row of `statement`, or None."""

    @abstractmethod
    async def _count(self, statement: str, params: Any) -> int:
        """The rows `statement` changed."""


class RedisPart(Store):
    prefix: str  # the namespace every key of this store starts with

    @abstractmethod
    def _client(self) -> aioredis.Redis: ...

    @abstractmethod
    @contextmanager
    def _failing(self) -> Iterator[None]:
        """Redis's errors as `StoreError`."""


def redis_number(value: float) -> str:
    """A float as Redis keeps it: its shortest exact text."""
    return repr(float(value))
