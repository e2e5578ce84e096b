"""The front's pages, in the admin page's style (its style sheet, allowed by its hash; no script, no
frame, nothing fetched): the consent page, and the page that says why a sign-in went no further.

The consent page names who asks (the client's name as it gave it, marked as its own words, and the
host its id or redirect URI lives at, which it cannot choose freely), who the person signed in as, the
client of the gateway they will act as, the API and the scopes. Its form carries a CSRF token bound to
the consent and this browser, and its Content-Security-Policy lets the form's answer go only to this
gateway and then to the client's one registered redirect URI.
"""

from __future__ import annotations

import html
from urllib.parse import urlsplit

from starlette.responses import HTMLResponse

from .._style import style_hash
from ..admin import HEADERS, STYLE
from ._flow import Offer


def e(value: object) -> str:
    return html.escape(str(value), quote=True)


def _target(redirect_uri: str) -> str:
    """The CSP source of a redirect URI (Chromium checks `form-action` on the redirect a form leads to)."""
    parts = urlsplit(redirect_uri)
    if parts.scheme in ("http", "https"):
        return f"{parts.scheme}://{parts.netloc}"
    return f"{parts.scheme}:"


def page(title: str, body: str, *, status: int = 200, form_to: str = "") -> HTMLResponse:
    action = "'self'" + (f" {_target(form_to)}" if form_to else "")
    policy = (
        f"default-src 'none'; style-src {style_hash(STYLE)}; form-action {action}; "
        "frame-ancestors 'none'; base-uri 'none'"
    )
    text = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{e(title)} · specbridge</title><style>{STYLE}</style></head><body>"
        f"<header><strong>specbridge sign-in</strong></header><main><h1>{e(title)}</h1>{body}</main></body></html>"
    )
    headers = {**HEADERS, "Content-Security-Policy": policy}
    return HTMLResponse(text, status_code=status, headers=headers)


def consent_page(offer: Offer) -> HTMLResponse:
    client = offer.client
    by = "its metadata document" if client.by == "document" else "dynamic registration (not verified)"
    scopes = "".join(f"<li><code>{e(scope)}</code></li>" for scope in offer.scope.split()) or "<li>none</li>"
    body = (
        f'<p><strong>{e(client.name)}</strong> <span class="muted">(its own name for itself)</span>, '
        f"at <strong>{e(client.host)}</strong>, asks to use <strong>{e(offer.api)}</strong> for you.</p>"
        '<dl class="facts">'
        f"<dt>Signed in as</dt><dd>{e(offer.person)}</dd>"
        f"<dt>Acting as</dt><dd><code>{e(offer.mapped)}</code> of this gateway</dd>"
        f"<dt>Client id</dt><dd><code>{e(client.client_id)}</code> (by {by})</dd>"
        f"<dt>Sends you back to</dt><dd><code>{e(offer.redirect_uri)}</code></dd>"
        f"<dt>Scopes</dt><dd><ul>{scopes}</ul></dd></dl>"
        "<p>Allow only if you started this from that application yourself.</p>"
        '<div class="answer">'
        + _form(offer, "allow", "approve", "Allow")
        + _form(offer, "deny", "reject", "Deny")
        + "</div>"
    )
    return page("Allow access?", body, form_to=offer.redirect_uri)


def _form(offer: Offer, decision: str, css: str, label: str) -> str:
    return (
        '<form method="post" action="/oauth/consent">'
        f'<input type="hidden" name="consent" value="{e(offer.consent_id)}">'
        f'<input type="hidden" name="csrf" value="{e(offer.csrf)}">'
        f'<input type="hidden" name="decision" value="{e(decision)}">'
        f'<button type="submit" class="{css}">{e(label)}</button></form>'
    )


def refusal_page(message: str, code: str, status: int, back: str | None = None) -> HTMLResponse:
    body = f'<p class="error">{e(message)} <code>{e(code)}</code></p>'
    if back is not None:
        body += f'<p><a href="{e(back)}">Back to the application</a></p>'
    return page("Not signed in", body, status=status)
