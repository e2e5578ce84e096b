"""The page's frame: one style sheet, the headers every page answer carries, escaping, times.

The Content-Security-Policy allows nothing but this module's own style sheet, by its SHA-256 (no
`unsafe-inline`: an injected `style` attribute or element does nothing), forms posted to this origin,
and no scripts, frames, images, fonts or connections at all. Every value shown goes through `e` (HTML
escaping) or `reveal_html` (escaping plus marked invisible characters).
"""

from __future__ import annotations

import html
import json
from datetime import UTC, datetime
from typing import Any

from starlette.responses import HTMLResponse, RedirectResponse, Response

from .._style import BASE_STYLE, BUTTON_STYLE, PHONE_STYLE, style_hash
from ._reveal import reveal_html

STYLE = (
    BASE_STYLE
    + """
.badge.destructive{background:#c62828;color:#fff;border-color:#c62828}
.badge.read-only{background:#e8f5e9;border-color:#2e7d32;color:#1b5e20}
ul.pending{list-style:none;padding:0;margin:0}
ul.pending li{border:1px solid #ccc;border-radius:6px;padding:.6rem .8rem;margin:.5rem 0}
ul.pending a.tool{font-weight:600}
.answer{display:flex;flex-wrap:wrap;gap:1rem;align-items:flex-start;margin:1rem 0}
.answer form{margin:0}
fieldset.reject{border:2px solid #c62828;border-radius:6px;padding:.6rem .8rem;margin:0;flex:1 1 18rem;min-width:0}
fieldset.reject legend{font-weight:600;color:#c62828;padding:0 .3rem}
fieldset.reject label{display:block;margin-bottom:.3rem}
textarea{width:100%;font:inherit;padding:.4rem;display:block;margin-bottom:.5rem}
"""
    + BUTTON_STYLE
    + """
button.approve{background:#2e7d32;border-color:#2e7d32;color:#fff;font-weight:600}
button.reject{background:#c62828;border-color:#c62828;color:#fff;font-weight:600}
button.quiet{padding:.25rem .7rem}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;vertical-align:top;padding:.35rem .5rem;border-bottom:1px solid #ddd}
@media (max-width:600px){"""
    + PHONE_STYLE
    + """
table.recent thead{display:none}
table.recent,table.recent tbody,table.recent tr,table.recent td{display:block;width:100%}
table.recent tr{border:1px solid #ccc;border-radius:6px;margin:.5rem 0;padding:.3rem 0}
table.recent td{border:0;padding:.1rem .6rem}
table.recent td::before{content:attr(data-label) ": ";font-weight:600}
}
"""
)
CSP = (
    f"default-src 'none'; style-src {style_hash(STYLE)}; form-action 'self'; "
    "frame-ancestors 'none'; base-uri 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Frame-Options": "DENY",
    # `same-origin`, not `no-referrer`: with no-referrer Chromium posts our own forms with `Origin: null`.
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
    "X-Content-Type-Options": "nosniff",
    "Vary": "Accept, Authorization, X-Api-Key, Cookie",
}
REFRESH_SECONDS = 30


def e(value: Any) -> str:
    return html.escape(str(value), quote=True)


def json_block(value: Any, css: str = "") -> str:
    """A JSON value as a `<pre>`, hidden characters marked."""
    attribute = f' class="{css}"' if css else ""
    text = json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True)
    return f"<pre{attribute}>{reveal_html(text)}</pre>"


def when(seconds: float | None) -> str:
    """A time as a `<time>` element: `2025-06-01 12:00:03 UTC`."""
    if seconds is None:
        return ""
    moment = datetime.fromtimestamp(seconds, UTC)
    shown = moment.strftime("%Y-%m-%d %H:%M:%S UTC")
    return f'<time datetime="{moment.isoformat(timespec="seconds")}">{shown}</time>'


def redirect(location: str) -> Response:
    return RedirectResponse(location, status_code=303, headers=HEADERS)


def document(
    body: str, *, signed_in: tuple[str, str] | None, status: int = 200, refresh: str = ""
) -> Response:
    """A whole page: `signed_in` is (admin id, CSRF token) for the sign-out form; `refresh` a URL the
    page reloads to every 30 s (a `<meta>` refresh: no script)."""
    out = ""
    if signed_in is not None:
        admin, csrf = signed_in
        out = (
            f'<form method="post" action="/admin/sign-out"><span class="muted">Signed in as '
            f"<strong>{e(admin)}</strong></span> "
            f'<input type="hidden" name="csrf" value="{e(csrf)}">'
            '<button type="submit" class="quiet">Sign out</button></form>'
        )
    reload = f'<meta http-equiv="refresh" content="{REFRESH_SECONDS}; url={e(refresh)}">' if refresh else ""
    text = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"{reload}<title>specbridge approvals</title><style>{STYLE}</style></head><body>"
        f'<header><a href="/admin/"><strong>specbridge approvals</strong></a>{out}</header>'
        f"<main>{body}</main></body></html>"
    )
    return HTMLResponse(text, status_code=status, headers=HEADERS)
