"""The store fixtures (tests/support/stores.py) for every test in this folder; the service harness
itself is in `_harness.py`."""

from tests.support.stores import namespaces, store, store_url

__all__ = ["namespaces", "store", "store_url"]
