"""The store fixtures (`_backends`) for every test in this folder."""

from tests.store._backends import namespaces, store, store_url

__all__ = ["namespaces", "store", "store_url"]
