"""Where people answer approvals over HTTP: the admin JSON API and the server-rendered page.

The names load on first use (module `__getattr__`): `specbridge approvals show` uses `json_text` to
print values safely without loading Starlette.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from ._facts import ToolFacts as ToolFacts
    from ._facts import ToolLookup as ToolLookup
    from ._guard import LOOPBACK_HOSTS as LOOPBACK_HOSTS
    from ._page import AdminPage as AdminPage
    from ._reveal import hidden_in as hidden_in
    from ._reveal import hidden_note as hidden_note
    from ._reveal import json_text as json_text
    from ._reveal import reveal as reveal
    from ._routes import admin_app as admin_app
    from ._routes import admin_routes as admin_routes

_LAZY = {
    "ToolFacts": "._facts",
    "ToolLookup": "._facts",
    "LOOPBACK_HOSTS": "._guard",
    "AdminPage": "._page",
    "hidden_in": "._reveal",
    "hidden_note": "._reveal",
    "json_text": "._reveal",
    "reveal": "._reveal",
    "admin_app": "._routes",
    "admin_routes": "._routes",
}
__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
__all__ = [
    "LOOPBACK_HOSTS",
    "AdminPage",
    "ToolFacts",
    "ToolLookup",
    "admin_app",
    "admin_routes",
    "hidden_in",
    "hidden_note",
    "json_text",
    "reveal",
]
