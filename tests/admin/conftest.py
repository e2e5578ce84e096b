"""The store fixtures (tests/support/stores.py) for every test in this folder: admin features hold on every backend."""

from tests.support.stores import namespaces, store, store_url

__all__ = ["namespaces", "store", "store_url"]
