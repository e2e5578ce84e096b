"""The store fixtures (tests/support/stores.py) for every test in this folder."""

from tests.support.stores import namespaces, store, store_url

__all__ = ["namespaces", "store", "store_url"]
