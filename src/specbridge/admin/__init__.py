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
    from ._form import read_form as read_form
    from ._guard import LOOPBACK_HOSTS as LOOPBACK_HOSTS
    from ._guard import Refused as Refused
    from ._guard import log_answer as log_answer
    from ._html import HEADERS as HEADERS
    from ._html import STYLE as STYLE
    from ._page import AdminPage as AdminPage
    from ._reveal import hidden_in as hidden_in
    from ._reveal import hidden_note as hidden_note
    from ._reveal import json_text as json_text
    from ._reveal import reveal as reveal
    from ._routes import admin_app as admin_app
    from ._routes import admin_routes as admin_routes


__getattr__, __dir__ = lazy_exports(__name__)
