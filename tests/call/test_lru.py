"""`Lru`: the cache of compiled validators stays within its size, forgetting the entry used longest ago,
and stays consistent when worker threads use it at once."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from specbridge.call import Lru


def test_a_stored_value_comes_back_and_an_unknown_key_is_none() -> None:
    cache: Lru[str, int] = Lru(2)
    cache.put("a", 1)
    assert (cache.get("a"), cache.get("b")) == (1, None)


def test_past_its_size_it_forgets_the_least_recently_stored_entry() -> None:
    cache: Lru[str, int] = Lru(2)
    for key, value in (("a", 1), ("b", 2), ("c", 3)):
        cache.put(key, value)
    assert (len(cache), cache.get("a"), cache.get("b"), cache.get("c")) == (2, None, 2, 3)


def test_reading_an_entry_makes_it_recent_so_the_other_one_goes() -> None:
    cache: Lru[str, int] = Lru(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.get("a")
    cache.put("c", 3)
    assert (cache.get("a"), cache.get("b"), cache.get("c")) == (1, None, 3)


def test_storing_a_key_again_replaces_its_value_and_makes_it_recent() -> None:
    cache: Lru[str, int] = Lru(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("a", 10)
    cache.put("c", 3)
    assert (len(cache), cache.get("a"), cache.get("b")) == (2, 10, None)


def test_threads_storing_and_reading_at_once_never_leave_it_past_its_size() -> None:
    cache: Lru[int, int] = Lru(16)

    def work(start: int) -> None:
        for key in range(start, start + 500):
            cache.put(key, key)
            value = cache.get(key - 3)
            assert value is None or value == key - 3

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(work, range(0, 4000, 500)))
    assert len(cache) == 16
