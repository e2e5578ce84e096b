"""Where people answer approvals over HTTP: the admin JSON API and the server-rendered page.

The names load on first use (module `__getattr__`): `specbridge approvals show` uses `json_text` to
print values safely without loading Starlette.

Modules:

- `_api`: the JSON API (admin keys only); `wants_page`: a browser's navigation gets the page instead.
- `_page`: the page's handlers: sign-in, the list, one approval's page, the answers.
- `_views`: the page's HTML from records alone: the list grouped fairly per client, one approval, the
  banner after an answer.
- `_html`: the frame: the style sheet, the CSP by the sheet's hash, the headers, escaping, times.
- `_sessions`: sign-in sessions tied to the admin and the key they signed in with (`PageSessions`; in one
  process).
- `_stored_sessions`: the same sessions in the store, by the SHA-256 of the cookie, so every instance
  knows them.
- `_oidc`: signing in to the page with the company's OpenID Connect provider (`oauth_server.admins`).
- `_form`: a form read no further than 16 KB whatever its framing, with its Host and Origin checked.
- `_guard`: the Host check, the admin key, refusals; `log_admin`, an admin action in the log and the
  audit log.
- `_reveal`: invisible and bidi characters shown as marked escapes (the CLI's `approvals list/show` too).
- `_facts`: `ToolFacts`/`ToolLookup`: what a tool's call does, handed in by whoever serves the page.
- `_routes`: `admin_routes` and `admin_app`.
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
