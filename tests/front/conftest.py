"""The `serving` fixture (`_serving.py`) for every test in this folder."""

from tests.front._serving import serving

__all__ = ["serving"]
