"""The store fixtures (`_backends`) for every test in this folder: admin features hold on every backend."""

from tests.store._backends import namespaces, store, store_url

__all__ = ["namespaces", "store", "store_url"]
