"""The page's views as HTML text, from records alone (no request, no store): the pending list grouped
fairly by client, the recent answers, the banner after an answer, one approval with its answer forms.

Fairness: pending approvals are grouped by client (`Store.approval_groups`: every client, whatever the
others hold), the clients in the order of their longest wait, each showing its `PER_CLIENT` oldest with a
link to all of them (`?client=…`, `PAGE_SIZE` a page, the next one from the last's cursor); so one
client's thousand approvals never push another client's single one off the page. The heading counts
every pending approval there is.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any
from urllib.parse import quote, urlencode

from ..approvals import status_text
from ..store import Approval, ClientApprovals, Cursor, Status
from ._facts import ToolFacts, ToolLookup
from ._html import e, json_block, when
from ._reveal import hidden_in, hidden_note, reveal_html

PER_CLIENT = 10
PAGE_SIZE = 50
MAX_GROUPS = 100  # clients shown with their approvals; the others as links
PREVIEW = 160  # characters of the arguments shown in a list
SUMMARY = 400  # characters of a tool's summary
NO_CLIENT = "(no client key)"
ANSWERED = {
    Status.REJECTED: "Rejected",
    Status.EXPIRED: "Expired",
}


def approval_url(approval_id: str) -> str:
    return f"/admin/approvals/{quote(approval_id, safe='')}"


def _raw_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(", ", ": "))


def _cut(text: str, limit: int) -> str:
    return text[:limit] + ("…" if len(text) > limit else "")


def preview(value: Any, limit: int = PREVIEW) -> str:
    """A value's JSON on one line, cut at `limit` characters, hidden characters marked."""
    return reveal_html(_cut(_raw_json(value), limit), keep="")


def _client(approval: Approval) -> str:
    return approval.client or NO_CLIENT


def _hidden_badge(approval: Approval) -> str:
    if hidden_in(_raw_json([approval.arguments, approval.bound])):
        return ' <span class="badge">invisible characters</span>'
    return ""


def hint_badges(facts: ToolFacts | None) -> str:
    if facts is None:
        return ""
    if facts.read_only:
        return '<span class="badge read-only">read-only</span>'
    if facts.destructive:
        return '<span class="badge destructive">destructive</span>'
    return '<span class="badge">changes data</span>'


def _pending_item(approval: Approval, facts: ToolFacts | None) -> str:
    request = f" · <code>{e(facts.method)} {reveal_html(facts.path)}</code>" if facts else ""
    return (
        f'<li id="approval-{e(approval.id)}"><a class="tool" href="{approval_url(approval.id)}">'
        f"{e(approval.api)} / {e(approval.tool)}</a> {hint_badges(facts)}{request}{_hidden_badge(approval)}"
        f"{_repeat_badge(approval)}"
        f'<br><code class="args">{preview(approval.arguments)}</code>'
        f'<br><span class="muted">asked {when(approval.created_at)} · expires {when(approval.expires_at)}'
        "</span></li>"
    )


def _repeat_badge(approval: Approval) -> str:
    """A repeat of a call sent or answered before (after `approvals.repeat_window`): say so in the list,
    linking the approval before it, so nobody approves a second refund without seeing the first."""
    if approval.repeat_of is None:
        return ""
    return (
        f' <span class="badge destructive">repeat: same call as '
        f'<a href="{approval_url(approval.repeat_of)}"><code>{e(approval.repeat_of[:12])}</code></a></span>'
    )


def _client_link(client: str, after: Cursor | None = None) -> str:
    query = {"client": client} | ({"after": after.text()} if after is not None else {})
    return "/admin/?" + urlencode(query)


def _section(name: str, count: int, items: Iterable[Approval], lookup: ToolLookup) -> str:
    shown = reveal_html(name or NO_CLIENT)
    return (
        f'<section class="client"><h2>Client {shown} · {count} pending</h2><ul class="pending">'
        + "".join(_pending_item(approval, lookup(approval.api, approval.tool)) for approval in items)
        + "</ul>"
    )


