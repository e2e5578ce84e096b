"""What the connect pages say to a person, in the admin page's look (`_style`): the offer (whose account,
for which client, the scopes asked, where they sign in), and one page for each outcome — connected,
denied, expired, error — each ending with where to go next: "you can close this tab and return to
<client>". Names shown are the API's title (its document's `info.title`) and the client's
`display_name`, never config ids alone.

Plain HTML, nothing to run; the Content-Security-Policy allows only this style sheet (by hash) and forms
posted here or to the API's authorization server.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from enum import StrEnum

from starlette.responses import HTMLResponse

from .._style import BASE_STYLE, BUTTON_STYLE, PHONE_STYLE, style_hash

STYLE = (
    BASE_STYLE
    + BUTTON_STYLE
    + """
main{max-width:40rem}
button.go{background:#1565c0;border-color:#1565c0;color:#fff;font-weight:600;min-height:2.75rem}
ul.scopes{margin:0;padding-left:1.2rem}
p.code{margin-top:1.5rem}
@media (max-width:600px){"""
    + PHONE_STYLE
    + """
button.go{width:100%}
}
"""
)
HEADERS = {
    "Cache-Control": "no-store",
    "Referrer-Policy": "same-origin",  # no Referer elsewhere (the id, the state), an Origin here
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
}


class Outcome(StrEnum):
    CONNECTED = "connected"
    DENIED = "denied"
    EXPIRED = "expired"
    ERROR = "error"


@dataclass(frozen=True, slots=True)
class Names:
    """What a page calls things: the API by its title, the client by its display name (None: unknown,
    e.g. on a link that cannot be read)."""

    api: str
    client: str | None = None


def e(value: object) -> str:
    return html.escape(str(value), quote=True)


def back_to(client: str | None) -> str:
    where = f"<strong>{e(client)}</strong>" if client else "the app you came from"
    return f'<p class="note back">You can close this tab and return to {where}.</p>'


def offer_page(
    names: Names, scopes: tuple[str, ...], host: str, fields: dict[str, str], target: str
) -> HTMLResponse:
    """The link's page: what connecting means, and the form that goes on to the API's sign-in."""
    client = e(names.client or "this client")
    asked = "".join(f"<li><code>{e(scope)}</code></li>" for scope in scopes) or "<li>none named</li>"
    hidden = "".join(f'<input type="hidden" name="{e(k)}" value="{e(v)}">' for k, v in fields.items())
    body = (
        f"<h1>Connect your {e(names.api)} account</h1>"
        f"<p><strong>{client}</strong> asks to use <strong>{e(names.api)}</strong> as you: its calls to "
        "the API will act as your account, until you disconnect it there.</p>"
        '<dl class="facts">'
        f"<dt>API</dt><dd>{e(names.api)}</dd>"
        f"<dt>Client</dt><dd>{client}</dd>"
        f'<dt>Access asked</dt><dd><ul class="scopes">{asked}</ul></dd>'
        f"<dt>You sign in at</dt><dd>{e(host)}, the API's own page</dd>"
        "</dl>"
        f'<p class="warn">Go on only if you asked for this in {client} yourself.</p>'
        f'<form method="post">{hidden}<button type="submit" class="go">Continue to sign in</button></form>'
    )
    return page(f"Connect your {names.api} account", body, target=target)


def outcome_page(
    outcome: Outcome, names: Names | None, detail: str, code: str = "", status: int = 200
) -> HTMLResponse:
    """The page a person lands on at the end: connected, denied, expired, or an error, with what to do."""
    api = e(names.api) if names is not None else "the API"
    client = names.client if names is not None else None
    if outcome is Outcome.CONNECTED:
        title = f"Your {names.api if names else 'API'} account is connected"
        said = (
            f"<p>Your account of <strong>{api}</strong> is connected to the client "
            f"<strong>{e(client or '')}</strong>. Its calls to {api} now act as you: go back to it and "
            "ask again for what you wanted.</p>"
        )
    elif outcome is Outcome.DENIED:
        title = "Not connected: access was declined"
        said = (
            f"<p>Access to your {api} account was not granted ({e(detail)}), so nothing was connected. "
            "To try again, ask the client again: it gives a new link.</p>"
        )
    elif outcome is Outcome.EXPIRED:
        title = "This link has expired"
        said = f'<p class="warn">{e(detail)}</p><p>Ask the client again: it gives a new link.</p>'
    else:
        title = "Not connected: something went wrong"
        said = f'<p class="error">{e(detail)}</p>'
    shown = f'<p class="muted code">[{e(code)}]</p>' if code else ""
    return page(title, f"<h1>{e(title)}</h1>{said}{back_to(client)}{shown}", status=status, kind=outcome)


def page(title: str, body: str, *, status: int = 200, target: str = "", kind: str = "offer") -> HTMLResponse:
    policy = (
        f"default-src 'none'; style-src {style_hash(STYLE)}; form-action 'self' {target}".rstrip()
        + "; frame-ancestors 'none'; base-uri 'none'"
    )
    text = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{e(title)} · specbridge</title><style>{STYLE}</style></head>"
        f'<body class="{e(kind)}"><header><strong>specbridge</strong>'
        '<span class="muted">connecting an account</span></header>'
        f"<main>{body}</main></body></html>"
    )
    return HTMLResponse(text, status_code=status, headers={**HEADERS, "Content-Security-Policy": policy})
