"""The `make_caller` fixture (`_caller.py`) for every test in this folder."""

from tests.call._caller import make_caller

__all__ = ["make_caller"]