def pending_view(
    groups: list[ClientApprovals], lookup: ToolLookup, *, loaded: str = "", more: str = ""
) -> str:
    """The heading, counting every pending approval, and `loaded`; then each client, the one waiting
    longest first, with its `PER_CLIENT` oldest and a link to all of its own (`client_view`). Past
    `MAX_GROUPS` clients, the others are links with their counts. `lookup(api, tool)` gives a tool's facts."""
    total = sum(group.count for group in groups)
    parts = [f"<h1>Pending approvals ({total})</h1>", loaded, more]
    if not groups:
        parts.append("<p>Nothing waits for an answer.</p>")
    for group in groups[:MAX_GROUPS]:
        parts.append(_section(group.client, group.count, group.oldest[:PER_CLIENT], lookup))
        if group.count > min(len(group.oldest), PER_CLIENT):
            parts.append(
                f'<p><a href="{e(_client_link(group.client))}">All {group.count} pending from '
                f"{reveal_html(group.client or NO_CLIENT)}</a></p>"
            )
        parts.append("</section>")
    if len(groups) > MAX_GROUPS:
        links = ", ".join(
            f'<a href="{e(_client_link(group.client))}">{reveal_html(group.client or NO_CLIENT)}</a> ({group.count})'
            for group in groups[MAX_GROUPS:]
        )
        parts.append(f"<h2>{len(groups) - MAX_GROUPS} more clients waiting</h2><p>{links}</p>")
    return "".join(parts)


def client_view(
    group: ClientApprovals | None,
    name: str,
    items: list[Approval],
    lookup: ToolLookup,
    *,
    total: int,
    loaded: str = "",
    after: Cursor | None = None,
) -> str:
    """One client's pending approvals, oldest first, `PAGE_SIZE` a page: `items` (the page past
    `after`), with a link to the next page while pages are full."""
    parts = [f"<h1>Pending approvals ({total})</h1>", loaded, '<p><a href="/admin/">All clients</a></p>']
    if group is None:
        parts.append(f"<p>Nothing from {reveal_html(name or NO_CLIENT)} waits for an answer.</p>")
        return "".join(parts)
    parts.append(_section(name, group.count, items, lookup))
    links = [f'<a href="{e(_client_link(name))}">First page</a>'] if after is not None else []
    if len(items) >= PAGE_SIZE:
        links.append(f'<a href="{e(_client_link(name, Cursor.after(items[-1])))}">Next page</a>')
    if links:
        parts.append(f"<p>{' · '.join(links)}</p>")
    parts.append("</section>")
    return "".join(parts)


def recent_view(recent: list[Approval]) -> str:
    rows = "".join(
        f'<tr><td data-label="answered">{when(a.answered_at)}</td>'
        f'<td data-label="tool"><a href="{approval_url(a.id)}">{e(a.api)} / {e(a.tool)}</a></td>'
        f'<td data-label="client">{reveal_html(_client(a))}</td><td data-label="status">{e(status_text(a))}</td>'
        f'<td data-label="by">{reveal_html(a.answered_by or "")}</td>'
        f'<td data-label="reason">{reveal_html(a.reason or "")}</td></tr>'
        for a in recent
    )
    head = "<tr><th>answered</th><th>tool</th><th>client</th><th>status</th><th>by</th><th>reason</th></tr>"
    if not recent:
        return "<h2>Recently answered</h2><p>No answers yet.</p>"
    return (
        f'<h2>Recently answered</h2><table class="recent"><thead>{head}</thead><tbody>{rows}</tbody></table>'
    )


def banner(approval: Approval, *, sends: bool = True) -> str:
    """What the person just did, naming the tool and its arguments, and what becomes of an approved
    call (`sends`: the gateway sends it at once, `approvals.send: on_answer`)."""
    verb = ANSWERED.get(approval.status, "Approved")
    reason = f" Reason: {reveal_html(approval.reason)}." if approval.reason else ""
    if approval.status in (Status.APPROVED, Status.EXECUTING):
        reason = (
            " The gateway is sending it now; its page shows the outcome."
            if sends
            else " The agent's next identical call sends it."
        )
    return (
        f'<p class="note" role="status"><strong>{verb}</strong> {e(approval.api)} / {e(approval.tool)} '
        f"with <code>{preview(approval.arguments)}</code> (approval "
        f'<a href="{approval_url(approval.id)}"><code>{e(approval.id)}</code></a>, now {e(status_text(approval))}, '
        f"by {reveal_html(approval.answered_by or '')}).{reason}</p>"
    )


