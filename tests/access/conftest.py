"""The fixtures of `_server.py` (an issuer, a settable clock, a resource server factory) for every
test in this folder."""

from tests.access._server import clock, issuer, make_server

__all__ = ["clock", "issuer", "make_server"]