def _facts_rows(approval: Approval, facts: ToolFacts | None, repeat: str | None = None) -> str:
    rows = [("API / tool", f"{e(approval.api)} / {e(approval.tool)}")]
    if repeat is not None and approval.repeat_of is not None:
        rows.append(
            ("Repeat", f'<strong class="warn">{e(repeat)}</strong>: <a href="{approval_url(approval.repeat_of)}">'
             "see it before you answer</a>")
        )  # fmt: skip
    if facts is None:
        rows.append(
            ("Request", '<span class="muted">unknown: the tool is not in the documents served now</span>')
        )
    else:
        base = reveal_html(facts.base_url) if facts.base_url else '<span class="muted">(no base URL)</span>'
        rows.append(("Request", f"<code>{e(facts.method)} {reveal_html(facts.path)}</code>"))
        rows.append(("Base URL", f"<code>{base}</code>"))
        if facts.summary:
            rows.append(("What it does", reveal_html(_cut(facts.summary, SUMMARY))))
        rows.append(("Hints", hint_badges(facts)))
    rows.append(("Client", reveal_html(_client(approval))))
    rows.append(("Asked", when(approval.created_at)))
    if approval.status is Status.PENDING:
        rows.append(("Expires", when(approval.expires_at)))
    else:
        rows.append(("Status", f"<strong>{e(status_text(approval))}</strong>"))
        if approval.answered_by:
            rows.append(("Answered", f"{when(approval.answered_at)} by {reveal_html(approval.answered_by)}"))
        if approval.reason:
            rows.append(("Reason", reveal_html(approval.reason)))
        result = approval.result if isinstance(approval.result, dict) else {}
        if result.get("status") is not None:
            rows.append(("API answered", f"HTTP {e(result['status'])}"))
    return (
        '<dl class="facts">' + "".join(f"<dt>{name}</dt><dd>{value}</dd>" for name, value in rows) + "</dl>"
    )


def approval_view(
    approval: Approval, facts: ToolFacts | None, csrf: str, *, reason: str = "", repeat: str | None = None
) -> str:
    """One approval: what the call does (a repeat: which approval of the same call came before), its
    values, and (while pending) the two answers."""
    pending = approval.status is Status.PENDING
    parts = [
        f"<h1>{'Approve this call?' if pending else 'Approval'}</h1>",
        _facts_rows(approval, facts, repeat),
    ]
    hidden = hidden_in(_raw_json([approval.arguments, approval.bound]))
    if hidden:
        parts.append(
            f'<p class="warn">These values contain {e(hidden_note(hidden))}; each is marked below.</p>'
        )
    parts.append(f"<h2>Arguments (from the model)</h2>{json_block(approval.arguments, 'arguments')}")
    if approval.bound:
        parts.append(
            "<h2>Bound values (from the config; the model never saw them)</h2>"
            f"{json_block(approval.bound, 'bound')}"
        )
    if pending:
        action = f"/admin/page/{quote(approval.id, safe='')}"
        token = f'<input type="hidden" name="csrf" value="{e(csrf)}">'
        parts.append(
            '<div class="answer">'
            f'<form method="post" action="{action}/approve">{token}'
            '<button type="submit" class="approve">Approve and send</button></form>'
            f'<form method="post" action="{action}/reject" class="reject">{token}'
            '<fieldset class="reject"><legend>Reject</legend>'
            '<label for="reason">Reason (the agent reads it to redraft the call)</label>'
            f'<textarea id="reason" name="reason" required maxlength="2000" rows="3">{e(reason)}</textarea>'
            '<button type="submit" class="reject">Reject with this reason</button></fieldset></form>'
            "</div>"
        )
    parts.append('<p><a href="/admin/">All pending approvals</a></p>')
    return "".join(parts)


def sign_in_view(token: str, message: str = "", next_path: str = "", *, oidc: bool = False) -> str:
    # A link, not a form: the page's `form-action 'self'` would stop a form's redirect to the provider.
    target = "/admin/sign-in/oidc" + (f"?{urlencode({'next': next_path})}" if next_path else "")
    single = (
        f'<p><a class="signin" href="{e(target)}"><strong>Sign in with your company account</strong></a></p>'
        '<p class="muted">or with an admin key:</p>'
        if oidc
        else ""
    )
    return (
        "<h1>Sign in</h1>"
        + (f'<p class="error">{e(message)}</p>' if message else "")
        + single
        + '<form method="post" action="/admin/sign-in">'
        f'<input type="hidden" name="csrf" value="{e(token)}">'
        + (f'<input type="hidden" name="next" value="{e(next_path)}">' if next_path else "")
        + '<p><label>Admin key <input type="password" name="key" autocomplete="off" required></label></p>'
        '<button type="submit" class="approve">Sign in</button></form>'
    )
